// Dense products, column-major, built per floating type T.

// y = alpha*A*x + beta*y, A rows x cols. One work-item per row: consecutive
// items read consecutive words of each column, so the loads coalesce.
__kernel void gemv_n(int rows, int cols, T alpha, __global const T *a,
                     __global const T *x, T beta, __global T *y) {
	int i = get_global_id(0);
	if (i >= rows) return;
	T acc = 0;
	for (int j = 0; j < cols; j++) acc += a[i + (long)rows * j] * x[j];
	y[i] = alpha * acc + (beta == 0 ? (T)0 : beta * y[i]);
}

// y = alpha*A^T*x + beta*y. One work-group per column of A: the items of the
// group stride down the column (coalesced) and fold in local memory. The
// local size must be a power of two.
__kernel void gemv_t(int rows, int cols, T alpha, __global const T *a,
                     __global const T *x, T beta, __global T *y, __local T *s) {
	int j = get_group_id(0), l = get_local_id(0);
	if (j >= cols) return;
	T acc = 0;
	for (int i = l; i < rows; i += get_local_size(0)) acc += a[i + (long)rows * j] * x[i];
	s[l] = acc;
	for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (l < w) s[l] += s[l + w];
	}
	if (l == 0) y[j] = alpha * s[0] + (beta == 0 ? (T)0 : beta * y[j]);
}

// GEMM lives in the dense kernel core (afarray/dense/gemm.cl).
