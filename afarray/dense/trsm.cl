// Triangular solves with many right-hand sides. Every form of TRSM
// (left/right, lower/upper, transposed or not) is one "vector" problem
// M x = alpha b for each right-hand-side vector: a column of B when the
// triangle is on the left, a row of B when it is on the right (where
// X op(T) = B is op(T)^T X^T = B^T). M(i,k) is T(k,i) when transM is set,
// else T(i,k); lowerM says whether M is lower (forward substitution) or
// upper (backward). Element e of vector v is B[v*vstride + e*estride].

// trsm_block solves with a triangle of order nb <= TB held in local memory;
// one work-group takes TV vectors, staged in local memory by loads that run
// along B's contiguous direction, and each item substitutes one vector. The
// Go side cuts a large triangle into TB blocks and updates the rest of B
// with GEMM between them.
__kernel __attribute__((reqd_work_group_size(TV, 1, 1)))
void trsm_block(int nb, int nv, int lowerM, int transM, int unit, T alpha,
                __global const T *Tm, long offt, int ldt,
                __global T *B, long offb, int vstride, int estride) {
	__local T M[TB * TB];
	__local T X[TB * (TV + 1)];
	int l = get_local_id(0);
	int v0 = get_group_id(0) * TV;
	int nvv = min(TV, nv - v0);
	Tm += offt;
	B += offb;
	for (int e = l; e < nb * nb; e += TV) {
		int r = e % nb, c = e / nb;
		T val = Tm[r + (long)ldt * c];
		if (transM) M[c + TB * r] = val;
		else M[r + TB * c] = val;
	}
	for (int t = l; t < nb * TV; t += TV) {
		int e = estride == 1 ? t % nb : t / TV;
		int lv = estride == 1 ? t / nb : t % TV;
		if (lv < nvv) X[e * (TV + 1) + lv] = B[(long)(v0 + lv) * vstride + (long)e * estride];
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l < nvv) {
		__local T *x = X + l;
		if (lowerM) {
			for (int i = 0; i < nb; i++) {
				T s = alpha * x[i * (TV + 1)];
				for (int q = 0; q < i; q++) s -= M[i + TB * q] * x[q * (TV + 1)];
				x[i * (TV + 1)] = unit ? s : s / M[i + TB * i];
			}
		} else {
			for (int i = nb - 1; i >= 0; i--) {
				T s = alpha * x[i * (TV + 1)];
				for (int q = i + 1; q < nb; q++) s -= M[i + TB * q] * x[q * (TV + 1)];
				x[i * (TV + 1)] = unit ? s : s / M[i + TB * i];
			}
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int t = l; t < nb * TV; t += TV) {
		int e = estride == 1 ? t % nb : t / TV;
		int lv = estride == 1 ? t / nb : t % TV;
		if (lv < nvv) B[(long)(v0 + lv) * vstride + (long)e * estride] = X[e * (TV + 1) + lv];
	}
}

// trsm_batched: dimension 1 of the grid indexes the problems, dimension 0
// covers their vectors, TV per group. The triangle of problem q is
// described by dt[4q..4q+3] = {offset, rows, cols, ld}, its right-hand
// sides by db; right selects X op(T) = alpha B. Each item substitutes one
// vector in place in global memory with the triangle read from global
// memory (the same word by every item: a broadcast through the cache), so
// there is no limit on the order.
__kernel __attribute__((reqd_work_group_size(TV, 1, 1)))
void trsm_batched(int right, int lowerM, int transM, int unit, T alpha,
                  __global const T *Tm, __global const long *dt,
                  __global T *B, __global const long *db) {
	int q = get_group_id(1);
	__global const long *td = dt + 4 * q, *bd = db + 4 * q;
	int rows = (int)bd[1], cols = (int)bd[2];
	long ldb = bd[3], ldt = td[3];
	int nb = right ? cols : rows, nv = right ? rows : cols;
	int v = get_global_id(0);
	if (v >= nv) return;
	__global const T *t = Tm + td[0];
	__global T *x = B + bd[0] + (right ? (long)v : (long)v * ldb);
	long es = right ? ldb : 1;
	#define MAT(i, k) (transM ? t[(k) + ldt * (i)] : t[(i) + ldt * (k)])
	if (lowerM) {
		for (int i = 0; i < nb; i++) {
			T s = alpha * x[i * es];
			for (int c = 0; c < i; c++) s -= MAT(i, c) * x[c * es];
			x[i * es] = unit ? s : s / MAT(i, i);
		}
	} else {
		for (int i = nb - 1; i >= 0; i--) {
			T s = alpha * x[i * es];
			for (int c = i + 1; c < nb; c++) s -= MAT(i, c) * x[c * es];
			x[i * es] = unit ? s : s / MAT(i, i);
		}
	}
	#undef MAT
}
