// Register-blocked matrix product, column-major, built per floating type T
// and per tile configuration:
//   MT x NT  the output tile of one work-group,
//   KT       the depth of the tiles of op(A) (MT x KT) and op(B) (KT x NT)
//            staged in local memory,
//   TM x TN  the outputs each work-item keeps in registers.
// The work-group is WX x WY = (MT/TM) x (NT/TN) items. Item (lx, ly) owns
// rows lx, lx+WX, ... and columns ly, ly+WY, ... of the tile: strided, so
// consecutive items read consecutive local words (no bank conflicts) and
// write consecutive rows of C (coalesced).
//
// The local tiles are double-buffered: while the items multiply out of one
// buffer, the next depth slice is already loaded from global memory into
// registers and is stored into the other buffer afterwards, so one barrier
// per slice suffices and the global loads overlap the arithmetic.

#define WX (MT / TM)
#define WY (NT / TN)
#define WG (WX * WY)
#define LA (MT * KT / WG) // elements of the A tile each item loads
#define LB (KT * NT / WG)
#define SA (MT + 2)       // padded row of the A tile (fewer conflicts for transposed stores),
#define SB (NT + 2)       // even so that pairs stay 2-element aligned

// PU: depth steps unrolled together in the inner loop (all KT unless set:
// fewer keep fewer operands live, for register-bound configurations). On
// an H100 (ptxas: the 8x8 configurations use 255 registers and spill
// 28-300 bytes) PU 2 and 4 were slower than the full unroll for every
// 8x8 configuration: 128x128x8/8x8 17.8 and 18.4 against 18.9 TFLOP/s
// (measured before the index arithmetic below was folded).
#ifndef PU
#define PU KT
#endif

// NBUF: local buffers per operand tile. 2 (the default) double-buffers
// the slices as above. 1 halves the local memory, so that a deep slice fits
// (the thin products of gemm_small stage KT = 32, a blocked LU's whole
// panel depth, at once): the next slice is still loaded into registers
// during the arithmetic, but stored only after a second barrier.
#ifndef NBUF
#define NBUF 2
#endif
#if NBUF == 1
#define BUF(cur) 0
#else
#define BUF(cur) (cur)
#endif

#if (MT % TM) || (NT % TN) || ((MT * KT) % WG) || ((KT * NT) % WG) || (KT % PU)
#error "gemm tile configuration does not divide evenly"
#endif

// With PAIRS (GPUs) the inner loop reads its operands from local memory in
// aligned pairs T2 (one 16-byte load for two doubles, half the load
// instructions): item (lx, ly) owns the row pairs 2lx, 2lx+1, 2lx+2WX, ...
// and the column pairs likewise, so the WX items of a row still read
// consecutive words. On an H100 this raised DGEMM n = 8192 from 18.4 to
// 18.7 TFLOP/s (128x128x8/8x8) and 64x128x8/8x8 from 17.4 to 19.1. PoCL
// compiles the pair loads badly (1-2 GFLOP/s instead of 10-13 for the 8x8
// blocks on 2 cores), so CPUs keep the strided scalar mapping: rows lx,
// lx+WX, ...
#ifdef PAIRS
#if (TM % 2) || (TN % 2)
#error "PAIRS needs even TM and TN"
#endif
#define CAT2(a, b) a##b
#define VEC2(a) CAT2(a, 2)
#define T2 VEC2(T)
#define ROW(a) (2 * lx + ((a) >> 1) * 2 * WX + ((a) & 1))
#define COL(b) (2 * ly + ((b) >> 1) * 2 * WY + ((b) & 1))
#else
#define ROW(a) (lx + (a) * WX)
#define COL(b) (ly + (b) * WY)
#endif

