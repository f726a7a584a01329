// Dense diagonal-block work shared by the fast CSC (csc_fast.cl) and skyline
// (sks_fast.cl) factorizations. Both process blocks of at most BLOCK_B
// columns whose diagonal block is dense; one work-group holds it in local
// memory as D[i][j] (row i, column j, lower triangle) and these functions
// work on it. BLOCK_B is set by the build options.
#ifndef BLOCK_B
#define BLOCK_B 32
#endif

// block_factor factors the ns x ns lower triangle of D in place: Cholesky
// leaves L (diagonal included), LDLT leaves the unit L below the diagonal
// and D on it. A pivot that fails (sparse_pivot_ok) is reported for column
// col0+j by item 0 of group 0 and the function returns 1; every item sees
// the same pivot, so the early return is uniform across the group.
inline int block_factor(__local double (*D)[BLOCK_B + 1], int ns, int col0, int ldlt, __global int *st) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = 0; j < ns; j++) {
		const double d = D[j][j];
		if (!sparse_pivot_ok(d, ldlt)) {
			if (get_group_id(0) == 0 && lid == 0)
				sparse_bad_pivot(st, col0 + j, d);
			return 1;
		}
		const double inv = 1.0 / d;
		for (int t = lid; t < ns * ns; t += ls) {
			const int i = t % ns, c = t / ns;
			if (c > j && i >= c)
				D[i][c] -= D[i][j] * (D[c][j] * inv);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const double l = ldlt ? 1.0 : sqrt(d), sc = ldlt ? inv : 1.0 / l;
		for (int i = j + lid; i < ns; i += ls)
			D[i][j] = i == j ? (ldlt ? d : l) : D[i][j] * sc;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	return 0;
}

// block_forward solves L y = y in place for the block's triangle (unit L for
// LDLT; the D division is left to the caller).
inline void block_forward(__local double (*D)[BLOCK_B + 1], int ns, __local double *y, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = 0; j < ns; j++) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (!ldlt) {
			if (lid == 0)
				y[j] /= D[j][j];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		for (int i = j + 1 + lid; i < ns; i += ls)
			y[i] -= D[i][j] * y[j];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// block_backward solves Lᵀ r = r in place for the block's triangle (unit L
// for LDLT).
inline void block_backward(__local double (*D)[BLOCK_B + 1], int ns, __local double *r, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = ns - 1; j >= 0; j--) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (!ldlt) {
			if (lid == 0)
				r[j] /= D[j][j];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		for (int i = lid; i < j; i += ls)
			r[i] -= D[j][i] * r[j];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}
