// Package errs is oclsolve's error vocabulary: the kinds of failure every
// package reports, defined once, so that errors.Is answers the same question
// whichever package failed.
//
// A package does not return these kinds directly. It declares its own
// sentinels through its Package, which names the package once: their
// messages begin with that name ("sparse: shape mismatch"), and each matches
// its kind and every other package's sentinel of the same kind:
//
//	const pkgErrs = errs.Package("sparse")
//
//	var (
//		ErrShape    = pkgErrs.Of(errs.ErrShape) // "sparse: shape mismatch"
//		ErrTooLarge = pkgErrs.New(errs.ErrOutOfMemory, "problem too large for memory")
//	)
//
//	errors.Is(err, sparse.ErrShape)   // true for a sparse shape error ...
//	errors.Is(err, afarray.ErrShape)  // ... and so is this,
//	errors.Is(err, errs.ErrShape)     // and this.
//
// Typed errors (a pivot with its column, a parse error with its line) wrap
// their package's sentinel through Unwrap, so they match in the same way.
//
// The package imports nothing of oclsolve and no cgo, so every package may
// import it, the host-only ones (afarray/sparse, afarray/fem) included. It
// lives under kernels because kernels is the base of the import graph: the
// vocabulary sits below it.
package errs

import (
	"errors"
	"fmt"
)

// The kinds. Their messages carry no package name; a package's sentinel
// (New) adds it.
var (
	// ErrShape: dimensions that do not fit the operation.
	ErrShape = errors.New("shape mismatch")
	// ErrDType: an element type the operation does not accept.
	ErrDType = errors.New("dtype mismatch")
	// ErrIndex: an index outside its range, or index vectors that do not
	// describe a valid layout.
	ErrIndex = errors.New("index out of range")
	// ErrReleased: use of a buffer, array or factor after Release (or
	// before it was made).
	ErrReleased = errors.New("already released")
	// ErrOutOfMemory: an allocation the device cannot hold.
	ErrOutOfMemory = errors.New("out of memory")
	// ErrDevice: operands on different devices, or no usable device.
	ErrDevice = errors.New("device mismatch")
	// ErrNotPositiveDefinite: a Cholesky pivot that is not positive.
	ErrNotPositiveDefinite = errors.New("matrix is not positive definite")
	// ErrZeroPivot: a zero pivot in a method without pivoting (LDLᵀ).
	ErrZeroPivot = errors.New("zero pivot")
	// ErrSingular: a matrix singular to working precision.
	ErrSingular = errors.New("matrix is singular")
	// ErrNotConverged: an iterative method stopped before its tolerance.
	ErrNotConverged = errors.New("iteration did not converge")
	// ErrNonFinite: NaN or Inf in an input or a result.
	ErrNonFinite = errors.New("NaN or Inf")
	// ErrUnknown: an unknown method, format, variant, ordering or option
	// value.
	ErrUnknown = errors.New("unknown name")
	// ErrUnsupported: a well-formed request this build does not handle.
	ErrUnsupported = errors.New("unsupported")
	// ErrMalformed: a file or stream that does not follow its format.
	ErrMalformed = errors.New("malformed input")
	// ErrNotSymmetric: a matrix that must be symmetric but is not.
	ErrNotSymmetric = errors.New("matrix is not symmetric")
	// ErrNotFactorized: a solve with a factor that holds no factorization.
	ErrNotFactorized = errors.New("not factorized")
	// ErrCanceled: work stopped by an interrupt (kernels.Device.Cancel).
	ErrCanceled = errors.New("canceled")
)

// Package is the name a package's sentinels carry. Of and New make them,
// so a package lists its sentinels by kind (and by message where the kind's
// own does not say enough) without repeating its name.
type Package string

// Of returns the package's sentinel of kind, with the kind's own message.
func (p Package) Of(kind error) error { return New(string(p), kind, "") }

// New returns the package's sentinel of kind with a message of its own.
func (p Package) New(kind error, msg string) error { return New(string(p), kind, msg) }

// New returns package pkg's sentinel of the given kind (what Package's
// methods make). Its message is
// "pkg: msg" (msg defaults to the kind's own message); it matches kind and
// every other sentinel New made for the same kind.
func New(pkg string, kind error, msg string) error {
	if msg == "" {
		msg = kind.Error()
	}
	return &sentinel{msg: pkg + ": " + msg, kind: kind}
}

type sentinel struct {
	msg  string
	kind error
}

func (e *sentinel) Error() string { return e.msg }

// Unwrap returns the kind.
func (e *sentinel) Unwrap() error { return e.kind }

// Is matches the other packages' sentinels of the same kind.
func (e *sentinel) Is(target error) bool {
	t, ok := target.(*sentinel)
	return ok && t.kind == e.kind
}

// FormatBytes renders a byte count with a binary unit, e.g. "1.50 GiB", for
// the messages of out-of-memory errors (kernels' and afarray/sparse's
// FormatBytes are this one). Every int64 fits below EiB x 1024.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
