// The thesis's dense kernels (docs/thesis.md, §4.1-4.3), one
// "multiplexed" entry point per method: the host loops over step (the column
// or unknown) and sstep (the phase) and re-enqueues the same kernel, so each
// launch is one global barrier. Every launch uses the thesis's fixed
// geometry (32 groups of 1024 items, clamped to the device) and grid-stride
// loops, exactly as the thesis did; only the status words are new: the thesis
// had no way to report a bad pivot.
//
// Status: flag[ST_PIVOT] receives the first bad pivot column (atomic_min, starts at
// INT_MAX) and pivot[0] that pivot's value (record_pivot in dense_common.cl).

// thesis_pivot_column checks pivot A[j,j] (Cholesky: it must be positive;
// LDLT: nonzero and finite), records a bad one, and divides column j below
// the diagonal by sqrt(pivot) (Cholesky, whose square root of the diagonal
// itself is delayed) or by the pivot (LDLT).
inline void thesis_pivot_column(__global double *A, int n, int j, int ldlt, __global int *flag, __global double *pivot) {
	int gid = get_global_id(0), G = get_global_size(0);
	long ld = n;
	double d = A[j + ld * j];
	int bad = ldlt ? (d == 0 || !isfinite(d)) : !(d > 0);
	if (gid == 0 && bad) record_pivot(flag, pivot, j, d);
	double s = ldlt ? d : sqrt(d);
	for (int i = j + 1 + gid; i < n; i += G) A[i + ld * j] /= s;
}

// thesis_trailing is the trailing update of column j shared by the
// Cholesky and LDLT skeletons: a group per column s > j, items down the rows
// i >= s, A[i,s] -= dj A[s,j] A[i,j]. Cholesky passes dj = 1 (its column j
// is already scaled), which leaves every product exactly as it was; LDLT
// passes the pivot D[j].
inline void thesis_trailing(__global double *A, int n, int j, double dj) {
	int grp = get_group_id(0), NG = get_num_groups(0);
	int l = get_local_id(0), W = get_local_size(0);
	long ld = n;
	for (int s = j + 1 + grp; s < n; s += NG) {
		double f = dj * A[s + ld * j];
		for (int i = s + l; i < n; i += W) A[i + ld * s] -= f * A[i + ld * j];
	}
}

// thesis_below_dot is the backward solves' sum over k > i of A[k,i] b[k]
// (column i of L read as row i of Lᵀ) by one work-group; every item gets it.
inline double thesis_below_dot(__global const double *A, __global const double *b, __local double *part, int n, int i) {
	int l = get_local_id(0), W = get_local_size(0);
	long ld = n;
	double acc = 0;
	for (int k = i + 1 + l; k < n; k += W) acc += A[k + ld * i] * b[k];
	part[l] = acc;
	tree_sum(part);
	return part[0];
}

// Cholesky_c and ldlt_c share one skeleton (dense_thesis). Cholesky_c:
// right-looking, column by column, with the square root of the pivot
// delayed: column j is scaled by 1/sqrt(A[j,j]) but A[j,j] itself is
// square-rooted only in phase 2, once for the whole diagonal. ldlt_c: L
// unit lower triangular and D on the diagonal; it has no square-root phase,
// so its phases 2, 3, 4 are Cholesky's 3, 4, 5.
void dense_thesis(__global double *A, __global double *b, __local double *part, int n, int step, int sstep,
                  __global int *flag, __global double *pivot, int ldlt) {
	int gid = get_global_id(0), G = get_global_size(0);
	int grp = get_group_id(0), l = get_local_id(0);
	long ld = n;
	int j = step;
	if (ldlt && sstep >= 2)
		sstep++;
	switch (sstep) {
	case 0: // scale column j below the diagonal by sqrt(pivot) (LDLT: the pivot)
		thesis_pivot_column(A, n, j, ldlt, flag, pivot);
		break;
	case 1: // trailing update: a group per column s > j, items down the rows i >= s
		thesis_trailing(A, n, j, ldlt ? A[j + ld * j] : 1.0);
		break;
	case 2: // the delayed square roots (Cholesky)
		for (int i = gid; i < n; i += G) A[i + ld * i] = sqrt(A[i + ld * i]);
		break;
	case 3: { // forward L y = b, column-oriented; Cholesky's b[j] is divided in phase 4
		double y = ldlt ? b[j] : b[j] / A[j + ld * j];
		for (int i = j + 1 + gid; i < n; i += G) b[i] -= y * A[i + ld * j];
		break;
	}
	case 4: // Cholesky: the delayed division; LDLT: D z = y
		for (int i = gid; i < n; i += G) b[i] /= A[i + ld * i];
		break;
	case 5: { // backward L^T x = y: column i of L read as row i of L^T, one group
		if (grp != 0) return;
		int i = n - 1 - step;
		double dot = thesis_below_dot(A, b, part, n, i);
		if (l == 0) b[i] = ldlt ? b[i] - dot : (b[i] - dot) / A[i + ld * i];
		break;
	}
	}
}

__kernel void cholesky_thesis(__global double *A, __global double *b, __local double *part,
                              int n, int step, int sstep, __global int *flag, __global double *pivot) {
	dense_thesis(A, b, part, n, step, sstep, flag, pivot, 0);
}

__kernel void ldlt_thesis(__global double *A, __global double *b, __local double *part,
                          int n, int step, int sstep, __global int *flag, __global double *pivot) {
	dense_thesis(A, b, part, n, step, sstep, flag, pivot, 1);
}

// Gauss_Jordan_c, step k, on the augmented n x wA matrix [A | B]: rows
// across the items of a group, columns k+1.. across the groups. Column k is
// never updated, so it keeps supplying the multipliers; row k is never
// written, so there is no race. A zero pivot is skipped, as in the thesis,
// but recorded.
__kernel void gauss_jordan_thesis(__global double *A, int n, int wA, int k,
                                  __global int *flag, __global double *pivot) {
	long ld = n;
	double p = A[k + ld * k];
	if (p == 0 || !isfinite(p)) {
		if (get_global_id(0) == 0) record_pivot(flag, pivot, k, p);
		return;
	}
	int W = get_local_size(0), NG = get_num_groups(0);
	for (int x = get_local_id(0); x < n; x += W) {
		if (x == k) continue;
		double f = A[x + ld * k] / p;
		for (int y = k + 1 + get_group_id(0); y < wA; y += NG) A[x + ld * y] -= f * A[k + ld * y];
	}
}

// x = A[:, n+c] ./ diag(A) for the m right-hand sides.
__kernel void gauss_jordan_thesis_extract(__global const double *A, int n, int m, __global double *x) {
	long ld = n;
	long total = (long)n * m;
	for (long e = get_global_id(0); e < total; e += get_global_size(0)) {
		int i = e % n, c = e / n;
		x[e] = A[i + ld * (n + c)] / A[i + ld * i];
	}
}
