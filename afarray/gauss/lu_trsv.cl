// lu_trsv: the triangular solves of the blocked LU (unit lower L y = P b,
// then upper U x = y) on the row-major ld x ld factors, each in a single
// launch instead of two launches per tile.
//
// The rows are cut into blocks of TS rows, one work-group of TS items per
// block. A group takes a ticket (an atomic counter) when it starts and
// solves the ticket's block in dependency order (top-down for L, bottom-up
// for U), so it only ever waits for blocks whose groups started before it:
// those are running or done, and no co-residency is needed (any device,
// any number of groups). For each block already solved, in order, the group
// waits for its ready flag, then subtracts that block's contribution
// (a TS x TS tile of the factors times the block's unknowns, the tile
// prefetched into registers before the wait and staged in local memory in
// TC-column chunks so that the global reads are coalesced). Then it solves
// its own diagonal block (prefetched into local memory at the start), one
// barrier per row, publishes its unknowns and raises its flag.
//
// The critical path is one diagonal block after another: n barrier steps
// and one flag hand-over per block, instead of two launches and a
// reduction tree per row of the tiled solve.
//
// ready (nblocks flags, then the ticket counter) must be zero at the launch.
// A diagonal entry of U of magnitude at most tol is recorded in status.

#ifndef TS
#define TS 64
#endif
#define TC 16 // columns per staged chunk

__kernel __attribute__((reqd_work_group_size(TS, 1, 1)))
void lu_trsv(__global const double *A, const int ld, const int n, const int upper, const int unit,
             __global double *x, volatile __global int *ready,
             __global int *status, const double tol) {
	__local double D[TS * (TS + 1)]; // the diagonal block
	__local double S[TS * (TC + 1)]; // one staged chunk of an off-diagonal tile
	__local double xs[TS];           // unknowns of a solved block, then of this one
	__local int tk;
	volatile __global const double *xv = x;
	const int li = get_local_id(0);
	const int nblk = (n + TS - 1) / TS;
	if (li == 0)
		tk = atomic_inc(ready + nblk); // the ticket counter follows the flags
	barrier(CLK_LOCAL_MEM_FENCE);
	const int t = tk;
	const int b = upper ? nblk - 1 - t : t;
	const int r0 = b * TS, rows = min(TS, n - r0);
	for (int e = li; e < TS * TS; e += TS) {
		const int i = e / TS, j = e % TS;
		D[i * (TS + 1) + j] = (i < rows && j < rows) ? A[(size_t)(r0 + i) * ld + r0 + j] : 0.0;
	}
	double s = 0.0;
	for (int q = 0; q < t; q++) {
		const int c = upper ? nblk - 1 - q : q;
		const int c0 = c * TS, cols = min(TS, n - c0);
		// The tile does not depend on the unknowns: read it before waiting.
		double reg[TS];
#pragma unroll
		for (int h = 0; h < TS; h++) {
			const int e = li + TS * (h % TC);
			const int i = e / TC, j = (h / TC) * TC + e % TC;
			reg[h] = (i < rows && j < cols) ? A[(size_t)(r0 + i) * ld + c0 + j] : 0.0;
		}
		if (li == 0) {
			while (ready[c] == 0)
				;
			mem_fence(CLK_GLOBAL_MEM_FENCE);
		}
		barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
		xs[li] = li < cols ? xv[c0 + li] : 0.0;
#pragma unroll
		for (int ch = 0; ch < TS / TC; ch++) {
			barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
			for (int h = 0; h < TC; h++) {
				const int e = li + TS * h;
				S[(e / TC) * (TC + 1) + e % TC] = reg[ch * TC + h];
			}
			barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
			for (int j = 0; j < TC; j++)
				s = fma(S[li * (TC + 1) + j], xs[ch * TC + j], s);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	double v = (li < rows ? x[r0 + li] : 0.0) - s;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int step = 0; step < rows; step++) {
		const int i = upper ? rows - 1 - step : step;
		if (li == i) {
			if (!unit) {
				const double d = D[i * (TS + 1) + i];
				if (!(fabs(d) > tol))
					atomic_min(status, r0 + i);
				v /= d;
			}
			xs[i] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (upper ? li < i : (li > i && li < rows))
			v = fma(-D[li * (TS + 1) + i], xs[i], v);
	}
	// Each item's fence makes its unknown visible device-wide before the
	// flag (a fence in item 0 alone need not cover the other items' stores).
	if (li < rows)
		x[r0 + li] = xs[li];
	mem_fence(CLK_GLOBAL_MEM_FENCE);
	barrier(CLK_GLOBAL_MEM_FENCE);
	if (li == 0) {
		mem_fence(CLK_GLOBAL_MEM_FENCE);
		ready[b] = 1;
	}
}
