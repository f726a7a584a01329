// Package dense is oclsolve's dense kernel core: GEMM (NN, NT, TN, TT),
// SYRK, TRSM (left/right, lower/upper, transposed or not, unit or not) and
// Cholesky (POTRF) on column-major matrices in device buffers, in float64
// and float32, plus batched forms that treat many matrices of different
// sizes in one launch. It builds only on package kernels, so that afarray,
// the dense solvers, the Gaussian-elimination suite and the supernodal
// factorization can all share it.
//
// # Matrices
//
// A Mat is a view: a *kernels.Buffer, an element offset Off, Rows, Cols and
// a leading dimension LD (element (i, j) at Off + i + j*LD). Operations
// check every view against its buffer before they launch, so a bad view is
// an ErrShape error, never an out-of-bounds access.
//
//	e, err := dense.For(dev, dense.Float64)         // tuned engine, shared per device and type
//	err = e.Gemm(false, true, -1, a, b, 1, c)       // C = C - A B^T
//	err = e.Trsm(dense.Right, dense.Lower, true, dense.NonUnit, 1, l11, a21) // A21 = A21 L11^-T
//	info, _ := dense.NewInfo(dev)
//	err = e.Potrf(a, info)                         // lower Cholesky in place
//	col, err := info.Column()                      // the only wait: -1, or the first bad pivot's column
//
// Every method only enqueues kernels on the device's in-order queue; none
// waits. Errors match ErrShape, ErrDevice, ErrArgument or the kernels
// sentinels with errors.Is.
//
// # Batched operations (for supernodal fronts)
//
// A Batch describes many matrices in one buffer: NewBatch(buf, mats)
// checks each view on the host and uploads a device array of descriptors,
// four int64 per matrix: {offset (elements), rows, cols, ld}. Then
//
//	e.GemmBatched(transA, transB, alpha, A, B, beta, C) // C_q = alpha op(A_q) op(B_q) + beta C_q
//	e.SyrkBatched(trans, alpha, A, beta, C)             // lower triangles only
//	e.TrsmBatched(side, uplo, trans, diag, alpha, T, B) // any order; rows of B are coalesced for Right
//	e.PotrfBatched(A, infos)                            // infos[q]: first bad column or MaxInt32
//
// each make one launch for the whole batch: the grid covers the largest
// matrix (dimension 2, or 1 for TRSM, indexes the matrices) and
// work-groups outside a smaller matrix leave at once. The matrices of A, B
// and C are matched by index; batches are reusable across launches
// (Release frees the descriptors, not the data). GEMM and SYRK batches run
// the tuned tiles; TRSM and POTRF batches use one work-item per
// right-hand-side vector and one work-group per matrix (in local memory up
// to order 64), which suits many small fronts. Large fronts are better
// served by the unbatched calls on views of the same buffer (Mat.Sub).
// Kernels of other packages may read the descriptors (Batch.Descriptors).
//
// # Kernels and tuning
//
// The GEMM kernel (gemm.cl) is register-blocked: each work-group computes
// an MT x NT tile of C, each work-item a TM x TN block of it in registers,
// from KT-deep slices of op(A) and op(B) staged in double-buffered local
// memory (the next slice is loaded into registers while the current one
// is multiplied, one barrier per slice). On GPUs the inner loop reads the
// local tiles in aligned pairs (double2: half the load instructions);
// PoCL compiles those badly, so CPUs read single words. CPUs run the
// direct form instead (configurations with KT = 0, gemm_direct): no local
// memory, each work-item a 16 x 8 block of C in vector registers over the
// whole depth, as a CPU BLAS micro-kernel. Its products with A transposed
// and its deep ones (k >= 1024, where a group's panels no longer stay in
// the L2 cache) run the packed form (gemm_cpu.cl): op(A) and op(B) copied
// into contiguous micro-panels (every transposition becomes one stream,
// edges padded with zeros), then one launch per 512-deep slice, each
// work-item a 16 x 8 block in vector registers; the items of a group reuse
// one panel of op(B) from the L1 cache. Configurations with KT < 0
// (written "...p") select it for every product; batches and products under
// 2^18 multiply-adds run the tiled kernel there. On GPUs thin products
// (depth up to 128, fewer than 4 work-groups per compute unit with the
// tuned tiles: a blocked LU's panel updates and TRSM's inner updates) run
// gemm_small instead: the same kernel built with 32x64 or 64x32 tiles,
// 4x4 blocks per item, the 32-deep slice staged at once in single-buffered
// local memory and C read before the products (gemm_small.go;
// OCLSOLVE_GEMM_SMALL=off turns it off). SYRK is the same kernel writing
// only the lower triangle (tiles above the diagonal leave at once). TRSM is
// recursive: halves solved in turn with one deep GEMM update between them,
// 32-wide leaves solved in local memory. POTRF is right-looking in 1024-column
// blocks (Syrk for the trailing update). Each block column (diagonal block
// and the panel below it) is factored recursively by columns down to
// 64-column leaves, each one potrf_panel launch in which every work-group
// factors the diagonal block in registers and solves its rows of the panel
// (where that register kernel does not build, the diagonal block is
// factored recursively and the panel solved by Trsm). With look-ahead (the
// default; SetLookahead) the next block column is updated first and
// factored on the device's side queue while the main queue updates the
// rest of the trailing matrix. PotrfTimed runs the steps without
// look-ahead with a wait after each and says where the time goes
// (benchmarks).
//
// The tile configuration (Configs) is chosen per device and element type
// at first use: each candidate is timed on a square product and the
// fastest is remembered in a small JSON file beside the program cache
// (TuningPath; kernels.CacheDir's parent, folder "tuning"), so later
// processes skip the measurement. OCLSOLVE_TUNE=off skips tuning and takes
// the first configuration that fits; NewWithConfig fixes one.
package dense
