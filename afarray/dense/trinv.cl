// Triangular solves by an explicit inverse (trinv.go, TrsmInverse): the
// triangle T (order n, column-major, only its uplo triangle read) is
// inverted into W (n x n, leading dimension n, the other triangle zero)
// in 1 + 2 * levels launches, and the right-hand sides are then multiplied
// by op(W) with the tuned GEMM. Defined by the build: T (element type),
// PB (diagonal blocks inverted in local memory, <= 64).

#define TILD (PB + 1)

// trinv_prep: groups 0..ntri-1 each invert one PB-wide diagonal block of
// the triangle into W; the next groups fill the rest of W (the triangle's
// entries copied from T, zeros in the other triangle), TG rows by
// TRINV_CC columns each; the last ones copy B (crows x ccols, leading
// dimension ldb) to S (leading dimension crows) the same way, so that the
// GEMM of the solve can read B's values while it overwrites B. Copies
// load TRINV_CV words before storing them: a store to W or S might alias
// the loads as far as the compiler knows, so a loop of load-store pairs
// waits for each load in turn (the first form, with a whole block column
// filled by its inverting group, spent 120-180 us per launch in that
// wait on an H100).
//
// A diagonal block is inverted the way a substitution would solve with it:
// as the matrix M of the vector problem (M = T, or T^T with transM, as in
// trsm.cl), column by column, so that inv(M) has the residual property of
// substitution in the direction the vectors are solved. An upper M is
// reversed (J M J, lower) on the way into local memory and its inverse
// reversed back on the way out, so one forward loop serves both. Item l
// holds the rows q, q+4, q+8, ... (q = l / PB) of column j = l % PB of the
// inverse in registers; per step k the owner of row k finishes x[k],
// publishes it in local memory (two slots by parity: one barrier per
// step) and every item updates its rows below k.
#define TG (4 * PB)
#define TR (PB / 4)
#define TRINV_CC 32
#define TRINV_CV 8

// trinv_copy copies (fill 0) or fills (fill 1: rows of W) the columns
// c0..c1-1 of row r.
inline void trinv_copy(int fill, int r, int c0, int c1, int n, int lowerT,
                       __global const T *src, long lds, __global T *dst, long ldd) {
	for (int c = c0; c < c1; c += TRINV_CV) {
		T v[TRINV_CV];
#pragma unroll
		for (int u = 0; u < TRINV_CV; u++) {
			int cc = c + u;
			v[u] = (T)0;
			if (cc < c1 && (!fill || (lowerT ? r > cc : r < cc))) v[u] = src[r + lds * cc];
		}
#pragma unroll
		for (int u = 0; u < TRINV_CV; u++) {
			int cc = c + u;
			if (cc < c1 && (!fill || r / PB != cc / PB)) dst[r + ldd * cc] = v[u];
		}
	}
}

