// The fast skyline Cholesky and LDLT: a right-looking block-column method.
//
// The thesis's monotone last-row rule (last(j) >= last(j-1)) means that for
// a block of BLOCK_B consecutive columns k0..k1-1 with R = last(k1-1):
//   - the block's rows k1..R (the panel P) are stored column by column, each
//     column contiguous, with implicit zeros below a column's own last row;
//   - every column c in k1..R stores at least the rows c..R (last(c) >= R),
//     so the trailing update A[k1..R, k1..R] -= P Pᵀ (LDLT: P D Pᵀ) is a dense,
//     directly addressed lower triangle.
// Each block takes two launches: sks_panel factors the B x B diagonal block
// in local memory (every group redundantly, so no extra launch is needed)
// and solves the panel rows against it, one row per work-item; sks_syrk
// applies the rank-B trailing update with 32 x 32 output tiles staged in
// local memory, coalesced along the column runs. The triangular solves take
// one launch per block each way (sks_fwd, sks_bwd). Compared with the
// thesis's 2 launches per column and per-column sweeps of the trailing
// columns, this reads and writes each trailing entry once per block instead
// of once per column and makes about 4n/B launches per factorization and
// solve instead of 4n.
//
// BLOCK_B is the block width; the argument ldlt selects LDLT (unit L, D on
// the diagonal) at run time, so that one program serves both methods (fewer
// builds: PoCL takes seconds per program). Columns of a block are k0..k0+bs-1 (bs < BLOCK_B only for the last
// block).
#define B BLOCK_B // see sparse_block.cl
#define KC (B < 32 ? B : 32) // block columns per local-memory chunk of sks_syrk

