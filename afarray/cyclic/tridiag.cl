// Cyclic reduction kernels for batches of tridiagonal systems, built once for
// double (-DREAL=double -DREAL_MIN=DBL_MIN) and once for float.
//
// A batch holds count systems of order n, system s at offset s*n in each of
// the arrays a (subdiagonal), b (diagonal), c (superdiagonal) and d (right-hand
// side). a[s*n] and c[s*n+n-1] lie outside the matrix: every kernel masks them
// by index rather than trusting the data.
//
// Numbering: at the level of stride s of cyclic reduction the live equations
// are those with (i+1) % s == 0; the next level keeps every second one, with
// (i+1) % 2s == 0. This works for any n, not only 2^p - 1: an equation whose
// right neighbour falls beyond the end is combined with its left one only.
//
// Breakdown: no kernel pivots. A zero or subnormal divisor sets bit 1 of
// *flag, a non-finite solution component sets bit 2; the host reads the flag
// once at the end of a solve.

#ifndef REAL
#define REAL double
#endif
#ifndef REAL_MIN
#define REAL_MIN DBL_MIN
#endif
// Private storage per work-item for PCR: a work-item owns at most PCR_RMAX
// equations (the host never launches a PCR stage with more).
#ifndef PCR_RMAX
#define PCR_RMAX 8
#endif

#define FLAG_PIVOT 1
#define FLAG_NONFINITE 2

// A divisor is usable if it is normal; the comparison is false for NaN too.
#define CHECK_PIVOT(v, flag) if (!(fabs(v) >= REAL_MIN)) atomic_or(flag, FLAG_PIVOT)
#define CHECK_FINITE(v, flag) if (!isfinite(v)) atomic_or(flag, FLAG_NONFINITE)

// A REAL4 holds one equation (a, b, c, d): a x[j-1] + b x[j] + c x[j+1] = d.
#define VEC4_(t) t##4
#define VEC4(t) VEC4_(t)
#define REAL4 VEC4(REAL)

// eliminate combines equation e with its left neighbour l (when has_l) and
// its right neighbour r (when has_r) so that it no longer involves their
// unknowns: the result couples it to their outer neighbours. Every
// reduction below (cr_reduce, cr_forward, pcr_solve) goes through it, with
// one order of operations.
inline REAL4 eliminate(REAL4 e, int has_l, REAL4 l, int has_r, REAL4 r, __global int *flag) {
	REAL4 n = (REAL4)(0, e.y, 0, e.w);
	if (has_l) {
		CHECK_PIVOT(l.y, flag);
		REAL k1 = e.x / l.y;
		n.x = -l.x * k1;
		n.y -= l.z * k1;
		n.w -= l.w * k1;
	}
	if (has_r) {
		CHECK_PIVOT(r.y, flag);
		REAL k2 = e.z / r.y;
		n.y -= r.x * k2;
		n.w -= r.w * k2;
		n.z = -r.z * k2;
	}
	return n;
}

// cr_reduce performs one cyclic-reduction level in global memory for the
// whole batch: equation 2k+1 of each level system (order n) is combined with
// equations 2k and 2k+2 into equation k of the next level (order m = n/2),
// which is written compactly so that the next level reads contiguous memory.
// One work-item per output equation over the flattened batch.
__kernel void cr_reduce(int n, int m, int count,
		__global const REAL *a, __global const REAL *b, __global const REAL *c, __global const REAL *d,
		__global REAL *a2, __global REAL *b2, __global REAL *c2, __global REAL *d2,
		__global int *flag) {
	int t = get_global_id(0);
	if (t >= m * count) return;
	int s = t / m, k = t - s * m;
	int o = s * n;
	int i = 2 * k + 1, l = i - 1, r = i + 1;
	REAL4 ei = (REAL4)(a[o + i], b[o + i], (i < n - 1) ? c[o + i] : 0, d[o + i]);
	REAL4 el = (REAL4)((l > 0) ? a[o + l] : 0, b[o + l], c[o + l], d[o + l]);
	REAL4 er = (REAL4)(0);
	if (r < n)
		er = (REAL4)(a[o + r], b[o + r], (r < n - 1) ? c[o + r] : 0, d[o + r]);
	REAL4 e = eliminate(ei, 1, el, r < n, er, flag);
	int q = s * m + k;
	a2[q] = e.x;
	b2[q] = e.y;
	c2[q] = e.z;
	d2[q] = e.w;
}

