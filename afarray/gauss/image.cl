// The texture variant: the augmented matrix lives in a pair of 2-D float
// images (one value per texel, x = column, y = row) used in turn as input
// (read through the texture cache) and output. Precision is float32.

__constant sampler_t gauss_smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

inline float texel(__read_only image2d_t im, const int row, const int col) {
	return read_imagef(im, gauss_smp, (int2)(col, row)).x;
}

__kernel void gauss_image_nopivot(const int p, __read_only image2d_t in, __write_only image2d_t out,
                                  __global int *status, const float tol) {
	const int cols = get_image_width(in), rows = get_image_height(in);
	const float piv = texel(in, p, p);
	if (get_global_id(0) == 0 && get_global_id(1) == 0 && !(fabs(piv) > tol))
		atomic_min(status, p);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const float mult = -texel(in, row, p) / piv;
		for (int col = get_global_id(0) + p + 1; col < cols; col += get_global_size(0)) {
			const float v = texel(in, row, col) + texel(in, p, col) * mult;
			write_imagef(out, (int2)(col, row), (float4)(v, 0.0f, 0.0f, 1.0f));
		}
	}
}

// image_pivot_search is pivot_search (buffer.cl) reading column p of a texture.
inline int image_pivot_search(const int rows, const int p, __read_only image2d_t in,
                              __local float *lmax, __local int *lidx, float *best_out) {
	const int li = get_local_id(1) * get_local_size(0) + get_local_id(0);
	const int n_li = get_local_size(0) * get_local_size(1);
	float best = -1.0f;
	int bidx = p;
	for (int r = p + li; r < rows; r += n_li) {
		const float v = fabs(texel(in, r, p));
		if (v > best) {
			best = v;
			bidx = r;
		}
	}
	return group_argmax(best, bidx, lmax, lidx, best_out);
}

__kernel void gauss_image_pivot(const int p, __read_only image2d_t in, __write_only image2d_t out,
                                __global int *status, const float tol, __local float *lmax,
                                __local int *lidx) {
	const int cols = get_image_width(in), rows = get_image_height(in);
	float best;
	const int prow = image_pivot_search(rows, p, in, lmax, lidx, &best);
	const float piv = texel(in, prow, p);
	if (get_global_id(0) == 0 && get_global_id(1) == 0 && !(best > tol))
		atomic_min(status, p);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const int src = (row == prow) ? p : row;
		const float mult = -texel(in, src, p) / piv;
		for (int col = get_global_id(0) + p + 1; col < cols; col += get_global_size(0)) {
			const float pv = texel(in, prow, col);
			write_imagef(out, (int2)(col, row), (float4)(texel(in, src, col) + pv * mult, 0.0f, 0.0f, 1.0f));
			if (row == p + 1)
				write_imagef(out, (int2)(col, p), (float4)(pv, 0.0f, 0.0f, 1.0f));
		}
		if (row == p + 1 && get_global_id(0) == 0)
			write_imagef(out, (int2)(p, p), (float4)(piv, 0.0f, 0.0f, 1.0f));
	}
}
