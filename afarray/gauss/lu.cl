// Blocked right-looking LU factorization with partial pivoting of a
// row-major N x N matrix (leading dimension N, N a multiple of NB), four
// launches per panel of NB columns starting at column k:
//
//   lu_panel      factors the tall panel A[k:N, k:k+NB) in one launch with
//                 many work-groups, one column step after the other (pivot
//                 search, scaling of the multipliers, rank-1 update of the
//                 panel's remaining columns), the groups meeting at a
//                 grid-wide barrier between steps; lu_panel_local (at the
//                 end of this file) does the same with each group's rows
//                 held in local memory, wherever its groups can hold the
//                 panel (lu.go picks it);
//   lu_swap_panel exchanges the panel's rows;
//   lu_swap_trsm  applies the panel's row exchanges to every other column
//                 and, right of the panel, solves L11 U12 = A12 (unit lower
//                 triangular L11 held in local memory);
//   update        A22 -= L21 U12 by the dense kernel core's tuned GEMM
//                 (afarray/dense), called from Go on the transposed view.
//
// ipiv[i] is the row exchanged with row i at step i (LAPACK's convention,
// 0-based). status receives the first column whose pivot has magnitude at
// most tol (singular to working precision).

#ifndef NB
#define NB 64
#endif

// Unrolling the triangular solve keeps x in registers on a GPU; on a CPU
// (PoCL) it only makes the compiler slow. Writing the solves out as
// scalars instead gained nothing on an H100 (README, tournament LU).
//
// STEP_LOOP keeps the column steps of a triangular solve a loop on a GPU
// (each step's updates written out, with TRSM_UNROLL; swap_trsm_column
// says how the values stay in registers). With the steps written out too,
// NB^2/2 operations and as many loads of the triangle per solve, lu_tapply
// took longer on an H100 (2026-11-23, OCLSOLVE_PROFILE, mean per launch,
// n = 2047 / 8192: 16.8 / 18.3 us written out, 15.2 / 15.8 us as a loop;
// two calls). The size of the straight-line code (instruction fetches) is
// the suspected reason, not verified here; for lu_tsel TestTselClock
// measured steps waiting for their code (tselEliminate in
// lu_tournament.go).
#ifdef GAUSS_GPU
#define TRSM_UNROLL _Pragma("unroll")
#define STEP_LOOP _Pragma("unroll 1")
#else
#define TRSM_UNROLL
#define STEP_LOOP
#endif

#define IDX(r, c) ((size_t)(r) * (size_t)N + (size_t)(c))

// panel_step performs step j (column c = k + j) of the panel
// factorization with many work-groups: the pivot choice needs every row's
// value after the previous column's update, so the steps are separated by
// a grid-wide barrier (grid_sync in lu_panel).
//
// Rows are not moved while the panel is factorized ("implicit pivoting"):
// the pivot row p of column c is marked used (usedAt[p] = c + 1 > k) and the
// rows not yet used are updated in place, so no work-group ever writes a row
// another one reads. After the panel the chosen rows are brought to
// positions k.. by ordinary row exchanges (ipiv, computed by the last step),
// which gives exactly the factors of explicit partial pivoting.
//
// Each work-group owns a contiguous chunk of the rows k..N-1. It finds the
// pivot by reducing the previous step's per-group maxima (panel_start's
// for j = 0), computes its rows' multipliers, applies the rank-1 update to
// the panel columns right of c, and leaves the maximum of its rows in column
// c+1 for the next step.
inline bool better(const double v, const int i, const double best, const int ibest) {
	return i >= 0 && (ibest < 0 || v > best || (v == best && i < ibest));
}

inline double magnitude(const double v) {
	const double a = fabs(v);
	return isnan(a) ? INFINITY : a; // a NaN is chosen so that it shows in the result
}

