// Conjugate gradient spread over several devices (cg_multi.go).
//
// Each device owns a contiguous block of m rows of A, stored as CSR with
// local column numbers: its own rows' columns 0..m-1, then the halo (the
// columns its rows reach in other devices' blocks) m..ext-1. Vectors that
// the product reads (z, p) have ext entries; the halo of z arrives from the
// host after every update, and every device forms the halo of the search
// direction p = z + beta p itself, from the same z, beta and old p as the
// owner, so it holds the owner's values bit for bit and p never travels.
// The scalars (alpha, beta) come from the host as kernel arguments: it sums
// the per-group partials every device leaves in out[] in a fixed order, so
// all devices use identical scalars.
//
//   mcg_init   x = 0, r = b, z = M^-1 b; partials of r'z and r'r
//   mcg_gather out[2G + k] = z[send[k]]: the values other devices need
//   mcg_step   p_new = z + beta p_old (own rows and halo); q = A p_new on
//              own rows; partials of p_new'q
//   mcg_update x += alpha p, r -= alpha q, z = M^-1 r; partials of r'z, r'r

__kernel void mcg_init(int m, int jacobi, __global const double *b, __global const double *dinv,
                       __global double *x, __global double *r, __global double *z,
                       __global double *out, __local double *s) {
	cg_start(m, jacobi, b, dinv, x, r, z, out, s);
}

__kernel void mcg_gather(int count, int off, __global const int *send, __global const double *z,
                         __global double *out) {
	for (int k = get_global_id(0); k < count; k += get_global_size(0)) out[off + k] = z[send[k]];
}

