// The fast dense factorizations and solves: blocked, right-looking, with
// NB-wide block columns. Per block column the factorization makes two
// launches (panel, then trailing update) instead of the thesis's 2*NB, and
// each solve makes one launch per block instead of one per unknown. Matrices
// are column-major with leading dimension n; only the lower triangle is read
// or written, like the thesis's in-place factorizations.

#define NB 32 // block column width; blocked_* launches assume it
#define TU 32 // output tile edge of blocked_update (16 x 16 items, 2 x 2 each)

// factor_diag_block loads the nb x nb diagonal block at (k, k) into D
// (column-major, leading dimension NB) and factors it in local memory:
// D's strict lower triangle becomes L11 (unit for LDLT) and piv[p] the
// diagonal of L (sqrt of the pivot) or of D. Every group of a panel launch
// factors the block itself, redundantly (NB^3/3 flops): that saves a launch
// and a global barrier per block column. A bad pivot is recorded by the
// group with report set.
inline void factor_diag_block(int n, int k, int nb, int ldlt, __global const double *A,
                              __local double *D, __local double *piv,
                              __global int *flag, __global double *pivot, int report) {
	int l = get_local_id(0), L = get_local_size(0);
	long ld = n;
	for (int e = l; e < nb * nb; e += L) {
		int r = e % nb, c = e / nb;
		if (r >= c) D[r + NB * c] = A[(k + r) + ld * (k + c)];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int p = 0; p < nb; p++) {
		double d = D[p + NB * p];
		int bad = ldlt ? (d == 0 || !isfinite(d)) : !(d > 0);
		double s = ldlt ? d : sqrt(d);
		if (l == 0) {
			piv[p] = s;
			if (bad && report) record_pivot(flag, pivot, k + p, d);
		}
		for (int i = p + 1 + l; i < nb; i += L) D[i + NB * p] /= s;
		barrier(CLK_LOCAL_MEM_FENCE);
		int m = nb - p - 1;
		double f = ldlt ? d : 1.0;
		for (int e = l; e < m * m; e += L) {
			int r = e % m, c = e / m;
			if (r >= c) D[(p + 1 + r) + NB * (p + 1 + c)] -= D[(p + 1 + r) + NB * p] * D[(p + 1 + c) + NB * p] * f;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}

// blocked_panel factors block column k: the diagonal block (see
// factor_diag_block) and the panel below it, L21 = A21 L11^-T (Cholesky) or
// A21 L11^-T D1^-1 (LDLT), one row per work-item: consecutive items read
// consecutive rows of each column, so the loads coalesce, and the row's NB
// values stay in private memory.
//
// Every group reads the diagonal block from A, so no group may write it in
// the same launch: group 0 stores the factored block in slot (k/NB)%2 of
// scratch (NB*NB values of L11, then the NB diagonal values), and copies the
// previous block's slot into A, where nobody reads it any more.
// blocked_store_diag stores the last block.
inline void store_diag(int n, int k, __global double *A, __global const double *slot) {
	int nb = min(NB, n - k);
	long ld = n;
	for (int e = get_local_id(0); e < nb * nb; e += get_local_size(0)) {
		int r = e % nb, c = e / nb;
		if (r > c) A[(k + r) + ld * (k + c)] = slot[r + NB * c];
		else if (r == c) A[(k + r) + ld * (k + c)] = slot[NB * NB + r];
	}
}

__kernel void blocked_panel(int n, int k, int ldlt, __global double *A,
                            __global int *flag, __global double *pivot, __global double *scratch) {
	__local double D[NB * NB];
	__local double piv[NB];
	int nb = min(NB, n - k);
	int l = get_local_id(0), L = get_local_size(0);
	long ld = n;
	int blk = k / NB;
	factor_diag_block(n, k, nb, ldlt, A, D, piv, flag, pivot, get_group_id(0) == 0);
	if (get_group_id(0) == 0) {
		__global double *slot = scratch + (blk % 2) * (NB * NB + NB);
		for (int e = l; e < NB * NB; e += L) slot[e] = D[e];
		for (int e = l; e < nb; e += L) slot[NB * NB + e] = piv[e];
		if (blk > 0) store_diag(n, k - NB, A, scratch + ((blk - 1) % 2) * (NB * NB + NB));
	}
	for (int i = k + nb + get_global_id(0); i < n; i += get_global_size(0)) {
		double x[NB];
		for (int p = 0; p < nb; p++) {
			double a = A[i + ld * (k + p)];
			for (int q = 0; q < p; q++) a -= x[q] * D[p + NB * q];
			x[p] = ldlt ? a : a / piv[p];
		}
		for (int p = 0; p < nb; p++) A[i + ld * (k + p)] = ldlt ? x[p] / piv[p] : x[p];
	}
}

// blocked_store_diag copies the factored diagonal block k from its scratch
// slot into A (one group).
__kernel void blocked_store_diag(int n, int k, __global double *A, __global const double *scratch) {
	store_diag(n, k, A, scratch + ((k / NB) % 2) * (NB * NB + NB));
}

// blocked_update subtracts a rank-nb product from an m x ncols block of X
// (leading dimension ld), staging TU x nb tiles of both factors in local
// memory. Output row r is X row rowBase + (r < skipLo ? r : r + skipN)
// (Gauss-Jordan skips the pivot rows), output column c is colBase + c.
//   mode 0 (Cholesky): X[i,j] -= sum_p X[i,k+p] X[j,k+p], lower triangle only
//   mode 1 (LDLT):     X[i,j] -= sum_p X[i,k+p] d_p X[j,k+p], d_p from the
//                      panel's scratch slot (A's diagonal block is stored later)
//   mode 2 (G-J):      X[i,j] -= sum_p X[i,k+p] X[k+p,j]
// Local size 16 x 16; each item computes a 2 x 2 patch of the 32 x 32 tile.
__kernel void blocked_update(int mode, int ld, int k, int nb, int m, int ncols,
                             int rowBase, int skipLo, int skipN, int colBase, __global double *X,
                             __global const double *scratch) {
	__local double As[NB * (TU + 1)];
	__local double Bs[NB * (TU + 1)];
	int tx = get_local_id(0), ty = get_local_id(1);
	int tid = tx + 16 * ty;
	int r0 = get_group_id(0) * TU, c0 = get_group_id(1) * TU;
	// Tiles wholly above the diagonal hold nothing of the lower triangle.
	if (mode != 2 && r0 + TU - 1 < c0) return;
	long LD = ld;
	for (int e = tid; e < TU * nb; e += 256) {
		int r = e % TU, p = e / TU;
		int rr = r0 + r;
		double v = 0;
		if (rr < m) {
			int i = rowBase + (rr < skipLo ? rr : rr + skipN);
			v = X[i + LD * (k + p)];
		}
		As[p * (TU + 1) + r] = v;
	}
	if (mode == 2) {
		for (int e = tid; e < TU * nb; e += 256) {
			int p = e % nb, c = e / nb;
			int cc = c0 + c;
			Bs[p * (TU + 1) + c] = cc < ncols ? X[(k + p) + LD * (colBase + cc)] : 0;
		}
	} else {
		for (int e = tid; e < TU * nb; e += 256) {
			int c = e % TU, p = e / TU;
			int cc = c0 + c;
			double v = 0;
			if (cc < ncols) {
				v = X[(colBase + cc) + LD * (k + p)];
				if (mode == 1) v *= scratch[((k / NB) % 2) * (NB * NB + NB) + NB * NB + p];
			}
			Bs[p * (TU + 1) + c] = v;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	double a00 = 0, a01 = 0, a10 = 0, a11 = 0;
	for (int p = 0; p < nb; p++) {
		double x0 = As[p * (TU + 1) + tx], x1 = As[p * (TU + 1) + tx + 16];
		double y0 = Bs[p * (TU + 1) + ty], y1 = Bs[p * (TU + 1) + ty + 16];
		a00 += x0 * y0;
		a01 += x0 * y1;
		a10 += x1 * y0;
		a11 += x1 * y1;
	}
	double acc[4] = {a00, a01, a10, a11};
	for (int q = 0; q < 4; q++) {
		int rr = r0 + tx + 16 * (q >> 1), cc = c0 + ty + 16 * (q & 1);
		if (rr >= m || cc >= ncols) continue;
		int i = rowBase + (rr < skipLo ? rr : rr + skipN), j = colBase + cc;
		if (mode != 2 && i < j) continue;
		X[i + LD * j] -= acc[q];
	}
}

// load_diag_block copies the lower triangle of the nb x nb block at (k, k)
// into D (leading dimension NB).
inline void load_diag_block(int n, int k, int nb, __global const double *A, __local double *D) {
	long ld = n;
	for (int e = get_local_id(0); e < nb * nb; e += get_local_size(0)) {
		int r = e % nb, c = e / nb;
		if (r >= c) D[r + NB * c] = A[(k + r) + ld * (k + c)];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
}

// blocked_forward is one block of the forward solve L y = b: every group
// solves the small triangular system of block k (its right-hand side is
// final: earlier blocks have already subtracted their parts), group 0 writes
// the block of the result to out (divided by D for LDLT, which fuses the
// diagonal solve), and every item subtracts L21 y_k from one row of rhs
// below the block. rhs and out are different vectors, so no group reads
// what another writes in the same launch.
__kernel void blocked_forward(int n, int k, int ldlt, __global const double *A,
                              __global double *rhs, __global double *out) {
	__local double D[NB * NB];
	__local double y[NB];
	int nb = min(NB, n - k);
	int l = get_local_id(0);
	long ld = n;
	load_diag_block(n, k, nb, A, D);
	if (l == 0) {
		for (int p = 0; p < nb; p++) {
			double s = rhs[k + p];
			for (int q = 0; q < p; q++) s -= D[p + NB * q] * y[q];
			y[p] = ldlt ? s : s / D[p + NB * p];
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (get_group_id(0) == 0 && l < nb) out[k + l] = ldlt ? y[l] / D[l + NB * l] : y[l];
	for (int i = k + nb + get_global_id(0); i < n; i += get_global_size(0)) {
		double s = 0;
		for (int p = 0; p < nb; p++) s += A[i + ld * (k + p)] * y[p];
		rhs[i] -= s;
	}
}

// blocked_backward is one block of the backward solve L^T x = rhs, blocks
// taken from the last: every group solves block k, group 0 writes x_k to
// out, and each item subtracts (L21^T)-part x_k from one entry j < k of rhs.
// Row j of the block of L (column j of L^T) is staged in local memory in a
// tile read down the columns, so the loads coalesce. Local size BW.
#define BW 64
__kernel void blocked_backward(int n, int k, int ldlt, __global const double *A,
                               __global double *rhs, __global double *out) {
	__local double D[NB * NB];
	__local double x[NB];
	__local double T[NB * (BW + 1)];
	int nb = min(NB, n - k);
	int l = get_local_id(0);
	long ld = n;
	load_diag_block(n, k, nb, A, D);
	if (l == 0) {
		for (int p = nb - 1; p >= 0; p--) {
			double s = rhs[k + p];
			for (int q = p + 1; q < nb; q++) s -= D[q + NB * p] * x[q];
			x[p] = ldlt ? s : s / D[p + NB * p];
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (get_group_id(0) == 0 && l < nb) out[k + l] = x[l];
	for (int j0 = get_group_id(0) * BW; j0 < k; j0 += get_num_groups(0) * BW) {
		for (int e = l; e < nb * BW; e += BW) {
			int p = e % nb, c = e / nb;
			T[p * (BW + 1) + c] = j0 + c < k ? A[(k + p) + ld * (j0 + c)] : 0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		if (j0 + l < k) {
			double s = 0;
			for (int p = 0; p < nb; p++) s += T[p * (BW + 1) + l] * x[p];
			rhs[j0 + l] -= s;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
}
