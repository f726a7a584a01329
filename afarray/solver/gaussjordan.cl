// Fast Gauss-Jordan on the augmented matrix [A | B] (n x wA, column-major):
// NB pivots per step. gauss_jordan_rows applies the inverse of the NB x NB
// pivot block to the pivot rows of the columns right of it (each group
// inverts the block itself in local memory, redundantly, instead of paying a
// launch for it); blocked_update (mode 2) then eliminates those columns from
// every other row with one tiled rank-NB product. Two launches per NB
// pivots instead of NB, and the update reads and writes whole 32 x 32 tiles.
// Like the thesis there is no pivoting; a zero pivot is recorded.

__kernel void gauss_jordan_rows(int n, int wA, int k, __global double *A,
                                __global int *flag, __global double *pivot) {
	__local double D[NB * NB];
	__local double T[NB * TU];
	int nb = min(NB, n - k);
	int l = get_local_id(0), L = get_local_size(0);
	long ld = n;
	int c0 = k + nb + get_group_id(0) * TU;
	int tc = min(TU, wA - c0);
	if (tc <= 0) return;
	for (int e = l; e < nb * nb; e += L) D[e % nb + NB * (e / nb)] = A[(k + e % nb) + ld * (k + e / nb)];
	for (int e = l; e < nb * tc; e += L) T[e % nb + NB * (e / nb)] = A[(k + e % nb) + ld * (c0 + e / nb)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int p = 0; p < nb; p++) {
		double d = D[p + NB * p];
		if (l == 0 && get_group_id(0) == 0 && (d == 0 || !isfinite(d))) record_pivot(flag, pivot, k + p, d);
		barrier(CLK_LOCAL_MEM_FENCE);
		// Scale pivot row p (right of the pivot, and the tile).
		for (int c = p + 1 + l; c < nb; c += L) D[p + NB * c] /= d;
		for (int c = l; c < tc; c += L) T[p + NB * c] /= d;
		barrier(CLK_LOCAL_MEM_FENCE);
		// Eliminate column p from the other rows. Column p is not written and
		// row p is not written, so this phase has no read/write overlap.
		int w = nb - p - 1;
		for (int e = l; e < nb * (w + tc); e += L) {
			int r = e % nb, c = e / nb;
			if (r == p) continue;
			double f = D[r + NB * p];
			if (c < w) D[r + NB * (p + 1 + c)] -= f * D[p + NB * (p + 1 + c)];
			else T[r + NB * (c - w)] -= f * T[p + NB * (c - w)];
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int e = l; e < nb * tc; e += L) A[(k + e % nb) + ld * (c0 + e / nb)] = T[e % nb + NB * (e / nb)];
}
