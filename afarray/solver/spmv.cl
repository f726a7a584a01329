// Matrix-vector products of the symmetric storage formats.
//
// Thesis (docs/thesis.md, §4.7, §4.10): the fixed 32 x 1024
// geometry; CSC in three launches (a group per column gathers L^T v with a
// local tree reduction, a group per column scatters L v with the
// compare-and-swap double atomic add, then the diagonal), SKS in two (a group
// per row gathers the U = D + L^T part, a group per column scatters strict
// L with atomics).
//
// Fast: one launch, no atomics. Each row i is computed by a team of T items
// (T sized to the average row length) from the entries of row i, which for a
// lower-triangle format are column i (contiguous: gathered directly) plus the
// row's part of the strict lower triangle, found through a precomputed index:
// for CSC a transposed index (row pointers, element positions and columns),
// for SKS the first column first[i] that reaches row i (the monotone last-row
// rule makes the row's strict part the contiguous column range first[i]..i-1,
// entry elements[index[j] + i - j]). Every y[i] is written once by its team.

// ---- thesis ----

inline int csc_end(int n, int le, __global const int *col, int j) { return j == n - 1 ? le : col[j + 1]; }

__kernel void csc_spmv_thesis(int step, int n, int le, __global const double *elm, __global const int *col,
                              __global const int *row, __global const double *v, __global double *c,
                              __local double *part) {
	int gid = get_global_id(0), G = get_global_size(0);
	int grp = get_group_id(0), NG = get_num_groups(0);
	int l = get_local_id(0), W = get_local_size(0);
	switch (step) {
	case 0: // c = L^T v (overwrite), a group per column
		for (int j = grp; j < n; j += NG) {
			int s = col[j], cnt = csc_end(n, le, col, j) - s - 1;
			double acc = 0;
			for (int x = l; x < cnt; x += W) acc += elm[s + 1 + x] * v[row[s - j + x]];
			part[l] = acc;
			tree_sum(part);
			if (l == 0) c[j] = part[0];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		break;
	case 1: // c += L v, scattered with the double atomic add
#ifdef OCLSOLVE_INT64_ATOMICS
		for (int j = grp; j < n; j += NG) {
			int s = col[j], cnt = csc_end(n, le, col, j) - s - 1;
			for (int x = l; x < cnt; x += W) atomic_add_f64(&c[row[s - j + x]], elm[s + 1 + x] * v[j]);
		}
#endif
		break;
	case 2: // c += D v
		for (int i = gid; i < n; i += G) c[i] += elm[col[i]] * v[i];
		break;
	}
}

__kernel void sks_spmv_thesis(int step, int n, int le, __global const double *elm, __global const int *idx,
                              __global const double *v, __global double *c, __local double *part) {
	int grp = get_group_id(0), NG = get_num_groups(0);
	int l = get_local_id(0), W = get_local_size(0);
	switch (step) {
	case 0: // c = (D + L^T) v, a group per row r: column r's run times v[r..]
		for (int r = grp; r < n; r += NG) {
			int s = idx[r], h = csc_end(n, le, idx, r) - s;
			double acc = 0;
			for (int x = l; x < h; x += W) acc += elm[s + x] * v[r + x];
			part[l] = acc;
			tree_sum(part);
			if (l == 0) c[r] = part[0];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		break;
	case 1: // c += strict L v, scattered
#ifdef OCLSOLVE_INT64_ATOMICS
		for (int j = grp; j < n; j += NG) {
			int s = idx[j], h = csc_end(n, le, idx, j) - s;
			for (int x = l; x < h - 1; x += W) atomic_add_f64(&c[j + 1 + x], v[j] * elm[s + 1 + x]);
		}
#endif
		break;
	}
}

// ---- fast ----

// pval is the vector the product multiplies: z + beta*p. Plain products
// pass (x, x, 0); the fused CG passes the next search direction, formed on
// the fly so that it needs no launch of its own (p starts at zero, so
// beta = 0 is exact). Every use goes through this one function so that each
// item computes bit-identical values. It has no branch, which lets PoCL
// vectorize the row loops.
inline double pval(__global const double *z, __global const double *p, double beta, int j) {
	return fma(beta, p[j], z[j]);
}

// Formats of row_sum.
#define FMT_CSC 1   // val=elements, ia=colIdx, ib=rowIdx, ic=row pointers (n+1), id=positions, ie=columns
#define FMT_SKS 2   // val=elements, ia=index, ib=first

// row_sum returns this item's share of row i of A times pval.
inline double row_sum(int fmt, int n, int le, int i, int lane, int T,
                      __global const double *val, __global const int *ia, __global const int *ib,
                      __global const int *ic, __global const int *id, __global const int *ie,
                      __global const double *z, __global const double *p, double beta) {
	double acc = 0;
	if (fmt == FMT_CSC) {
		int s = ia[i], cnt = csc_end(n, le, ia, i) - s - 1;
		if (lane == 0) acc = val[s] * pval(z, p, beta, i);
		for (int x = lane; x < cnt; x += T) acc += val[s + 1 + x] * pval(z, p, beta, ib[s - i + x]);
		for (int t = ic[i] + lane; t < ic[i + 1]; t += T) acc += val[id[t]] * pval(z, p, beta, ie[t]);
	} else {
		int s = ia[i], h = csc_end(n, le, ia, i) - s;
		for (int x = lane; x < h; x += T) acc += val[s + x] * pval(z, p, beta, i + x);
		for (int j = ib[i] + lane; j < i; j += T) acc += val[ia[j] + i - j] * pval(z, p, beta, j);
	}
	return acc;
}

// spmv_rows: y = A x, a team of T items per row.
__kernel void spmv_rows(int fmt, int n, int le, __global const double *val, __global const int *ia,
                        __global const int *ib, __global const int *ic, __global const int *id,
                        __global const int *ie, __global const double *x, __global double *y,
                        int T, __local double *s) {
	int l = get_local_id(0), R = get_local_size(0) / T, team = l / T, lane = l % T;
	for (int rb = get_group_id(0); rb * R < n; rb += get_num_groups(0)) {
		int i = rb * R + team;
		s[l] = i < n ? row_sum(fmt, n, le, i, lane, T, val, ia, ib, ic, id, ie, x, x, 0) : 0;
		team_sum(s, T);
		if (lane == 0 && i < n) y[i] = s[l];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

// sks_first_rows sets first[r] for every row: the smallest column j whose
// run reaches row r. Column j is the first for the rows below the previous
// column's last row down to its own last row.
__kernel void sks_first_rows(int n, int le, __global const int *idx, __global int *first) {
	for (int j = get_global_id(0); j < n; j += get_global_size(0)) {
		int last = j + csc_end(n, le, idx, j) - idx[j] - 1;
		int prev = j == 0 ? -1 : (j - 1) + idx[j] - idx[j - 1] - 1;
		for (int r = max(prev + 1, j); r <= last; r++) first[r] = j;
	}
}

// Diagonals, for Jacobi preconditioning.
__kernel void diag_dense(int n, __global const double *a, __global double *d) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) d[i] = a[i + (long)n * i];
}
__kernel void diag_indexed(int n, __global const double *elm, __global const int *pos, __global double *d) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) d[i] = elm[pos[i]];
}
