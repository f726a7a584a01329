// Dense diagonal-block work shared by the fast CSC (csc_fast.cl) and skyline
// (sks_fast.cl) factorizations. Both process blocks of at most BLOCK_B
// columns whose diagonal block is dense; one work-group holds it in local
// memory as D[i][j] (row i, column j, lower triangle) and these functions
// work on it. BLOCK_B is set by the build options.
#ifndef BLOCK_B
#define BLOCK_B 32
#endif
#define TT 32 // the update tile of csc_update and sks_syrk: TT rows x TT columns
#define TY 8  // their local size TT x TY, TT/TY columns per item

// tri_tile maps group g to the tile (ti, tc), tc <= ti, of a lower
// triangle of tiles numbered row by row: g = ti(ti+1)/2 + tc. The square
// root gives ti; the loops correct its rounding.
inline int2 tri_tile(int g) {
	int ti = (int)((sqrt(8.0 * g + 1.0) - 1.0) * 0.5);
	while (ti * (ti + 1) / 2 > g)
		ti--;
	while ((ti + 1) * (ti + 2) / 2 <= g)
		ti++;
	return (int2)(ti, g - ti * (ti + 1) / 2);
}

// block_factor factors the ns x ns lower triangle of D in place: Cholesky
// leaves L (diagonal included), LDLT leaves the unit L below the diagonal
// and D on it. A pivot that fails (sparse_pivot_ok) is reported for column
// col0+j by item 0 of group 0 and the function returns 1; every item sees
// the same pivot, so the early return is uniform across the group.
inline int block_factor(__local double (*D)[BLOCK_B + 1], int ns, int col0, int ldlt, __global int *st) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = 0; j < ns; j++) {
		const double d = D[j][j];
		if (!sparse_pivot_ok(d, ldlt)) {
			if (get_group_id(0) == 0 && lid == 0)
				sparse_bad_pivot(st, col0 + j, d);
			return 1;
		}
		const double inv = 1.0 / d;
		for (int t = lid; t < ns * ns; t += ls) {
			const int i = t % ns, c = t / ns;
			if (c > j && i >= c)
				D[i][c] -= D[i][j] * (D[c][j] * inv);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const double l = ldlt ? 1.0 : sqrt(d), sc = ldlt ? inv : 1.0 / l;
		for (int i = j + lid; i < ns; i += ls)
			D[i][j] = i == j ? (ldlt ? d : l) : D[i][j] * sc;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	return 0;
}

// block_forward solves L y = y in place for the block's triangle (unit L for
// LDLT; the D division is left to the caller).
inline void block_forward(__local double (*D)[BLOCK_B + 1], int ns, __local double *y, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = 0; j < ns; j++) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (!ldlt) {
			if (lid == 0)
				y[j] /= D[j][j];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		for (int i = j + 1 + lid; i < ns; i += ls)
			y[i] -= D[i][j] * y[j];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// block_backward solves Lᵀ r = r in place for the block's triangle (unit L
// for LDLT).
inline void block_backward(__local double (*D)[BLOCK_B + 1], int ns, __local double *r, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = ns - 1; j >= 0; j--) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (!ldlt) {
			if (lid == 0)
				r[j] /= D[j][j];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		for (int i = lid; i < j; i += ls)
			r[i] -= D[j][i] * r[j];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// block_forward_store is the block part of a forward substitution: it loads
// y from the block's rows of the work vector (wb = w + first column), solves
// L y = y, and group 0 stores y (LDLT: D⁻¹y) into the block's rows of out
// (outb). Every group keeps y for its own panel update.
inline void block_forward_store(__local double (*D)[BLOCK_B + 1], int ns, __local double *y, __global const double *wb,
                                __global double *outb, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = lid; j < ns; j += ls)
		y[j] = wb[j];
	block_forward(D, ns, y, ldlt);
	if (get_group_id(0) == 0)
		for (int j = lid; j < ns; j += ls)
			outb[j] = ldlt ? y[j] / D[j][j] : y[j];
}

// block_backward_store ends a backward substitution: red[j][0..31] holds the
// partial dot products of column j with the rows below the block; it forms
// r = xb - their sums (xb = x + first column), solves Lᵀ r = r and writes r
// back into xb.
inline void block_backward_store(__local double (*D)[BLOCK_B + 1], int ns, __local double (*red)[33], __local double *r,
                                 __global double *xb, int ldlt) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int j = lid; j < ns; j += ls) {
		double s = xb[j];
		for (int t = 0; t < 32; t++)
			s -= red[j][t];
		r[j] = s;
	}
	block_backward(D, ns, r, ldlt);
	for (int j = lid; j < ns; j += ls)
		xb[j] = r[j];
}

