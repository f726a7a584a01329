// Supernodal multifrontal Cholesky and LDLT, level by level of the assembly
// tree (see supernodal_factor.go for the schedule). Every kernel takes its
// work from a task list built once on the host: a launch handles task
// t0 + get_group_id(0), four ints each, so that all supernodes of one tree
// level share a few launches.
//
// Supernode s has, in info[s*SI ...], its first column, its column count ns,
// its front order F, the offset of its F x ns column-major block in L, of
// its rows and relative indices, of its m x m update matrix (m = F - ns,
// column-major, lower triangle) in U, and of its solve update vector in V.
// Front element (r, c), r >= c, lives in L for c < ns and in U otherwise.
//
// Compile-time sizes: NB block-column width of large fronts, TS the update
// tile, KC its depth per local-memory pass, TR the rows per panel-solve group, ASM_COLS the front columns per
// assembly group, SMALLF the largest front factored whole in local memory.

#define SI 8
#define S_FIRST 0
#define S_NS 1
#define S_F 2
#define S_L 3
#define S_ROW 4
#define S_U 5
#define S_V 6

// SN_SHAPE(k) declares what the kernels read first of supernode k (the
// first int of the group's task, or t.x where they read the task as an
// int4): its info record is, column count ns and front order F. SN_FRONT(k)
// adds its first column, which only the kernels that index the whole
// matrix's columns (pivots, right-hand sides) need.
#define SN_SHAPE(k) \
	__global const long *is = info + (long)(k) * SI; \
	const int ns = is[S_NS], F = is[S_F]
#define SN_FRONT(k) \
	SN_SHAPE(k); \
	const int first = is[S_FIRST]

inline __global double *front_at(__global double *L, __global double *U, long lp, long up, int F, int ns, int r, int c) {
	if (c < ns)
		return L + lp + (long)c * F + r;
	return U + up + (long)(c - ns) * (F - ns) + (r - ns);
}

