// Triangular solves on the device, shared by every variant: the
// back-substitution of the ping-pong variants (whose reduced rows are spread
// over two memory objects by parity) and the forward and back substitution
// of the blocked LU (one buffer).
//
// The matrix is read through LOAD(r, c), which picks the memory object that
// holds row r according to mode:
//   mode 0: row r is in odd if r is odd (elimination without pivoting);
//   mode 1: row r is in odd if r+1 is odd, except the last row, which shares
//           its predecessor's object (elimination with partial pivoting,
//           whose steps write the pivot row to their output);
//   mode 2: every row is in even (blocked LU; odd is the same buffer).
// IMAGE_ROWS selects float images instead of double buffers.

#ifdef IMAGE_ROWS
#define REAL float
#define MAT_ARG __read_only image2d_t
#define LOAD1(m, r, c) read_imagef(m, trsv_smp, (int2)((c), (r))).x
#define SAMPLER const sampler_t trsv_smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST
#else
#define REAL double
#define MAT_ARG __global const double *
#define LOAD1(m, r, c) (m)[(size_t)(r) * stride + (c)]
#define SAMPLER
#endif

#define ROW_ODD(r) (mode == 0 ? ((r) & 1) : mode == 1 ? ((r) == nrows - 1 ? ((r) & 1) : (((r) + 1) & 1)) : 0)
#define LOAD(r, c) (ROW_ODD(r) ? LOAD1(odd, r, c) : LOAD1(even, r, c))

// trsv_gather copies column rhscol of the augmented matrix into x, the
// vector that the solves below turn into the solution.
__kernel void trsv_gather(MAT_ARG even, MAT_ARG odd, const int stride, const int mode, const int nrows,
                          const int rhscol, __global REAL *x) {
	SAMPLER;
	const int r = get_global_id(0);
	if (r < nrows)
		x[r] = LOAD(r, rhscol);
}

// trsv_block solves the rows [r0, r1) of a triangular system in one
// work-group, with the unknowns outside the tile already eliminated from x.
// It walks the tile's rows one at a time (bottom-up when upper, top-down
// otherwise). For each row the work-items multiply the row's entries with
// the tile's known unknowns into the first half of the local buffer (a
// sliding window over the tile), sum them with a halving tree in
// ceil(log2(T)) barrier steps, and one work-item computes the row's unknown
// into the second half. The local buffer holds 2T values: with T = n this is
// the documents' single-launch back-substitution.
//
// A diagonal entry of magnitude at most tol (when !unit) is recorded in
// status as a zero pivot.
//
// With cached, the local buffer holds T*T more values: the tile's triangle
// is loaded once, coalesced, so that the row walk reads no global memory
// (the blocked LU's small tiles; the documents' variants pass 0).
__kernel void trsv_block(MAT_ARG even, MAT_ARG odd, const int stride, const int mode, const int nrows,
                         const int upper, const int unit, const int r0, const int r1,
                         __global REAL *x, __global int *status, const REAL tol, const int cached,
                         __local REAL *lmem) {
	SAMPLER;
	const int li = get_local_id(0), n_li = get_local_size(0);
	const int T = r1 - r0;
	__local REAL *red = lmem;   // products, then partial sums
	__local REAL *sol = lmem + T; // the tile's unknowns
	__local REAL *tile = lmem + 2 * T;
	if (cached) {
		for (int e = li; e < T * T; e += n_li)
			tile[e] = LOAD(r0 + e / T, r0 + e % T);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
#define TILE(i, j) (cached ? tile[(i) * T + (j)] : LOAD(r0 + (i), r0 + (j)))
	for (int step = 0; step < T; ++step) {
		const int i = upper ? T - 1 - step : step;
		const int r = r0 + i;
		const int lo = upper ? i + 1 : 0; // known unknowns of this row: [lo, hi)
		const int hi = upper ? T : i;
		for (int j = lo + li; j < hi; j += n_li)
			red[j] = TILE(i, j) * sol[j];
		barrier(CLK_LOCAL_MEM_FENCE);
		// Halving tree: fold the upper half of [lo, lo+len) onto the lower;
		// an odd length leaves its middle element for the next round.
		for (int len = hi - lo; len > 1;) {
			const int upper_half = (len + 1) >> 1;
			for (int j = li; j < len - upper_half; j += n_li)
				red[lo + j] += red[lo + j + upper_half];
			barrier(CLK_LOCAL_MEM_FENCE);
			len = upper_half;
		}
		if (li == 0) {
			REAL v = x[r] - (hi > lo ? red[lo] : (REAL)0);
			if (!unit) {
				const REAL d = TILE(i, i);
				if (!(fabs(d) > tol))
					atomic_min(status, r);
				v /= d;
			}
			sol[i] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int j = li; j < T; j += n_li)
		x[r0 + j] = sol[j];
#undef TILE
}

// trsv_update removes the tile [r0, r1)'s freshly solved unknowns from the
// right-hand sides of the rows still to solve: rows [0, r0) when upper, rows
// [r1, nrows) otherwise. One work-group per row reads the row's tile segment
// coalesced and sums in local memory (GEMV).
__kernel void trsv_update(MAT_ARG even, MAT_ARG odd, const int stride, const int mode, const int nrows,
                          const int upper, const int r0, const int r1, __global REAL *x,
                          __local REAL *part) {
	SAMPLER;
	const int li = get_local_id(0), n_li = get_local_size(0);
	const int r = upper ? get_group_id(1) : r1 + get_group_id(1);
	REAL s = 0;
	for (int c = r0 + li; c < r1; c += n_li)
		s += LOAD(r, c) * x[c];
	part[li] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int len = n_li; len > 1;) {
		const int upper_half = (len + 1) >> 1;
		if (li < len - upper_half)
			part[li] += part[li + upper_half];
		barrier(CLK_LOCAL_MEM_FENCE);
		len = upper_half;
	}
	if (li == 0)
		x[r] -= part[0];
}
