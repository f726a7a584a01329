// Failure reporting shared by the skyline and CSC kernels. A factorization or
// solve owns one small int buffer st; every slot starts at SPARSE_NONE and
// kernels lower it with atomic_min to the first index where a problem was
// seen. The host reads the buffer once, at the end of Factorize or SolveTo,
// so that no launch waits for the device.
// The slots ST_PIVOT, ST_MATRIX, ST_FACTOR, ST_RHS, ST_SOLUTION and
// ST_PIVOT_VALUE (two ints holding the failed pivot's value as a double) come
// from the build options (statusOptions in sks_status.go).
#define SPARSE_NONE 0x7fffffff

// sparse_failed says whether the factorization already failed, so that later
// launches return at once instead of spreading NaN through the factor.
inline int sparse_failed(__global const int *st) {
	return st[ST_PIVOT] != SPARSE_NONE || st[ST_MATRIX] != SPARSE_NONE;
}

// sparse_bad_pivot records a failed pivot d at column col.
inline void sparse_bad_pivot(__global int *st, int col, double d) {
	if (atomic_min(&st[ST_PIVOT], col) > col)
		((__global double *)(st + ST_PIVOT_VALUE))[0] = d;
}

// sparse_pivot_ok tests a pivot: Cholesky needs d > 0, LDLT needs d != 0;
// both need it finite.
inline int sparse_pivot_ok(double d, int ldlt) {
	return isfinite(d) && (ldlt ? d != 0.0 : d > 0.0);
}

// check_finite lowers flag[slot] to the smallest index i < n with x[i] NaN or
// Inf (flag[slot] must start at SPARSE_NONE = INT_MAX). It is the one
// finiteness check of the package: the sparse factors, the dense solvers and
// CG run it on their inputs and results and read the status once.
__kernel void check_finite(int n, __global const double *x, __global int *flag, int slot) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0))
		if (!isfinite(x[i]))
			atomic_min(&flag[slot], i);
}
