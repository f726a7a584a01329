package afarray

import (
	"github.com/oclsolve/oclsolve/kernels"
	"github.com/oclsolve/oclsolve/kernels/errs"
)

// pkgErrs makes the sentinels below: each message begins "afarray: ".
const pkgErrs = errs.Package("afarray")

// Errors returned by afarray, testable with errors.Is. Each is of a shared
// kind (package errs): afarray.ErrShape also matches sparse.ErrShape,
// solver's shape errors and errs.ErrShape.
var (
	// ErrShape reports arrays whose shapes do not fit the operation.
	ErrShape = pkgErrs.Of(errs.ErrShape)
	// ErrDType reports an element type the operation does not accept.
	ErrDType = pkgErrs.Of(errs.ErrDType)
	// ErrIndex reports an index outside an array.
	ErrIndex = pkgErrs.Of(errs.ErrIndex)
	// ErrReleased reports use of an array after Release.
	ErrReleased = kernels.ErrReleased
	// ErrOutOfMemory reports an allocation the device cannot hold; the
	// error's text names the sizes involved.
	ErrOutOfMemory = kernels.ErrOutOfMemory
	// ErrDevice reports devices that differ between operands.
	ErrDevice = pkgErrs.New(errs.ErrDevice, "arrays on different devices")
)
