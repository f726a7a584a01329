package sparse

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// pkgErrs makes the sentinels below: each message begins "sparse: ".
const pkgErrs = errs.Package("sparse")

// Sentinel errors. Every error returned by this package wraps one of them, so
// callers can branch with errors.Is. Each is of a shared kind (package errs)
// and matches the other packages' sentinels of that kind.
var (
	// ErrShape reports dimensions that do not fit: a non-square matrix where a
	// square one is needed, vectors of the wrong length, negative sizes.
	ErrShape = pkgErrs.Of(errs.ErrShape)

	// ErrIndex reports an index outside the matrix, or index vectors that do
	// not describe a valid layout.
	ErrIndex = pkgErrs.Of(errs.ErrIndex)

	// ErrNotSymmetric reports a matrix that must be symmetric but is not.
	ErrNotSymmetric = pkgErrs.Of(errs.ErrNotSymmetric)

	// ErrPermutation reports a vector that is not a permutation of 0..n-1.
	ErrPermutation = errors.New("sparse: invalid permutation")

	// ErrMalformed reports a file or stream that does not follow its format.
	// Parse errors are *ParseError values that wrap it.
	ErrMalformed = pkgErrs.Of(errs.ErrMalformed)

	// ErrUnsupported reports a well-formed file variant that this package
	// does not handle (complex or Hermitian Matrix Market files, for example).
	ErrUnsupported = pkgErrs.New(errs.ErrUnsupported, "unsupported format variant")

	// ErrNaN reports a NaN or infinite value where a finite number is needed.
	ErrNaN = pkgErrs.New(errs.ErrNonFinite, "value is not finite")

	// ErrSingular reports a matrix that is singular by its structure
	// alone: a row or column without any entry (structure.go).
	ErrSingular = pkgErrs.New(errs.ErrSingular, "matrix is structurally singular")

	// ErrNotPositiveDefinite reports a matrix whose diagonal already shows
	// that it is not positive definite: a missing or non-positive entry
	// (structure.go).
	ErrNotPositiveDefinite = pkgErrs.Of(errs.ErrNotPositiveDefinite)

	// ErrTooLarge reports a problem whose storage cannot fit the memory
	// available (the host's, or a device's): the error names the sizes.
	ErrTooLarge = pkgErrs.New(errs.ErrOutOfMemory, "problem too large for memory")
)

// ParseError describes malformed input: the file (empty for an anonymous
// reader), the 1-based line where the problem was found (0 when it concerns
// the whole file), and what is wrong. It wraps ErrMalformed, and also Err when
// Err is set (ErrUnsupported, for instance).
type ParseError struct {
	File string
	Line int
	Msg  string
	Err  error
}

func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", file, e.Msg)
}

// Unwrap makes errors.Is(err, ErrMalformed) true for every ParseError, and
// errors.Is(err, e.Err) true when Err is set.
func (e *ParseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMalformed, e.Err}
	}
	return []error{ErrMalformed}
}

func errNotSquare(r, c int) error {
	return fmt.Errorf("%w: %dx%d matrix is not square", ErrShape, r, c)
}
