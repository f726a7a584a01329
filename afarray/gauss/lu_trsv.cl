// lu_trsv: both triangular solves of the blocked LU (unit lower L y = P b,
// then upper U x = y) on the row-major ld x ld factors, in a single launch,
// with the diagonal blocks inverted beforehand (lu_trinv).
//
// The rows are cut into blocks of TS rows; the launch has one work-group of
// TS items per block and triangle (2 nblk groups). A group takes a ticket
// (an atomic counter) when it starts: tickets 0 .. nblk-1 solve L's blocks
// top-down, nblk .. 2 nblk-1 U's blocks bottom-up, so a group only ever
// waits for blocks whose groups started before it: those are running or
// done, and no co-residency is needed (any device, any number of groups).
// For each block of its triangle already solved, in order, the group waits
// for its ready flag, then subtracts that block's contribution (a TS x TS
// tile of the factors times the block's unknowns, the tile read into
// registers before the wait and staged in local memory in TC-column chunks
// so that the global reads are coalesced). Then it multiplies the result
// by its diagonal block's inverse (prefetched into local memory at the
// start), publishes its unknowns and raises its flag.
//
// Why the inverses: solving the diagonal block by substitution takes one
// barrier per row, n barrier steps per triangle on the critical path; the
// product by the inverse is TS independent dot products. On an H100
// (2026-11-23, kernel times from OCLSOLVE_PROFILE): the two substituting
// launches took 2 x 346 us at n = 2047 and 2 x 1375 us at 8192 (about 11
// us per block hand-over), this launch 125 and 590 us (about 2 us). The
// inverses depend only on the factors: lu_trinv computes them once per
// factorization (62 us at 2047, 69 us at 8192), in the first solve.
// Multiplying by an inverted block instead of substituting is not
// backward stable in general (the error grows with the block's condition
// number); measured on PoCL, the backward errors stayed at the
// substitution's order (1e-19 to 1e-15, up to 20 times larger) on the
// collection's matrices up to bcsstk13 and random ones, but not on a
// badly scaled U: hence the guard below.
//
// The flags hold the number (epoch) of the launch that raised them, so that
// consecutive solves need no reset in between: a launch waits for its own
// epoch. Its tickets are the counter modulo 2 nblk: every launch takes
// exactly 2 nblk of them and launches on the in-order queue do not overlap,
// so the tickets stay in range even where the host lost count of a launch
// (one enqueued although Launch returned an error).
//
// Everything lives in one scratch buffer S (one allocation per
// factorization): as ints, 2 nblk ready flags (L's, then U's), the ticket
// counter, the factorization's status (lu_trinv's singular pivot, or none),
// the guard (lu_trinv's largest condition estimate of a diagonal block, as
// a binary exponent) and the row exchanges as a gather (row i of P b is
// b[perm[i]]); as doubles from invOff, the inverses; from yOff, y (the
// lower solve's result), a status slot (the last group copies the status
// and the guard there, as two ints, so that the read of the solutions
// brings them back too), then the solutions and the right-hand sides at the
// offsets given to each launch.
//
// The guard: the product by an inverse loses accuracy with the block's
// condition, where substitution does not (a U whose diagonal is graded
// from 1 to 1e-8 within a block gave backward errors of 2e-11 .. 6e-11
// against 1e-17, notes/review8.md). lu_trinv estimates each block's
// condition as the smaller of max|B| max|inv(B)| and the same with B's rows
// divided by their diagonal entries, and keeps the largest exponent; the
// host (lu_trsv.go, trinvGuardExp) redoes a solve by substitution when it
// is too large, with no wait of its own.

#ifndef TS
#define TS 64
#endif
#define TC 16 // columns per staged chunk