// lower_bound returns the first k with a[k] >= v (a increasing).
inline int lower_bound(__global const int *a, int n, int v) {
	int lo = 0, hi = n;
	while (lo < hi) {
		const int mid = (lo + hi) >> 1;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

// sn_zero sets the n doubles of x from off to zero: L before A's scatter,
// a level's region of U. A kernel rather than clEnqueueFillBuffer, whose
// NVIDIA implementation fails on large buffers (the 21 GiB of L on each
// H200 for Model 2 at n = 3M: error -9999 at the next flush; see
// kernels/fill.go); the index is a long.
__kernel void sn_zero(__global double *x, long off, long n) {
	for (long i = get_global_id(0); i < n; i += get_global_size(0))
		x[off + i] = 0.0;
}

// sn_scatter places A's entries in their fronts (L was zeroed first), one
// item per column of A. A is in the thesis CSC layout (column j from
// diag[j], its diagonal first, then its rows below in rowIdx[e - j - 1]);
// place[old] is a column's new number
// and place[n + new] the supernode of a new column. Entry (i, j) goes to row
// max(i', j') of column min(i', j') in the new numbering, found in its
// supernode's increasing front rows. The analysis was made from this very
// structure, so every entry has its row there.
__kernel void sn_scatter(__global const double *a, __global const int *diag, __global const int *rowIdx, int n, int nnz,
			 __global const int *place, __global const long *info, __global const int *rows, __global double *L) {
	for (int j = get_global_id(0); j < n; j += get_global_size(0)) {
		const int e0 = diag[j], e1 = j + 1 < n ? diag[j + 1] : nnz, pj = place[j];
		for (int e = e0; e < e1; e++) {
			const int pi = e == e0 ? pj : place[rowIdx[e - j - 1]];
			const int r = max(pi, pj), c = min(pi, pj);
			__global const long *is = info + (long)place[n + c] * SI;
			const int F = is[S_F];
			__global const int *fr = rows + is[S_ROW];
			const int q = lower_bound(fr, F, r);
			if (q < F && fr[q] == r)
				L[is[S_L] + (long)(c - is[S_FIRST]) * F + q] = a[e];
		}
	}
}

// sn_scatter_map places A's entries by precomputed positions: L[map[k]] =
// a[k] (the multi-device factorization, whose parts hold some of A's
// entries each).
__kernel void sn_scatter_map(__global const double *a, __global const long *map, int nnz, __global double *L) {
	for (long k = get_global_id(0); k < nnz; k += get_global_size(0))
		L[map[k]] = a[k];
}

// sn_assemble adds the children's update matrices into their parent's front
// (extend-add by relative indices). A group owns ASM_COLS columns of one
// parent front, so groups never write the same element; the children of a
// parent are added one after the other, with a barrier in between, because
// two children may hit the same element.
__kernel void sn_assemble(__global const int *task, int t0, __global const long *info, __global const int *childPtr,
			  __global const int *childList, __global const int *rel, __global double *L, __global double *U) {
	const int4 t = vload4(t0 + get_group_id(0), task);
	const int p = t.x, c0 = t.y, c1 = t.y + ASM_COLS;
	__global const long *ip = info + (long)p * SI;
	const int nsP = ip[S_NS], FP = ip[S_F];
	const long lp = ip[S_L], up = ip[S_U];
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int q = childPtr[p]; q < childPtr[p + 1]; q++) {
		__global const long *ic = info + (long)childList[q] * SI;
		const int nsC = ic[S_NS], mC = ic[S_F] - nsC;
		__global const int *rc = rel + ic[S_ROW] + nsC;
		__global const double *uc = U + ic[S_U];
		const int jlo = lower_bound(rc, mC, c0), jhi = lower_bound(rc, mC, c1);
		for (int j = jlo; j < jhi; j++) {
			const int pc = rc[j];
			for (int i = j + lid; i < mC; i += ls)
				*front_at(L, U, lp, up, FP, nsP, rc[i], pc) += uc[(long)j * mC + i];
		}
		barrier(CLK_GLOBAL_MEM_FENCE);
	}
}

// eliminate runs k = 0..ns-1 steps of right-looking elimination on the
// lower triangle of the F x F column-major matrix W in local memory (leading
// dimension ld): Cholesky leaves L, LDLT the unit L with D on the diagonal,
// and columns ns..F-1 receive the Schur complement. A failed pivot is
// recorded for column first+k and makes every item return 0 (all items
// read the same pivot, so the return is uniform).
inline int eliminate(__local double *W, int ld, int ns, int F, int first, int ldlt, __global int *st) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int k = 0; k < ns; k++) {
		const double d = W[k * ld + k];
		if (!sparse_pivot_ok(d, ldlt)) {
			if (lid == 0)
				sparse_bad_pivot(st, first + k, d);
			return 0;
		}
		const double inv = 1.0 / d;
		// W(r,c) -= W(r,k) W(c,k) / d for k < c <= r: the same update for
		// Cholesky (L = W/sqrt d) and LDLT (L = W/d, times d). The
		// trailing square is spread over all items, rows fastest.
		const int cnt = F - k - 1;
		for (int q = lid; q < cnt * cnt; q += ls) {
			const int c = k + 1 + q / cnt, r = k + 1 + q % cnt;
			if (r >= c)
				W[c * ld + r] -= W[k * ld + r] * W[k * ld + c] * inv;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const double l = ldlt ? d : sqrt(d), sc = ldlt ? inv : 1.0 / l;
		for (int r = k + 1 + lid; r < F; r += ls)
			W[k * ld + r] *= sc;
		if (lid == 0)
			W[k * ld + k] = l;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	return 1;
}

// sn_small factors whole fronts of order F <= SMALLF, one group each, in
// local memory: load the lower triangle, eliminate the ns pivots, store L's
// columns and the update matrix.
__kernel void sn_small(__global const int *task, int t0, __global const long *info, __global double *L, __global double *U,
		       int ldlt, __global int *st) {
	__local double W[SMALLF * SMALLF];
	const int s = task[4 * (t0 + get_group_id(0))];
	SN_FRONT(s);
	const long lp = is[S_L], up = is[S_U];
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int c = 0; c < F; c++)
		for (int r = c + lid; r < F; r += ls)
			W[c * F + r] = *front_at(L, U, lp, up, F, ns, r, c);
	barrier(CLK_LOCAL_MEM_FENCE);
	if (!eliminate(W, F, ns, F, first, ldlt, st))
		return;
	for (int c = 0; c < F; c++)
		for (int r = c + lid; r < F; r += ls)
			*front_at(L, U, lp, up, F, ns, r, c) = W[c * F + r];
}