// On NVIDIA GPUs (GAUSS_SHFL, set by lu.go only there) a warp of 32
// consecutive work-items reduces its candidates through register shuffles
// (PTX shfl.sync, which NVIDIA's OpenCL compiler takes as inline assembly):
// no local memory and no barrier, where the portable tree below needs one
// barrier per halving (8 for 256 items). better() orders (value, row)
// totally (ties to the smaller row, row -1 below everything), so the
// butterfly leaves every lane the same winner and the result is exactly
// the tree's.
#ifdef GAUSS_SHFL
inline uint shfl_bfly(const uint v, const int m) {
	uint r;
	asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(m));
	return r;
}

// warp_argmax leaves in every lane of the warp the best (value, row) of
// its 32 lanes. Every lane of the warp must call it.
inline void warp_argmax(double *best, int *idx) {
	_Pragma("unroll") for (int m = 16; m > 0; m >>= 1) {
		const uint2 u = as_uint2(*best);
		const double ob = as_double((uint2)(shfl_bfly(u.x, m), shfl_bfly(u.y, m)));
		const int oi = (int)shfl_bfly((uint)*idx, m);
		if (better(ob, oi, *best, *idx)) {
			*best = ob;
			*idx = oi;
		}
	}
}
#endif

// With GAUSS_REDUX (NVIDIA compute capability 8.0 and later, lu.go's
// warpRedux; only with GAUSS_SHFL) lu_tsel's column steps find a warp's
// best candidate by the warp-wide integer reductions of sm_80 (PTX
// redux.sync, vote.sync) instead of warp_argmax's five butterfly rounds
// (three shuffles and a comparison of doubles each), and the warps'
// winners after the step's barrier likewise instead of tselScan's three
// rounds: about 0.24 us less per step on an H100 (lu_tournament.go,
// tselRedux).
#ifdef GAUSS_REDUX
inline uint redux_max(const uint v) {
	uint r;
	asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v));
	return r;
}

inline int redux_min(const int v) {
	int r;
	asm volatile("redux.sync.min.s32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v));
	return r;
}

// ballot is the mask of the warp's lanes where p is not 0.
inline uint ballot(const uint p) {
	uint r;
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\tvote.sync.ballot.b32 %0, q, 0xffffffff;\n\t}"
	             : "=r"(r)
	             : "r"(p));
	return r;
}

// warp_winner is the lane that holds the warp's best (m, r) in better()'s
// order, where m is magnitude()'s (nonnegative, a NaN made +Inf) for a
// row r >= 0 and anything for r = -1 (none). Nonnegative doubles order as
// their bit patterns, so the largest m is the largest high word and, among
// the lanes that hold it, the largest low word: two redux.sync (exact, no
// rounding of m). No row (r = -1), which better() puts below every magnitude, gets
// key 0 and a live one its high word plus 1 (at most 0x7ff00001 for
// +Inf), so that a live zero beats it. Lanes with the same (m) tie: the
// smallest row, by one more redux.sync where the ballot has more than one
// lane (warp-uniform; every row is unique but -1, whose lanes tie only
// where all are -1, and then the lowest lane holds -1 as the others do).
// Every lane of the warp must call it, in uniform control flow.
inline int warp_winner(const double m, const int r) {
	const uint2 u = as_uint2(m);
	const uint hi = r >= 0 ? u.y + 1 : 0, lo = r >= 0 ? u.x : 0;
	const uint top = hi == redux_max(hi);
	const uint lmax = redux_max(top ? lo : 0);
	const uint eq = top && lo == lmax;
	uint b = ballot(eq);
	if (b & (b - 1)) {
		// Every lane takes part in redux_min: a .sync reduction that a lane
		// skips (as the right of && would) hangs the warp.
		const int rmin = redux_min(eq ? r : INT_MAX);
		b = ballot(eq && r == rmin);
	}
	return 31 - clz(b & (0 - b));
}
#endif

