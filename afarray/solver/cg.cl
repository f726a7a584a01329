// Conjugate gradient kernels.
//
// Fast: preconditioned CG (M = I or diag(A)) in two launches per iteration
// (plus the operator's own launches for an operator this package does not
// know). All scalars stay on the device: each kernel that needs a global dot
// product reads the per-group partial sums the previous launch left and
// folds them itself, redundantly in every group, which costs a few hundred
// loads and saves a launch and a host round trip. The histories rz[] and
// rr[] (r'z and r'r per iteration) double as the scalar state, indexed by
// iteration so that no value is overwritten while another group reads it;
// done[0] becomes the iteration at which ||r|| <= tol ||b|| (or a NaN
// appeared), after which every kernel returns at once, leaving x at that
// iterate. The host reads done only every few iterations.
//
//   cg_init   x = 0, r = b, z = M^-1 b, partials of r'z and r'r
//   cg_step   fold those partials: rz[it], rr[it], convergence test,
//             beta = rz[it]/rz[it-1]; p_new = z + beta p (formed on the fly
//             inside the product); q = A p_new; partials of p_new'q
//   cg_update fold p'q: alpha = rz[it]/p'q; x += alpha p, r -= alpha q,
//             z = M^-1 r; partials of r'z and r'r

inline double reduce_parts(int P, __global const double *parts, __local double *s) {
	int l = get_local_id(0);
	double acc = 0;
	for (int i = l; i < P; i += get_local_size(0)) acc += parts[i];
	s[l] = acc;
	tree_sum(s);
	double v = s[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return v;
}

__kernel void cg_init(int n, int jacobi, __global const double *b, __global const double *dinv,
                      __global double *x, __global double *r, __global double *z,
                      __global double *part2, __local double *s) {
	cg_start(n, jacobi, b, dinv, x, r, z, part2, s);
}

// cg_begin folds the r'z and r'r partials of iteration it, records them,
// tests convergence (rr <= tol2 * rr[0]) and returns 1 when the group must
// stop. Every group computes the same values in the same order, so they all
// decide alike.
inline int cg_begin(int it, int P2, __global const double *part2, __global double *rzh,
                    __global double *rrh, __global int *done, double tol2, __local double *s,
                    double *beta) {
	if (done[0] >= 0) return 1;
	double rz = reduce_parts(P2, part2, s);
	double rr = reduce_parts(P2, part2 + P2, s);
	double rr0 = it == 0 ? rr : rrh[0];
	int stop = rr <= tol2 * rr0 || !isfinite(rr) || !isfinite(rz);
	if (get_group_id(0) == 0 && get_local_id(0) == 0) {
		rzh[it] = rz;
		rrh[it] = rr;
		if (stop) done[0] = it;
	}
	*beta = it == 0 ? 0 : rz / rzh[it - 1];
	return stop;
}

// cg_step: see the file comment. fmt < 0 is an operator this package does
// not know: only p_new is formed here, the host then applies the operator
// and cg_dot forms the partials of p'q.
__kernel void cg_step(int fmt, int n, int le, int it, int check_only, int P2,
                      __global const double *part2, __global double *rzh, __global double *rrh,
                      __global int *done, double tol2,
                      __global const double *val, __global const int *ia, __global const int *ib,
                      __global const int *ic, __global const int *id, __global const int *ie,
                      __global const double *z, __global const double *pold, __global double *pnew,
                      __global double *q, __global double *part1, int T, __local double *s) {
	double beta;
	if (cg_begin(it, P2, part2, rzh, rrh, done, tol2, s, &beta) || check_only) return;
	if (fmt < 0) {
		for (int i = get_global_id(0); i < n; i += get_global_size(0)) pnew[i] = pval(z, pold, beta, i);
		return;
	}
	int l = get_local_id(0), R = get_local_size(0) / T, team = l / T, lane = l % T;
	double dot = 0;
	for (int rb = get_group_id(0); rb * R < n; rb += get_num_groups(0)) {
		int i = rb * R + team;
		s[l] = i < n ? row_sum(fmt, n, le, i, lane, T, val, ia, ib, ic, id, ie, z, pold, beta) : 0;
		team_sum(s, T);
		if (lane == 0 && i < n) {
			double qi = s[l], pi = pval(z, pold, beta, i);
			q[i] = qi;
			pnew[i] = pi;
			dot += pi * qi;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	group_parts(dot, part1, s);
}

// cg_dot: partials of p'q, for operators applied by the host.
__kernel void cg_dot(int n, __global const int *done, __global const double *p,
                     __global const double *q, __global double *part1, __local double *s) {
	if (done[0] >= 0) return;
	double acc = 0;
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += p[i] * q[i];
	group_parts(acc, part1, s);
}

__kernel void cg_update(int n, int it, int jacobi, int P1, __global const double *part1,
                        __global const double *rzh, __global const int *done,
                        __global double *x, __global double *r, __global double *z,
                        __global const double *p, __global const double *q,
                        __global const double *dinv, __global double *part2, __local double *s) {
	if (done[0] >= 0) return;
	double alpha = rzh[it] / reduce_parts(P1, part1, s);
	cg_advance(n, alpha, jacobi, x, r, z, p, q, dinv, part2, s);
}

// invert_diagonal sets dinv = 1/d and records in flag[ST_PIVOT] the first
// diagonal entry that is not positive (Jacobi CG needs an SPD matrix).
__kernel void invert_diagonal(int n, __global const double *d, __global double *dinv, __global int *flag) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		double v = d[i];
		if (!(v > 0) || !isfinite(v)) atomic_min(&flag[ST_PIVOT], i);
		dinv[i] = 1 / v;
	}
}

// ---- thesis: the ArrayFire-style separate vector operations ----

// thesis_div: out = num/den (negated when neg), one item: the thesis's
// af_div of two 1x1 arrays.
__kernel void thesis_div(__global const double *num, __global const double *den, __global double *out, int neg) {
	double v = num[0] / den[0];
	out[0] = neg ? -v : v;
}

// thesis_scale: out = s[0] * x (af_mul with batch).
__kernel void thesis_scale(int n, __global double *out, __global const double *s, __global const double *x) {
	int i = get_global_id(0);
	if (i < n) out[i] = s[0] * x[i];
}

// thesis_add: out = x + sign*y (af_add, af_sub).
__kernel void thesis_add(int n, __global double *out, __global const double *x, __global const double *y, int sign) {
	int i = get_global_id(0);
	if (i < n) out[i] = sign > 0 ? x[i] + y[i] : x[i] - y[i];
}
