// Helpers shared by the dense and CG programs of package solver.

// record_pivot stores a bad pivot: flag[ST_PIVOT] keeps the smallest column (it
// starts at INT_MAX); the first column ever recorded also stores its value.
// The factorizations meet columns in order, so that is the first bad one.
inline void record_pivot(__global int *flag, __global double *pivot, int j, double d) {
	if (atomic_min(&flag[ST_PIVOT], j) == INT_MAX) pivot[0] = d;
}

// tree_sum folds part[0..W) into part[0]; W must be a power of two.
inline void tree_sum(__local double *part) {
	int l = get_local_id(0);
	for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (l < w) part[l] += part[l + w];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}


// copy_cols copies an n x m column-major block from src (leading dimension
// lds, first column c0) into dst (leading dimension ldd, first column d0).
// Gauss-Jordan builds the augmented matrix [A | B] with it.
__kernel void copy_cols(int n, int m, __global const double *src, int lds, int c0,
                        __global double *dst, int ldd, int d0) {
	long total = (long)n * m;
	for (long e = get_global_id(0); e < total; e += get_global_size(0)) {
		int i = e % n, j = e / n;
		dst[i + (long)ldd * (d0 + j)] = src[i + (long)lds * (c0 + j)];
	}
}
