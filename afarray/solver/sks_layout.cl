// The thesis skyline layout (§3.4): column j holds rows j..sks_last(j) from
// position idx[j]; idx has no end sentinel, so the last column (height 1) is
// a special case.
inline int sks_height(__global const int *idx, int n, int nnz, int j) {
	return j == n - 1 ? nnz - idx[j] : idx[j + 1] - idx[j];
}

inline int sks_last(__global const int *idx, int n, int nnz, int j) {
	return j + sks_height(idx, n, nnz, j) - 1;
}
