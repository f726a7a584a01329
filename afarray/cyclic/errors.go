package cyclic

import "github.com/oclsolve/oclsolve/kernels/errs"

// pkgErrs makes the sentinels below: each message begins "cyclic: ".
const pkgErrs = errs.Package("cyclic")

// Sentinel errors, matched with errors.Is; each is of a shared kind
// (package errs) and matches the other packages' sentinels of that kind.
var (
	// ErrShape reports inconsistent sizes: slice lengths that do not match
	// the order and count of a batch, a grid that is not (2^k - 1) x q, or
	// device buffers that are too small.
	ErrShape = pkgErrs.New(errs.ErrShape, "inconsistent shape")
	// ErrBreakdown reports that a reduction met a zero or subnormal divisor
	// or produced a non-finite value. Cyclic reduction does not pivot; it is
	// safe for diagonally dominant and symmetric positive definite systems.
	ErrBreakdown = pkgErrs.New(errs.ErrZeroPivot, "breakdown (zero pivot or non-finite value)")
	// ErrZeroPivot is ErrBreakdown under the name used for LU-type solvers.
	ErrZeroPivot = ErrBreakdown
	// ErrMethod reports an unknown method name.
	ErrMethod = pkgErrs.New(errs.ErrUnknown, "unknown method")
)