// Element e = lid + t*WG of an operand tile is at contiguous index e % X
// and strided index e / X in the stored matrix, X the tile's extent along
// the stored matrix's columns (MT or KT for A, KT or NT for B), so that
// consecutive items read consecutive addresses. Where WG and X divide one
// another (every power-of-two configuration) that is the item's own
// (c0, s0) = (lid % X, lid / X) plus constants of t: after unrolling, one
// base address per item and constant offsets, instead of a division and
// a 64-bit product per element and slice. Together with SPECIALIZE (one
// copy of the tile per transposition, below) this raised DGEMM n = 8192 on
// an H100 from 18.9 to 21.2 TFLOP/s (128x128x8/8x8) and from 18.9 to 22.1
// (64x128x8/8x8; 128x64x8/8x8 22.0), in one run beside the former kernel;
// ptxas still reports 255 registers and 40 bytes of spills for those.
// Warps laid out 4 x 8 or 2 x 16 over the items instead of 16 x 2 (fewer
// distinct local words per pair load) changed the 8x8 configurations by
// less than 0.5 % there, and were left out.
#define DIVIDES(X) ((WG % (X)) == 0 || ((X) % WG) == 0)
#define CC(t, X, c0) (DIVIDES(X) ? (c0) + ((t) * WG) % (X) : (lid + (t) * WG) % (X))
#define SS(t, X, s0) (DIVIDES(X) ? (s0) + ((t) * WG) / (X) : (lid + (t) * WG) / (X))
#define XA(ta) ((ta) ? KT : MT)
#define XB(tb) ((tb) ? NT : KT)

// load_a fills ra with the items' share of the slice of op(A) whose first
// element (row i0 of op(A), depth p0) is at a, rows < mr and depths < kr
// inside the tile when check is set (zeros beyond).
inline void load_a(T *ra, int lid, int ta, __global const T *a, int lda, int check, int mr, int kr) {
	const int c0 = lid % XA(ta), s0 = lid / XA(ta);
#pragma unroll
	for (int t = 0; t < LA; t++) {
		int c = CC(t, XA(ta), c0), s = SS(t, XA(ta), s0);
		int r = ta ? s : c, p = ta ? c : s;
		ra[t] = (!check || (r < mr && p < kr)) ? a[c + (long)lda * s] : (T)0;
	}
}

inline void store_a(const T *ra, int lid, int ta, __local T *As) {
	const int c0 = lid % XA(ta), s0 = lid / XA(ta);
#pragma unroll
	for (int t = 0; t < LA; t++) {
		int c = CC(t, XA(ta), c0), s = SS(t, XA(ta), s0);
		int r = ta ? s : c, p = ta ? c : s;
		As[p * SA + r] = ra[t];
	}
}

// load_b likewise for op(B) from column j0, depth p0 at b: columns < nr,
// depths < kr.
inline void load_b(T *rb, int lid, int tb, __global const T *b, int ldb, int check, int nr, int kr) {
	const int c0 = lid % XB(tb), s0 = lid / XB(tb);
#pragma unroll
	for (int t = 0; t < LB; t++) {
		int c = CC(t, XB(tb), c0), s = SS(t, XB(tb), s0);
		int q = tb ? c : s, p = tb ? s : c;
		rb[t] = (!check || (q < nr && p < kr)) ? b[c + (long)ldb * s] : (T)0;
	}
}

inline void store_b(const T *rb, int lid, int tb, __local T *Bs) {
	const int c0 = lid % XB(tb), s0 = lid / XB(tb);
#pragma unroll
	for (int t = 0; t < LB; t++) {
		int c = CC(t, XB(tb), c0), s = SS(t, XB(tb), s0);
		int q = tb ? c : s, p = tb ? s : c;
		Bs[p * SB + q] = rb[t];
	}
}