// sks_load_diag loads the B x B diagonal block of columns k0.. into D (zeros
// where the profile stores nothing) and the columns' last rows and starts.
void sks_load_diag(__global const double *elm, __global const int *idx, int nnz, int n, int k0, int bs,
                   __local double D[B][B + 1], __local int *last, __local int *start) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = lid; j < bs; j += ls) {
		last[j] = sks_last(idx, n, nnz, k0 + j);
		start[j] = idx[k0 + j];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int t = lid; t < B * B; t += ls) {
		const int i = t % B, j = t / B;
		double v = 0.0;
		if (j < bs && i < bs && i >= j && k0 + i <= last[j])
			v = elm[start[j] + i - j];
		D[i][j] = v;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// sks_panel factors the diagonal block of columns k0..k0+bs-1 and overwrites
// the panel rows k0+bs..R with L. Every group factors the block in local
// memory; group 0 stores it (block_store), and item i - k1 solves panel
// row i (block_panel_row).
__kernel void sks_panel(__global double *elm, __global const int *idx, int nnz, int n, int k0, int bs, int R,
                        __global double *dout, __global int *st, int ldlt) {
	__local double D[B][B + 1];
	__local int last[B], start[B];
	if (sparse_failed(st))
		return;
	sks_load_diag(elm, idx, nnz, n, k0, bs, D, last, start);
	if (block_factor(D, bs, k0, ldlt, st))
		return;
	block_store(D, bs, elm, start, dout, 1, last, k0);
	const int k1 = k0 + bs, i = k1 + get_global_id(0);
	if (i > R)
		return;
	block_panel_row(D, bs, elm, start, i - k0, 1, last, i, ldlt);
}

// sks_syrk applies the trailing update of block k0..k0+bs-1 to the lower
// triangle of rows and columns k1..R, one 32 x 32 tile per group (tiles
// numbered row by row through the lower triangle). With copy set, group 0
// first moves the factored diagonal block from the scratch din into place.
__kernel void sks_syrk(__global double *elm, __global const int *idx, int nnz, int n, int k0, int bs, int R,
                       __global const double *din, int copy, __global int *st, int ldlt) {
	__local double Pi[TT][KC + 1];
	__local double Pc[TT][KC + 1];
	__local int last[B], start[B];
	__local double dg[B];
	if (sparse_failed(st))
		return;
	const int lid = get_local_id(0), ls = TT * TY;
	const int g = get_group_id(0);
	for (int j = lid; j < bs; j += ls)
		last[j] = sks_last(idx, n, nnz, k0 + j);
	block_update_start(elm, idx + k0, bs, din, copy, ldlt, start, dg, 1, last, k0);
	const int2 tile = tri_tile(g);
	const int ti = tile.x, tc = tile.y;
	const int k1 = k0 + bs, r0 = k1 + ti * TT, c0 = k1 + tc * TT;
	const int tx = lid % TT, ty = lid / TT;
	double acc[TT / TY];
	for (int q = 0; q < TT / TY; q++)
		acc[q] = 0.0;
	for (int kc = 0; kc < bs; kc += KC) {
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int t = lid; t < TT * KC; t += ls) {
			const int row = t % TT, jj = t / TT, j = kc + jj;
			double vi = 0.0, vc = 0.0;
			if (j < bs) {
				const int ri = r0 + row, rc = c0 + row;
				if (ri <= R && ri <= last[j])
					vi = elm[start[j] + ri - k0 - j];
				if (rc <= R && rc <= last[j])
					vc = elm[start[j] + rc - k0 - j] * dg[j];
			}
			Pi[row][jj] = vi;
			Pc[row][jj] = vc;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		tile_madd(&Pi[0][0], &Pc[0][0], KC + 1, KC, tx, ty, acc);
	}
	const int i = r0 + tx;
	if (i > R)
		return;
#pragma unroll
	for (int q = 0; q < TT / TY; q++) {
		const int c = c0 + ty + TY * q;
		if (c <= i)
			elm[idx[c] + i - c] -= acc[q];
	}
}

// sks_fwd is the forward substitution for block k0..k0+bs-1: every group
// solves the block's triangle in local memory (redundantly: it is small),
// group 0 stores y (LDLT: D⁻¹y) into out, and each item subtracts the panel
// row's contribution from w[i], i in k1..R. w is the work copy of b; out is a
// separate vector because other groups still read w's block entries.
__kernel void sks_fwd(__global const double *elm, __global const int *idx, int nnz, int n, int k0, int bs, int R,
                      __global double *w, __global double *out, int ldlt) {
	__local double D[B][B + 1];
	__local int last[B], start[B];
	__local double y[B];
	sks_load_diag(elm, idx, nnz, n, k0, bs, D, last, start);
	block_forward_store(D, bs, y, w + k0, out + k0, ldlt);
	const int i = k0 + bs + get_global_id(0);
	if (i > R)
		return;
	double s = 0.0;
	for (int j = 0; j < bs; j++)
		if (i <= last[j])
			s += elm[start[j] + i - k0 - j] * y[j];
	w[i] -= s;
}

// sks_bwd is the backward substitution for block k0..k0+bs-1, in place on x
// (which holds y, already final below the block): one group of 32 x 8 items
// forms the block's dot products with the rows k1..R in local memory, then
// solves the transposed triangle.
__kernel void sks_bwd(__global const double *elm, __global const int *idx, int nnz, int n, int k0, int bs, int R,
                      __global double *x, int ldlt) {
	__local double D[B][B + 1];
	__local int last[B], start[B];
	__local double red[B][33];
	__local double r[B];
	const int lid = get_local_id(0), ls = get_local_size(0);
	sks_load_diag(elm, idx, nnz, n, k0, bs, D, last, start);
	const int tx = lid % 32, ty = lid / 32, tys = ls / 32, k1 = k0 + bs;
	for (int j = ty; j < bs; j += tys) {
		double s = 0.0;
		const int hi = min(R, last[j]);
		for (int i = k1 + tx; i <= hi; i += 32)
			s += elm[start[j] + i - k0 - j] * x[i];
		red[j][tx] = s;
	}
	block_backward_store(D, bs, red, r, x + k0, ldlt);
}