// potrf_block factors the diagonal block of block column k0 of a large
// front (256 items): the block lives in registers, item (tx, ty) of a
// 16 x 16 grid holding elements (tx + 16a, ty + 16b), a cyclic layout that
// keeps the shrinking trailing triangle spread over all items. Column k is
// published through local memory (ck, 2 NB doubles), in two alternating
// buffers so that one barrier a column suffices; no item reads global
// memory inside the loop. A failed pivot is recorded and every item
// returns (all read the same pivot).
inline void potrf_block(__global const long *is, __global double *L, int k0, int ldlt, __global int *st, __local double *ck) {
	const int first = is[S_FIRST], ns = is[S_NS], F = is[S_F];
	__global double *blk = L + is[S_L] + (long)k0 * F + k0;
	const int kb = min(NB, ns - k0);
	const int lid = get_local_id(0), tx = lid % 16, ty = lid / 16;
	double w[4][4];
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			const int r = tx + 16 * a, c = ty + 16 * b;
			w[a][b] = r < kb && c <= r ? blk[(long)c * F + r] : 0.0;
		}
	for (int k = 0; k < kb; k++) {
		__local double *cur = ck + (k & 1) * NB;
		const int own = ty == (k & 15), kq = k >> 4;
		if (own)
			for (int b = 0; b < 4; b++)
				if (b == kq)
					for (int a = 0; a < 4; a++) {
						const int r = tx + 16 * a;
						if (r >= k && r < kb)
							cur[r] = w[a][b];
					}
		barrier(CLK_LOCAL_MEM_FENCE);
		const double d = cur[k];
		if (!sparse_pivot_ok(d, ldlt)) {
			if (lid == 0)
				sparse_bad_pivot(st, first + k0 + k, d);
			return;
		}
		// W(r,c) -= W(r,k) W(c,k) / d for k < c <= r: the same update for
		// Cholesky (L = W/sqrt d) and LDLT (L = W/d, times d).
		const double inv = 1.0 / d;
		for (int a = 0; a < 4; a++) {
			const int r = tx + 16 * a;
			if (r > k && r < kb) {
				const double lr = cur[r] * inv;
				for (int b = 0; b < 4; b++) {
					const int c = ty + 16 * b;
					if (c > k && c <= r)
						w[a][b] = fma(-lr, cur[c], w[a][b]);
				}
			}
		}
		if (own) {
			const double l = ldlt ? d : sqrt(d), sc = ldlt ? inv : 1.0 / l;
			for (int b = 0; b < 4; b++)
				if (b == kq)
					for (int a = 0; a < 4; a++) {
						const int r = tx + 16 * a;
						if (r > k)
							w[a][b] *= sc;
						else if (r == k)
							w[a][b] = l;
					}
		}
	}
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			const int r = tx + 16 * a, c = ty + 16 * b;
			if (r < kb && c <= r)
				blk[(long)c * F + r] = w[a][b];
		}
}

// sn_potrf factors the diagonal block of block column k0 of each large
// front of its tasks (256 items a group).
__kernel void sn_potrf(__global const int *task, int t0, __global const long *info, __global double *L, int k0, int ldlt,
		       __global int *st) {
	__local double ck[2 * NB];
	const int s = task[4 * (t0 + get_group_id(0))];
	potrf_block(info + (long)s * SI, L, k0, ldlt, st, ck);
}

// sn_trsm solves the panel below the diagonal block of block column k0:
// L21 = A21 L11^-T (LDLT: A21 L11^-T D^-1), TR rows per group, one row per
// item held in registers, L11 in local memory (all items read the same
// element at once: a broadcast). Column by column, so that the updates of
// one step are independent FMAs rather than one long dependent sum.
__kernel void sn_trsm(__global const int *task, int t0, __global const long *info, __global double *L, int k0, int ldlt) {
	__local double D[NB * NB];
	const int4 t = vload4(t0 + get_group_id(0), task);
	SN_SHAPE(t.x);
	__global double *col = L + is[S_L] + (long)k0 * F; // column k0 of the front
	const int kb = min(NB, ns - k0);
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int q = lid; q < NB * NB; q += ls) {
		const int c = q / NB, r = q % NB;
		D[q] = c < kb && r < kb && r >= c ? col[(long)c * F + k0 + r] : 0.0;
	}
	const int row = k0 + kb + t.y * TR + lid;
	const int ok = row < F;
	double x[NB];
	for (int k = 0; k < NB; k++)
		x[k] = ok && k < kb ? col[(long)k * F + row] : 0.0;
	barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
	for (int k = 0; k < NB; k++) {
		if (k < kb) {
			const double xk = ldlt ? x[k] : x[k] / D[k * NB + k];
			x[k] = xk;
#pragma unroll
			for (int j = k + 1; j < NB; j++)
				x[j] = fma(-xk, D[k * NB + j], x[j]);
		}
	}
	if (ok)
		for (int k = 0; k < kb; k++)
			col[(long)k * F + row] = ldlt ? x[k] / D[k * NB + k] : x[k];
}

