// Tournament pivoting for the blocked LU's panel (CALU: Grigori, Demmel
// and Xiang, "CALU: a communication optimal LU factorization algorithm",
// SIAM J. Matrix Anal. Appl. 32, 2011), a handful of launches per panel of
// NB columns instead of a grid-wide barrier per column:
//
//   lu_tsel   (leaf)  each work-group takes up to TL rows of the panel
//                     A[k:N, k:k+NB), one row per work-item in registers, and
//                     runs Gaussian elimination with partial pivoting on
//                     them with local barriers only; the NB rows it picks
//                     (in order) are its candidates;
//   lu_tsel   (tree)  the same on the stacked candidates of TL/NB groups
//                     (their original rows, read again from A), until one
//                     group is left; that last node's picks are the panel's
//                     pivot rows, in order, and its eliminated rows are
//                     exactly L11 \ U11 of those rows, which it leaves in F
//                     (with the original rows k..k+NB-1 of the panel in S);
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
#define TPARTS ((TL + 15) / 16)

#ifdef GAUSS_GPU
#define TSEL_UNROLL _Pragma("unroll")
#else
#define TSEL_UNROLL
#endif

// lu_tsel: one node level of the tournament. Group g takes the rows
// e = g*R .. g*R+R-1 (e < nin) of its input: rows k+e of A for the leaf
// level, cin[e] otherwise (-1 is no row: a leaf block shorter than NB
// leaves a few). It writes its NB picks to cout[g*NB..] (-1 where it ran
// out of rows), or, when it is the last node (fin), the pivot rows to
// pivrow[k..], LAPACK's exchanges to ipiv[k..], the factors of the pivot
// rows to F (NB x NB, L\U row-major) and A's rows k..k+NB-1 of the panel to
// S; a pivot of magnitude at most tol records its column in status.
//
// Zero columns: when every remaining row is zero in column j the row with
// the smallest index is picked and nothing is eliminated, as LAPACK does.
__kernel __attribute__((reqd_work_group_size(TL, 1, 1)))
void lu_tsel(const int N, const int k, const int leaf, const int nin, const int R, const int fin,
             __global const double *A, __global const int *cin, __global int *cout,
             __global int *pivrow, __global int *ipiv, __global double *F, __global double *S,
             __global int *status, const double tol) {
	__local double rv[TL];
	__local int ri[TL];
	__local double pv[TPARTS];
	__local int px[TPARTS];
	__local double urow[NB];
	__local int sel[NB];
	__local double selv[NB];
	const int t = get_local_id(0), g = get_group_id(0);
	const int e = g * R + t;
	int row = -1;
	if (t < R && e < nin)
		row = leaf ? k + e : cin[e];
	double v[NB];
	TSEL_UNROLL
	for (int q = 0; q < NB; ++q)
		v[q] = row >= 0 ? A[IDX(row, k + q)] : 0.0;
	int won = -1;
	TSEL_UNROLL
	for (int j = 0; j < NB; ++j) {
		// The largest magnitude of column j among the rows not yet picked
		// (ties to the smaller row), in two rounds of 16.
		const bool live = row >= 0 && won < 0;
		rv[t] = live ? magnitude(v[j]) : -1.0;
		ri[t] = live ? row : -1;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (t < TPARTS) {
			double b = -1.0;
			int bi = -1;
			for (int s = t * 16; s < min(t * 16 + 16, TL); ++s)
				if (better(rv[s], ri[s], b, bi)) {
					b = rv[s];
					bi = ri[s];
				}
			pv[t] = b;
			px[t] = bi;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		double best = -1.0;
		int prow = -1;
		for (int s = 0; s < TPARTS; ++s)
			if (better(pv[s], px[s], best, prow)) {
				best = pv[s];
				prow = px[s];
			}
		if (live && row == prow) {
			won = j;
			TSEL_UNROLL
			for (int q = j; q < NB; ++q)
				urow[q] = v[q];
		}
		if (t == 0) {
			sel[j] = prow;
			selv[j] = best;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const double d = prow >= 0 ? urow[j] : 0.0;
		if (row >= 0 && won < 0 && d != 0.0) {
			const double l = v[j] / d;
			v[j] = l;
			TSEL_UNROLL
			for (int q = j + 1; q < NB; ++q)
				v[q] -= l * urow[q];
		}
	}
	// (No return before this barrier: PoCL miscompiles one between
	// barriers, even a uniform one.)
	barrier(CLK_LOCAL_MEM_FENCE);
	if (!fin) {
		for (int j = t; j < NB; j += TL)
			cout[g * NB + j] = sel[j];
		return;
	}
	// The last node: a picked row holds multipliers left of its step and U
	// from it on, row won of L11\U11.
	if (won >= 0) {
		TSEL_UNROLL
		for (int q = 0; q < NB; ++q)
			F[won * NB + q] = v[q];
	}
	for (int x = t; x < NB * NB; x += TL)
		S[x] = A[IDX(k + x / NB, k + x % NB)];
	if (t == 0) {
		for (int j = 0; j < NB; ++j) {
			pivrow[k + j] = sel[j];
			if (!(selv[j] > tol))
				atomic_min(status, k + j);
		}
		pivots_to_exchanges(k, pivrow, ipiv);
	}
}

// swap_trsm_column is lu_swap_trsm's work on column c (outside the panel):
// the panel's row exchanges, then, right of the panel, U12 = L11^-1 A12
// with the unit lower triangle of L11 (NB x NB row-major, local memory).
inline void swap_trsm_column(const int N, const int k, const int c, __global double *A, __global const int *ipiv,
                             __local const double *L11) {
	for (int i = k; i < k + NB; ++i) {
		const int pr = ipiv[i];
		if (pr != i) {
			const double t = A[IDX(i, c)];
			A[IDX(i, c)] = A[IDX(pr, c)];
			A[IDX(pr, c)] = t;
		}
	}
	if (c < k)
		return;
	double x[NB];
	TRSM_UNROLL
	for (int i = 0; i < NB; ++i) {
		double v = A[IDX(k + i, c)];
		TRSM_UNROLL
		for (int j = 0; j < i; ++j)
			v -= L11[i * NB + j] * x[j];
		x[i] = v;
		A[IDX(k + i, c)] = v;
	}
}

// lu_tapply finishes a tournament panel in one launch. Its first Gc groups
// take one column each outside the panel (swap_trsm_column); the others one
// panel row r >= k each: rows k..k+NB-1 receive L11\U11 from F, a row below
// receives L21's row, the solution of x U11 = (its row after the exchanges).
// Exchanges only move rows into the block k..k+NB-1 and out of it, so the
// row that lands at r >= k+NB is r itself or one of the block's original
// rows (S): nothing this launch writes is read by another of its items.
__kernel void lu_tapply(const int N, const int k, const int Gc, __global double *A, __global const int *ipiv,
                        __global const double *F, __global const double *S, __local double *Fl) {
	const int li = get_local_id(0), n_li = get_local_size(0), g = get_group_id(0);
	for (int x = li; x < NB * NB; x += n_li)
		Fl[x] = F[x];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (g < Gc) {
		const int gc = g * n_li + li;
		if (gc < N - NB)
			swap_trsm_column(N, k, gc < k ? gc : gc + NB, A, ipiv, Fl);
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
		const int a = k + i, b = ipiv[k + i];
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
	TRSM_UNROLL
	for (int j = 0; j < NB; ++j) {
		double s = x[j];
		TRSM_UNROLL
		for (int i = 0; i < j; ++i)
			s -= x[i] * Fl[i * NB + j];
		const double d = Fl[j * NB + j];
		x[j] = d != 0.0 ? s / d : s;
	}
	TRSM_UNROLL
	for (int q = 0; q < NB; ++q)
		A[IDX(r, k + q)] = x[q];
}
