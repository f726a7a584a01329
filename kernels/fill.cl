// fill_pattern sets the n bytes of x from byte off to repetitions of a
// pattern, given replicated to 128 bytes in pat (a pattern's length divides
// 128, and its phase starts at off): in 4-byte words when words is set (off
// and n multiples of 4), else byte by byte. Buffer.Fill uses it for ranges
// that reach beyond what NVIDIA's clEnqueueFillBuffer can do (see fill.go).
// The indices are longs.
__kernel void fill_pattern(__global uchar *x, long off, long n, ulong16 pat, int words) {
	const ulong16 p = pat;
	if (words) {
		__global uint *w = (__global uint *)(x + off);
		const uint *pw = (const uint *)&p;
		for (long i = get_global_id(0); i < n / 4; i += get_global_size(0))
			w[i] = pw[i % 32];
	} else {
		const uchar *pb = (const uchar *)&p;
		for (long i = get_global_id(0); i < n; i += get_global_size(0))
			x[off + i] = pb[i % 128];
	}
}