// sn_syrk applies block column k0 to the trailing front: for rows r >= c
// beyond the block, front(r,c) -= sum_k L(r,k) w_k L(c,k), w_k = 1 for
// Cholesky and d_k for LDLT. One TS x TS tile per group of 256 items, 4 x 4
// results per item, the two panels' slices in local memory.
//
// With fuse set, the group of tile (0, 0), which holds the next block
// column's diagonal block (TS = NB) and receives its last update here,
// factors that block afterwards (potrf_block), so that the next block
// column needs no POTRF launch of its own.
__kernel void sn_syrk(__global const int *task, int t0, __global const long *info, __global double *L, __global double *U,
		      int k0, int ldlt, int fuse, __global int *st) {
	__local double A[KC * TS];
	__local double B[KC * TS];
	__local double ck[2 * NB];
	const int4 t = vload4(t0 + get_group_id(0), task);
	SN_SHAPE(t.x);
	const long lp = is[S_L], up = is[S_U];
	const int kb = min(NB, ns - k0);
	const int c0 = k0 + kb;
	const int ra = c0 + t.y * TS, cb = c0 + t.z * TS;
	const int lid = get_local_id(0);
	const int tx = lid % 16, ty = lid / 16;
	double acc[4][4];
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			acc[a][b] = 0.0;
	for (int kk = 0; kk < kb; kk += KC) {
		const int kc = min(KC, kb - kk);
		__global const double *col = L + lp + (long)(k0 + kk) * F;
		for (int q = lid; q < kc * TS; q += 256) {
			const int k = q / TS, i = q % TS;
			const double w = ldlt ? col[(long)k * F + k0 + kk + k] : 1.0;
			A[q] = ra + i < F ? col[(long)k * F + ra + i] : 0.0;
			B[q] = cb + i < F ? col[(long)k * F + cb + i] * w : 0.0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int k = 0; k < kc; k++) {
			double x[4], y[4];
			for (int a = 0; a < 4; a++)
				x[a] = A[k * TS + tx + 16 * a];
			for (int b = 0; b < 4; b++)
				y[b] = B[k * TS + ty + 16 * b];
			for (int a = 0; a < 4; a++)
				for (int b = 0; b < 4; b++)
					acc[a][b] = fma(x[a], y[b], acc[a][b]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int b = 0; b < 4; b++) {
		const int c = cb + ty + 16 * b;
		for (int a = 0; a < 4; a++) {
			const int r = ra + tx + 16 * a;
			if (r < F && c < F && r >= c)
				*front_at(L, U, lp, up, F, ns, r, c) -= acc[a][b];
		}
	}
	if (fuse && t.y == 0 && t.z == 0 && c0 < ns) {
		barrier(CLK_GLOBAL_MEM_FENCE);
		potrf_block(is, L, c0, ldlt, st, ck);
	}
}

// sn_syrk_cpu is sn_syrk for CPU devices (PoCL), which vectorize across
// work-items: one item per row of a TS x TS tile, reading its row of the
// panel with unit stride across items and broadcasting the column side,
// CC columns at a time in registers; no local memory, no barriers.
__kernel void sn_syrk_cpu(__global const int *task, int t0, __global const long *info, __global double *L, __global double *U,
			  int k0, int ldlt) {
	const int4 t = vload4(t0 + get_group_id(0), task);
	SN_SHAPE(t.x);
	const long lp = is[S_L], up = is[S_U];
	const int kb = min(NB, ns - k0);
	const int c0 = k0 + kb;
	const int r = c0 + t.y * TS + get_local_id(0), cb = c0 + t.z * TS;
	if (r >= F)
		return;
	__global const double *col = L + lp + (long)k0 * F;
	const int cend = min(min(F, cb + TS), r + 1);
	for (int c = cb; c < cend; c += CC) {
		double acc[CC];
		for (int j = 0; j < CC; j++)
			acc[j] = 0.0;
		for (int k = 0; k < kb; k++) {
			__global const double *ck = col + (long)k * F;
			const double a = ck[r] * (ldlt ? ck[k0 + k] : 1.0);
			for (int j = 0; j < CC; j++)
				acc[j] = fma(a, c + j < cend ? ck[c + j] : 0.0, acc[j]);
		}
		for (int j = 0; j < CC && c + j < cend; j++)
			*front_at(L, U, lp, up, F, ns, r, c + j) -= acc[j];
	}
}

// sn_permute gathers y[i] = b[perm[i]] for each right-hand side (columns of
// length n).
__kernel void sn_permute(__global const double *b, __global const int *perm, int n, int nrhs, __global double *y) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		const int p = perm[i];
		for (int r = 0; r < nrhs; r++)
			y[(long)r * n + i] = b[(long)r * n + p];
	}
}