// mcg_step: T lanes per row (a power of two dividing the group size).
__kernel void mcg_step(int m, int ext, double beta, __global const int *rowptr,
                       __global const int *col, __global const double *val,
                       __global const double *z, __global const double *pold,
                       __global double *pnew, __global double *q, __global double *out,
                       int T, __local double *s) {
	int l = get_local_id(0), R = get_local_size(0) / T, team = l / T, lane = l % T;
	double dot = 0;
	for (int rb = get_group_id(0); rb * R < m; rb += get_num_groups(0)) {
		int i = rb * R + team;
		double acc = 0;
		if (i < m) {
			for (int k = rowptr[i] + lane; k < rowptr[i + 1]; k += T) {
				int j = col[k];
				acc += val[k] * fma(beta, pold[j], z[j]);
			}
		}
		s[l] = acc;
		team_sum(s, T);
		if (lane == 0 && i < m) {
			double qi = s[l], pi = fma(beta, pold[i], z[i]);
			q[i] = qi;
			pnew[i] = pi;
			dot += pi * qi;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int i = m + get_global_id(0); i < ext; i += get_global_size(0)) pnew[i] = fma(beta, pold[i], z[i]);
	group_parts(dot, out, s);
}

__kernel void mcg_update(int m, double alpha, int jacobi, __global double *x, __global double *r,
                         __global double *z, __global const double *p, __global const double *q,
                         __global const double *dinv, __global double *out, __local double *s) {
	cg_advance(m, alpha, jacobi, x, r, z, p, q, dinv, out, s);
}

// The one-sync iteration (Chronopoulos and Gear's CG, mcgIterate1): s = A p
// by recurrence, so the iteration's three dot products come from one
// reduction after the product w = A u, and the halo travels as w (read
// with those partials): every device advances s, r and u on its halo rows
// itself, from the same w, scalars and old values as the owner, so they
// hold the owner's values bit for bit.
//
// w's halo values arrive in in[3..], written by the host. alpha and beta
// are kernel arguments, or, with gated set, in[0] and in[1], written with
// the halo, so that the host can enqueue an iteration before it knows them
// (behind a kernels.Gate, mcgIterate1); in[2] is a stop flag: an iteration
// enqueued after the last one runs with it set and changes nothing.
//
//   mcg1_init   x = 0, p = 0, s = 0, r = b, u = M^-1 b (own rows and halo)
//   mcg1_update p = u + beta p, x += alpha p (own rows); s = w + beta s,
//               r -= alpha s, u = M^-1 r (own rows and halo)
//   mcg1_spmv   w = A u on own rows; partials of r'u, w'u, r'r; the w
//               values others need in out[3G + sendPos[i]]

__kernel void mcg1_init(int m, int ext, int jacobi, __global const double *b, __global const double *dinv,
                        __global double *x, __global double *r, __global double *u, __global double *p,
                        __global double *s) {
	for (int i = get_global_id(0); i < ext; i += get_global_size(0)) {
		double ri = b[i];
		r[i] = ri;
		if (jacobi) u[i] = ri * dinv[i];
		s[i] = 0;
		if (i < m) {
			x[i] = 0;
			p[i] = 0;
		}
	}
}

// mcg1_stop says whether in[] asks the iteration to do nothing (the same
// for every item, so a kernel may return at once).
inline int mcg1_stop(__global const double *in) { return in[2] != 0; }

__kernel void mcg1_update(int m, int ext, double alpha, double beta, int gated, int jacobi, __global double *x,
                          __global double *r, __global double *u, __global double *p, __global double *s,
                          __global const double *w, __global const double *in, __global const double *dinv) {
	if (mcg1_stop(in)) return;
	if (gated) {
		alpha = in[0];
		beta = in[1];
	}
	for (int i = get_global_id(0); i < ext; i += get_global_size(0)) {
		double si = fma(beta, s[i], i < m ? w[i] : in[3 + i - m]);
		s[i] = si;
		if (i < m) {
			// u is the old u here (r itself without jacobi, not yet advanced).
			double pi = fma(beta, p[i], u[i]);
			p[i] = pi;
			x[i] = fma(alpha, pi, x[i]);
		}
		double ri = fma(-alpha, si, r[i]);
		r[i] = ri;
		if (jacobi) u[i] = ri * dinv[i];
	}
}

// mcg1_row ends row i of a product (mcg1_spmv, mcg1_sell): it stores wi,
// in w and, for a row another device needs, in its slot of out after the
// partials, and adds the row's terms to this item's sums of r'u, w'u and
// r'r.
inline void mcg1_row(int i, double wi, __global const double *u, __global const double *r, __global double *w,
                     __global const int *sendPos, __global double *out, double *ru, double *wu, double *rr) {
	double ui = u[i], ri = r[i];
	w[i] = wi;
	*ru += ri * ui;
	*wu += wi * ui;
	*rr += ri * ri;
	int sp = sendPos[i];
	if (sp >= 0) out[3 * get_num_groups(0) + sp] = wi;
}

// mcg1_parts leaves the group's partials of r'u, w'u and r'r in out[0..G),
// out[G..2G) and out[2G..3G).
inline void mcg1_parts(double ru, double wu, double rr, __global double *out, __local double *sl) {
	int G = get_num_groups(0);
	group_parts(ru, out, sl);
	group_parts(wu, out + G, sl);
	group_parts(rr, out + 2 * G, sl);
}

// mcg1_spmv: T lanes per row (a power of two dividing the group size).
__kernel void mcg1_spmv(int m, __global const int *rowptr, __global const int *col, __global const double *val,
                        __global const double *u, __global const double *r, __global double *w,
                        __global const int *sendPos, __global double *out, __global const double *in, int T,
                        __local double *sl) {
	if (mcg1_stop(in)) return;
	int l = get_local_id(0), R = get_local_size(0) / T, team = l / T, lane = l % T;
	int G = get_num_groups(0);
	double ru = 0, wu = 0, rr = 0;
	for (int rb = get_group_id(0); rb * R < m; rb += G) {
		int i = rb * R + team;
		double acc = 0;
		if (i < m)
			for (int k = rowptr[i] + lane; k < rowptr[i + 1]; k += T) acc += val[k] * u[col[k]];
		sl[l] = acc;
		team_sum(sl, T);
		if (lane == 0 && i < m) mcg1_row(i, sl[l], u, r, w, sendPos, out, &ru, &wu, &rr);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	mcg1_parts(ru, wu, rr, out, sl);
}

// mcg1_sell is mcg1_spmv on the block in sliced ELLPACK (slices of c rows,
// as in sell.cl): an item per row, coalesced loads, no reduction within a
// row.
__kernel void mcg1_sell(int m, int c, __global const int *ptr, __global const int *col, __global const double *val,
                        __global const double *u, __global const double *r, __global double *w,
                        __global const int *sendPos, __global double *out, __global const double *in,
                        __local double *sl) {
	if (mcg1_stop(in)) return;
	double ru = 0, wu = 0, rr = 0;
	for (int i = get_global_id(0); i < m; i += get_global_size(0)) {
		int s = i / c, end = ptr[s + 1];
		double wi = 0;
		for (int e = ptr[s] + i % c; e < end; e += c) wi += val[e] * u[col[e]];
		mcg1_row(i, wi, u, r, w, sendPos, out, &ru, &wu, &rr);
	}
	mcg1_parts(ru, wu, rr, out, sl);
}
