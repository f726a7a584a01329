// The thesis's CSC Cholesky and LDLT (docs/thesis.md, §4.5, §4.6):
// one multiplexed kernel per method, the phase chosen by sstep and the
// column by step, launched about 4n times with the fixed geometry of 32
// groups of 1024 items. L is a separate array whose structure comes from the
// host's symbolic factorization; it starts as zeros. Kept faithful on
// purpose, linear searches included; the only additions are the pivot check
// and the early return of later launches once a pivot failed.
//
// The thesis CSC layout: column j starts at col[j] with its diagonal; its
// off-diagonal rows are row[col[j]-j ..], increasing; the last column holds
// only its diagonal (no end sentinel in col).
//
// sstep -1: sparse_fill, one item per entry x of A: find its column by a
//           linear scan of colA, then its slot in L by a linear scan of rowL.
// sstep 0:  scale column step by sqrt(d) (LDLT: d), all items.
// sstep 1:  update the columns c = rows of column step, one group per target
//           column, items over the later rows, each locating its target
//           slot by a linear scan of column c's rows (uncoalesced writes: the
//           thesis's stated bottleneck).
// sstep 2:  square roots of the diagonal (Cholesky), checking the last pivot.
// sstep 3:  forward substitution for column step (scatter through rowL).
// sstep 4:  divide by the diagonal.
// sstep 5:  backward substitution for row n-1-step, work-group 0 only.

inline int csc_count(__global const int *col, int n, int nnz, int j) {
	return j == n - 1 ? nnz - col[j] : col[j + 1] - col[j];
}

// csc_slot returns the position of row r in column c of L (linear scan).
inline int csc_slot(__global const int *colL, __global const int *rowL, int c, int r) {
	if (r == c)
		return colL[c];
	const int base = colL[c] - c;
	int k = 0;
	while (rowL[base + k] != r)
		k++;
	return colL[c] + 1 + k;
}

void csc_thesis(__global const double *elmA, __global const int *colA, __global const int *rowA,
                __global double *elmL, __global const int *colL, __global const int *rowL, int nnzA, int nnzL,
                int n, __global double *b, __local double *partial, int step, int sstep, __global int *st,
                int ldlt) {
	if (sparse_failed(st))
		return;
	const int j = sstep == 5 ? n - 1 - step : step;
	const int p = colL[j], m = csc_count(colL, n, nnzL, j) - 1, rb = p - j;
	if (sstep == -1) {
		for (long x = get_global_id(0); x < nnzA; x += get_global_size(0)) {
			int c = 0;
			while (c + 1 < n && colA[c + 1] <= x)
				c++;
			const int r = colA[c] == x ? c : rowA[x - c - 1];
			elmL[csc_slot(colL, rowL, c, r)] = elmA[x];
		}
	} else if (sstep == 1) {
		const int lid = get_local_id(0), W = get_local_size(0);
		const double dj = ldlt ? elmL[p] : 1.0;
		for (int bb = get_group_id(0); bb < m; bb += get_num_groups(0)) {
			const int c = rowL[rb + bb];
			const double k1 = dj * elmL[p + 1 + bb];
			for (int x = bb + lid; x < m; x += W)
				elmL[csc_slot(colL, rowL, c, rowL[rb + x])] -= k1 * elmL[p + 1 + x];
		}
	} else
		thesis_phase(elmL, colL, rowL + rb, n, j, m, b, partial, sstep, st, ldlt);
}

__kernel void Cholesky_sparse_c(__global const double *elmA, __global const int *colA, __global const int *rowA,
                                __global double *elmL, __global const int *colL, __global const int *rowL,
                                int nnzA, int nnzL, int n, __global double *b, __local double *partial, int step,
                                int sstep, __global int *st) {
	csc_thesis(elmA, colA, rowA, elmL, colL, rowL, nnzA, nnzL, n, b, partial, step, sstep, st, 0);
}

__kernel void ldlt_sparse_c(__global const double *elmA, __global const int *colA, __global const int *rowA,
                            __global double *elmL, __global const int *colL, __global const int *rowL, int nnzA,
                            int nnzL, int n, __global double *b, __local double *partial, int step, int sstep,
                            __global int *st) {
	csc_thesis(elmA, colA, rowA, elmL, colL, rowL, nnzA, nnzL, n, b, partial, step, sstep, st, 1);
}
