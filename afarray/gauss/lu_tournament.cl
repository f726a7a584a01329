// Tournament pivoting for the blocked LU's panel (CALU: Grigori, Demmel
// and Xiang, "CALU: a communication optimal LU factorization algorithm",
// SIAM J. Matrix Anal. Appl. 32, 2011), two launches per panel of NB
// columns (besides the GEMM) instead of a grid-wide barrier per column:
//
//   lu_tsel           one launch per panel for the whole tree: each
//                     work-group takes up to TL*RPI rows of the panel
//                     A[k:N, k:k+NB) (a leaf), RPI rows per work-item in
//                     registers, and runs Gaussian elimination with partial
//                     pivoting on them with local barriers only; the NB rows
//                     it picks (in order) are its candidates. The last group
//                     of TL*RPI/NB siblings to finish (an atomic counter per
//                     parent) goes on to their parent node: the same on the
//                     stacked candidates (their original rows, read again
//                     from A), up to the root, whose picks are the panel's
//                     pivot rows, in order, and whose eliminated rows are
//                     exactly L11 \ U11 of those rows, which it leaves in F
//                     (with the original rows k..k+NB-1 of the panel in S);
//                     lu_tsel2 (two rows per item) where that makes the tree
//                     shorter (lu_tournament.go, panelRows);
//   lu_tapply         one launch: the row exchanges and U12 = L11^-1 A12 on
//                     every column outside the panel (lu_swap_trsm's work),
//                     and on the panel's columns L11\U11 from F and
//                     L21 = A21 U11^-1 for the rows below (no pivoting);
//   update            A22 -= L21 U12, the dense core's GEMM (lu.go).
//
// The pivots are not those of partial pivoting beyond each panel's first
// column, but the factorization is as stable in practice (the paper's
// experiments; the growth factor is bounded, if more loosely); LU.Pivoting
// keeps exact partial pivoting available.
//
// TL, the work-group size of lu_tsel (a multiple of 16 and at least 2 NB),
// comes from the Go side with NB.

#ifndef TL
#define TL 256
#endif
#define TPARTS 16

// lu_tsel (the tournament of one panel) is generated per block size by
// tselSource in lu_tournament.go: each work-item keeps its rows in NB
// scalar registers each, every column step written out, so that no compiler
// has to be trusted to unroll a loop of barriers (NVIDIA's did not, and
// the rows went to memory: 3.4 us per step on an H100). These are its
// pieces.

// tsel_argmax finds the largest magnitude among the group's candidates
// (rv, ri: -1 for none) in two rounds: TPARTS items scan TL/TPARTS entries
// each, strided so that neighbouring items read neighbouring banks, then
// every item scans the TPARTS partial results (one broadcast read each).
inline void tsel_argmax(const int t, __local const double *rv, __local const int *ri, __local double *pv,
                        __local int *px, double *best, int *prow) {
	barrier(CLK_LOCAL_MEM_FENCE);
	if (t < TPARTS) {
		double b = -1.0;
		int bi = -1;
		for (int s = t; s < TL; s += TPARTS)
			if (better(rv[s], ri[s], b, bi)) {
				b = rv[s];
				bi = ri[s];
			}
		pv[t] = b;
		px[t] = bi;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	double b = -1.0;
	int bi = -1;
	for (int s = 0; s < TPARTS; ++s)
		if (better(pv[s], px[s], b, bi)) {
			b = pv[s];
			bi = px[s];
		}
	*best = b;
	*prow = bi;
}

// lu_tapply finishes a tournament panel in one launch. Its first Gc groups
// take one column each outside the panel (swap_trsm_column up to cend); the others one
// panel row r >= k each: rows k..k+NB-1 receive L11\U11 from F, a row below
// receives L21's row, the solution of x U11 = (its row after the exchanges).
// Exchanges only move rows into the block k..k+NB-1 and out of it, so the
// row that lands at r >= k+NB is r itself or one of the block's original
// rows (S): nothing this launch writes is read by another of its items.
__kernel void lu_tapply(const int N, const int k, const int cend, const int Gc, __global double *A, __global const int *ipiv,
                        __global const double *F, __global const double *S, __local double *Fl) {
	__local int lpiv[NB], pdst[2 * NB], psrc[2 * NB];
	const int li = get_local_id(0), n_li = get_local_size(0), g = get_group_id(0);
	for (int x = li; x < NB * NB; x += n_li)
		Fl[x] = F[x];
	swap_plan(k, ipiv, lpiv, pdst, psrc); // (its barriers cover Fl too)
	if (g < Gc) {
		const int gc = g * n_li + li;
		if (gc < N - NB)
			swap_trsm_column(N, k, cend, gc < k ? gc : gc + NB, A, pdst, psrc, Fl);
		return;
	}
	const int r = k + (g - Gc) * n_li + li;
	if (r >= N)
		return;
	if (r < k + NB) {
		for (int q = 0; q < NB; ++q)
			A[IDX(r, k + q)] = Fl[(r - k) * NB + q];
		return;
	}
	int src = r;
	for (int i = NB - 1; i >= 0; --i) {
		const int a = k + i, b = lpiv[i];
		if (src == a)
			src = b;
		else if (src == b)
			src = a;
	}
	double x[NB];
	TRSM_UNROLL
	for (int q = 0; q < NB; ++q)
		x[q] = src >= k + NB ? A[IDX(src, k + q)] : S[(src - k) * NB + q];
	// A zero pivot was recorded by the last node; its column is left
	// unscaled (the factorization then fails with the column) so that
	// nothing divides by zero.
	//
	// Row after row of U11 (as in swap_trsm_column: the same operations
	// per entry as the dot product, a dependent chain of NB steps).
	TRSM_UNROLL
	for (int i = 0; i < NB; ++i) {
		const double d = Fl[i * NB + i];
		if (d != 0.0)
			x[i] /= d;
		TRSM_UNROLL
		for (int j = i + 1; j < NB; ++j)
			x[j] -= x[i] * Fl[i * NB + j];
	}
	TRSM_UNROLL
	for (int q = 0; q < NB; ++q)
		A[IDX(r, k + q)] = x[q];
}
