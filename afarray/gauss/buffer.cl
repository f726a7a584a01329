// Gaussian elimination on a row-major augmented matrix in a pair of double
// buffers used in turn as input and output ("ping-pong"): one launch per
// pivot step p, each writing only the rows and columns the step changes.
//
// Work-items walk their part of the (rows below p) x (columns right of p)
// submatrix with grid-stride loops, so the launch can use fewer work-groups
// than the submatrix has tiles. That matters for the partial-pivot kernel,
// where every work-group repeats the pivot search.
//
// status holds the smallest step whose pivot was zero (INT_MAX if none): a
// pivot counts as zero when its magnitude is at most tol = n eps max|a_ij|,
// i.e. the matrix is singular to working precision.

// gauss_buffer_nopivot performs step p without row exchanges. Row p stays in
// the input buffer; rows p+1.. are written to the output buffer, so that row
// r ends up in the buffer of r's parity.
__kernel void gauss_buffer_nopivot(const int rows, const int cols, const int stride, const int p,
                                   __global const double *in, __global double *out,
                                   __global int *status, const double tol) {
	const double piv = in[p * stride + p];
	note_zero_pivot(status, p, fabs(piv), tol);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		// mult is the negated ratio that zeroes this row's entry in column p.
		const double mult = -in[row * stride + p] / piv;
		for (int col = get_global_id(0) + p + 1; col < cols; col += get_global_size(0))
			out[row * stride + col] = in[row * stride + col] + mult * in[p * stride + col];
	}
}

// gauss_buffer_pivot performs step p with partial pivoting. Every work-group
// finds the pivot row itself (no extra launch); the output gets the pivot row
// at position p and the old row p in the pivot row's place, i.e. the exchange
// happens while copying. Row p therefore ends up in the output buffer.
__kernel void gauss_buffer_pivot(const int rows, const int cols, const int stride, const int p,
                                 __global const double *in, __global double *out,
                                 __global int *status, const double tol, __local double *lmax,
                                 __local int *lidx) {
	double piv;
	const int prow = find_pivot(rows, p, in + p, stride, status, tol, lmax, lidx, &piv);
	for (int row = get_global_id(1) + p + 1; row < rows; row += get_global_size(1)) {
		const int src = (row == prow) ? p : row; // the old row p moves to prow
		const double mult = -in[src * stride + p] / piv;
		for (int col = get_global_id(0) + p + 1; col < cols; col += get_global_size(0)) {
			const double pv = in[prow * stride + col];
			out[row * stride + col] = in[src * stride + col] + mult * pv;
			if (row == p + 1)
				out[p * stride + col] = pv; // the pivot row, once
		}
		if (row == p + 1 && get_global_id(0) == 0)
			out[p * stride + p] = piv;
	}
}
