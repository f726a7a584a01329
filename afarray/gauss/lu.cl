// Blocked right-looking LU factorization with partial pivoting of a
// row-major N x N matrix (leading dimension N, N a multiple of NB), three
// launches per panel of NB columns starting at column k:
//
//   lu_panel      one work-group factors the tall panel A[k:N, k:k+NB):
//                 pivot search, row exchange inside the panel, scaling of
//                 the multipliers, rank-1 updates of the panel's remaining
//                 columns;
//   lu_swap_trsm  applies the panel's row exchanges to every other column
//                 and, right of the panel, solves L11 U12 = A12 (unit lower
//                 triangular L11 held in local memory);
//   lu_gemm       A22 -= L21 U12 with 64 x 64 output tiles, 16 x 16
//                 work-items each accumulating 4 x 4 values, and the inner
//                 dimension staged through local memory in chunks of 16.
//
// ipiv[i] is the row exchanged with row i at step i (LAPACK's convention,
// 0-based). status receives the first column whose pivot has magnitude at
// most tol (singular to working precision).

#ifndef NB
#define NB 64
#endif

#define IDX(r, c) ((size_t)(r) * (size_t)N + (size_t)(c))

__kernel void lu_panel(const int N, const int k, const int pivot, __global double *A, __global int *ipiv,
                       __global int *status, const double tol, __local double *lmax, __local int *lidx) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	for (int j = 0; j < NB; ++j) {
		const int c = k + j;
		int prow = c;
		double best = fabs(A[IDX(c, c)]);
		if (pivot) {
			// Sliding window fold in private memory, then a halving tree.
			best = -1.0;
			for (int r = c + li; r < N; r += n_li) {
				const double v = fabs(A[IDX(r, c)]);
				if (v > best) {
					best = v;
					prow = r;
				}
			}
			lmax[li] = best;
			lidx[li] = prow;
			barrier(CLK_LOCAL_MEM_FENCE);
			for (int len = n_li; len > 1;) {
				const int upper_half = (len + 1) >> 1;
				if (li < len - upper_half) {
					const double a = lmax[li], b = lmax[li + upper_half];
					const int ia = lidx[li], ib = lidx[li + upper_half];
					if (b > a || (b == a && ib < ia)) {
						lmax[li] = b;
						lidx[li] = ib;
					}
				}
				barrier(CLK_LOCAL_MEM_FENCE);
				len = upper_half;
			}
			best = lmax[0];
			prow = lidx[0];
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		if (li == 0) {
			ipiv[c] = prow;
			if (!(best > tol))
				atomic_min(status, c);
		}
		if (prow != c)
			for (int q = li; q < NB; q += n_li) {
				const double t = A[IDX(c, k + q)];
				A[IDX(c, k + q)] = A[IDX(prow, k + q)];
				A[IDX(prow, k + q)] = t;
			}
		barrier(CLK_GLOBAL_MEM_FENCE);
		const double d = A[IDX(c, c)];
		// A zero pivot is recorded above; the column is left unscaled so
		// that nothing divides by zero (LAPACK does the same).
		if (d != 0.0)
			for (int r = c + 1 + li; r < N; r += n_li)
				A[IDX(r, c)] /= d;
		barrier(CLK_GLOBAL_MEM_FENCE);
		const int w = NB - 1 - j; // panel columns right of c
		const int m = N - c - 1;  // rows below c
		if (w > 0)
			for (int e = li; e < m * w; e += n_li) {
				const int r = c + 1 + e / w, q = c + 1 + e % w;
				A[IDX(r, q)] -= A[IDX(r, c)] * A[IDX(c, q)];
			}
		barrier(CLK_GLOBAL_MEM_FENCE);
	}
}

// lu_swap_trsm: one work-item per column outside the panel (columns left of
// k, then right of k+NB). Neighbouring work-items touch neighbouring columns
// of the same rows, so every access is coalesced.
__kernel void lu_swap_trsm(const int N, const int k, __global double *A, __global const int *ipiv,
                           __local double *L11) {
	const int li = get_local_id(0), n_li = get_local_size(0);
	for (int e = li; e < NB * NB; e += n_li)
		L11[e] = A[IDX(k + e / NB, k + e % NB)];
	barrier(CLK_LOCAL_MEM_FENCE);
	const int g = get_global_id(0);
	if (g >= N - NB)
		return;
	const int c = g < k ? g : g + NB;
	for (int i = k; i < k + NB; ++i) {
		const int pr = ipiv[i];
		if (pr != i) {
			const double t = A[IDX(i, c)];
			A[IDX(i, c)] = A[IDX(pr, c)];
			A[IDX(pr, c)] = t;
		}
	}
	if (c < k)
		return;
	double x[NB];
#pragma unroll
	for (int i = 0; i < NB; ++i) {
		double v = A[IDX(k + i, c)];
#pragma unroll
		for (int j = 0; j < i; ++j)
			v -= L11[i * NB + j] * x[j];
		x[i] = v;
		A[IDX(k + i, c)] = v;
	}
}

#define TS 64 // output tile edge
#define KC 16 // inner-dimension chunk

__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void lu_gemm(const int N, const int k, __global double *A) {
	__local double As[TS * KC]; // L21 tile: TS rows x KC
	__local double Bs[KC * TS]; // U12 tile: KC rows x TS
	const int tx = get_local_id(0), ty = get_local_id(1);
	const int li = ty * 16 + tx;
	const int r0 = k + NB + get_group_id(1) * TS;
	const int c0 = k + NB + get_group_id(0) * TS;
	double acc[4][4];
	for (int i = 0; i < 4; ++i)
		for (int j = 0; j < 4; ++j)
			acc[i][j] = 0.0;
	for (int kc = 0; kc < NB; kc += KC) {
		for (int e = li; e < TS * KC; e += 256) {
			const int r = r0 + e / KC, q = k + kc + e % KC;
			As[e] = r < N ? A[IDX(r, q)] : 0.0;
			const int br = k + kc + e / TS, bc = c0 + e % TS;
			Bs[e] = bc < N ? A[IDX(br, bc)] : 0.0;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
		for (int kk = 0; kk < KC; ++kk) {
			double a[4], b[4];
			for (int i = 0; i < 4; ++i)
				a[i] = As[(ty + 16 * i) * KC + kk];
			for (int j = 0; j < 4; ++j)
				b[j] = Bs[kk * TS + tx + 16 * j];
			for (int i = 0; i < 4; ++i)
				for (int j = 0; j < 4; ++j)
					acc[i][j] = fma(a[i], b[j], acc[i][j]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int i = 0; i < 4; ++i) {
		const int r = r0 + ty + 16 * i;
		if (r >= N)
			continue;
		for (int j = 0; j < 4; ++j) {
			const int c = c0 + tx + 16 * j;
			if (c < N)
				A[IDX(r, c)] -= acc[i][j];
		}
	}
}
