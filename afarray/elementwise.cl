// Elementwise kernels of afarray. Built once per element type T with
// -DT=double, -DT=float or -DT=int (see program.go). Arrays are flat: a 2-D
// array is column-major and elementwise kernels see it as one vector.

__kernel void fill(int n, T v, __global T *x) {
	int i = get_global_id(0);
	if (i < n) x[i] = v;
}

// range: x[i] = start + i*step
__kernel void range_fill(int n, T start, T step, __global T *x) {
	int i = get_global_id(0);
	if (i < n) x[i] = start + (T)i * step;
}

__kernel void scale(int n, T a, __global T *x) {
	int i = get_global_id(0);
	if (i < n) x[i] *= a;
}

// y = a*x + y
__kernel void axpy(int n, T a, __global const T *x, __global T *y) {
	int i = get_global_id(0);
	if (i < n) y[i] += a * x[i];
}

// z = x op y, op selected by code: 0 add, 1 sub, 2 mul, 3 div.
__kernel void binary(int n, int op, __global const T *x, __global const T *y, __global T *z) {
	int i = get_global_id(0);
	if (i >= n) return;
	T a = x[i], b = y[i];
	T r;
	switch (op) {
	case 0: r = a + b; break;
	case 1: r = a - b; break;
	case 2: r = a * b; break;
	default: r = a / b; break;
	}
	z[i] = r;
}

// checked_index returns idx[i] when it lies in [0, len), else -1 after setting
// *bad: gather and scatter skip the element and the host reports ErrIndex.
inline int checked_index(__global const int *idx, int i, int len, __global int *bad) {
	int k = idx[i];
	if (k < 0 || k >= len) {
		*bad = 1;
		return -1;
	}
	return k;
}

// dst[i] = src[idx[i]].
__kernel void gather(int n, int len, __global const T *src, __global const int *idx, __global T *dst, __global int *bad) {
	int i = get_global_id(0);
	if (i >= n) return;
	int k = checked_index(idx, i, len, bad);
	if (k >= 0) dst[i] = src[k];
}

// dst[idx[i]] = src[i]. Duplicate indices leave one of the written values
// (unspecified which), as in ArrayFire.
__kernel void scatter(int n, int len, __global const T *src, __global const int *idx, __global T *dst, __global int *bad) {
	int i = get_global_id(0);
	if (i >= n) return;
	int k = checked_index(idx, i, len, bad);
	if (k >= 0) dst[k] = src[i];
}

// Seeded uniform random numbers in [0,1) (floating T) from a counter-based
// hash (splitmix64 of seed and index): the same seed gives the same array on
// every device, with no state to carry.
#ifdef T_IS_FLOAT
__kernel void random_uniform(int n, ulong seed, __global T *x) {
	int i = get_global_id(0);
	if (i >= n) return;
	ulong z = seed + 0x9E3779B97F4A7C15UL * (ulong)(i + 1);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
	z = z ^ (z >> 31);
	x[i] = (T)((double)(z >> 11) * (1.0 / 9007199254740992.0));
}
#endif

// Tiled transpose through local memory so that both the read and the write
// are coalesced. a is rows x cols column-major; t is cols x rows.
#define TT 16
__kernel void transpose(int rows, int cols, __global const T *a, __global T *t) {
	__local T tile[TT][TT + 1];
	int bi = get_group_id(0) * TT;
	int li = get_local_id(0), lj = get_local_id(1);
	// Dimension 1 strides over the column tiles: the launch caps its groups
	// there, since NVIDIA limits grid dimensions 1 and 2 to 65,535 groups (a
	// row vector longer than 1,048,560 would not launch). bj is the same
	// for the whole group, so every work-item meets the barriers alike.
	for (int bj = get_group_id(1) * TT; bj < cols; bj += get_num_groups(1) * TT) {
		int i = bi + li, j = bj + lj;
		if (i < rows && j < cols) tile[lj][li] = a[i + (long)rows * j];
		barrier(CLK_LOCAL_MEM_FENCE);
		// write t(j', i') with j' = bj + li running fastest
		int tj = bj + li, ti = bi + lj;
		if (tj < cols && ti < rows) t[tj + (long)cols * ti] = tile[li][lj];
		barrier(CLK_LOCAL_MEM_FENCE); // the tile is refilled next round
	}
}