// sn_unpermute scatters x[perm[i]] = y[i].
__kernel void sn_unpermute(__global const double *y, __global const int *perm, int n, int nrhs, __global double *x) {
	for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
		const int p = perm[i];
		for (int r = 0; r < nrhs; r++)
			x[(long)r * n + p] = y[(long)r * n + i];
	}
}

// The triangles of the solves are copied to local memory (T, SB x SB with a
// padded leading dimension) before their column-by-column substitution, so
// that the serial part of a solve reads no global memory: one barrier per
// column, every item updating its own entries of xl.
#define TLD (SB + 1)

// tri_load copies the m x m lower triangle at D (leading dimension ld)
// into T, transposed when trans is set, and waits for it.
inline void tri_load(__global const double *D, int ld, int m, int trans, __local double *T) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int q = lid; q < m * SB; q += ls) {
		const int c = q / SB, r = q % SB;
		if (r < m && r >= c)
			T[trans ? r * TLD + c : c * TLD + r] = D[(long)c * ld + r];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// tri_subst solves with the triangle in T (as tri_load left it) on the m
// entries of x, column by column: forward (bwd = 0) from the first column,
// each updating the entries below it; backward from the last, each
// updating those above it (T transposed, so that a step reads a row of the
// triangle with unit stride). Then it divides by the diagonal unless unit
// (LDLT).
inline void tri_subst(__local const double *T, __local double *x, int m, int unit, int bwd) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int j = 0; j < m; j++) {
		const int k = bwd ? m - 1 - j : j;
		const double xk = unit ? x[k] : x[k] / T[k * TLD + k];
		for (int i = (bwd ? 0 : k + 1) + lid; i < (bwd ? k : m); i += ls)
			x[i] = fma(-T[k * TLD + i], xk, x[i]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (!unit)
		for (int i = lid; i < m; i += ls)
			x[i] /= T[i * TLD + i];
	barrier(CLK_LOCAL_MEM_FENCE);
}

// tri_fwd solves L11 y = xl in place for the nb x nb diagonal block at Lb
// (leading dimension ld, nb <= SBL), in sub-blocks of SB: each sub-block's
// triangle through T, then its contribution to the rest of the block.
// A unit diagonal (LDLT) is not divided by.
inline void tri_fwd(__global const double *Lb, int ld, int nb, int unit, __local double *T, __local double *xl) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int sb = 0; sb < nb; sb += SB) {
		const int m = min(SB, nb - sb);
		tri_load(Lb + (long)sb * ld + sb, ld, m, 0, T);
		tri_subst(T, xl + sb, m, unit, 0);
		for (int i = sb + m + lid; i < nb; i += ls) {
			double acc = 0.0;
			for (int k = 0; k < m; k++)
				acc = fma(Lb[(long)(sb + k) * ld + i], xl[sb + k], acc);
			xl[i] -= acc;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

// tri_bwd solves L11ᵀ x = xl in place, the transposed counterpart of
// tri_fwd: sub-blocks from the last, each first reduced by the solved rows
// below it, its triangle held transposed in T.
inline void tri_bwd(__global const double *Lb, int ld, int nb, int unit, __local double *T, __local double *xl) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int sb = (nb - 1) / SB * SB; sb >= 0; sb -= SB) {
		const int m = min(SB, nb - sb);
		for (int k = lid; k < m; k += ls) {
			double acc = 0.0;
			for (int i = sb + m; i < nb; i++)
				acc = fma(Lb[(long)(sb + k) * ld + i], xl[i], acc);
			xl[sb + k] -= acc;
		}
		tri_load(Lb + (long)sb * ld + sb, ld, m, 1, T);
		tri_subst(T, xl + sb, m, unit, 1);
	}
}

