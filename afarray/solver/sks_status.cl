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
// CG run it on their inputs and results and read the status once. The index
// is a long: with an int, i + global size wraps negative once n nears
// INT_MAX (a dense matrix of order 46,340, a supernodal L of 2^31 entries)
// and the loop reads before x. An index past INT_MAX - 1 is recorded as
// INT_MAX - 1: found, at or after that position.
__kernel void check_finite(long n, __global const double *x, __global int *flag, int slot) {
	for (long i = get_global_id(0); i < n; i += get_global_size(0))
		if (!isfinite(x[i]))
			atomic_min(&flag[slot], (int)min(i, (long)(INT_MAX - 1)));
}

// Phases the thesis's sparse kernels (csc_thesis.cl, sks_thesis.cl) share:
// both keep a column's diagonal at elm[p] and the entries below it at
// elm[p+1 .. p+m], and the diagonal of column i at elm[diag[i]].

// thesis_pivot_scale is sstep 0: it checks pivot elm[p] of column j and
// divides the m entries below it by sqrt(pivot) (Cholesky) or the pivot
// (LDLT). A failed pivot is recorded and 1 returned (the launch ends).
inline int thesis_pivot_scale(__global double *elm, int p, int m, int j, int ldlt, __global int *st) {
	const int gid = get_global_id(0), gsz = get_global_size(0);
	const double d = elm[p];
	if (!sparse_pivot_ok(d, ldlt)) {
		if (gid == 0)
			sparse_bad_pivot(st, j, d);
		return 1;
	}
	const double s = ldlt ? d : sqrt(d);
	for (int x = gid; x < m; x += gsz)
		elm[p + 1 + x] /= s;
	return 0;
}

// thesis_sqrt_diagonal is Cholesky's sstep 2: every pivot but the last
// passed sstep 0, so the last is checked here; then the delayed square
// roots of the diagonal.
inline void thesis_sqrt_diagonal(__global double *elm, __global const int *diag, int n, __global int *st) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		const double d = elm[diag[i]];
		if (!sparse_pivot_ok(d, 0))
			sparse_bad_pivot(st, i, d);
		elm[diag[i]] = sqrt(d);
	}
}

// thesis_divide_diagonal is sstep 4: b /= the diagonal (Cholesky: of L,
// for the delayed division of the forward solve; LDLT: D).
inline void thesis_divide_diagonal(__global double *b, __global const double *elm, __global const int *diag, int n) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0))
		b[i] /= elm[diag[i]];
}

// thesis_group_sum folds one value per item of the group; item 0 gets the
// sum (the thesis's tree reduction in local memory, kept as it was).
inline double thesis_group_sum(__local double *partial, double s) {
	const int lid = get_local_id(0), W = get_local_size(0);
	partial[lid] = s;
	for (int hw = W / 2; hw > 0; hw /= 2) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < hw)
			partial[lid] += partial[lid + hw];
	}
	return partial[0];
}

// thesis_phase runs the phases the two formats share on column j (sstep 0
// and 3: j = step; sstep 5: j = n-1-step), whose diagonal is elm[diag[j]]
// with m entries below it. rows gives the row of each of those entries
// (CSC: rowL from column j's first off-diagonal), or is null for the
// skyline, whose rows below the diagonal are j+1, j+2, ... Phases -1 and 1
// (fill and update) are the formats' own.
inline void thesis_phase(__global double *elm, __global const int *diag, __global const int *rows, int n, int j, int m,
                         __global double *b, __local double *partial, int sstep, __global int *st, int ldlt) {
	const int p = diag[j];
	switch (sstep) {
	case 0:
		thesis_pivot_scale(elm, p, m, j, ldlt, st);
		break;
	case 2: // every pivot but the last passed sstep 0; check the last one here
		thesis_sqrt_diagonal(elm, diag, n, st);
		break;
	case 3: {
		const double bj = ldlt ? b[j] : b[j] / elm[p];
		for (int x = get_global_id(0); x < m; x += get_global_size(0))
			b[rows ? rows[x] : j + 1 + x] -= bj * elm[p + 1 + x];
		break;
	}
	case 4:
		thesis_divide_diagonal(b, elm, diag, n);
		break;
	case 5: {
		if (get_group_id(0) != 0)
			return;
		const int lid = get_local_id(0);
		double s = 0.0;
		for (int x = lid; x < m; x += get_local_size(0))
			s += elm[p + 1 + x] * b[rows ? rows[x] : j + 1 + x];
		s = thesis_group_sum(partial, s);
		if (lid == 0)
			b[j] = ldlt ? b[j] - s : (b[j] - s) / elm[p];
		break;
	}
	}
}
