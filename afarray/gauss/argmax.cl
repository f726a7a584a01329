// The pivoting of the ping-pong variants (buffer.cl, vec4.cl, image.cl):
// one pivot search, a work-group reduction and the zero-pivot check. PIV_T is
// their element type (double, or float for the image variant's
// -DPIV_T=float); PIVOT_COLUMN is how a kernel passes column p of its input
// to the search, PIVOT_AT(r) how the search reads that column's entry in
// row r.
#ifndef PIV_T
#define PIV_T double
#endif

#ifdef IMAGE_ROWS
// The image variant keeps the augmented matrix in 2-D float images, one
// value per texel (x = column, y = row), read through the texture cache.
__constant sampler_t gauss_smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

inline float texel(__read_only image2d_t im, const int row, const int col) {
	return read_imagef(im, gauss_smp, (int2)(col, row)).x;
}

#define PIVOT_COLUMN __read_only image2d_t im
#define PIVOT_AT(r) texel(im, (r), p)
#define PIVOT_ARGS im
#else
// A buffer variant passes col = &a[0][p] of its row-major matrix and the
// row stride, in doubles.
#define PIVOT_COLUMN __global const double *col, const int stride
#define PIVOT_AT(r) col[(r) * stride]
#define PIVOT_ARGS col, stride
#endif

// note_zero_pivot records step p in *status, the smallest such step winning,
// when the pivot's magnitude is at most tol = n eps max|a_ij| (zero to
// working precision) or NaN. One work-item of the launch writes.
inline void note_zero_pivot(__global int *status, const int p, const PIV_T magnitude, const PIV_T tol) {
	if (get_global_id(0) == 0 && get_global_id(1) == 0 && !(magnitude > tol))
		atomic_min(status, p);
}

// group_argmax reduces the candidates of the work-group's items (best, the
// largest magnitude an item saw, at row bidx) in local memory, in
// ceil(log2(n_li)) halving steps, to the largest one, the first such row on
// ties. Every work-item takes part and gets the same answer; best_out
// receives the magnitude.
inline int group_argmax(PIV_T best, int bidx, __local PIV_T *lmax, __local int *lidx, PIV_T *best_out) {
	const int li = get_local_id(1) * get_local_size(0) + get_local_id(0);
	const int n_li = get_local_size(0) * get_local_size(1);
	lmax[li] = best;
	lidx[li] = bidx;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int len = n_li; len > 1;) {
		const int upper_half = (len + 1) >> 1;
		if (li < len - upper_half) {
			const PIV_T a = lmax[li], b = lmax[li + upper_half];
			const int ia = lidx[li], ib = lidx[li + upper_half];
			if (b > a || (b == a && ib < ia)) {
				lmax[li] = b;
				lidx[li] = ib;
			}
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		len = upper_half;
	}
	*best_out = lmax[0];
	const int prow = lidx[0];
	// The next use of lmax/lidx (another call) must not overwrite them
	// before every work-item has read the result.
	barrier(CLK_LOCAL_MEM_FENCE);
	return prow;
}

// pivot_search returns the row index in [p, rows) whose entry in column p
// has the largest magnitude (the first such row on ties). Every work-item of
// the group takes part and gets the same answer. Each work-item first folds
// its sliding window of candidates (li, li+n_li, ...) in private memory, then
// the group reduces the n_li partial results (group_argmax). Local memory
// therefore scales with the work-group, not with the matrix. A column whose
// entries are all NaN yields p with magnitude -1, which the caller treats as
// a zero pivot.
inline int pivot_search(const int rows, const int p, PIVOT_COLUMN, __local PIV_T *lmax, __local int *lidx, PIV_T *best_out) {
	const int li = get_local_id(1) * get_local_size(0) + get_local_id(0);
	const int n_li = get_local_size(0) * get_local_size(1);
	PIV_T best = -1;
	int bidx = p;
	for (int r = p + li; r < rows; r += n_li) {
		const PIV_T v = fabs(PIVOT_AT(r));
		if (v > best) {
			best = v;
			bidx = r;
		}
	}
	return group_argmax(best, bidx, lmax, lidx, best_out);
}

// find_pivot is the start of a pivot step p: it returns the pivot row
// (pivot_search), sets *piv to the pivot and records a zero pivot in
// *status (note_zero_pivot).
inline int find_pivot(const int rows, const int p, PIVOT_COLUMN, __global int *status, const PIV_T tol,
                      __local PIV_T *lmax, __local int *lidx, PIV_T *piv) {
	PIV_T best;
	const int prow = pivot_search(rows, p, PIVOT_ARGS, lmax, lidx, &best);
	*piv = PIVOT_AT(prow);
	note_zero_pivot(status, p, best, tol);
	return prow;
}