// tri_fwd_x solves the forward triangle of the nb columns from jb of the
// supernode at Ls (leading dimension F) on xs[jb..jb+nb), through xl,
// which keeps the solution for the rows below (sub_below).
inline void tri_fwd_x(__global const double *Ls, int F, int jb, int nb, int unit, __local double *T, __local double *xl,
		      __global double *xs) {
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int k = lid; k < nb; k += ls)
		xl[k] = xs[jb + k];
	barrier(CLK_LOCAL_MEM_FENCE);
	tri_fwd(Ls + (long)jb * F + jb, F, nb, unit, T, xl);
	for (int k = lid; k < nb; k += ls)
		xs[jb + k] = xl[k];
}

// sub_below subtracts the nb columns from jb of the supernode at Ls
// (leading dimension F, ns columns) times xl from its rows r0..r1-1: the
// rest of the diagonal block in xs, the rows below it in the update
// vector vs.
inline void sub_below(__global const double *Ls, int F, int ns, int jb, int nb, int r0, int r1, __local const double *xl,
		      __global double *xs, __global double *vs) {
	for (int r = r0 + get_local_id(0); r < r1; r += get_local_size(0)) {
		double acc = 0.0;
		for (int k = 0; k < nb; k++)
			acc = fma(Ls[(long)(jb + k) * F + r], xl[k], acc);
		if (r < ns)
			xs[r] -= acc;
		else
			vs[r - ns] -= acc;
	}
}

// sn_forward is one level of L y = b, leaves first, one group per
// supernode: gather the children's update vectors (extend-add), solve with
// the diagonal block in blocks of SB columns (the block's triangle in local
// memory, then the rows below it by all items at once, reading L with unit
// stride), and leave -L21 y in the supernode's own update vector V for its
// parent. LDLT divides by D at the end.
__kernel void sn_forward(__global const int *task, int t0, __global const long *info, __global const int *childPtr,
			 __global const int *childList, __global const int *rel, __global const double *L, __global double *x,
			 __global double *V, int n, int ldv, int nrhs, int ldlt, int gather_only) {
	__local double xl[SB];
	__local double T[SB * TLD];
	const int s = task[4 * (t0 + get_group_id(0))];
	SN_FRONT(s);
	const int m = F - ns;
	__global const double *Ls = L + is[S_L];
	const long vo = is[S_V];
	const int lid = get_local_id(0), ls = get_local_size(0);
	for (int rh = 0; rh < nrhs; rh++) {
		__global double *xs = x + (long)rh * n + first;
		__global double *vs = V + (long)rh * ldv + vo;
		__global const double *vr = V + (long)rh * ldv;
		for (int i = lid; i < m; i += ls)
			vs[i] = 0.0;
		barrier(CLK_GLOBAL_MEM_FENCE);
		for (int q = childPtr[s]; q < childPtr[s + 1]; q++) {
			__global const long *ic = info + (long)childList[q] * SI;
			const int nsC = ic[S_NS], mC = ic[S_F] - nsC;
			__global const int *rc = rel + ic[S_ROW] + nsC;
			__global const double *vc = vr + ic[S_V];
			for (int i = lid; i < mC; i += ls) {
				const int pos = rc[i];
				if (pos < ns)
					xs[pos] += vc[i];
				else
					vs[pos - ns] += vc[i];
			}
			barrier(CLK_GLOBAL_MEM_FENCE);
		}
		if (gather_only)
			continue;
		for (int jb = 0; jb < ns; jb += SB) {
			const int nb = min(SB, ns - jb);
			tri_fwd_x(Ls, F, jb, nb, ldlt, T, xl, xs);
			sub_below(Ls, F, ns, jb, nb, jb + nb, F, xl, xs, vs);
			barrier(CLK_GLOBAL_MEM_FENCE);
		}
		if (ldlt) {
			for (int k = lid; k < ns; k += ls)
				xs[k] /= Ls[(long)k * F + k];
			barrier(CLK_GLOBAL_MEM_FENCE);
		}
	}
}

