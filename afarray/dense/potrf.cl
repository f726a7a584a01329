// Cholesky factorization of small blocks, A = L L^T with L in the lower
// triangle (the strict upper triangle is neither read nor written). A
// non-positive (or NaN) pivot at column j records col0 + j in *info with
// atomic_min, so the first failing column of a whole blocked factorization
// survives, and leaves the pivot's value on the diagonal instead of its
// square root; the rest of the factor is then meaningless.

// CHOL_STEPS factors the nb x nb matrix D (leading dimension LD) in place
// with the PL items of one work-group, right-looking, one column per step.
// FENCE is the barrier's fence for D's address space.
#define CHOL_STEPS(D, LD, FENCE)                                                   \
	for (int p = 0; p < nb; p++) {                                                 \
		T d = D[p + (LD) * p];                                                     \
		int bad = !(d > (T)0);                                                     \
		T s = sqrt(d);                                                             \
		if (bad && l == 0) atomic_min(info, col0 + p);                             \
		for (int i = p + 1 + l; i < nb; i += PL) D[i + (LD) * p] /= s;             \
		barrier(FENCE);                                                            \
		if (l == 0) D[p + (LD) * p] = bad ? d : s;                                 \
		int m = nb - p - 1;                                                        \
		for (int e = l; e < m * m; e += PL) {                                      \
			int r = e % m, c = e / m;                                              \
			if (r >= c) D[(p + 1 + r) + (LD) * (p + 1 + c)] -= D[(p + 1 + r) + (LD) * p] * D[(p + 1 + c) + (LD) * p]; \
		}                                                                          \
		barrier(FENCE);                                                            \
	}

#if PB == 64 && PL == 256
// chol64 factors the nb x nb (nb <= 64) lower triangle at A in registers
// with the 256 items of one work-group: item (tx, ty) = (l % 16, l / 16)
// keeps a[i][j], the element (tx + 16i, ty + 16j), for all nb steps.
// Elements outside the triangle stay 0. Each step takes two columns: the
// owners of columns p and p+1 publish them in local memory (double-
// buffered: one barrier per step), and after the barrier every item
// finishes column p+1 itself (its update by column p) from the published
// words, then updates its own elements with both columns.
//
// On an H100 a blocked Potrf spent 54 of 174 ms (n = 16384) in its
// diagonal blocks when their leaves ran the local-memory form (CHOL_STEPS:
// two barriers and m*m/PL integer divisions per step). One column per step
// in registers (one barrier, 16 multiply-adds per item and step) brought
// the block columns of n = 16384 to 35.0 ms; two columns per step (half the
// barriers and local-memory round trips, two reciprocal square roots one
// after the other per step) to 32.0 ms (the run behind commit 57d885f,
// 1024-column blocks, look-ahead). In a later run (main at 9fe39c7) the
// whole Potrf of n = 16384 took 92.7 ms on the H100, 15.8 TFLOP/s
// (cuSOLVER's potrf 65.9 ms, 22.2 TFLOP/s, in the same call).
inline void chol64(int nb, __global const T *A, int lda, int col0, __global int *info, int l,
                   __local T (*col)[64], T a[4][4]) {
	const int tx = l & 15, ty = l >> 4;
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) {
			int r = tx + 16 * i, c = ty + 16 * j;
			a[i][j] = (r < nb && c < nb && r >= c) ? A[r + (long)lda * c] : (T)0;
		}
	for (int p = 0; p < nb; p += 2) {
		__local T *c0 = col[2 * ((p >> 1) & 1)], *c1 = col[2 * ((p >> 1) & 1) + 1];
		// columns p and p + 1 (<= 63: p is even and below 64); beyond nb
		// the elements are zeros
		if (ty == (p & 15) || ty == ((p + 1) & 15)) {
			__local T *cp = ty == (p & 15) ? c0 : c1;
			int jp = ty == (p & 15) ? p >> 4 : (p + 1) >> 4;
#pragma unroll
			for (int j = 0; j < 4; j++)
				if (j == jp)
#pragma unroll
					for (int i = 0; i < 4; i++)
						cp[tx + 16 * i] = a[i][j];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		int has1 = p + 1 < nb;
		T d0 = c0[p];
		int bad0 = !(d0 > (T)0);
		T s0 = sqrt(d0), inv0 = rsqrt(d0);
		T l10 = c0[p + 1] * inv0; // L(p+1, p)
		T d1 = c1[p + 1] - l10 * l10;
		int bad1 = has1 && !(d1 > (T)0);
		T s1 = sqrt(d1), inv1 = has1 ? rsqrt(d1) : (T)0;
		if (l == 0) {
			if (bad0) atomic_min(info, col0 + p);
			if (bad1) atomic_min(info, col0 + p + 1);
		}
		T lr0[4], lc0[4], lr1[4], lc1[4];
#pragma unroll
		for (int i = 0; i < 4; i++) {
			lr0[i] = c0[tx + 16 * i] * inv0;
			lc0[i] = c0[ty + 16 * i] * inv0;
			lr1[i] = (c1[tx + 16 * i] - lr0[i] * l10) * inv1;
			lc1[i] = (c1[ty + 16 * i] - lc0[i] * l10) * inv1;
		}
#pragma unroll
		for (int i = 0; i < 4; i++)
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int r = tx + 16 * i, c = ty + 16 * j;
				if (c == p && r > p) a[i][j] = lr0[i];
				else if (c == p && r == p) a[i][j] = bad0 ? d0 : s0;
				else if (c == p + 1 && r > p + 1) a[i][j] = lr1[i];
				else if (c == p + 1 && r == p + 1) a[i][j] = bad1 ? d1 : s1;
				else if (c > p + 1 && r >= c) a[i][j] = fma(-lr1[i], lc1[j], fma(-lr0[i], lc0[j], a[i][j]));
			}
	}
}

