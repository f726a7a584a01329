// Tournament pivoting for the blocked LU's panel (CALU: Grigori, Demmel
// and Xiang, "CALU: a communication optimal LU factorization algorithm",
// SIAM J. Matrix Anal. Appl. 32, 2011), two launches per panel of NB
// columns (besides the update's GEMM) instead of a grid-wide barrier per
// column:
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
//                     (the leaf of rows k..k+NB-1 leaves them, as A holds
//                     them, in S);
//                     lu_tsel2 (two rows per item) where that makes the tree
//                     shorter (lu_tournament.go, panelRows);
//   lu_tapply         one launch: the row exchanges and U12 = L11^-1 A12 on
//                     every column outside the panel (lu_swap_trsm's work),
//                     and on the panel's columns L11\U11 from F and
//                     L21 = A21 U11^-1 for the rows below (no pivoting);
//   update            A22 -= L21 U12: the dense core's GEMM (lu.go), or
//                     with the update fused (below) that GEMM on the next
//                     panel's columns only and the rest in tile groups of
//                     the next panel's lu_tsel launch.
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

// recip_or_zero is 1/d where both d and 1/d are normal numbers, else 0:
// the caller then divides by d (as LAPACK scales by a reciprocal only
// above the safe minimum).
inline double recip_or_zero(const double d) {
	const double a = fabs(d);
	return a >= DBL_MIN && a <= 1.0 / DBL_MIN ? 1.0 / d : 0.0;
}