// argmax_local leaves in every work-item the group's best (value, row);
// lmax and lidx hold one entry per item. Every item must call it.
inline void argmax_local(double *best, int *idx, __local double *lmax, __local int *lidx) {
	const int li = get_local_id(0), n_li = get_local_size(0);
#ifdef GAUSS_SHFL
	if ((n_li & 31) == 0) {
		// Warps, then every item scans the warps' results: two barriers.
		warp_argmax(best, idx);
		if ((li & 31) == 0) {
			lmax[li >> 5] = *best;
			lidx[li >> 5] = *idx;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		double b = -1.0;
		int bi = -1;
		for (int w = 0; w < (n_li >> 5); ++w)
			if (better(lmax[w], lidx[w], b, bi)) {
				b = lmax[w];
				bi = lidx[w];
			}
		*best = b;
		*idx = bi;
		barrier(CLK_LOCAL_MEM_FENCE);
	} else
#endif
	{
		lmax[li] = *best;
		lidx[li] = *idx;
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int len = n_li; len > 1;) {
			const int upper_half = (len + 1) >> 1;
			if (li < len - upper_half && better(lmax[li + upper_half], lidx[li + upper_half], lmax[li], lidx[li])) {
				lmax[li] = lmax[li + upper_half];
				lidx[li] = lidx[li + upper_half];
			}
			barrier(CLK_LOCAL_MEM_FENCE);
			len = upper_half;
		}
		*best = lmax[0];
		*idx = lidx[0];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

// pivots_to_exchanges turns the rows chosen for the panel's NB columns
// (pivrow[k..]; chosen_to_exchanges: chosen[0..NB)) into LAPACK's sequence
// of exchanges ipiv[k..]: before
// exchange i, the row chosen i-th sits where the earlier exchanges moved
// it. One item runs it, in O(NB) steps on private arrays: a row from
// outside the block k..k+NB-1 is still at its own place when it is chosen
// (rows are chosen once), a row of the block is where posOf says, and the
// block's places not yet exchanged hold rows of the block (at). The
// quadratic replay this replaces read ipiv back from global memory NB^2/2
// times; it was suspected of a large part of the panel's time on an H100,
// but replacing it changed the factorization's time by less than the
// run-to-run spread (n = 2048: 16.4 -> 17.2 ms, n = 8192: 120.2 -> 123.7,
// one level, partial pivoting): the column steps themselves dominate.
inline void chosen_to_exchanges(const int k, const int *chosen, __global int *ipiv) {
	int posOf[NB], at[NB];
	for (int i = 0; i < NB; ++i) {
		posOf[i] = k + i;
		at[i] = k + i;
	}
	for (int i = 0; i < NB; ++i) {
		int r = chosen[i];
		if (r < k)
			r = at[i]; // no row chosen (cannot happen): no exchange
		const int p = r < k + NB ? posOf[r - k] : r;
		ipiv[k + i] = p;
		// Exchange places k+i and p: the block row x at k+i goes to p.
		const int x = at[i];
		posOf[x - k] = p;
		if (p < k + NB)
			at[p - k] = x;
		if (r < k + NB)
			posOf[r - k] = k + i;
		at[i] = r;
	}
}

inline void pivots_to_exchanges(const int k, __global const int *pivrow, __global int *ipiv) {
	int chosen[NB];
	for (int i = 0; i < NB; ++i)
		chosen[i] = pivrow[k + i];
	chosen_to_exchanges(k, chosen, ipiv);
}

// panel_start leaves each work-group's maximum of column k for step 0.
inline void panel_start(const int N, const int k, __global const double *A, volatile __global double *pm_out,
                        volatile __global int *pi_out, __local double *lmax, __local int *lidx) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	const int g = get_group_id(0), G = get_num_groups(0);
	const int chunk = (N - k + G - 1) / G;
	const int rbeg = k + g * chunk, rend = min(N, rbeg + chunk);
	double best = -1.0;
	int p = -1;
	for (int r = rbeg + li; r < rend; r += n_li) {
		const double v = magnitude(A[IDX(r, k)]);
		if (better(v, r, best, p)) {
			best = v;
			p = r;
		}
	}
	argmax_local(&best, &p, lmax, lidx);
	if (li == 0) {
		pm_out[g] = best;
		pi_out[g] = p;
	}
}

//
// What a group reads of another group's writes from the previous step (the
// maxima, the used marks, the pivot row) goes through volatile pointers:
// with the steps fused into one launch those reads must bypass the
// compute unit's cache.
inline void panel_step(const int N, const int k, const int j, const int pivot, __global double *A,
                       volatile __global int *usedAt, __global int *pivrow, __global int *ipiv,
                       volatile __global const double *pm_in, volatile __global const int *pi_in,
                       volatile __global double *pm_out, volatile __global int *pi_out,
                       __global int *status, const double tol,
                       __local double *lmax, __local int *lidx, __local double *useg) {
	volatile __global const double *Av = A;
	const int li = get_local_id(0), n_li = get_local_size(0);
	const int g = get_group_id(0), G = get_num_groups(0);
	const int c = k + j;
	const int chunk = (N - k + G - 1) / G;
	const int rbeg = k + g * chunk, rend = min(N, rbeg + chunk);

	double best = -1.0;
	int p = -1;
	if (!pivot) {
		p = c; // rows do not move without pivoting: row c is the pivot row
		best = magnitude(A[IDX(c, c)]);
	} else {
		for (int t = li; t < G; t += n_li)
			if (better(pm_in[t], pi_in[t], best, p)) {
				best = pm_in[t];
				p = pi_in[t];
			}
		argmax_local(&best, &p, lmax, lidx);
	}
	const double d = Av[IDX(p, c)];
	if (g == 0 && li == 0) {
		pivrow[c] = p;
		usedAt[p] = c + 1;
		if (!(best > tol))
			atomic_min(status, c);
	}
	const int w = k + NB - 1 - c; // panel columns right of c
	for (int q = li; q < w; q += n_li)
		useg[q] = Av[IDX(p, c + 1 + q)];
	barrier(CLK_LOCAL_MEM_FENCE);
	// A zero pivot is recorded above; the column is then left unscaled and
	// not applied, so that nothing divides by zero (LAPACK does the same).
	if (d != 0.0)
		for (int r = rbeg + li; r < rend; r += n_li)
			if (r != p && usedAt[r] <= k)
				A[IDX(r, c)] /= d;
	barrier(CLK_GLOBAL_MEM_FENCE);
	double mbest = -1.0;
	int midx = -1;
	const int m = rend - rbeg;
	if (w > 0)
		for (int e = li; e < m * w; e += n_li) {
			const int r = rbeg + e / w, q = e % w;
			if (r == p || usedAt[r] > k)
				continue;
			double v = A[IDX(r, c + 1 + q)];
			if (d != 0.0) {
				v -= A[IDX(r, c)] * useg[q];
				A[IDX(r, c + 1 + q)] = v;
			}
			if (q == 0 && better(magnitude(v), r, mbest, midx)) {
				mbest = magnitude(v);
				midx = r;
			}
		}
	if (pivot && w > 0) {
		argmax_local(&mbest, &midx, lmax, lidx);
		if (li == 0) {
			pm_out[g] = mbest;
			pi_out[g] = midx;
		}
	}
	// The last step turns the chosen rows into LAPACK's exchanges.
	if (j == NB - 1 && g == 0 && li == 0)
		pivots_to_exchanges(k, pivrow, ipiv);
}

// grid_sync is a barrier across the work-groups of one launch: a counter
// that every group increments once per phase and waits on until all have.
// It is only safe when every group of the launch is resident at once: the
// Go side (panelGroups in lu.go) launches several groups only on NVIDIA and
// AMD GPUs on their vendors' platforms, at most a few per compute unit, and
// a single group elsewhere (where it is a no-op).
inline void grid_sync(volatile __global int *count, const int target) {
	barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
	if (get_num_groups(0) > 1 && get_local_id(0) == 0) {
		device_fence();
		atomic_inc(count);
		while (*count < target)
			;
		device_fence();
	}
	barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}

// lu_panel factors the whole panel A[k:N, k:k+NB) in one launch: the pivot
// search of column k, then the NB column steps of panel_step, separated by
// grid_sync instead of launch boundaries (a launch per column costs about
// 10 us on a GPU, more than the step's own work). count must be zero at
// the start.
__kernel void lu_panel(const int N, const int k, const int pivot, __global double *A,
                       __global int *usedAt, __global int *pivrow, __global int *ipiv,
                       __global double *pm0, __global int *pi0, __global double *pm1, __global int *pi1,
                       __global int *status, const double tol, __global int *count,
                       __local double *lmax, __local int *lidx, __local double *useg) {
	const int G = get_num_groups(0);
	if (pivot)
		panel_start(N, k, A, pm0, pi0, lmax, lidx);
	grid_sync(count, G);
	for (int j = 0; j < NB; j++) {
		const int odd = j & 1;
		panel_step(N, k, j, pivot, A, usedAt, pivrow, ipiv, odd ? pm1 : pm0, odd ? pi1 : pi0,
		           odd ? pm0 : pm1, odd ? pi0 : pi1, status, tol, lmax, lidx, useg);
		if (j < NB - 1)
			grid_sync(count, (j + 2) * G);
	}
}

// exchanged_from is the place whose original row the exchanges lpiv
// (places k.., LAPACK order) bring to place r: the exchanges replayed
// backwards, NB steps written out (their loads of lpiv independent of
// each other); -1 stays -1.
inline int exchanged_from(const int k, const int r, __local const int *lpiv) {
	int s = r;
	TRSM_UNROLL
	for (int i = NB - 1; i >= 0; --i) {
		const int a = k + i, b = lpiv[i];
		s = s == a ? b : (s == b ? a : s);
	}
	return s;
}

// swap_plan_entries is swap_plan after lpiv is in local memory (and a
// barrier): it fills dst and src, which a barrier must follow.
inline void swap_plan_entries(const int k, __local const int *lpiv, __local int *dst, __local int *src) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	for (int t = li; t < 2 * NB; t += n_li) {
		int P = t < NB ? k + t : lpiv[t - NB];
		if (t >= NB) {
			if (P < k + NB)
				P = -1;
			TRSM_UNROLL
			for (int u = 0; u < NB - 1; ++u)
				if (u < t - NB && lpiv[u] == P)
					P = -1;
		}
		dst[t] = P;
		src[t] = exchanged_from(k, P, lpiv);
	}
}

