package dense

import "errors"

var (
	// ErrShape reports operands whose sizes do not fit the operation or
	// their buffer.
	ErrShape = errors.New("dense: shape mismatch")
	// ErrDevice reports operands on different devices, or a device without
	// what the engine needs (double precision for Float64).
	ErrDevice = errors.New("dense: unsuitable device")
	// ErrArgument reports an invalid option (side, triangle, block size).
	ErrArgument = errors.New("dense: invalid argument")
)
