// The texture variant: the augmented matrix lives in a pair of 2-D float
// images (one value per texel, x = column, y = row) used in turn as input
// (read through the texture cache, texel in argmax.cl) and output. Precision
// is float32.

__kernel void gauss_image_nopivot(const int p, __read_only image2d_t in, __write_only image2d_t out,
                                  __global int *status, const float tol) {
	const int cols = get_image_width(in), rows = get_image_height(in);
	const float piv = texel(in, p, p);
	note_zero_pivot(status, p, fabs(piv), tol);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const float mult = -texel(in, row, p) / piv;
		for (int col = get_global_id(0) + p + 1; col < cols; col += get_global_size(0)) {
			const float v = texel(in, row, col) + texel(in, p, col) * mult;
			write_imagef(out, (int2)(col, row), (float4)(v, 0.0f, 0.0f, 1.0f));
		}
	}
}

__kernel void gauss_image_pivot(const int p, __read_only image2d_t in, __write_only image2d_t out,
                                __global int *status, const float tol, __local float *lmax,
                                __local int *lidx) {
	const int cols = get_image_width(in), rows = get_image_height(in);
	float piv;
	const int prow = find_pivot(rows, p, in, status, tol, lmax, lidx, &piv);
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