// swap_plan lists what the panel's exchanges ipiv[k..k+NB) move, for
// every column alike: position dst[t] receives the row originally at
// src[t]. Entries t < NB are the block's positions k+t; entries NB + i are
// the places below the block that exchange i reaches (dst -1 where it
// stays inside the block or repeats an earlier place). Each entry replays
// the exchanges backwards from its place (NB steps), one work-item per
// entry. The rows that end below the block are rows of the block: a place
// k+i is final after exchange i, so only rows of places k+i.. (the
// block's own rows) ever leave it. lpiv holds NB ints, dst and src 2 NB.
inline void swap_plan(const int k, __global const int *ipiv, __local int *lpiv, __local int *dst, __local int *src) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	for (int i = li; i < NB; i += n_li)
		lpiv[i] = ipiv[k + i];
	barrier(CLK_LOCAL_MEM_FENCE);
	swap_plan_entries(k, lpiv, dst, src);
	barrier(CLK_LOCAL_MEM_FENCE);
}

// GCH rows below the block are moved at a time (read all, then write all);
// NB is a multiple of 16. All 32 at once for 32-column panels made no
// difference on an H100 (lu_tapply 16.0 against 15.9 us, 2026-11-23).
#define GCH 16

// gather_column applies the exchanges of swap_plan to column c of A and
// leaves the block's new values (rows k..k+NB-1) in x, unwritten: every
// value is read before any is written, so a column costs a few memory
// round trips instead of one per exchange (NB dependent swaps in place).
// The block's new rows may come from below it, so they are read first;
// the places below receive rows of the block, read before the caller
// writes x back.
inline void gather_column(const int N, const int c, __global double *A, __local const int *dst,
                          __local const int *src, double *x) {
	TRSM_UNROLL
	for (int i = 0; i < NB; ++i)
		x[i] = A[IDX(src[i], c)];
	TRSM_UNROLL
	for (int t0 = NB; t0 < 2 * NB; t0 += GCH) {
		double y[GCH];
		TRSM_UNROLL
		for (int u = 0; u < GCH; ++u)
			y[u] = dst[t0 + u] >= 0 ? A[IDX(src[t0 + u], c)] : 0.0;
		TRSM_UNROLL
		for (int u = 0; u < GCH; ++u)
			if (dst[t0 + u] >= 0)
				A[IDX(dst[t0 + u], c)] = y[u];
	}
}