// sn_backward is one level of Lᵀ x = y, root first, one group per
// supernode, in blocks of SB columns from the last: subtract the solved
// rows below the block (L21ᵀ x, SOLVE_WG/SB items per column), then solve
// with the block's triangle in local memory.
__kernel void sn_backward(__global const int *task, int t0, __global const long *info, __global const int *rows,
			  __global const double *L, __global double *x, int n, int nrhs, int ldlt) {
	__local double xl[SB];
	__local double xc[SB];
	__local double part[SOLVE_WG];
	__local double T[SB * TLD];
	const int s = task[4 * (t0 + get_group_id(0))];
	SN_FRONT(s);
	__global const double *Ls = L + is[S_L];
	__global const int *below = rows + is[S_ROW] + ns;
	const int lid = get_local_id(0);
	const int kk = lid % SB, q0 = lid / SB, nq = SOLVE_WG / SB;
	for (int rh = 0; rh < nrhs; rh++) {
		__global double *xr = x + (long)rh * n;
		__global double *xs = xr + first;
		const int nblk = (ns + SB - 1) / SB;
		for (int b = nblk - 1; b >= 0; b--) {
			const int jb = b * SB, nb = min(SB, ns - jb);
			// The rows below the block in chunks of SB: the chunk of L
			// through T (read along columns, unit stride), then each item
			// sums its column over every nq-th row of the chunk.
			double acc = 0.0;
			for (int rs = jb + nb; rs < F; rs += SB) {
				const int nr = min(SB, F - rs);
				for (int q = lid; q < SB * nb; q += SOLVE_WG) {
					const int i = q % SB, k = q / SB;
					T[k * TLD + i] = i < nr ? Ls[(long)(jb + k) * F + rs + i] : 0.0;
				}
				if (lid < SB) {
					const int r = rs + lid;
					xc[lid] = lid < nr ? (r < ns ? xs[r] : xr[below[r - ns]]) : 0.0;
				}
				barrier(CLK_LOCAL_MEM_FENCE);
				if (kk < nb)
					for (int i = q0; i < SB; i += nq)
						acc = fma(T[kk * TLD + i], xc[i], acc);
				barrier(CLK_LOCAL_MEM_FENCE);
			}
			part[lid] = acc;
			barrier(CLK_LOCAL_MEM_FENCE);
			if (lid < nb) {
				double sum = xs[jb + lid];
				for (int q = 0; q < nq; q++)
					sum -= part[q * SB + lid];
				xl[lid] = sum;
			}
			barrier(CLK_LOCAL_MEM_FENCE);
			tri_bwd(Ls + (long)jb * F + jb, F, nb, ldlt, T, xl);
			if (lid < nb)
				xs[jb + lid] = xl[lid];
			barrier(CLK_GLOBAL_MEM_FENCE);
		}
	}
}

// The solves of large supernodes (F x ns beyond what one group reads
// quickly) go in blocks of SBL columns, one launch per block across the
// whole device for the rows below it (one group per RCH rows), which also
// solves a block triangle: forward, the first group solves the next
// block's; backward, the last group to finish solves its own block's. Only
// the first forward block has a launch of its own (sn_ftrsv).

// sn_ftrsv solves the triangle of forward block jb of each large
// supernode in local memory.
__kernel void sn_ftrsv(__global const int *task, int t0, __global const long *info, __global const double *L, __global double *x,
		       int n, int rh, int jb, int ldlt) {
	__local double xl[SBL];
	__local double T[SB * TLD];
	const int s = task[4 * (t0 + get_group_id(0))];
	SN_FRONT(s);
	__global const double *Ls = L + is[S_L];
	__global double *xs = x + (long)rh * n + first;
	tri_fwd_x(Ls, F, jb, min(SBL, ns - jb), ldlt, T, xl, xs);
}

