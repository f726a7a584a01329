// Pipelined CG spread over several devices (Ghysels and Vanroose 2014;
// cg_multi_pipe.go). With u = M^-1 r, w = A u, m = M^-1 w and n = A m, the
// iteration's dot products r'u, w'u and r'r need only vectors the previous
// update produced, so they are reduced (pcg_update's partials) before the
// product n = A m, and the host sums them while the product runs:
//
//   z = n + beta z,  q = m + beta q,  s = w + beta s,  p = u + beta p,
//   x += alpha p,    r -= alpha s,    u -= alpha q,    w -= alpha z,
//   m = M^-1 w,      n = A m.
//
// Vectors on own rows 0..m-1 and halo m..ext-1 as in cg_multi.cl: the
// product reads m on the halo, and every device advances z, w and m on its
// halo itself from n's halo values (the owners' send values, written by
// the host) with the same scalars and old values as the owner, so they
// hold the owner's values bit for bit. r and s live on own rows; x, u, p
// and q have room for the halo too, for the products of the start and of
// residual replacement, whose halos travel when they run.
//
//   pcg_init    x = q = s = p = 0, r = b (own rows); u = M^-1 b, z = 0
//   pcg_sell    y = A v on a range of the row list (sliced ELLPACK); the
//               values others need in out[sendOff + sendPos[i]]
//   pcg_start   m = M^-1 w; partials of r'u, w'u, r'r
//   pcg_update  the recurrences above and m = M^-1 w; partials

__kernel void pcg_init(int m, int ext, int jacobi, __global const double *b, __global const double *dinv,
                       __global double *x, __global double *r, __global double *u, __global double *z,
                       __global double *q, __global double *s, __global double *p) {
	for (int i = get_global_id(0); i < ext; i += get_global_size(0)) {
		double bi = b[i];
		u[i] = jacobi ? bi * dinv[i] : bi;
		z[i] = 0;
		if (i < m) {
			x[i] = 0;
			r[i] = bi;
			q[i] = 0;
			s[i] = 0;
			p[i] = 0;
		}
	}
}

// pcg_sell: y[rows[k]] = (A v)[rows[k]] for positions k0 <= k < k1 of the
// part's row list, stored sliced ELLPACK in that order (slices of c
// positions, slot j of position k at ptr[k / c] + j*c + k % c, as in
// sell.cl): an item per row, coalesced loads, no reduction.
__kernel void pcg_sell(int k0, int k1, int c, __global const int *rows, __global const int *ptr,
                       __global const int *col, __global const double *val, __global const double *v,
                       __global double *y, __global const int *sendPos, __global double *out, int sendOff) {
	for (int k = k0 + get_global_id(0); k < k1; k += get_global_size(0)) {
		int s = k / c, end = ptr[s + 1];
		double acc = 0;
		for (int e = ptr[s] + k % c; e < end; e += c) acc += val[e] * v[col[e]];
		int i = rows[k], sp = sendPos[i];
		y[i] = acc;
		if (sp >= 0) out[sendOff + sp] = acc;
	}
}

// pcg_partials stores this group's partials of r'u, w'u and r'r.
inline void pcg_partials(double ru, double wu, double rr, __global double *out, __local double *sl) {
	int G = get_num_groups(0);
	group_parts(ru, out, sl);
	group_parts(wu, out + G, sl);
	group_parts(rr, out + 2 * G, sl);
}

__kernel void pcg_start(int m, int ext, int jacobi, __global const double *r, __global const double *u,
                        __global const double *w, __global const double *dinv, __global double *mv,
                        __global double *out, __local double *sl) {
	double ru = 0, wu = 0, rr = 0;
	for (int i = get_global_id(0); i < ext; i += get_global_size(0)) {
		double wi = w[i];
		mv[i] = jacobi ? wi * dinv[i] : wi;
		if (i < m) {
			double ri = r[i], ui = u[i];
			ru += ri * ui;
			wu += wi * ui;
			rr += ri * ri;
		}
	}
	pcg_partials(ru, wu, rr, out, sl);
}

// pcg_update: without jacobi u is r and m is w (q then equals s and is not
// kept).
__kernel void pcg_update(int m, int ext, double alpha, double beta, int jacobi, __global double *x,
                         __global double *r, __global double *u, __global double *w, __global double *mv,
                         __global const double *nv, __global double *z, __global double *q,
                         __global double *s, __global double *p, __global const double *dinv,
                         __global double *out, __local double *sl) {
	double ru = 0, wu = 0, rr = 0;
	for (int i = get_global_id(0); i < ext; i += get_global_size(0)) {
		double wold = w[i], zi = fma(beta, z[i], nv[i]);
		double wi = fma(-alpha, zi, wold);
		z[i] = zi;
		w[i] = wi;
		if (i < m) {
			double si = fma(beta, s[i], wold), pi = fma(beta, p[i], u[i]);
			double ri = fma(-alpha, si, r[i]), ui = ri;
			if (jacobi) {
				double qi = fma(beta, q[i], mv[i]);
				q[i] = qi;
				ui = fma(-alpha, qi, u[i]);
			}
			s[i] = si;
			p[i] = pi;
			x[i] = fma(alpha, pi, x[i]);
			r[i] = ri;
			u[i] = ui;
			ru += ri * ui;
			wu += wi * ui;
			rr += ri * ri;
		}
		mv[i] = jacobi ? wi * dinv[i] : wi;
	}
	pcg_partials(ru, wu, rr, out, sl);
}

// Residual replacement (mcgIteratePipe's replace): the recurrences for r,
// w, s, q and z drift from what they stand for; from time to time they are
// computed afresh from x and p: r = b - A x, u = M^-1 r, w = A u, s = A p,
// q = M^-1 s, z = A q.
//
//   pcg_resid   r = b - y (y = A x), u = M^-1 r on own rows
//   pcg_prec    q = M^-1 s on own rows

__kernel void pcg_resid(int m, int jacobi, __global const double *b, __global const double *y,
                        __global const double *dinv, __global double *r, __global double *u) {
	for (int i = get_global_id(0); i < m; i += get_global_size(0)) {
		double ri = b[i] - y[i];
		r[i] = ri;
		u[i] = jacobi ? ri * dinv[i] : ri;
	}
}

__kernel void pcg_prec(int m, int jacobi, __global const double *s, __global const double *dinv,
                       __global double *q) {
	for (int i = get_global_id(0); i < m; i += get_global_size(0)) q[i] = jacobi ? s[i] * dinv[i] : s[i];
}
