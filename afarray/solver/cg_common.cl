// Vector work common to the one-device CG (cg.cl, spmv.cl) and the
// multi-device CG (cg_multi.cl): the per-group partial sums, the per-row
// team sums of the row products, and the two loops that set and advance x,
// r and z. Both programs include this file after dense_common.cl (tree_sum).

// group_parts stores this group's sum of v into parts[get_group_id(0)].
inline void group_parts(double v, __global double *parts, __local double *s) {
	int l = get_local_id(0);
	s[l] = v;
	tree_sum(s);
	if (l == 0) parts[get_group_id(0)] = s[0];
	barrier(CLK_LOCAL_MEM_FENCE);
}

// team_sum folds each team's T values of s (T a power of two) into the
// team's first slot. Every item of the group must call it; the row
// products of spmv.cl and cg_multi.cl (T lanes per row) reduce with it.
inline void team_sum(__local double *s, int T) {
	int l = get_local_id(0), lane = l % T;
	for (int w = T / 2; w > 0; w >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lane < w) s[l] += s[l + w];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// cg_residual sets (start) or advances x, r and z on rows 0..n-1 and
// leaves this group's partials of r'z and r'r in parts[g] and parts[G + g]
// (G groups). start: x = 0, r = b. Otherwise: x += alpha p, r -= alpha q.
// Then z = M^-1 r (M = diag(A) with jacobi, else I; z is r itself without).
inline void cg_residual(int n, int start, double alpha, int jacobi, __global const double *b, __global double *x,
                        __global double *r, __global double *z, __global const double *p, __global const double *q,
                        __global const double *dinv, __global double *parts, __local double *s) {
	double rz = 0, rr = 0;
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		double ri;
		if (start) {
			x[i] = 0;
			ri = b[i];
		} else {
			x[i] = fma(alpha, p[i], x[i]);
			ri = fma(-alpha, q[i], r[i]);
		}
		double zi = jacobi ? ri * dinv[i] : ri;
		r[i] = ri;
		if (jacobi) z[i] = zi;
		rz += ri * zi;
		rr += ri * ri;
	}
	group_parts(rz, parts, s);
	group_parts(rr, parts + get_num_groups(0), s);
}

// cg_start: x = 0, r = b, z = M^-1 b, partials of r'z and r'r.
inline void cg_start(int n, int jacobi, __global const double *b, __global const double *dinv, __global double *x,
                     __global double *r, __global double *z, __global double *parts, __local double *s) {
	cg_residual(n, 1, 0.0, jacobi, b, x, r, z, b, b, dinv, parts, s);
}

// cg_advance: x += alpha p, r -= alpha q, z = M^-1 r, partials of r'z and r'r.
inline void cg_advance(int n, double alpha, int jacobi, __global double *x, __global double *r, __global double *z,
                       __global const double *p, __global const double *q, __global const double *dinv,
                       __global double *parts, __local double *s) {
	cg_residual(n, 0, alpha, jacobi, r, x, r, z, p, q, dinv, parts, s);
}