// With the update fused (lu_tournament.go, fuseUpdate), panel k's launch
// of lu_tsel also finishes the previous panel's trailing update of the
// columns k+NB..cend-1 (inside the outer block), A[r, c] -= sum_p A[r,
// k-NB+p] A[k-NB+p, c] for the rows r >= k: work-groups launched after
// the leaves (upd), beside the tournament, instead of in the GEMM launch
// between lu_tapply and the next lu_tsel (which then updates only this
// panel's own columns, which the tournament reads). Neither side touches
// what the other reads: the tournament reads the panel's columns, the
// tiles write the columns right of it, and both read the previous
// panel's L21 and U12, which no one writes.
//
// tsel_update_tiles is the tiles' part: tiles of UTR x UTC outputs, each
// item 4 x 4 of them (rows li/16 + UTR/4*a, columns li%16 + 16*b: a warp's
// stores are rows of consecutive columns), the depth NB staged UKC at a
// time (zeros past NB), group gi of ng taking tiles gi, gi+ng, ... Each
// output accumulates fma(L, U, acc) over p in order and is stored as
// A - acc, as the dense core's GEMM (gemm.cl) computes it. It is not
// gemm.cl's tile itself: that one runs in two-dimensional groups of its
// tuned geometry under its own macros (T, MT, NT, ...), and these tiles
// run in lu_tsel's one-dimensional groups of TL items, within its launch.
#define UTR (TL / 4)
#define UTC 64
#define UKC 16
#define UBUF (UTR * UKC + UKC * UTC)
inline void tsel_update_tiles(const int N, const int k, const int cend, __global double *A, __local double *Lt,
                              const int gi, const int ng, const int li) {
	__local double *Ut = Lt + UTR * UKC;
	const int kp = k - NB, c0 = k + NB, tr = (N - k + UTR - 1) / UTR;
	const int tiles = tr * ((cend - c0 + UTC - 1) / UTC), ty = li / 16, tx = li % 16;
	for (int tile = gi; tile < tiles; tile += ng) {
		const int i0 = k + (tile % tr) * UTR, j0 = c0 + (tile / tr) * UTC;
		double acc[4][4];
		TRSM_UNROLL
		for (int a = 0; a < 4; ++a)
			TRSM_UNROLL
			for (int b = 0; b < 4; ++b)
				acc[a][b] = 0.0;
		for (int p0 = 0; p0 < NB; p0 += UKC) {
			for (int x = li; x < UTR * UKC; x += TL) {
				const int r = i0 + x / UKC, p = p0 + x % UKC;
				Lt[x] = r < N && p < NB ? A[IDX(r, kp + p)] : 0.0;
			}
			for (int x = li; x < UKC * UTC; x += TL) {
				const int p = p0 + x / UTC, c = j0 + x % UTC;
				Ut[x] = p < NB && c < cend ? A[IDX(kp + p, c)] : 0.0;
			}
			barrier(CLK_LOCAL_MEM_FENCE);
			TRSM_UNROLL
			for (int p = 0; p < UKC; ++p) {
				double av[4], bv[4];
				TRSM_UNROLL
				for (int a = 0; a < 4; ++a)
					av[a] = Lt[(ty + UTR / 4 * a) * UKC + p];
				TRSM_UNROLL
				for (int b = 0; b < 4; ++b)
					bv[b] = Ut[p * UTC + tx + 16 * b];
				TRSM_UNROLL
				for (int a = 0; a < 4; ++a)
					TRSM_UNROLL
					for (int b = 0; b < 4; ++b)
						acc[a][b] = fma(av[a], bv[b], acc[a][b]);
			}
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		TRSM_UNROLL
		for (int a = 0; a < 4; ++a)
			TRSM_UNROLL
			for (int b = 0; b < 4; ++b) {
				const int r = i0 + ty + UTR / 4 * a, c = j0 + tx + 16 * b;
				if (r < N && c < cend)
					A[IDX(r, c)] = A[IDX(r, c)] - acc[a][b];
			}
	}
}

// lu_tapply finishes a tournament panel in one launch of Gc column groups
// followed by row groups, all of n_li items.
//
// A column group takes n_li columns outside the panel, one per work-item
// (swap_trsm_column up to cend: the exchanges, then U12 = L11^-1 A12).
//
// A row group takes n_li consecutive panel rows r >= k: rows
// k..k+NB-1 receive L11\U11 from F, a row below receives L21's row, the
// solution of x U11 = (its row after the exchanges). Exchanges only move
// rows into the block k..k+NB-1 and out of it, so the row that lands at
// r >= k+NB is r itself or one of the block's original rows (S): nothing
// this launch writes is read by another of its items. The group reads its
// rows' sources into T (n_li x (NB+1) doubles, padded against bank
// conflicts) and writes T back with a warp on consecutive values of a row
// (one item per row would read and write NB scattered values each), and
// U11's diagonal is inverted once per group (rinv), so that each row's
// solve is a chain of multiplications instead of NB dependent divisions
// (LAPACK's dtrsm multiplies by the reciprocal too; the results differ
// from a division's by an ulp at most). On an H100 (2026-11-23, the solves
// then written out) the divisions made the launch 2.5 us longer (18.5 us
// against 16.0 at n = 2048, back to back), so the rows bound it.
//
// W holds the triangle a group solves with (load_shifted: L11's for the
// column groups, U11's for the row groups). Every item of every group
// passes the same barriers (PoCL needs them outside the branches).
//
// Measured on an H100 (2026-11-23, OCLSOLVE_PROFILE, mean device time
// per launch in the factorization, n = 2047 / 8192): 18.6 / 17.7 us before
// (one item per row reading its row, NB divisions, the exchange plan's
// replays and the copy of F as plain loops, every solve written out),
// 15.2 / 15.8 us now (two calls). The cheapest launches, the last
// panels' (exchanges only), became slower: 7.3 / 7.4 us before, 8.4 / 8.9
// now (the row groups' two more barriers and tile, not measured apart).
// Launches of a few microseconds' work take 7-9 us there (trinv_level,
// gemm_small), but this one's time is not that floor: done at the end of
// the tournament's launch instead (after a hand-over from the root, by
// one group per compute unit) the same work added 13-16 us to it, as much
// as this launch takes (lu_tournament.go, factorTournament). What bounds
// it is the chain of dependent steps: F into W, the exchange plan, the
// gathers' loads, the solves' NB steps, the stores.
__kernel void lu_tapply(const int N, const int k, const int cend, const int Gc, __global double *A,
                        __global const int *ipiv, __global const double *F, __global const double *S,
                        __local double *W, __local double *T, __local int *rsrc) {
	__local int lpiv[NB], pdst[2 * NB], psrc[2 * NB];
	__local double rinv[NB];
	const int li = get_local_id(0), n_li = get_local_size(0), g = get_group_id(0);
	const bool cols = g < Gc;
	const int r0 = k + (g - Gc) * n_li; // a row group's first row
	load_shifted(W, F, NB, !cols);
	for (int i = li; i < NB; i += n_li) {
		lpiv[i] = ipiv[k + i];
		rinv[i] = recip_or_zero(F[i * NB + i]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (cols) {
		swap_plan_entries(k, lpiv, pdst, psrc);
	} else {
		// Where row r's values come from: -1 for none (past N) or for the
		// block's rows, which take F.
		const int r = r0 + li;
		rsrc[li] = r >= k + NB && r < N ? exchanged_from(k, r, lpiv) : -1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (cols) {
		const int gc = g * n_li + li;
		if (gc < N - NB)
			swap_trsm_column(N, k, cend, gc < k ? gc : gc + NB, A, pdst, psrc, W);
	} else {
		// Item li reads values li, li + n_li, ... of the group's rows' panel
		// parts: a warp reads whole rows.
		for (int m0 = 0; m0 < NB; m0 += 16) {
			double v[16];
			TRSM_UNROLL
			for (int u = 0; u < 16; ++u) {
				const int e = (m0 + u) * n_li + li, i = e / NB, q = e % NB, s = rsrc[i];
				v[u] = s < 0 ? 0.0 : (s >= k + NB ? A[IDX(s, k + q)] : S[(s - k) * NB + q]);
			}
			TRSM_UNROLL
			for (int u = 0; u < 16; ++u) {
				const int e = (m0 + u) * n_li + li;
				T[(e / NB) * (NB + 1) + e % NB] = v[u];
			}
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (!cols && rsrc[li] >= 0) {
		double x[NB];
		TRSM_UNROLL
		for (int q = 0; q < NB; ++q)
			x[q] = T[li * (NB + 1) + q];
		// Row after row of U11, shifted as in swap_trsm_column: at step j,
		// x_j = x_j / u_jj is final and x_{j+m} -= x_j u_{j,j+m}. A zero
		// pivot was recorded by the last node; its column is left unscaled
		// (the factorization then fails with the column) so that nothing
		// divides by zero.
		STEP_LOOP
		for (int j = 0; j < NB; ++j) {
			const double d = W[j * NB], ri = rinv[j];
			double v = x[0];
			if (ri != 0.0)
				v *= ri;
			else if (d != 0.0)
				v /= d;
			T[li * (NB + 1) + j] = v;
			TRSM_UNROLL
			for (int m = 1; m < NB; ++m)
				x[m - 1] = x[m] - v * W[j * NB + m];
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (!cols) {
		TRSM_UNROLL
		for (int m = 0; m < NB; ++m) {
			const int e = m * n_li + li, i = e / NB, q = e % NB, r = r0 + i;
			if (r < N)
				A[IDX(r, k + q)] = r < k + NB ? F[(r - k) * NB + q] : T[i * (NB + 1) + q];
		}
	}
}
