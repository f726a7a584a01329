// The fast CSC Cholesky and LDLT: a right-looking supernodal method on the
// thesis CSC layout of L (structure from the elimination-tree symbolic
// analysis).
//
// A supernode is a run of columns s0..s0+ns-1 (ns <= BLOCK_B) where each
// column's structure is the next column's plus that column: the diagonal
// block is a dense triangle and all its columns share the rows below it,
// R = the off-diagonal rows of the last column (rowL[rb ..], m of them). In
// the thesis layout column s0+t is then stored as [diagonal, rows
// s0+t+1..s0+ns-1, R], contiguous, so the supernode is a dense trapezoid
// read with unit stride. Per supernode, csc_panel factors the diagonal block
// in local memory and solves the rows R against it (one row per item, as the
// skyline's sks_panel), and csc_update applies the rank-ns update to the
// columns R in 32 x 32 tiles, each item locating its target slot by a binary
// search in the target column's sorted rows. The thesis instead makes two
// launches per column with linear slot searches; the map from A's entries to
// L's slots (csc_fill) is computed once on the host in the symbolic phase.
#define B BLOCK_B // see sparse_block.cl; ldlt, an argument of every kernel, selects LDLT at run time

// csc_fill scatters A's entries into the zeroed L through the host's map.
__kernel void csc_fill(__global const double *elmA, __global const int *amap, int nnzA, __global double *elmL) {
	for (long x = get_global_id(0); x < nnzA; x += get_global_size(0))
		elmL[amap[x]] = elmA[x];
}

// csc_load_diag loads the supernode's dense diagonal block into D and the
// start of each of its columns into start.
void csc_load_diag(__global const double *elmL, __global const int *colL, int s0, int ns, __local double D[B][B + 1],
                   __local int *start) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = lid; j < ns; j += ls)
		start[j] = colL[s0 + j];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int t = lid; t < B * B; t += ls) {
		const int i = t % B, j = t / B;
		D[i][j] = (j < ns && i < ns && i >= j) ? elmL[start[j] + i - j] : 0.0;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// csc_at is the position of the supernode's column t at its below-block row
// number a.
#define csc_at(start, ns, t, a) ((start)[t] + (ns) - (t) + (a))

// csc_panel: see the file comment. Group 0 stores the factored block
// (block_store); item a solves row a of R (below-block row number a, at
// csc_at(start, ns, j, a) in column j).
__kernel void csc_panel(__global double *elmL, __global const int *colL, int s0, int ns, int m, __global double *dout,
                        __global int *st, int ldlt) {
	__local double D[B][B + 1];
	__local int start[B];
	if (sparse_failed(st))
		return;
	csc_load_diag(elmL, colL, s0, ns, D, start);
	if (block_factor(D, ns, s0, ldlt, st))
		return;
	block_store(D, ns, elmL, start, dout, 0, start, 0);
	const int a = get_global_id(0);
	if (a >= m)
		return;
	block_panel_row(D, ns, elmL, start, ns + a, 0, start, a, ldlt);
}

// csc_slot_of returns the position of row r in column c of L by binary
// search in its sorted rows (r == c is the diagonal).
inline int csc_slot_of(__global const int *colL, __global const int *rowL, int n, int nnzL, int c, int r) {
	const int p = colL[c];
	if (r == c)
		return p;
	const int base = p - c;
	int lo = 0, hi = (c == n - 1 ? nnzL - p : colL[c + 1] - p) - 2; // off-diagonal rows 0..hi
	while (lo < hi) {
		const int mid = (lo + hi) / 2;
		if (rowL[base + mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p + 1 + lo;
}

// csc_update applies the supernode's update to the lower triangle of R x R
// (rows and columns), one 32 x 32 tile per group, tiles numbered row by row.
// With copy set, group 0 first moves the factored block from din into place.
__kernel void csc_update(__global double *elmL, __global const int *colL, __global const int *rowL, int n, int nnzL,
                         int s0, int ns, int m, int rb, __global const double *din, int copy, __global int *st, int ldlt) {
	__local double Pi[TT][B + 1];
	__local double Pc[TT][B + 1];
	__local int start[B];
	__local double dg[B];
	if (sparse_failed(st))
		return;
	const int lid = get_local_id(0), ls = TT * TY;
	const int g = get_group_id(0);
	block_update_start(elmL, colL + s0, ns, din, copy, ldlt, start, dg, 0, start, 0);
	const int2 tile = tri_tile(g);
	const int ti = tile.x, tc = tile.y;
	const int a0 = ti * TT, b0 = tc * TT;
	const int tx = lid % TT, ty = lid / TT;
	for (int t = lid; t < TT * B; t += ls) {
		const int row = t % TT, j = t / TT;
		double vi = 0.0, vc = 0.0;
		if (j < ns) {
			if (a0 + row < m)
				vi = elmL[csc_at(start, ns, j, a0 + row)];
			if (b0 + row < m)
				vc = elmL[csc_at(start, ns, j, b0 + row)] * dg[j];
		}
		Pi[row][j] = vi;
		Pc[row][j] = vc;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	double acc[TT / TY];
	for (int q = 0; q < TT / TY; q++)
		acc[q] = 0.0;
	tile_madd(&Pi[0][0], &Pc[0][0], B + 1, ns, tx, ty, acc);
	const int a = a0 + tx;
	if (a >= m)
		return;
	const int r = rowL[rb + a];
#pragma unroll
	for (int q = 0; q < TT / TY; q++) {
		const int bb = b0 + ty + TY * q;
		if (bb <= a) {
			const int c = rowL[rb + bb];
			elmL[csc_slot_of(colL, rowL, n, nnzL, c, r)] -= acc[q];
		}
	}
}

// csc_fwd is the forward substitution for one supernode: every group solves
// the block's triangle in local memory, group 0 stores y (LDLT: D⁻¹y) in
// out, and item a subtracts its row's contribution from w[R[a]] (w is the
// work copy of b; distinct rows, so no two items collide).
__kernel void csc_fwd(__global const double *elmL, __global const int *colL, __global const int *rowL, int s0, int ns,
                      int m, int rb, __global double *w, __global double *out, int ldlt) {
	__local double D[B][B + 1];
	__local int start[B];
	__local double y[B];
	csc_load_diag(elmL, colL, s0, ns, D, start);
	block_forward_store(D, ns, y, w + s0, out + s0, ldlt);
	const int a = get_global_id(0);
	if (a >= m)
		return;
	double s = 0.0;
	for (int j = 0; j < ns; j++)
		s += elmL[csc_at(start, ns, j, a)] * y[j];
	w[rowL[rb + a]] -= s;
}

// csc_bwd is the backward substitution for one supernode, in place on x, by
// one group of 32 x (local/32) items: dot products of the supernode's
// columns with x[R], then the transposed triangle.
__kernel void csc_bwd(__global const double *elmL, __global const int *colL, __global const int *rowL, int s0, int ns,
                      int m, int rb, __global double *x, int ldlt) {
	__local double D[B][B + 1];
	__local int start[B];
	__local double red[B][33];
	__local double r[B];
	const int lid = get_local_id(0), ls = get_local_size(0);
	csc_load_diag(elmL, colL, s0, ns, D, start);
	const int tx = lid % 32, ty = lid / 32, tys = ls / 32;
	for (int j = ty; j < ns; j += tys) {
		double s = 0.0;
		for (int a = tx; a < m; a += 32)
			s += elmL[csc_at(start, ns, j, a)] * x[rowL[rb + a]];
		red[j][tx] = s;
	}
	block_backward_store(D, ns, red, r, x + s0, ldlt);
}
