// Reductions in two stages: reduce_partial leaves one partial per work-group
// in part[], reduce_final folds them in one group and writes out[0]. Partial
// results are accumulated in ACC (double where the device has it, so float
// arrays are summed in double precision). Op codes: 0 sum, 1 dot (x*y),
// 2 sum of squares, 3 max |x|.

inline ACC combine(int op, ACC a, ACC b) { return op == 3 ? fmax(a, b) : a + b; }

inline ACC element(int op, __global const T *x, __global const T *y, long i) {
	ACC a = (ACC)x[i];
	switch (op) {
	case 0: return a;
	case 1: return a * (ACC)y[i];
	case 2: return a * a;
	default: return fabs(a);
	}
}

inline void tree(int op, __local ACC *s) {
	int l = get_local_id(0);
	for (int w = get_local_size(0) / 2; w > 0; w >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (l < w) s[l] = combine(op, s[l], s[l + w]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// The local size must be a power of two.
__kernel void reduce_partial(int n, int op, __global const T *x, __global const T *y,
                             __global ACC *part, __local ACC *s) {
	int l = get_local_id(0);
	ACC acc = 0;
	for (long i = get_global_id(0); i < n; i += get_global_size(0))
		acc = combine(op, acc, element(op, x, y, i));
	s[l] = acc;
	tree(op, s);
	if (l == 0) part[get_group_id(0)] = s[0];
}

// One work-group. For op 2 (sum of squares) with final_sqrt set, out[0] is
// the square root: the 2-norm.
__kernel void reduce_final(int m, int op, int final_sqrt, __global const ACC *part,
                           __global ACC *out, __local ACC *s) {
	int l = get_local_id(0);
	ACC acc = 0;
	for (int i = l; i < m; i += get_local_size(0)) acc = combine(op, acc, part[i]);
	s[l] = acc;
	tree(op, s);
	if (l == 0) out[0] = final_sqrt ? sqrt(s[0]) : s[0];
}
