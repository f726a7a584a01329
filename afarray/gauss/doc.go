// Package gauss solves dense linear systems A x = b by Gaussian elimination
// on an OpenCL device.
//
// It holds two families of solvers.
//
// The ping-pong variants follow the Gaussian-elimination documents of the
// thesis's companion repository (shared/seeds/gaussian-elimination-*.md):
// the augmented matrix [A | b] lives in two memory objects used in turn as
// input and output, one kernel launch performs one pivot step and writes
// only the rows and columns that step changes, and a final back-substitution
// in one work-group sums each row's known terms with an O(log n) tree in a
// local buffer of 2n values. They come without pivoting or with partial
// pivoting, where every work-group finds the pivot row by an O(log n)
// max-reduction in local memory over a sliding window of the pivot column,
// and the exchange happens while the output is written. Three storages:
//
//   - "buffer": double, one value per element;
//   - "vec4": double4 quads, the row stride padded to a multiple of four;
//   - "image": float 2-D images read through the texture path (float32
//     accuracy).
//
// Their limits are lifted: any n (vec4 pads), a pivot search whose local
// memory depends on the work-group size only, a back-substitution that is
// tiled when 2n values exceed local memory, and typed errors for zero pivots.
//
// The blocked variant (type LU) is the fast path: a right-looking LU in
// panels of BlockSize columns, grouped in outer blocks whose panels update
// only the block's columns (one TRSM and one GEMM of the block's width
// update the rest). On a GPU (LU.Pivoting, Options.Pivoting:
// PivotingAuto; above order 4096 only with NVIDIA's warp shuffles, partial
// pivoting otherwise) each panel's pivots come from a
// tournament (CALU, Grigori, Demmel and Xiang 2011; lu_tournament.cl):
// work-groups run partial pivoting on blocks of the panel's rows held in
// registers, with one local barrier per column (on NVIDIA each warp picks
// its best row by register shuffles), then on the stacked winners of
// several blocks, until one group is left, whose picks are the panel's
// pivot rows and whose eliminated rows are their factors; one more launch
// exchanges the rows, writes L11\U11 and L21 = A21 U11^-1 and solves the U
// block row, and the dense core's GEMM updates the trailing matrix: a few
// launches per panel and no grid-wide barrier. The pivots differ from
// partial pivoting's beyond each panel's first column; the backward error
// does not (tested against gonum). PivotingPartial, the default on other
// devices, keeps LAPACK's pivots exactly: each panel
// is then one launch
// over many work-groups that take its columns one after the other, meeting
// at a grid-wide barrier between columns (pivot search from per-group
// maxima, rows marked rather than moved while the panel is factorized).
// Where its groups can hold the panel, each keeps its rows in local memory
// and only the candidates (maximum and its row) cross global memory. The
// grid-wide barrier needs every group resident at once, which OpenCL does
// not promise: several groups run only on NVIDIA and AMD GPUs on their
// vendors' platforms (at most a few per compute unit), one group on every
// other device (CPUs, Intel GPUs, PoCL back-ends). Then the row exchanges, the triangular
// solve of the U block row and the update of the trailing matrix by the
// dense kernel core's tuned GEMM (package afarray/dense) take three more
// launches. The exchanges of a panel are applied to a column all at once
// (swap_plan in lu.cl: every value they move is read before any is
// written), not one exchange after the other. Forward and back substitution follow in one launch
// (lu_trsv.cl): a work-group per block of 64 rows and triangle, taken in
// dependency order through an atomic ticket, subtracts the blocks already
// solved as their ready flags rise and multiplies by its diagonal block's
// inverse (computed once per factorization); b's row exchanges are applied
// on the device, and the solution and the status come back in one read
// (on an H100, bench dense's solve, n = 2047: 1.0 -> 0.27 ms; n = 8192:
// 3.3 -> 0.83 ms). The factors stay on the device and serve any number of
// right-hand sides; SolveTo sends them together (one write, a launch per
// column, one read).
//
// Solve is the one-call entry point for every variant. Errors match
// ErrSingular (a *SingularError gives the pivot), ErrShape, ErrVariant,
// ErrNotFinite and ErrNotFactorized with errors.Is, or package kernels'
// sentinels for device failures.
package gauss