// sn_fgemv subtracts block jb's contribution from RCH rows below it: the
// rest of the diagonal block in x, the rows below the supernode in V.
//
// Group 0 of each supernode, whose rows cover the whole next block (RCH >=
// SBL) and which is the only group writing them, then solves that block's
// triangle (tri_fwd), so that only a supernode's first block needs an
// sn_ftrsv launch.
__kernel void sn_fgemv(__global const int *task, int t0, __global const long *info, __global const double *L, __global double *x,
		       __global double *V, int n, int ldv, int rh, int jb, int ldlt) {
	__local double xl[SBL];
	__local double T[SB * TLD];
	const int4 t = vload4(t0 + get_group_id(0), task);
	SN_FRONT(t.x);
	__global const double *Ls = L + is[S_L];
	__global double *xs = x + (long)rh * n + first;
	__global double *vs = V + (long)rh * ldv + is[S_V];
	const int lid = get_local_id(0), ls = get_local_size(0);
	const int nb = min(SBL, ns - jb);
	for (int k = lid; k < nb; k += ls)
		xl[k] = xs[jb + k];
	barrier(CLK_LOCAL_MEM_FENCE);
	const int r0 = jb + nb + t.y * RCH;
	sub_below(Ls, F, ns, jb, nb, r0, min(F, r0 + RCH), xl, xs, vs);
	const int jn = jb + SBL; // the next block
	if (t.y == 0 && jn < ns) {
		barrier(CLK_GLOBAL_MEM_FENCE);
		tri_fwd_x(Ls, F, jn, min(SBL, ns - jn), ldlt, T, xl, xs);
	}
}

// sn_fdiag divides a large supernode's solution by D (LDLT).
__kernel void sn_fdiag(__global const int *task, int t0, __global const long *info, __global const double *L, __global double *x,
		       int n, int rh) {
	const int s = task[4 * (t0 + get_group_id(0))];
	SN_FRONT(s);
	__global const double *Ls = L + is[S_L];
	__global double *xs = x + (long)rh * n + first;
	for (int k = get_local_id(0); k < ns; k += get_local_size(0))
		xs[k] /= Ls[(long)k * F + k];
}

// sn_bgemv forms, for RCH rows below backward block jb, the partial sums
// part[task][k] = sum_r L(r, jb+k) x(r), through a local tile so that L is
// read with unit stride.
//
// The group of a supernode that finishes last (task.z groups count
// themselves on cnt[supernode], which they leave at zero) then finishes the
// block: it subtracts every group's partial sums from the block's
// right-hand side and solves with the block's transposed triangle. The
// others' partial sums are fenced before they count, and read past the
// caches.
__kernel void sn_bgemv(__global const int *task, int t0, __global const long *info, __global const int *rows, __global const double *L,
		       __global double *x, int n, int rh, int jb, __global double *part, long partOff, int ldlt,
		       __global int *cnt) {
	__local double tile[33 * SBL]; // 32 x SBL (leading dimension 33) for the partial sums, then the triangle
	__local double xr[32];
	__local double xl[SBL];
	__local int last;
	const int4 t = vload4(t0 + get_group_id(0), task);
	SN_FRONT(t.x);
	__global const double *Ls = L + is[S_L];
	__global const int *below = rows + is[S_ROW] + ns;
	__global const double *xv = x + (long)rh * n;
	const int lid = get_local_id(0), ls = get_local_size(0);
	const int nb = min(SBL, ns - jb);
	const int r0 = jb + nb + t.y * RCH, r1 = min(F, r0 + RCH);
	double acc = 0.0;
	for (int rs = r0; rs < r1; rs += 32) {
		const int nr = min(32, r1 - rs);
		for (int q = lid; q < 32 * nb; q += ls) {
			const int i = q % 32, k = q / 32;
			tile[k * 33 + i] = i < nr ? Ls[(long)(jb + k) * F + rs + i] : 0.0;
		}
		if (lid < nr) {
			const int r = rs + lid;
			xr[lid] = xv[r < ns ? first + r : below[r - ns]];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < nb)
			for (int i = 0; i < nr; i++)
				acc = fma(tile[lid * 33 + i], xr[i], acc);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid < nb)
		part[partOff + (long)get_group_id(0) * SBL + lid] = acc;
	device_fence();
	barrier(CLK_GLOBAL_MEM_FENCE);
	if (lid == 0) {
		last = atomic_inc(cnt + t.x) == t.z - 1;
		if (last)
			atomic_xchg(cnt + t.x, 0);
		// Acquire: the other groups' partials are read after their count.
		device_fence();
	}
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
	if (!last)
		return;
	__global double *xs = x + (long)rh * n + first;
	volatile __global const double *pv = part + partOff + (long)(get_group_id(0) - t.y) * SBL;
	for (int k = lid; k < nb; k += ls) {
		double v = xs[jb + k];
		for (int q = 0; q < t.z; q++)
			v -= pv[(long)q * SBL + k];
		xl[k] = v;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	tri_bwd(Ls + (long)jb * F + jb, F, nb, ldlt, tile, xl);
	for (int k = lid; k < nb; k += ls)
		xs[jb + k] = xl[k];
}