// potrf_panel factors a block column of nb <= 64 columns in one launch:
// its nb x nb diagonal block at A + off and the rows [nb, rows) below it,
// L21 = A21 L11^-T. Every work-group factors the diagonal block itself in
// registers (a few microseconds: no group waits for another, so the
// factorization and the solve below it are one launch instead of a chain
// of small ones). The group that loads it last stores it: each group
// counts itself in *count (zero before the launch) once it has read the
// block (count[ci], this launch's own counter), so the one that counts last knows no other group still reads it
// (no group ever waits for another). Then each item solves one row of the
// panel, its nb values in registers, right-looking with the factor read
// from local memory (the same word for every item: a broadcast).
__kernel __attribute__((reqd_work_group_size(PL, 1, 1)))
void potrf_panel(int nb, int rows, __global T *A, long off, int lda, int col0, __global int *info,
                 __global int *count, long ci) {
	__local T col[4][64];
	__local T Lf[64 * 65]; // the factor, Lf[r + 65 c]; its diagonal holds reciprocals
	__local int last;
	int l = get_local_id(0);
	A += off;
	const int tx = l & 15, ty = l >> 4;
	T a[4][4];
	chol64(nb, A, lda, col0, info, l, col, a);
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); // every item's reads of the block are done
	if (l == 0) last = atomic_inc(count + ci) == (int)get_num_groups(0) - 1;
	barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) {
			int r = tx + 16 * i, c = ty + 16 * j;
			Lf[r + 65 * c] = r == c ? (T)1 / a[i][j] : a[i][j];
			if (last && r < nb && c < nb && r >= c) A[r + (long)lda * c] = a[i][j];
		}
	barrier(CLK_LOCAL_MEM_FENCE);
	int r = nb + get_group_id(0) * PL + l;
	if (r >= rows) return;
	__global T *row = A + r;
	T x[64];
#pragma unroll
	for (int c = 0; c < 64; c++) x[c] = c < nb ? row[(long)lda * c] : (T)0;
#pragma unroll
	for (int c = 0; c < 64; c++) {
		if (c < nb) {
			x[c] *= Lf[c + 65 * c];
#pragma unroll
			for (int q = c + 1; q < 64; q++) x[q] -= x[c] * Lf[q + 65 * c];
		}
	}
#pragma unroll
	for (int c = 0; c < 64; c++)
		if (c < nb) row[(long)lda * c] = x[c];
}
#endif

// potrf_block factors the nb x nb (nb <= PB) diagonal block at A + off in
// local memory with one work-group.
__kernel __attribute__((reqd_work_group_size(PL, 1, 1)))
void potrf_block(int nb, __global T *A, long off, int lda, int col0, __global int *info) {
	int l = get_local_id(0);
	A += off;
#if PB == 64 && PL == 256
	__local T col[4][64];
	const int tx = l & 15, ty = l >> 4;
	T a[4][4];
	chol64(nb, A, lda, col0, info, l, col, a);
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++) {
			int r = tx + 16 * i, c = ty + 16 * j;
			if (r < nb && c < nb && r >= c) A[r + (long)lda * c] = a[i][j];
		}
#else
	__local T D[PB * PB];
	for (int e = l; e < nb * nb; e += PL) {
		int r = e % nb, c = e / nb;
		if (r >= c) D[r + PB * c] = A[r + (long)lda * c];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	CHOL_STEPS(D, PB, CLK_LOCAL_MEM_FENCE)
	for (int e = l; e < nb * nb; e += PL) {
		int r = e % nb, c = e / nb;
		if (r >= c) A[r + (long)lda * c] = D[r + PB * c];
	}
#endif
}

// potrf_batched factors problem get_group_id(0), described by
// d[4q..4q+3] = {offset, rows, cols, ld} (square), with one work-group:
// in local memory when its order is at most PB, else in place in global
// memory. infos[q] receives the first failing column or INT_MAX.
__kernel __attribute__((reqd_work_group_size(PL, 1, 1)))
void potrf_batched(__global T *A, __global const long *d, __global int *infos) {
	__local T Dl[PB * PB];
	int q = get_group_id(0), l = get_local_id(0);
	int nb = (int)d[4 * q + 1];
	long lda = d[4 * q + 3];
	__global T *a = A + d[4 * q];
	__global int *info = infos + q;
	int col0 = 0;
	if (l == 0) *info = INT_MAX;
	barrier(CLK_GLOBAL_MEM_FENCE);
	if (nb <= PB) {
		for (int e = l; e < nb * nb; e += PL) {
			int r = e % nb, c = e / nb;
			if (r >= c) Dl[r + PB * c] = a[r + lda * c];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		CHOL_STEPS(Dl, PB, CLK_LOCAL_MEM_FENCE)
		for (int e = l; e < nb * nb; e += PL) {
			int r = e % nb, c = e / nb;
			if (r >= c) a[r + lda * c] = Dl[r + PB * c];
		}
	} else {
		CHOL_STEPS(a, lda, CLK_GLOBAL_MEM_FENCE)
	}
}
