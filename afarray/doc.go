// Package afarray provides device arrays in the manner of ArrayFire's
// af::array: the data lives in OpenCL device memory, operations are kernels
// enqueued without waiting, and the host sees the data only when it asks.
//
// An Array is 1-D or 2-D, column-major, of dtype Float64 (the default),
// Float32 or Int32. Arrays are made from Go slices (FromFloat64s), gonum
// matrices (FromDense, FromVecDense), constants (Zeros, Constant), ranges
// (Range) or seeded random numbers generated on the device (Random).
//
// Host copies are lazy: Float64s, ToDense and Scalar download the array once
// and keep the copy until a device operation writes to the array; every
// transfer is counted (Array.Transfers, TotalTransfers). Printing an array
// moves only its corners (PreviewEdge rows and columns at each end).
//
// Device memory is freed by Release at once; a finalizer is only a safety
// net. The kernels package keeps a per-device account of live and peak bytes
// (kernels.Device.MemoryStats), and an allocation the device cannot hold
// fails with an error matching ErrOutOfMemory that names the sizes.
//
// Operations: Fill, Scale, Axpy, CopyFrom, Copy; Add, Sub, Mul, Div; Dot,
// Norm2, Sum, MaxAbs (and DotArray, which leaves the result on the device);
// Gemv, Gemm, MatMul, Transpose; Gather, Scatter. They return errors
// matching ErrShape, ErrDType, ErrReleased or ErrIndex instead of panicking.
// Int32 arrays take part in elementwise operations, Sum, MaxAbs, Gather and
// Scatter; the products and norms need a floating dtype.
//
// The sparse storage formats of the thesis live in package afarray/sparse on
// the host and in this package's sparse device types.
//
// # The subpackages and what they may import
//
// Imports flow one way, from the OpenCL layer up to the commands:
// kernels/errs (the error vocabulary, imports nothing) ← kernels (OpenCL)
// ← the afarray packages ← repl/display ← repl ← notebook ← cmd/oclsolve.
// Within afarray:
//
//   - afarray/sparse: host-side formats (COO, CSR, the thesis's CSC and
//     SKS, tridiagonal), files (Matrix Market, OpenFEM, NumPy), orderings
//     and symbolic analyses. Host only: it imports kernels/errs and no
//     OpenCL, so parsers and orderings run (and fuzz) without a device.
//   - afarray/fem: the finite-element generator of the thesis's two models;
//     host only, imports afarray/sparse.
//   - afarray/dense: the dense kernel core (GEMM, SYRK, TRSM, POTRF, batched
//     forms) on kernels buffers; imports kernels only, so that this package
//     can build its BLAS on it.
//   - afarray (this package): device arrays and the device sparse formats;
//     imports kernels, afarray/sparse and afarray/dense.
//   - afarray/solver: the thesis's solvers and their registry; imports
//     afarray, afarray/sparse, afarray/dense and kernels. afarray/solver/petsc
//     (build tag) is an engine behind the same registry.
//   - afarray/gauss and afarray/cyclic: the Gaussian-elimination and
//     cyclic-reduction suites; they drive kernels buffers directly (and
//     afarray/dense), not device arrays.
//
// No afarray package imports repl or notebook, and none imports a sibling
// that imports it. Comments cite the thesis as "§N.M": docs/thesis.md says
// what each section holds.
package afarray
