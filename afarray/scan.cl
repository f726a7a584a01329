// Exclusive prefix scans on the device: a work-group scans SCAN_PER * local
// consecutive elements and leaves its total in blockSums; the block sums are
// scanned the same way (recursively, see scan.go) and added back by *_add.
//
// A scan of n elements writes n+1 outputs: out[0] is the identity and out[n]
// the total, so that segment starts and the number of elements come out of
// one call. Positions at or beyond n read as the identity.
//
// Each work-item keeps its SCAN_PER inputs in private memory, so in and out
// may be the same buffer (of n+1 elements).

#define SCAN_PER 4

#define OP_ADD(a, b) ((a) + (b))
#define OP_MAX(a, b) max((a), (b))

#define SCAN_KERNELS(NAME, T, OP, ID)                                                   \
__kernel void NAME##_block(int n, __global const T *in, __global T *out,             \
                           __global T *blockSums, __local T *tmp) {                  \
	int l = get_local_id(0), L = get_local_size(0);                                  \
	long base = (long)get_group_id(0) * L * SCAN_PER + (long)l * SCAN_PER;           \
	T x[SCAN_PER];                                                                    \
	T sum = ID;                                                                       \
	for (int e = 0; e < SCAN_PER; e++) {                                              \
		long i = base + e;                                                            \
		x[e] = i < n ? in[i] : ID;                                                    \
		sum = OP(sum, x[e]);                                                          \
	}                                                                                 \
	tmp[l] = sum;                                                                     \
	barrier(CLK_LOCAL_MEM_FENCE);                                                     \
	/* Hillis-Steele inclusive scan of the work-items' totals. */                      \
	for (int off = 1; off < L; off <<= 1) {                                           \
		T v = l >= off ? tmp[l - off] : ID;                                           \
		barrier(CLK_LOCAL_MEM_FENCE);                                                 \
		tmp[l] = OP(tmp[l], v);                                                       \
		barrier(CLK_LOCAL_MEM_FENCE);                                                 \
	}                                                                                 \
	T run = l > 0 ? tmp[l - 1] : ID;                                                  \
	for (int e = 0; e < SCAN_PER; e++) {                                              \
		long i = base + e;                                                            \
		if (i <= n) out[i] = run;                                                     \
		run = OP(run, x[e]);                                                          \
	}                                                                                 \
	if (l == L - 1) blockSums[get_group_id(0)] = tmp[L - 1];                          \
}                                                                                     \
__kernel void NAME##_add(int n, __global T *out, __global const T *offsets) {        \
	int g = get_group_id(0);                                                          \
	if (g == 0) return;                                                               \
	T off = offsets[g];                                                               \
	long base = (long)g * get_local_size(0) * SCAN_PER + (long)get_local_id(0) * SCAN_PER; \
	for (int e = 0; e < SCAN_PER; e++) {                                              \
		long i = base + e;                                                            \
		if (i <= n) out[i] = OP(off, out[i]);                                         \
	}                                                                                 \
}

SCAN_KERNELS(scan_add_i32, int, OP_ADD, 0)
SCAN_KERNELS(scan_max_i32, int, OP_MAX, INT_MIN)
SCAN_KERNELS(scan_add_i64, long, OP_ADD, 0)