// block_store is the store of csc_panel and sks_panel after block_factor:
// group 0 writes the factored block to the factor (elm, column j from
// start[j]) when it is the only group, else to the scratch dout, which the
// following update launch copies into place (other groups may still be
// loading the block from elm). With skyline set, rows beyond last[j] are
// not stored (as in block_update_start).
inline void block_store(__local double (*D)[BLOCK_B + 1], int ns, __global double *elm, __local const int *start,
                        __global double *dout, int skyline, __local const int *last, int k0) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	if (get_group_id(0) != 0)
		return;
	const int direct = get_num_groups(0) == 1;
	for (int t = lid; t < BLOCK_B * BLOCK_B; t += ls) {
		const int i = t % BLOCK_B, j = t / BLOCK_B;
		if (j < ns && i < ns && i >= j && (!skyline || k0 + i <= last[j])) {
			if (direct)
				elm[start[j] + i - j] = D[i][j];
			else
				dout[t] = D[i][j];
		}
	}
}

// block_panel_row solves x L_Dᵀ = P[row, :] for one panel row below the
// factored block in D and overwrites it with L (LDLT: x then divided by D).
// The row's entry in column j sits at start[j] - j + off; with skyline set
// it is stored only where row <= last[j] (an implicit zero otherwise).
inline void block_panel_row(__local double (*D)[BLOCK_B + 1], int ns, __global double *elm, __local const int *start, int off,
                            int skyline, __local const int *last, int row, int ldlt) {
	double x[BLOCK_B];
#pragma unroll
	for (int j = 0; j < BLOCK_B; j++) {
		x[j] = 0.0;
		if (j < ns) {
			const int stored = !skyline || row <= last[j];
			const int at = start[j] - j + off;
			double s = stored ? elm[at] : 0.0;
#pragma unroll
			for (int k = 0; k < j; k++)
				s -= x[k] * D[j][k];
			x[j] = ldlt ? s : s / D[j][j];
			if (stored)
				elm[at] = ldlt ? s / D[j][j] : x[j];
		}
	}
}

// tile_madd adds to item (tx, ty)'s sums of an update tile the products of
// columns 0..n-1 of the two staged panels: acc[q] += Pi[tx][j] Pc[ty+TY q][j]
// (panels of TT rows, leading dimension ld).
inline void tile_madd(__local const double *Pi, __local const double *Pc, int ld, int n, int tx, int ty, double *acc) {
	for (int j = 0; j < n; j++) {
		const double v = Pi[tx * ld + j];
#pragma unroll
		for (int q = 0; q < TT / TY; q++)
			acc[q] += v * Pc[(ty + TY * q) * ld + j];
	}
}

// block_update_start begins csc_update and sks_syrk: it reads the block's
// column starts (start[j] = diag[j], the position of column j's diagonal)
// and the update's weights dg (1 for Cholesky; LDLT's D, from the scratch
// din when copy is set, else from the factor), and with copy set group 0
// then moves the factored diagonal block from din into place. With skyline
// set, last[j] (filled by the caller before the call) bounds column j's
// rows: row k0+i is stored when k0+i <= last[j].
inline void block_update_start(__global double *elm, __global const int *diag, int ns, __global const double *din, int copy,
                               int ldlt, __local int *start, __local double *dg, int skyline, __local const int *last, int k0) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = lid; j < ns; j += ls) {
		start[j] = diag[j];
		dg[j] = !ldlt ? 1.0 : copy ? din[j * BLOCK_B + j] : elm[start[j]];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (copy && get_group_id(0) == 0)
		for (int t = lid; t < BLOCK_B * BLOCK_B; t += ls) {
			const int i = t % BLOCK_B, j = t / BLOCK_B;
			if (j < ns && i < ns && i >= j && (!skyline || k0 + i <= last[j]))
				elm[start[j] + i - j] = din[t];
		}
}