__kernel __attribute__((reqd_work_group_size(TG, 1, 1)))
void trinv_prep(int n, int lowerT, int transM, int unit,
                __global const T *Tm, long offt, int ldt, __global T *W, int ntri,
                int crows, int ccols, __global const T *B, long offb, int ldb, long offs) {
	__local T L[PB * TILD];
	__local T XK[2 * PB];
	int l = get_local_id(0);
	int g = get_group_id(0);
	Tm += offt;
	if (g >= ntri) {
		int cg = g - ntri;
		int wt = (n + TG - 1) / TG, nw = wt * ((n + TRINV_CC - 1) / TRINV_CC);
		if (cg < nw) {
			int r = (cg % wt) * TG + l, c0 = (cg / wt) * TRINV_CC;
			if (r < n) trinv_copy(1, r, c0, min(n, c0 + TRINV_CC), n, lowerT, Tm, ldt, W, n);
			return;
		}
		cg -= nw;
		int rt = (crows + TG - 1) / TG;
		int r = (cg % rt) * TG + l, c0 = (cg / rt) * TRINV_CC;
		if (r < crows) trinv_copy(0, r, c0, min(ccols, c0 + TRINV_CC), n, lowerT, B + offb, ldb, W + offs, crows);
		return;
	}
	int r0 = g * PB, nbb = min(PB, n - r0);
	int lowerM = lowerT != transM;
	// L(li, lk) = M'(li, lk), M' = M's diagonal block (reversed when M is
	// upper), padded to PB with the identity. (a, b) runs down T's columns.
	for (int e = l; e < PB * PB; e += TG) {
		int a = e % PB, b = e / PB;
		int li = a, lk = b;
		T v = a == b ? (T)1 : (T)0;
		if (a < nbb && b < nbb) {
			v = Tm[r0 + a + (long)ldt * (r0 + b)];
			int p = transM ? b : a, q = transM ? a : b;
			li = lowerM ? p : nbb - 1 - p;
			lk = lowerM ? q : nbb - 1 - q;
		}
		L[li + TILD * lk] = v;
	}
	int j = l % PB, q = l / PB;
	T x[TR];
#pragma unroll
	for (int t = 0; t < TR; t++) x[t] = q + 4 * t == j ? (T)1 : (T)0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int k = 0; k < PB; k++) {
		if (q == (k & 3)) {
			T v = (T)0;
#pragma unroll
			for (int t = 0; t < TR; t++)
				if (t == (k >> 2)) v = x[t];
			if (!unit) v /= L[k + TILD * k];
#pragma unroll
			for (int t = 0; t < TR; t++)
				if (t == (k >> 2)) x[t] = v;
			XK[(k & 1) * PB + j] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		T xk = XK[(k & 1) * PB + j];
#pragma unroll
		for (int t = 0; t < TR; t++)
			if (q + 4 * t > k) x[t] -= L[q + 4 * t + TILD * k] * xk;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
	for (int t = 0; t < TR; t++) L[q + 4 * t + TILD * j] = x[t];
	barrier(CLK_LOCAL_MEM_FENCE);
	// W's diagonal block: inv(T block)(a, b) = inv(M block)(p, q).
	for (int e = l; e < nbb * nbb; e += TG) {
		int a = e % nbb, b = e / nbb;
		int p = transM ? b : a, qq = transM ? a : b;
		int li = lowerM ? p : nbb - 1 - p, lk = lowerM ? qq : nbb - 1 - qq;
		W[r0 + a + (long)n * (r0 + b)] = L[li + TILD * lk];
	}
}

// trinv_level: one level of the blocked inversion, for every pair of
// adjacent diagonal blocks of order s already inverted (the first, F, at
// rows 2sp.., the second, G, after it, possibly shorter at the end):
//   lower, T = [A 0; C D]: inv(T) = [inv A, 0; -inv D C inv A, inv D]
//   upper, T = [A B; 0 D]: inv(T) = [inv A, -inv A B inv D; 0, inv D]
// in two steps (launches): step 0 puts the off-diagonal block O (C or B,
// still T's values) times the inverse on its right into tmp_p (leading
// dimension s, at p*s*s); step 1 overwrites O with minus the inverse on
// its left times tmp_p. Each work-group computes a TT x TT tile with
// 16 x 16 items of 2 x 2 elements, through KT-deep slices in local memory;
// the depth runs only over the triangular factor's nonzero part for the
// tile. Small tiles, because these products are small (s <= n/2) and
// their time is the depth of one item's loop, not the arithmetic.
#define TT 32
#define TKT 16
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void trinv_level(int n, int s, int step, int upper, T alpha, __global T *W, long offtmp) {
	__global T *tmp = W + offtmp;
	__local T As[TKT * TT];
	__local T Bs[TKT * TT];
	int p = get_group_id(2);
	int f0 = 2 * s * p, g0 = f0 + s, s2 = min(s, n - g0);
	__global T *tp = tmp + (long)p * s * s;
	__global const T *A, *B;
	__global T *C;
	int M, N, K, lda, ldb, ldc;
	int i0 = get_group_id(0) * TT, j0 = get_group_id(1) * TT;
	int k0, k1;
	if (!upper && step == 0) {
		// tmp = C inv(A): s2 x s, inv(A) lower
		M = s2; N = s; K = s;
		A = W + g0 + (long)n * f0; lda = n;
		B = W + f0 + (long)n * f0; ldb = n;
		C = tp; ldc = s;
		k0 = j0; k1 = K;
	} else if (!upper) {
		// C = -inv(D) tmp: s2 x s, inv(D) lower
		M = s2; N = s; K = s2;
		A = W + g0 + (long)n * g0; lda = n;
		B = tp; ldb = s;
		C = W + g0 + (long)n * f0; ldc = n;
		k0 = 0; k1 = min(K, i0 + TT);
	} else if (step == 0) {
		// tmp = B inv(D): s x s2, inv(D) upper
		M = s; N = s2; K = s2;
		A = W + f0 + (long)n * g0; lda = n;
		B = W + g0 + (long)n * g0; ldb = n;
		C = tp; ldc = s;
		k0 = 0; k1 = min(K, j0 + TT);
	} else {
		// B = -inv(A) tmp: s x s2, inv(A) upper
		M = s; N = s2; K = s;
		A = W + f0 + (long)n * f0; lda = n;
		B = tp; ldb = s;
		C = W + f0 + (long)n * g0; ldc = n;
		k0 = i0; k1 = K;
	}
	if (i0 >= M || j0 >= N) return;
	int tx = get_local_id(0), ty = get_local_id(1), l = tx + 16 * ty;
	T acc[2][2] = {{0, 0}, {0, 0}};
	for (int kk = k0; kk < k1; kk += TKT) {
		for (int e = l; e < TKT * TT; e += 256) {
			int r = e % TT, c = e / TT; // A: row i0+r, depth kk+c
			As[c * TT + r] = (i0 + r < M && kk + c < k1) ? A[i0 + r + (long)lda * (kk + c)] : (T)0;
			int kr = e % TKT, cc = e / TKT; // B: depth kk+kr, column j0+cc
			Bs[kr * TT + cc] = (j0 + cc < N && kk + kr < k1) ? B[kk + kr + (long)ldb * (j0 + cc)] : (T)0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
		for (int k = 0; k < TKT; k++) {
			T a0 = As[k * TT + tx], a1 = As[k * TT + tx + 16];
			T b0 = Bs[k * TT + ty], b1 = Bs[k * TT + ty + 16];
			acc[0][0] += a0 * b0; acc[0][1] += a0 * b1;
			acc[1][0] += a1 * b0; acc[1][1] += a1 * b1;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
#pragma unroll
	for (int u = 0; u < 2; u++)
#pragma unroll
		for (int v = 0; v < 2; v++) {
			int i = i0 + tx + 16 * u, j = j0 + ty + 16 * v;
			if (i < M && j < N) C[i + (long)ldc * j] = alpha * acc[u][v];
		}
}

// trinv_maxabs raises the int at flag[slot] to the float bits of the
// largest magnitude in W[0..nn-1] (TrsmInverse's guard): an entry is
// converted to float (a magnitude beyond FLT_MAX becomes +Inf) and its
// bits, of a non-negative float, compared as ints, which orders them as
// the values (a NaN, whose fabs has the sign bit clear, above +Inf), so
// one atomic_max per group keeps the maximum over groups and calls. The
// group size is the launch's (a power of two, the size of red).
__kernel void trinv_maxabs(long nn, __global const T *W, __global int *flag, int slot, __local int *red) {
	int l = get_local_id(0), ls = get_local_size(0);
	int m = 0;
	for (long e = get_global_id(0); e < nn; e += get_global_size(0))
		m = max(m, as_int((float)fabs(W[e])));
	red[l] = m;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int h = ls / 2; h > 0; h >>= 1) {
		if (l < h) red[l] = max(red[l], red[l + h]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0) atomic_max(flag + slot, red[0]);
}
