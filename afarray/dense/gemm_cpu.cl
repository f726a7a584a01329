// Packed matrix product for CPU devices (PoCL), column-major, built per
// floating type T and per geometry:
//   MR x NR  the block of C one work-item keeps in vector registers (MR a
//            multiple of 8: MR/8 vectors of 8 per column of the block),
//   KC       the depth of one launch of gemm_cpu (a cache block),
//   GX x GY  the work-items of a group.
//
// PoCL runs a work-group as a loop over its work-items on one thread, with
// local memory as ordinary memory and barriers splitting that loop, so the
// GPU kernel's local tiles only add copies there. This form is the one of
// CPU BLAS libraries instead: op(A) and op(B) are first copied (pack_a,
// pack_b) into panels laid out in the order the micro-kernel reads them, so
// every transposition becomes the same contiguous stream and the edges are
// padded with zeros; then each gemm_cpu launch multiplies one KC-deep slice.
// Its items of a group run x fastest, so GX consecutive items reuse one
// KC x NR panel of op(B) from the L1 cache while they stream GX panels of
// op(A) (GX * MR * KC elements) from the L2 cache.
//
// Packed layout of a chunk of op(A) (rows 0..mc, padded to mp = a multiple
// of MR, depth 0..k): depth block b (rows p of [b*KC, min(k, (b+1)*KC)), kb
// of them) starts at b*KC*mp, panel q of it (rows q*MR..) at q*MR*kb, and
// element (r, p) of the panel at p*MR + r. op(B) likewise with NR-column
// panels: (p, c) at p*NR + c.

#if (MR % 8) || MR <= 0 || NR <= 0 || KC <= 0
#error "gemm_cpu geometry: MR must be a positive multiple of 8"
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define V CAT(T, 8)
#define MV (MR / 8)

// pack_a: item (q, b) copies rows [q*MR, q*MR+MR) of depth block b of
// op(A) (m x k; A itself when ta == 0, else A is k x m) into Ap. The loops
// run along A's contiguous direction.
__kernel void pack_a(int m, int k, int ta, __global const T *A, long offa, int lda, __global T *Ap) {
	int q = get_global_id(0), b = get_global_id(1);
	int mp = (m + MR - 1) / MR * MR;
	int r0 = q * MR, p0 = b * KC;
	if (r0 >= m || p0 >= k) return;
	int kb = min(KC, k - p0), rows = min(MR, m - r0);
	__global T *d = Ap + (long)p0 * mp + (long)r0 * kb;
	A += offa;
	if (!ta) {
		for (int p = 0; p < kb; p++) {
			__global const T *s = A + r0 + (long)lda * (p0 + p);
			int r = 0;
			for (; r < rows; r++) d[p * MR + r] = s[r];
			for (; r < MR; r++) d[p * MR + r] = 0;
		}
	} else {
		int r = 0;
		for (; r < rows; r++) {
			__global const T *s = A + p0 + (long)lda * (r0 + r);
			for (int p = 0; p < kb; p++) d[p * MR + r] = s[p];
		}
		for (; r < MR; r++)
			for (int p = 0; p < kb; p++) d[p * MR + r] = 0;
	}
}

// pack_b: item (q, b) copies columns [q*NR, q*NR+NR) of depth block b of
// op(B) (k x n; B itself when tb == 0, else B is n x k) into Bp.
__kernel void pack_b(int n, int k, int tb, __global const T *B, long offb, int ldb, __global T *Bp) {
	int q = get_global_id(0), b = get_global_id(1);
	int np = (n + NR - 1) / NR * NR;
	int c0 = q * NR, p0 = b * KC;
	if (c0 >= n || p0 >= k) return;
	int kb = min(KC, k - p0), cols = min(NR, n - c0);
	__global T *d = Bp + (long)p0 * np + (long)c0 * kb;
	B += offb;
	if (!tb) {
		int c = 0;
		for (; c < cols; c++) {
			__global const T *s = B + p0 + (long)ldb * (c0 + c);
			for (int p = 0; p < kb; p++) d[p * NR + c] = s[p];
		}
		for (; c < NR; c++)
			for (int p = 0; p < kb; p++) d[p * NR + c] = 0;
	} else {
		for (int p = 0; p < kb; p++) {
			__global const T *s = B + c0 + (long)ldb * (p0 + p);
			int c = 0;
			for (; c < cols; c++) d[p * NR + c] = s[c];
			for (; c < NR; c++) d[p * NR + c] = 0;
		}
	}
}

// gemm_cpu: C = alpha * op(A)(:, slice) * op(B)(slice, :) + beta * C for
// one packed depth slice of kb (0 <= kb <= KC) rows: Ap and Bp point at the
// slice's blocks (offsets in elements). The first slice passes the
// caller's beta, later ones 1; beta == 0 never reads C. With lower set only
// entries with i + dij >= j are written (dij: C's row offset minus its
// column offset within the whole SYRK output). Item (q, s) owns the MR x NR
// block at rows q*MR, columns s*NR of the m x n chunk of C.
__kernel __attribute__((reqd_work_group_size(GX, GY, 1)))
void gemm_cpu(int m, int n, int kb, T alpha, __global const T *Ap, long offap, __global const T *Bp, long offbp,
              T beta, __global T *C, long offc, int ldc, int lower, int dij) {
	int q = get_global_id(0), s = get_global_id(1);
	int i0 = q * MR, j0 = s * NR;
	if (i0 >= m || j0 >= n || (lower && j0 > i0 + MR - 1 + dij)) return;
	__global const T *ap = Ap + offap + (long)i0 * kb;
	__global const T *bp = Bp + offbp + (long)j0 * kb;
	V acc[MV][NR];
#pragma unroll
	for (int v = 0; v < MV; v++)
#pragma unroll
		for (int c = 0; c < NR; c++) acc[v][c] = (V)0;
	for (int p = 0; p < kb; p++) {
		V av[MV];
#pragma unroll
		for (int v = 0; v < MV; v++) av[v] = *(__global const V *)(ap + p * MR + 8 * v);
#pragma unroll
		for (int c = 0; c < NR; c++) {
			V bv = (V)(bp[p * NR + c]);
#pragma unroll
			for (int v = 0; v < MV; v++) acc[v][c] = fma(av[v], bv, acc[v][c]);
		}
	}
	C += offc + i0 + (long)ldc * j0;
	if (i0 + MR <= m && j0 + NR <= n && !(lower && j0 + NR - 1 > i0 + dij)) {
#pragma unroll
		for (int c = 0; c < NR; c++) {
#pragma unroll
			for (int v = 0; v < MV; v++) {
				__global T *cc = C + (long)ldc * c + 8 * v;
				V r = alpha * acc[v][c];
				if (beta != (T)0) r += beta * vload8(0, cc);
				vstore8(r, 0, cc);
			}
		}
		return;
	}
	// An edge block (or one the diagonal crosses): element by element.
	for (int c = 0; c < NR && j0 + c < n; c++) {
		T col[MR];
#pragma unroll
		for (int v = 0; v < MV; v++) vstore8(alpha * acc[v][c], v, col);
		for (int r = 0; r < MR && i0 + r < m; r++) {
			if (lower && i0 + r + dij < j0 + c) continue;
			long o = r + (long)ldc * c;
			C[o] = beta == (T)0 ? col[r] : col[r] + beta * C[o];
		}
	}
}
