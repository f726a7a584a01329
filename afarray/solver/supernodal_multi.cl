// The moves of the multi-device supernodal factorization
// (supernodal_multi.go): a subtree root's update matrix is m x m,
// column-major, of which only the lower triangle means anything, so it
// crosses the host packed, column by column: m(m+1)/2 doubles instead of m².

// sn_pack copies the lower triangle of the m x m matrix at U + off into P
// (unpack = 0), or back (unpack = 1); a group per column at a time.
__kernel void sn_pack(__global double *U, long off, int m, __global double *P, int unpack) {
	for (int j = get_group_id(0); j < m; j += get_num_groups(0)) {
		const long pj = (long)j * m - (long)j * (j - 1) / 2 - j; // packed (i, j) is P[pj + i]
		__global double *u = U + off + (long)j * m;
		for (int i = j + get_local_id(0); i < m; i += get_local_size(0)) {
			if (unpack)
				u[i] = P[pj + i];
			else
				P[pj + i] = u[i];
		}
	}
}