// gemm_tile computes the MT x NT tile of C at (i0, j0):
// C = alpha*op(A)*op(B) + beta*C, where op(A) is m x k and op(B) k x n.
// With lower set only the entries on or below the diagonal are written
// (SYRK); the caller skips tiles wholly above it. beta == 0 never reads C.
// Slices wholly inside op(A) and op(B) load without bounds checks.
inline void gemm_tile(int m, int n, int k, int ta, int tb, T alpha,
                      __global const T *A, int lda, __global const T *B, int ldb,
                      T beta, __global T *C, int ldc, int i0, int j0, int lower,
                      __local T *As, __local T *Bs) {
	int lx = get_local_id(0), ly = get_local_id(1);
	int lid = lx + WX * ly;
	T acc[TM][TN];
#pragma unroll
	for (int a = 0; a < TM; a++)
#pragma unroll
		for (int b = 0; b < TN; b++) acc[a][b] = 0;
	T ra[LA], rb[LB];
#ifdef CPRE
	// With CPRE the tile's C values are read before the products, so that
	// their latency overlaps the operands' (thin products have few slices
	// to hide it behind); TM x TN more registers.
	T cv[TM][TN];
#pragma unroll
	for (int b = 0; b < TN; b++) {
		int j = j0 + COL(b);
#pragma unroll
		for (int a = 0; a < TM; a++) {
			int i = i0 + ROW(a);
			cv[a][b] = (beta != (T)0 && i < m && j < n && !(lower && i < j)) ? C[i + (long)ldc * j] : (T)0;
		}
	}
#endif
	// the slices' first elements, and how far each moves per slice
	__global const T *ga = A + (ta ? (long)lda * i0 : i0);
	__global const T *gb = B + (tb ? j0 : (long)ldb * j0);
	long da = ta ? KT : (long)lda * KT, db = tb ? (long)ldb * KT : KT;
	int mr = m - i0, nr = n - j0;
	int inside = mr >= MT && nr >= NT; // the tile's rows and columns
	if (k > 0) {
		int chk = !inside || k < KT;
		load_a(ra, lid, ta, ga, lda, chk, mr, k);
		load_b(rb, lid, tb, gb, ldb, chk, nr, k);
		store_a(ra, lid, ta, As);
		store_b(rb, lid, tb, Bs);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	int cur = 0;
	for (int p0 = 0; p0 < k; p0 += KT) {
		int more = p0 + KT < k;
		if (more) {
			ga += da;
			gb += db;
			int kr = k - p0 - KT;
			int chk = !inside || kr < KT;
			load_a(ra, lid, ta, ga, lda, chk, mr, kr);
			load_b(rb, lid, tb, gb, ldb, chk, nr, kr);
		}
		__local const T *as = As + BUF(cur) * (KT * SA) + ROW(0);
		__local const T *bs = Bs + BUF(cur) * (KT * SB) + COL(0);
#pragma unroll 1
		for (int p1 = 0; p1 < KT; p1 += PU)
#pragma unroll
		for (int p = p1; p < p1 + PU; p++) {
			T av[TM], bv[TN];
#ifdef PAIRS
#pragma unroll
			for (int a = 0; a < TM / 2; a++) {
				T2 v = *(__local const T2 *)(as + p * SA + a * 2 * WX);
				av[2 * a] = v.x;
				av[2 * a + 1] = v.y;
			}
#pragma unroll
			for (int b = 0; b < TN / 2; b++) {
				T2 v = *(__local const T2 *)(bs + p * SB + b * 2 * WY);
				bv[2 * b] = v.x;
				bv[2 * b + 1] = v.y;
			}
#else
#pragma unroll
			for (int a = 0; a < TM; a++) av[a] = as[p * SA + a * WX];
#pragma unroll
			for (int b = 0; b < TN; b++) bv[b] = bs[p * SB + b * WY];
#endif
#pragma unroll
			for (int a = 0; a < TM; a++)
#pragma unroll
				for (int b = 0; b < TN; b++) acc[a][b] = fma(av[a], bv[b], acc[a][b]);
		}
		if (more) { // the same for every item of the group
#if NBUF == 1
			barrier(CLK_LOCAL_MEM_FENCE); // every item is done with the slice
#endif
			store_a(ra, lid, ta, As + BUF(cur ^ 1) * (KT * SA));
			store_b(rb, lid, tb, Bs + BUF(cur ^ 1) * (KT * SB));
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		cur ^= 1;
	}
	// Fully unrolled, without break: a loop the compiler keeps would index
	// acc at run time, and a private array indexed at run time lives in
	// (slow, off-chip) private memory instead of registers.
#pragma unroll
	for (int b = 0; b < TN; b++) {
		int j = j0 + COL(b);
#pragma unroll
		for (int a = 0; a < TM; a++) {
			int i = i0 + ROW(a);
			if (i < m && j < n && !(lower && i < j)) {
				long o = i + (long)ldc * j;
#ifdef CPRE
				C[o] = beta == (T)0 ? alpha * acc[a][b] : alpha * acc[a][b] + beta * cv[a][b];
#else
				C[o] = beta == (T)0 ? alpha * acc[a][b] : alpha * acc[a][b] + beta * C[o];
#endif
			}
		}
	}
}

// With SPECIALIZE (GPUs) the tile is compiled once per transposition, so
// that the operands' index arithmetic folds into constants; elsewhere one
// copy takes the transpositions at run time (a quarter of the code for
// PoCL to compile).
inline void gemm_tile_t(int m, int n, int k, int ta, int tb, T alpha,
                        __global const T *A, int lda, __global const T *B, int ldb,
                        T beta, __global T *C, int ldc, int i0, int j0, int lower,
                        __local T *As, __local T *Bs) {
#ifdef SPECIALIZE
	if (ta) {
		if (tb) gemm_tile(m, n, k, 1, 1, alpha, A, lda, B, ldb, beta, C, ldc, i0, j0, lower, As, Bs);
		else gemm_tile(m, n, k, 1, 0, alpha, A, lda, B, ldb, beta, C, ldc, i0, j0, lower, As, Bs);
	} else {
		if (tb) gemm_tile(m, n, k, 0, 1, alpha, A, lda, B, ldb, beta, C, ldc, i0, j0, lower, As, Bs);
		else gemm_tile(m, n, k, 0, 0, alpha, A, lda, B, ldb, beta, C, ldc, i0, j0, lower, As, Bs);
	}
#else
	gemm_tile(m, n, k, ta, tb, alpha, A, lda, B, ldb, beta, C, ldc, i0, j0, lower, As, Bs);
#endif
}

// gemm: one work-group per MT x NT tile of C; lower = 1 makes it SYRK-like
// (only the lower triangle of a square C is computed; groups wholly above
// the diagonal leave at once). Offsets are in elements. GEMM_NAME renames
// it (gemm_small: the thin products' program, which has only this kernel,
// named apart in kernel profiles).
#ifndef GEMM_NAME
#define GEMM_NAME gemm
#endif
__kernel __attribute__((reqd_work_group_size(WX, WY, 1)))
void GEMM_NAME(int m, int n, int k, int ta, int tb, T alpha,
          __global const T *A, long offa, int lda, __global const T *B, long offb, int ldb,
          T beta, __global T *C, long offc, int ldc, int lower) {
	__local T As[NBUF * KT * SA] __attribute__((aligned(16)));
	__local T Bs[NBUF * KT * SB] __attribute__((aligned(16)));
	int i0 = get_group_id(0) * MT, j0 = get_group_id(1) * NT;
	if (lower && j0 > i0 + MT - 1) return;
	gemm_tile_t(m, n, k, ta, tb, alpha, A + offa, lda, B + offb, ldb, beta, C + offc, ldc, i0, j0, lower, As, Bs);
}

#ifndef SMALL_ONLY
// gemm_batched: dimension 2 of the grid indexes the problems. Each
// descriptor is four longs {offset, rows, cols, ld} of a column-major
// matrix in the shared buffer. C's descriptor gives m and n; op(A)'s
// columns give k. Groups beyond a problem's size leave at once.
__kernel __attribute__((reqd_work_group_size(WX, WY, 1)))
void gemm_batched(int ta, int tb, T alpha,
                  __global const T *A, __global const long *da,
                  __global const T *B, __global const long *db,
                  T beta, __global T *C, __global const long *dc, int lower) {
	__local T As[NBUF * KT * SA] __attribute__((aligned(16)));
	__local T Bs[NBUF * KT * SB] __attribute__((aligned(16)));
	int q = get_group_id(2);
	__global const long *a = da + 4 * q, *b = db + 4 * q, *c = dc + 4 * q;
	int m = (int)c[1], n = (int)c[2];
	int k = ta ? (int)a[1] : (int)a[2];
	int i0 = get_group_id(0) * MT, j0 = get_group_id(1) * NT;
	if (i0 >= m || j0 >= n || (lower && j0 > i0 + MT - 1)) return;
	gemm_tile_t(m, n, k, ta, tb, alpha, A + a[0], (int)a[3], B + b[0], (int)b[3], beta, C + c[0], (int)c[3], i0, j0, lower, As, Bs);
}
#endif

#ifdef DMR
// gemm_direct: the product for CPU devices (configurations with KT = 0).
// PoCL runs a work-group as a loop over its work-items on one thread, so
// local-memory tiles and barriers only add copies and loop splits there.
// Here each work-item computes a DMR x DNR block of C (DMR a multiple of
// 8) over the whole depth: per step p it loads DMR/8 vectors of 8
// consecutive elements of A's column p (one cache line each) and
// multiplies them by DNR broadcast elements of op(B) into DMR/8 x DNR
// vector accumulators that stay in SIMD registers, the k loop innermost:
// the register micro-kernel of CPU BLAS libraries, written with OpenCL
// vector types so PoCL emits it as such. op(A) must be A (transposed A
// goes to the tiled kernel). Items of a group share their columns of B,
// which stay in the core's cache while the group runs. Blocks at the
// edges of C run a scalar loop.
#define DV (DMR / 8)
#define V8 VEC8(T)
#define VEC8_(t) t##8
#define VEC8(t) VEC8_(t)
__kernel __attribute__((reqd_work_group_size(DWX, DWY, 1)))
void gemm_direct(int m, int n, int k, int tb, T alpha,
                 __global const T *A, long offa, int lda, __global const T *B, long offb, int ldb,
                 T beta, __global T *C, long offc, int ldc, int lower) {
	int i0 = get_global_id(0) * DMR, j0 = get_global_id(1) * DNR;
	if (i0 >= m || j0 >= n || (lower && j0 > i0 + DMR - 1)) return;
	A += offa + i0;
	B += offb + (tb ? (long)j0 : (long)ldb * j0);
	C += offc + i0 + (long)ldc * j0;
	// B(p, c) of op(B) relative to column j0: element stride along p and c
	long bp = tb ? ldb : 1, bc = tb ? 1 : ldb;
	if (i0 + DMR <= m && j0 + DNR <= n) {
		V8 acc[DV][DNR];
#pragma unroll
		for (int v = 0; v < DV; v++)
#pragma unroll
			for (int c = 0; c < DNR; c++) acc[v][c] = (V8)0;
		for (int p = 0; p < k; p++) {
			__global const T *ap = A + (long)lda * p;
			__global const T *bq = B + bp * p;
			V8 av[DV];
#pragma unroll
			for (int v = 0; v < DV; v++) av[v] = vload8(v, ap);
#pragma unroll
			for (int c = 0; c < DNR; c++) {
				V8 b = (V8)(bq[bc * c]);
#pragma unroll
				for (int v = 0; v < DV; v++) acc[v][c] = fma(av[v], b, acc[v][c]);
			}
		}
		int diag = lower && j0 + DNR - 1 > i0; // a block the diagonal crosses
#pragma unroll
		for (int c = 0; c < DNR; c++) {
			__global T *cc = C + (long)ldc * c;
#pragma unroll
			for (int v = 0; v < DV; v++) {
				V8 r = alpha * acc[v][c];
				if (!diag) {
					if (beta != (T)0) r += beta * vload8(v, cc);
					vstore8(r, v, cc);
				} else {
					T rv[8];
					vstore8(r, 0, rv);
					for (int e = 0; e < 8; e++) {
						int i = i0 + 8 * v + e;
						if (i >= j0 + c) cc[8 * v + e] = beta == (T)0 ? rv[e] : rv[e] + beta * cc[8 * v + e];
					}
				}
			}
		}
		return;
	}
	for (int c = 0; c < DNR && j0 + c < n; c++) {
		for (int a = 0; a < DMR && i0 + a < m; a++) {
			if (lower && i0 + a < j0 + c) continue;
			T s = 0;
			for (int p = 0; p < k; p++) s = fma(A[a + (long)lda * p], B[bp * p + bc * c], s);
			long o = a + (long)ldc * c;
			C[o] = beta == (T)0 ? alpha * s : alpha * s + beta * C[o];
		}
	}
}
#endif