// LBATCH loads per work-item in load_shifted are issued before any of
// their values is stored, so that they are in flight together.
#define LBATCH 8

// load_shifted fills W (NB x NB, row-major) from the NB x NB block at src
// (rows ld apart) with the triangle that a shifted solve reads (see
// swap_trsm_column): with upper, row j of the upper triangle from its
// diagonal on, W[j][m] = src[j][j+m]; else column j of the strictly lower
// triangle, W[j][m] = src[j+m][j] (W[j][0] = 0); 0 past the block's edge
// (j + m >= NB). All of the work-group's items take part.
inline void load_shifted(__local double *W, __global const double *src, const int ld, const int upper) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	for (int e0 = 0; e0 < NB * NB; e0 += LBATCH * n_li) {
		double v[LBATCH];
		TRSM_UNROLL
		for (int u = 0; u < LBATCH; ++u) {
			const int e = e0 + u * n_li + li, j = e / NB, m = e % NB;
			const int r = upper ? j : j + m, c = upper ? j + m : j;
			v[u] = e < NB * NB && j + m < NB && (upper || m > 0) ? src[(size_t)r * (size_t)ld + (size_t)c] : 0.0;
		}
		TRSM_UNROLL
		for (int u = 0; u < LBATCH; ++u) {
			const int e = e0 + u * n_li + li;
			if (e < NB * NB)
				W[e] = v[u];
		}
	}
}

