package dense

import "github.com/oclsolve/oclsolve/kernels/errs"

// Errors returned by dense, testable with errors.Is. Each is of a shared
// kind (package errs), so dense.ErrShape also matches afarray.ErrShape and
// errs.ErrShape.
var (
	// ErrShape reports operands whose sizes do not fit the operation or
	// their buffer.
	ErrShape = errs.New("dense", errs.ErrShape, "")
	// ErrDevice reports operands on different devices, or a device without
	// what the engine needs (double precision for Float64, room for a tile
	// configuration).
	ErrDevice = errs.New("dense", errs.ErrDevice, "unsuitable device")
	// ErrArgument reports an invalid option value (side, triangle,
	// diagonal, block size, tile configuration).
	ErrArgument = errs.New("dense", errs.ErrUnknown, "invalid argument")
)
