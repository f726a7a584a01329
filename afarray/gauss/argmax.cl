// The pivot searches of the buffer and image variants (buffer.cl,
// image.cl) end in the same work-group reduction; PIV_T is their element
// type (double, or float for the image variant's -DPIV_T=float).
#ifndef PIV_T
#define PIV_T double
#endif

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
