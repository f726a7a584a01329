// The vectorised variant: the same ping-pong elimination on rows stored as
// double4 quads. The row stride is padded to a multiple of four (the padding
// columns hold zeros), so any n works, not only n = 3 mod 4. A work-item
// updates one quad; the first quad of a step is the one holding column p,
// whose columns left of p receive values that are never read again.

__kernel void gauss_vec4_nopivot(const int rows, const int quads, const int p,
                                 __global const double4 *in, __global double4 *out,
                                 __global int *status, const double tol) {
	__global const double *s_in = (__global const double *)in;
	const int stride = quads * 4;
	const double piv = s_in[p * stride + p];
	note_zero_pivot(status, p, fabs(piv), tol);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const double4 mult = (double4)(-s_in[row * stride + p] / piv);
		for (int q = get_global_id(0) + p / 4; q < quads; q += get_global_size(0))
			out[row * quads + q] = in[row * quads + q] + mult * in[p * quads + q];
	}
}

__kernel void gauss_vec4_pivot(const int rows, const int quads, const int p,
                               __global const double4 *in, __global double4 *out,
                               __global int *status, const double tol, __local double *lmax,
                               __local int *lidx) {
	__global const double *s_in = (__global const double *)in;
	const int stride = quads * 4;
	double piv;
	const int prow = find_pivot(rows, p, s_in + p, stride, status, tol, lmax, lidx, &piv);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const int src = (row == prow) ? p : row;
		const double4 mult = (double4)(-s_in[src * stride + p] / piv);
		for (int q = get_global_id(0) + p / 4; q < quads; q += get_global_size(0)) {
			const double4 pv = in[prow * quads + q];
			out[row * quads + q] = in[src * quads + q] + mult * pv;
			if (row == p + 1)
				out[p * quads + q] = pv; // the pivot row (its quad holding p included)
		}
	}
}
