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
package afarray
