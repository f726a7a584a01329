// Block cyclic reduction, Buneman's stable variant, for the block
// tridiagonal system of the 2-D Poisson problem,
//
//	u_{i-1} + A u_i + u_{i+1} = y_i,  i = 1..P,  P = 2^K - 1,  u_0 = u_{P+1} = 0,
//
// where the lines u_i have Q entries and A = -T with T tridiagonal. Lines are
// stored one after the other: line i (1-based) at offset (i-1)*Q.
//
// A level of the reduction works on the active lines i = first + jj*step,
// jj = 0..J-1. Solves with the level's matrix polynomial are split by partial
// fractions into N = 2^r shifted solves (T - lambda_l I) w = v, one system per
// (line, l) pair: bcr_build writes their diagonals and right-hand sides for
// the batched tridiagonal solver, and bcr_combine sums the N solutions with
// the partial-fraction coefficients into the Buneman recurrences.

#define FLAG_NONFINITE 2

// bcr_init sets q = scale * f (the right-hand side y of the block system)
// and p = 0.
__kernel void bcr_init(int total, double scale, __global const double *f, __global double *p, __global double *q) {
	int t = get_global_id(0);
	if (t >= total) return;
	q[t] = scale * f[t];
	p[t] = 0;
}

// bcr_build writes, for system s = jj*N + l, the diagonal diag0 - lambda_l and
// the right-hand side: p_{i-h} + p_{i+h} - q_i in the reduction (mode 0),
// q_i - x_{i-h} - x_{i+h} in the back-substitution (mode 1). Lines 0 and
// P+1 are zero.
__kernel void bcr_build(int Q, int P, int h, int first, int step, int N, int J,
		__global const double *lam, double diag0, int mode,
		__global const double *p, __global const double *q, __global const double *x,
		__global double *b, __global double *d) {
	int t = get_global_id(0);
	if (t >= N * J * Q) return;
	int s = t / Q, j = t - s * Q;
	int jj = s / N, l = s - jj * N;
	int i = first + jj * step;
	int o = (i - 1) * Q + j;
	b[t] = diag0 - lam[l];
	double v;
	if (mode == 0) {
		v = -q[o];
		if (i - h >= 1) v += p[o - h * Q];
		if (i + h <= P) v += p[o + h * Q];
	} else {
		v = q[o];
		if (i - h >= 1) v -= x[o - h * Q];
		if (i + h <= P) v -= x[o + h * Q];
	}
	d[t] = v;
}

// bcr_combine sums the shifted solutions, acc = sum_l coef_l y_l, which is
// -(A^(r))^{-1} v, and applies the recurrences: in the reduction (mode 0)
//
//	p_i <- p_i + acc,  q_i <- q_{i-h} + q_{i+h} - 2 p_i,
//
// and in the back-substitution (mode 1) x_i = p_i - acc, with
// acc = -(A^(r))^{-1}(q_i - x_{i-h} - x_{i+h}).
__kernel void bcr_combine(int Q, int P, int h, int first, int step, int N, int J,
		__global const double *coef, int mode, __global const double *y,
		__global double *p, __global double *q, __global double *x, __global int *flag) {
	int t = get_global_id(0);
	if (t >= J * Q) return;
	int jj = t / Q, j = t - jj * Q;
	int i = first + jj * step;
	int o = (i - 1) * Q + j;
	double acc = 0;
	__global const double *yl = y + (jj * N) * Q + j;
	for (int l = 0; l < N; l++) acc += coef[l] * yl[l * Q];
	if (mode == 0) {
		double pn = p[o] + acc;
		double qn = -2 * pn;
		if (i - h >= 1) qn += q[o - h * Q];
		if (i + h <= P) qn += q[o + h * Q];
		p[o] = pn;
		q[o] = qn;
	} else {
		double v = p[o] - acc;
		if (!isfinite(v)) atomic_or(flag, FLAG_NONFINITE);
		x[o] = v;
	}
}