// lu_trinv inverts the diagonal blocks of the factors: group g takes block
// g / 2, its unit lower triangle for g even, its upper triangle for g odd,
// and stores the inverse row-major at S + invOff + g TS^2. Rows and columns
// past the order (a partial last block) are the identity's. A diagonal
// entry of U of magnitude at most tol is recorded in the status, and
// ilogb of the block's estimate in the guard (atomic_max; a non-finite
// estimate counts as INT_MAX).
//
// The inverse is computed in place, one row per step (top-down for L,
// bottom-up for U): item j computes entry (i, j) of the inverse from row i
// of the factor and column j of the rows of the inverse already done. Every
// item reads row i of the factor before any writes it, hence the barrier
// between the sums and the stores.
__kernel __attribute__((reqd_work_group_size(TS, 1, 1)))
void lu_trinv(__global const double *A, const int ld, __global double *S, const int invOff,
              const double tol) {
	__local double D[TS * (TS + 1)];
	__local double red[4 * TS]; // the guard's maxima (below)
	const int li = get_local_id(0);
	const int g = get_group_id(0), upper = g % 2;
	const int r0 = (g / 2) * TS, rows = min(TS, ld - r0);
	// This item's maxima, NaN kept, of |B|, |B| / |its row's diagonal|,
	// |inv(B)|, |inv(B)| / |its column's diagonal|.
	double mb = 0.0, ms = 0.0, mi = 0.0, mt = 0.0;
	for (int e = li; e < TS * TS; e += TS) {
		const int i = e / TS, j = e % TS;
		double v = (i < rows && j < rows) ? A[(size_t)(r0 + i) * ld + r0 + j] : 0.0;
		if (upper ? j < i : j > i)
			v = 0.0;
		if (i == j && (!upper || i >= rows))
			v = 1.0;
		D[i * (TS + 1) + j] = v;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int e = li; e < TS * TS; e += TS) {
		const int i = e / TS;
		const double v = fabs(D[i * (TS + 1) + e % TS]), w = v / fabs(D[i * (TS + 1) + i]);
		mb = (v > mb || v != v) ? v : mb;
		ms = (w > ms || w != w) ? w : ms;
	}
	for (int step = 0; step < TS; step++) {
		const int i = upper ? TS - 1 - step : step;
		const double d = D[i * (TS + 1) + i];
		// The sum over the inverse's nonzeros in column li runs over k in
		// [li, i) for L, (i, li] for U; the zeros of the other triangle
		// make it the sum over [0, i) or (i, TS), bounds the same for every
		// item, which four accumulators then walk without divergence (on
		// an H100 at n = 2047: 72 us with the per-item bounds, 62 us so).
		const int k1 = upper ? TS : i;
		int k = upper ? i + 1 : 0;
		double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
		for (; k + 4 <= k1; k += 4) {
			a0 = fma(D[i * (TS + 1) + k], D[k * (TS + 1) + li], a0);
			a1 = fma(D[i * (TS + 1) + k + 1], D[(k + 1) * (TS + 1) + li], a1);
			a2 = fma(D[i * (TS + 1) + k + 2], D[(k + 2) * (TS + 1) + li], a2);
			a3 = fma(D[i * (TS + 1) + k + 3], D[(k + 3) * (TS + 1) + li], a3);
		}
		for (; k < k1; k++)
			a0 = fma(D[i * (TS + 1) + k], D[k * (TS + 1) + li], a0);
		const double acc = (a0 + a1) + (a2 + a3);
		barrier(CLK_LOCAL_MEM_FENCE);
		if (upper) {
			if (li == i) {
				if (i < rows && !(fabs(d) > tol))
					atomic_min((__global int *)S + 2 * ((ld + TS - 1) / TS) + 1, r0 + i);
				D[i * (TS + 1) + i] = 1.0 / d;
			} else if (li > i)
				D[i * (TS + 1) + li] = -acc / d;
		} else if (li < i)
			D[i * (TS + 1) + li] = -acc;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	__global double *out = S + invOff + (size_t)g * TS * TS;
	for (int e = li; e < TS * TS; e += TS) {
		const int j = e % TS;
		const double v = D[(e / TS) * (TS + 1) + j];
		out[e] = v;
		const double w = fabs(v / D[j * (TS + 1) + j]);
		mi = (fabs(v) > mi || v != v) ? fabs(v) : mi;
		mt = (w > mt || w != w) ? w : mt;
	}
	red[li] = mb;
	red[TS + li] = ms;
	red[2 * TS + li] = mi;
	red[3 * TS + li] = mt;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int h = TS / 2; h > 0; h /= 2) {
		if (li < h)
			for (int q = 0; q < 4 * TS; q += TS) {
				const double b = red[q + li + h];
				red[q + li] = (b > red[q + li] || b != b) ? b : red[q + li];
			}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (li == 0) {
		// The smaller of the two estimates; NaN if either is.
		const double e1 = red[0] * red[2 * TS], e2 = red[TS] * red[3 * TS];
		const double est = (e1 != e1 || e2 != e2) ? e1 + e2 : min(e1, e2);
		atomic_max((__global int *)S + 2 * ((ld + TS - 1) / TS) + 2, isfinite(est) ? ilogb(est) : INT_MAX);
	}
}

// lu_trsv solves one right-hand side, S[bOff .. bOff + n) (before the
// exchanges), into S[xOff .. xOff + n).
__kernel __attribute__((reqd_work_group_size(TS, 1, 1)))
void lu_trsv(__global const double *A, const int ld, const int n, __global double *S,
             const int invOff, const int yOff, const int xOff, const int bOff,
             const int epoch) {
	__local double Di[TS * (TS + 1)]; // the diagonal block's inverse
	__local double St[TS * (TC + 1)]; // one staged chunk of an off-diagonal tile
	__local double xs[TS];            // unknowns of a solved block, then of this one
	__local int tk;
	const int li = get_local_id(0);
	const int nblk = (ld + TS - 1) / TS;
	volatile __global int *ready = (volatile __global int *)S;
	__global const int *perm = (__global const int *)S + 2 * nblk + 3;
	__global const double *rhs = S + bOff;
	__global double *work = S + yOff;
	if (li == 0)
		tk = (int)((uint)atomic_inc(ready + 2 * nblk) % (uint)(2 * nblk));
	barrier(CLK_LOCAL_MEM_FENCE);
	const int t = tk;
	const int upper = t >= nblk;
	const int done = upper ? t - nblk : t; // blocks of this triangle solved before this one
	const int b = upper ? nblk - 1 - done : done;
	const int r0 = b * TS, rows = min(TS, ld - r0);
	__global const double *ig = S + invOff + (size_t)(2 * b + upper) * TS * TS;
	for (int e = li; e < TS * TS; e += TS)
		Di[(e / TS) * (TS + 1) + e % TS] = ig[e];
	__global double *out = upper ? S + xOff : work;
	volatile __global const double *xv = out; // the blocks solved before, by other groups
	volatile __global int *flag = ready + (upper ? nblk : 0);
	// An upper block's right-hand side is its y, from the lower solve; a
	// lower block's is the exchanged b. (The barrier stays outside the
	// branch: every item of the group reaches it.)
	if (upper && li == 0) {
		while (ready[b] != epoch)
			;
		device_fence();
	}
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
	double v = 0.0; // the padding's right-hand side is zero
	if (li < rows) {
		if (upper)
			v = ((volatile __global const double *)work)[r0 + li];
		else {
			const int p = perm[r0 + li];
			v = p < n ? rhs[p] : 0.0;
		}
	}
	double s = 0.0;
	for (int q = 0; q < done; q++) {
		const int c = upper ? nblk - 1 - q : q;
		const int c0 = c * TS, cols = min(TS, ld - c0);
		// The tile does not depend on the unknowns: read it before waiting.
		double reg[TS];
#pragma unroll
		for (int h = 0; h < TS; h++) {
			const int e = li + TS * (h % TC);
			const int i = e / TC, j = (h / TC) * TC + e % TC;
			reg[h] = (i < rows && j < cols) ? A[(size_t)(r0 + i) * ld + c0 + j] : 0.0;
		}
		if (li == 0) {
			while (flag[c] != epoch)
				;
			device_fence();
		}
		barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
		xs[li] = li < cols ? xv[c0 + li] : 0.0;
#pragma unroll
		for (int ch = 0; ch < TS / TC; ch++) {
			barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
			for (int h = 0; h < TC; h++) {
				const int e = li + TS * h;
				St[(e / TC) * (TC + 1) + e % TC] = reg[ch * TC + h];
			}
			barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
			for (int j = 0; j < TC; j++)
				s = fma(St[li * (TC + 1) + j], xs[ch * TC + j], s);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	// Di's prefetch is complete and xs free once every item is here.
	xs[li] = v - s;
	barrier(CLK_LOCAL_MEM_FENCE);
	double r = 0.0;
#pragma unroll 16
	for (int j = 0; j < TS; j++)
		r = fma(Di[li * (TS + 1) + j], xs[j], r);
	// Each item's fence makes its unknown visible device-wide before the
	// flag (a fence in item 0 alone need not cover the other items' stores).
	if (li < rows)
		out[r0 + li] = r;
	device_fence();
	barrier(CLK_GLOBAL_MEM_FENCE);
	if (li == 0) {
		device_fence();
		flag[b] = epoch;
		if (t == 2 * nblk - 1) {
			((__global int *)(work + ld))[0] = ready[2 * nblk + 1];
			((__global int *)(work + ld))[1] = ready[2 * nblk + 2];
		}
	}
}