// cr_backsub undoes one cr_reduce level: given the solution xm of the next
// level (order m per system), it solves the eliminated even equations of this
// level (order n) and scatters the whole solution into x. x may be d itself:
// each work-item reads d[2k] before writing x[2k] and x[2k+1], and no other
// work-item reads those.
__kernel void cr_backsub(int n, int m, int count,
		__global const REAL *a, __global const REAL *b, __global const REAL *c, __global const REAL *d,
		__global const REAL *xm, __global REAL *x, __global int *flag) {
	int e = n - m; // even equations per system
	int t = get_global_id(0);
	if (t >= e * count) return;
	int s = t / e, k = t - s * e;
	int o = s * n, i = 2 * k;
	REAL v = d[o + i];
	if (k > 0) v -= a[o + i] * xm[s * m + k - 1];
	if (k < m) v -= c[o + i] * xm[s * m + k];
	REAL bi = b[o + i];
	CHECK_PIVOT(bi, flag);
	v /= bi;
	CHECK_FINITE(v, flag);
	x[o + i] = v;
	if (k < m) x[o + i + 1] = xm[s * m + k];
}

// load_system copies system s into local memory, zeroing the two entries
// outside the matrix.
inline void load_system(int n, int o, __global const REAL *a, __global const REAL *b,
		__global const REAL *c, __global const REAL *d,
		__local REAL *la, __local REAL *lb, __local REAL *lc, __local REAL *ld) {
	int L = get_local_size(0);
	for (int i = get_local_id(0); i < n; i += L) {
		la[i] = (i > 0) ? a[o + i] : 0;
		lb[i] = b[o + i];
		lc[i] = (i < n - 1) ? c[o + i] : 0;
		ld[i] = d[o + i];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// cr_forward reduces in local memory from stride 1 until the live system has
// at most stop equations (stop >= 1), and returns the final stride.
inline int cr_forward(int n, int stop, __local REAL *la, __local REAL *lb, __local REAL *lc,
		__local REAL *ld, __global int *flag) {
	int L = get_local_size(0), lid = get_local_id(0);
	int s = 1;
	while (n / s > stop) {
		int cnt = n / (2 * s);
		for (int k = lid; k < cnt; k += L) {
			int j = (k + 1) * 2 * s - 1, l = j - s, r = j + s;
			REAL4 er = (REAL4)(0);
			if (r < n)
				er = (REAL4)(la[r], lb[r], lc[r], ld[r]);
			REAL4 e = eliminate((REAL4)(la[j], lb[j], lc[j], ld[j]), 1, (REAL4)(la[l], lb[l], lc[l], ld[l]), r < n, er, flag);
			la[j] = e.x;
			lb[j] = e.y;
			lc[j] = e.z;
			ld[j] = e.w;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		s *= 2;
	}
	return s;
}

// cr_backward solves, from stride s/2 down to 1, the equations eliminated by
// cr_forward, once the live equations of stride s hold their solution in ld.
inline void cr_backward(int n, int s, __local REAL *la, __local REAL *lb, __local REAL *lc,
		__local REAL *ld, __global int *flag) {
	int L = get_local_size(0), lid = get_local_id(0);
	for (s /= 2; s >= 1; s /= 2) {
		int cnt = (n / s + 1) / 2; // odd multiples of s up to n
		for (int k = lid; k < cnt; k += L) {
			int j = (2 * k + 1) * s - 1;
			REAL v = ld[j];
			if (j - s >= 0) v -= la[j] * ld[j - s];
			if (j + s < n) v -= lc[j] * ld[j + s];
			REAL bj = lb[j];
			CHECK_PIVOT(bj, flag);
			ld[j] = v / bj;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

// pcr_solve runs parallel cyclic reduction on the q equations j_k = (k+1)s-1
// of stride s, leaving their solution in ld. Every equation is reduced at
// every step; the new coefficients are kept in private memory until all
// work-items have read the old ones.
inline void pcr_solve(int n, int s, __local REAL *la, __local REAL *lb, __local REAL *lc,
		__local REAL *ld, __global int *flag) {
	int L = get_local_size(0), lid = get_local_id(0);
	int q = n / s;
	REAL na[PCR_RMAX], nb[PCR_RMAX], nc[PCR_RMAX], nd[PCR_RMAX];
	for (int t = 1; t < q; t *= 2) {
		for (int r = 0; r < PCR_RMAX; r++) {
			int k = lid + r * L;
			if (k >= q) break;
			int j = (k + 1) * s - 1, l = j - t * s, rr = j + t * s;
			REAL4 el = (REAL4)(0), er = (REAL4)(0);
			if (k - t >= 0)
				el = (REAL4)(la[l], lb[l], lc[l], ld[l]);
			if (k + t < q)
				er = (REAL4)(la[rr], lb[rr], lc[rr], ld[rr]);
			REAL4 e = eliminate((REAL4)(la[j], lb[j], lc[j], ld[j]), k - t >= 0, el, k + t < q, er, flag);
			na[r] = e.x;
			nb[r] = e.y;
			nc[r] = e.z;
			nd[r] = e.w;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int r = 0; r < PCR_RMAX; r++) {
			int k = lid + r * L;
			if (k >= q) break;
			int j = (k + 1) * s - 1;
			la[j] = na[r];
			lb[j] = nb[r];
			lc[j] = nc[r];
			ld[j] = nd[r];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int k = lid; k < q; k += L) {
		int j = (k + 1) * s - 1;
		REAL bj = lb[j];
		CHECK_PIVOT(bj, flag);
		ld[j] = ld[j] / bj;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// store_solution writes the solution from ld to x and checks it is finite.
inline void store_solution(int n, int o, __local REAL *ld, __global REAL *x, __global int *flag) {
	int L = get_local_size(0);
	for (int i = get_local_id(0); i < n; i += L) {
		REAL v = ld[i];
		CHECK_FINITE(v, flag);
		x[o + i] = v;
	}
}

// The three in-work-group solvers: one work-group per system of order n,
// all four arrays in local memory. x may alias d.

__kernel void tri_cr(int n, __global const REAL *a, __global const REAL *b, __global const REAL *c,
		__global const REAL *d, __global REAL *x, __global int *flag,
		__local REAL *la, __local REAL *lb, __local REAL *lc, __local REAL *ld) {
	int o = get_group_id(0) * n;
	load_system(n, o, a, b, c, d, la, lb, lc, ld);
	int s = cr_forward(n, 1, la, lb, lc, ld, flag);
	if (get_local_id(0) == 0) {
		REAL bj = lb[s - 1];
		CHECK_PIVOT(bj, flag);
		ld[s - 1] /= bj;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	cr_backward(n, s, la, lb, lc, ld, flag);
	store_solution(n, o, ld, x, flag);
}

__kernel void tri_pcr(int n, __global const REAL *a, __global const REAL *b, __global const REAL *c,
		__global const REAL *d, __global REAL *x, __global int *flag,
		__local REAL *la, __local REAL *lb, __local REAL *lc, __local REAL *ld) {
	int o = get_group_id(0) * n;
	load_system(n, o, a, b, c, d, la, lb, lc, ld);
	pcr_solve(n, 1, la, lb, lc, ld, flag);
	store_solution(n, o, ld, x, flag);
}

// tri_crpcr reduces by CR until at most sw equations remain, solves those by
// PCR and back-substitutes by CR.
__kernel void tri_crpcr(int n, int sw, __global const REAL *a, __global const REAL *b,
		__global const REAL *c, __global const REAL *d, __global REAL *x, __global int *flag,
		__local REAL *la, __local REAL *lb, __local REAL *lc, __local REAL *ld) {
	int o = get_group_id(0) * n;
	load_system(n, o, a, b, c, d, la, lb, lc, ld);
	int s = cr_forward(n, sw, la, lb, lc, ld, flag);
	pcr_solve(n, s, la, lb, lc, ld, flag);
	cr_backward(n, s, la, lb, lc, ld, flag);
	store_solution(n, o, ld, x, flag);
}