// lu_swap_panel applies the panel's row exchanges to the panel's own
// columns (before lu_swap_trsm reads L11 from them), one work-item per
// column.
__kernel void lu_swap_panel(const int N, const int k, __global double *A, __global const int *ipiv) {
	__local int lpiv[NB], dst[2 * NB], src[2 * NB];
	swap_plan(k, ipiv, lpiv, dst, src);
	const int q = get_global_id(0);
	if (q >= NB)
		return;
	double x[NB];
	gather_column(N, k + q, A, dst, src, x);
	TRSM_UNROLL
	for (int i = 0; i < NB; ++i)
		A[IDX(k + i, k + q)] = x[i];
}

// swap_trsm_column is lu_swap_trsm's work on column c (outside the panel):
// the panel's row exchanges (gather_column with swap_plan's dst and src),
// then, right of the panel and left of cend, U12 = L11^-1 A12 with the
// unit lower triangle of L11 (W: load_shifted's lower triangle, local
// memory). Columns from cend on are solved later, by the outer block's
// TRSM (lu_tournament.go).
inline void swap_trsm_column(const int N, const int k, const int cend, const int c, __global double *A,
                             __local const int *dst, __local const int *src, __local const double *W) {
	double x[NB];
	gather_column(N, c, A, dst, src, x);
	if (c >= k && c < cend) {
		// Column after column: at step j, x_j is final and x_{j+m} -= l_{j+m,j}
		// x_j for m >= 1. Each entry gets the same operations in the same
		// order as a row's dot product would give it, but the updates of a
		// step are independent, so the chain of dependent operations is NB
		// steps long, not NB^2/2. x moves down one place per step, so that
		// every step reads x[0] and writes x[m - 1], fixed registers, in a
		// loop of NB steps (STEP_LOOP); past the triangle W holds zeros and
		// the places past x's live part keep finite values nobody reads.
		STEP_LOOP
		for (int j = 0; j < NB; ++j) {
			const double v = x[0];
			A[IDX(k + j, c)] = v;
			TRSM_UNROLL
			for (int m = 1; m < NB; ++m)
				x[m - 1] = x[m] - W[j * NB + m] * v;
		}
	} else {
		TRSM_UNROLL
		for (int i = 0; i < NB; ++i)
			A[IDX(k + i, c)] = x[i];
	}
}

