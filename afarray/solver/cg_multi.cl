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
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int w = T / 2; w > 0; w >>= 1) {
			if (lane < w) s[l] += s[l + w];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
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
