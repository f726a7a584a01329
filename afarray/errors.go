package afarray

import (
	"errors"

	"github.com/oclsolve/oclsolve/kernels"
)

// Errors returned by afarray, testable with errors.Is.
var (
	// ErrShape reports arrays whose shapes do not fit the operation.
	ErrShape = errors.New("afarray: shape mismatch")
	// ErrDType reports an element type the operation does not accept.
	ErrDType = errors.New("afarray: dtype mismatch")
	// ErrIndex reports an index outside an array.
	ErrIndex = errors.New("afarray: index out of range")
	// ErrReleased reports use of an array after Release.
	ErrReleased = kernels.ErrReleased
	// ErrOutOfMemory reports an allocation the device cannot hold; the
	// error's text names the sizes involved.
	ErrOutOfMemory = kernels.ErrOutOfMemory
	// ErrDevice reports devices that differ between operands.
	ErrDevice = errors.New("afarray: arrays on different devices")
)