// lu_swap_trsm: one work-item per column outside the panel (columns left of
// k, then right of k+NB), swap_trsm_column with L11 from A. Neighbouring
// work-items touch neighbouring columns of the same rows, so every access
// is coalesced. W holds NB x NB doubles.
__kernel void lu_swap_trsm(const int N, const int k, const int cend, __global double *A, __global const int *ipiv,
                           __local double *W) {
	__local int lpiv[NB], dst[2 * NB], src[2 * NB];
	load_shifted(W, A + IDX(k, k), N, 0);
	swap_plan(k, ipiv, lpiv, dst, src);
	const int g = get_global_id(0);
	if (g >= N - NB)
		return;
	swap_trsm_column(N, k, cend, g < k ? g : g + NB, A, dst, src, W);
}

// lu_panel_local is lu_panel with each work-group's rows of the panel held
// in local memory for the whole panel (at most R rows of NB columns), so a
// column step touches global memory only to exchange candidates: every
// group publishes, per step, the largest candidate of its rows (value, row)
// together with that row's NB values. After the grid-wide barrier each
// group reads the G maxima and then the winner's row, and scales and
// updates its own rows in local memory. lu_panel needs about eight
// dependent global round trips per column (the maxima, the pivot, the
// pivot row, the used marks, the panel's values), which bound it on a GPU
// far more than its arithmetic.
//
// Without pivoting the candidate of column c is row c itself, published by
// its owner, so both modes share the code. Chosen rows keep their values,
// which are final; the whole chunk is written back at the end, and the row
// exchanges are then applied exactly as after lu_panel.

// publish leaves the group's candidate for panel column j: the largest
// magnitude in column j among its unused rows (or row k+j without
// pivoting), with the candidate row's NB values.
inline void publish(const int k, const int j, const int pivot, const int rbeg, const int m,
                    __local const double *P, __local const int *used,
                    __global double *pm_out, __global int *pi_out, __global double *prow_out,
                    __local double *lmax, __local int *lidx) {
	const int li = get_local_id(0), n_li = get_local_size(0), g = get_group_id(0);
	double best = -1.0;
	int p = -1;
	if (pivot) {
		for (int i = li; i < m; i += n_li)
			if (!used[i]) {
				const double v = magnitude(P[i * NB + j]);
				if (better(v, rbeg + i, best, p)) {
					best = v;
					p = rbeg + i;
				}
			}
	} else if (li == 0 && k + j >= rbeg && k + j < rbeg + m) {
		p = k + j;
		best = magnitude(P[(p - rbeg) * NB + j]);
	}
	argmax_local(&best, &p, lmax, lidx);
	if (li == 0) {
		pm_out[g] = best;
		pi_out[g] = p;
	}
	if (p >= 0)
		for (int q = li; q < NB; q += n_li)
			prow_out[g * NB + q] = P[(p - rbeg) * NB + q];
}

