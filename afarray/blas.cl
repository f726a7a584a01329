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

// C = alpha*op(A)*op(B) + beta*C with TS x TS tiles staged in local memory.
// op(A) is m x k, op(B) is k x n, C is m x n. lda/ldb are the row counts of
// the stored A and B. Work-item (li, lj) of group (gi, gj) computes
// C(gi*TS+li, gj*TS+lj).
#define TS 16
inline T load_a(int ta, __global const T *a, int lda, int i, int p) {
	return ta ? a[p + (long)lda * i] : a[i + (long)lda * p];
}
inline T load_b(int tb, __global const T *b, int ldb, int p, int j) {
	return tb ? b[j + (long)ldb * p] : b[p + (long)ldb * j];
}
__kernel void gemm(int m, int n, int k, int ta, int tb, T alpha,
                   __global const T *a, int lda, __global const T *b, int ldb,
                   T beta, __global T *c) {
	__local T as[TS][TS + 1];
	__local T bs[TS][TS + 1];
	int li = get_local_id(0), lj = get_local_id(1);
	int i = get_group_id(0) * TS + li, j = get_group_id(1) * TS + lj;
	T acc = 0;
	for (int p0 = 0; p0 < k; p0 += TS) {
		// as[q][li] = opA(i, p0+q) loaded by item (li, q); bs[lj][q] = opB(p0+q, j)
		int pa = p0 + lj, pb = p0 + li;
		as[lj][li] = (i < m && pa < k) ? load_a(ta, a, lda, i, pa) : (T)0;
		int jb = get_group_id(1) * TS + lj;
		bs[lj][li] = (pb < k && jb < n) ? load_b(tb, b, ldb, pb, jb) : (T)0;
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int q = 0; q < TS; q++) acc += as[q][li] * bs[lj][q];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (i < m && j < n) {
		long o = i + (long)m * j;
		c[o] = alpha * acc + (beta == 0 ? (T)0 : beta * c[o]);
	}
}
