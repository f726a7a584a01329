// The thesis's skyline Cholesky and LDLT (docs/thesis.md,
// §4.8, §4.9): one multiplexed kernel per method whose phase is chosen by
// sstep and whose column by step, launched about 4n times with the fixed
// geometry of 32 groups of 1024 work-items. Kept faithful on purpose, so that
// the thesis's timings can be reproduced; the only additions are the pivot
// check (sstep 0 records the first failed pivot in st) and the early return
// of every later launch once a pivot failed, so that no NaN spreads.
//
// sstep 0: scale column step below its diagonal by sqrt(d) (LDLT: by d),
//          all items; the diagonal itself is square-rooted later (sstep 2).
// sstep 1: update the columns c = step+1+b that column step reaches, one
//          group per target column, items over the rows (coalesced: the
//          monotone last-row rule makes every target a contiguous run).
// sstep 2: square roots of the diagonal (Cholesky only), all items.
// sstep 3: forward substitution for column step, all items.
// sstep 4: divide b by the diagonal, all items.
// sstep 5: backward substitution for row n-1-step, work-group 0 only, tree
//          reduction in local memory.

void sks_thesis(__global double *elm, __global const int *idx, int nnz, int n, __global double *b,
                __local double *partial, int step, int sstep, __global int *st, int ldlt) {
	if (sparse_failed(st))
		return;
	const int j = sstep == 5 ? n - 1 - step : step;
	const int m = sks_height(idx, n, nnz, j) - 1;
	if (sstep == 1) {
		const int p = idx[j], lid = get_local_id(0), W = get_local_size(0);
		const double dj = ldlt ? elm[p] : 1.0;
		for (int bb = get_group_id(0); bb < m; bb += get_num_groups(0)) {
			const int pc = idx[j + bb + 1];
			const double k1 = dj * elm[p + 1 + bb];
			for (int x = bb + lid; x < m; x += W)
				elm[pc + x - bb] -= k1 * elm[p + 1 + x];
		}
	} else
		thesis_phase(elm, idx, 0, n, j, m, b, partial, sstep, st, ldlt);
}

__kernel void chol_sparse_sks(__global double *elm, __global const int *idx, int nnz, int n, __global double *b,
                              __local double *partial, int step, int sstep, __global int *st) {
	sks_thesis(elm, idx, nnz, n, b, partial, step, sstep, st, 0);
}

__kernel void ldlt_sparse_sks(__global double *elm, __global const int *idx, int nnz, int n, __global double *b,
                              __local double *partial, int step, int sstep, __global int *st) {
	sks_thesis(elm, idx, nnz, n, b, partial, step, sstep, st, 1);
}