// chunk of group g: rows k + g*chunk .. of the panel, chunk <= R.
__kernel void lu_panel_local(const int N, const int k, const int pivot, const int R, __global double *A,
                             __global int *pivrow, __global int *ipiv,
                             __global double *pm0, __global int *pi0, __global double *pr0,
                             __global double *pm1, __global int *pi1, __global double *pr1,
                             __global int *status, const double tol, __global int *count,
                             __local double *lmax, __local int *lidx, __local double *useg,
                             __local double *P, __local int *used) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	const int g = get_group_id(0), G = get_num_groups(0);
	const int chunk = (N - k + G - 1) / G;
	const int rbeg = k + g * chunk, m = max(0, min(N, rbeg + chunk) - rbeg);
	for (int e = li; e < m * NB; e += n_li)
		P[e] = A[IDX(rbeg + e / NB, k + e % NB)];
	for (int i = li; i < m; i += n_li)
		used[i] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	publish(k, 0, pivot, rbeg, m, P, used, pm0, pi0, pr0, lmax, lidx);
	grid_sync(count, G);
	for (int j = 0; j < NB; j++) {
		const int odd = j & 1;
		volatile __global const double *pm_in = odd ? pm1 : pm0;
		volatile __global const int *pi_in = odd ? pi1 : pi0;
		volatile __global const double *pr_in = odd ? pr1 : pr0;
		// The winner among the groups' candidates (each group finds the
		// same one), then its row.
		double best = -1.0;
		int p = -1, slot = -1;
		for (int t = li; t < G; t += n_li) {
			const double v = pm_in[t];
			const int i = pi_in[t];
			if (better(v, i, best, p)) {
				best = v;
				p = i;
			}
		}
		argmax_local(&best, &p, lmax, lidx);
		const int c = k + j;
		// p < 0 (every row used) cannot happen for a square matrix, whose
		// panel has at least NB rows; it would count as a zero pivot. (No
		// early return: PoCL miscompiles a return between barriers.)
		slot = p < 0 ? -1 : (p - k) / chunk;
		for (int q = li; q < NB; q += n_li)
			useg[q] = slot < 0 ? 0.0 : pr_in[slot * NB + q];
		if (g == 0 && li == 0) {
			pivrow[c] = p;
			if (!(best > tol))
				atomic_min(status, c);
		}
		if (li == 0 && p >= 0 && p >= rbeg && p < rbeg + m)
			used[p - rbeg] = 1;
		barrier(CLK_LOCAL_MEM_FENCE);
		const double d = useg[j];
		// A zero pivot is recorded above; the column is then left unscaled
		// and not applied, so that nothing divides by zero (as LAPACK).
		if (d != 0.0) {
			for (int i = li; i < m; i += n_li)
				if (!used[i])
					P[i * NB + j] /= d;
			barrier(CLK_LOCAL_MEM_FENCE);
			const int w = NB - 1 - j;
			for (int e = li; e < m * w; e += n_li) {
				const int i = e / w, q = j + 1 + e % w;
				if (!used[i])
					P[i * NB + q] -= P[i * NB + j] * useg[q];
			}
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (j < NB - 1) {
			publish(k, j + 1, pivot, rbeg, m, P, used, odd ? pm0 : pm1, odd ? pi0 : pi1, odd ? pr0 : pr1, lmax, lidx);
			grid_sync(count, (j + 2) * G);
		}
	}
	for (int e = li; e < m * NB; e += n_li)
		A[IDX(rbeg + e / NB, k + e % NB)] = P[e];
	// As lu_panel's last step: the chosen rows as LAPACK's exchanges.
	if (g == 0 && li == 0)
		pivots_to_exchanges(k, pivrow, ipiv);
}
