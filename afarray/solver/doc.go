// Package solver holds the thesis's ten method x format combinations as
// OpenCL kernels on device-resident arrays: Gauss-Jordan on the augmented
// dense matrix; Cholesky and LDLᵀ on dense, CSC and skyline (SKS) storage;
// and conjugate gradient on any of them through its matrix-vector product.
//
// Every combination comes in two variants. Thesis reproduces the thesis's
// parallel structure (per-column phase launches, its fixed 32 x 1024 launch
// geometry, CG built from separate vector operations, x0 = b and an absolute
// tolerance) so its tables can be regenerated; it still runs on cached
// programs and leaks nothing. Fast (the default) is the best this package
// can do within the same storage format; each fast type documents what it
// changes and why.
//
// Factorizations follow gonum's shape: Factorize once, then SolveTo for as
// many right-hand sides as needed. Errors match ErrNotPositiveDefinite,
// ErrZeroPivot, ErrNotConverged, ErrNonFinite and ErrShape with
// errors.Is; a solver never returns NaN silently.
package solver
