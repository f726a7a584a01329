package gauss

import (
	"fmt"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// pkgErrs makes the sentinels below: each message begins "gauss: ".
const pkgErrs = errs.Package("gauss")

// Sentinel errors. Every error returned by this package matches one of them
// (or one of package kernels') with errors.Is.
var (
	// ErrSingular reports a zero pivot, one of magnitude at most
	// n eps max|a_ij|: the matrix is singular to working precision, or
	// (without pivoting) elimination broke down on a regular matrix that
	// needs row exchanges. A *SingularError carries the pivot's index.
	ErrSingular = pkgErrs.Of(errs.ErrSingular)
	// ErrShape reports a matrix that is not square or a right-hand side
	// whose length does not match it.
	ErrShape = pkgErrs.New(errs.ErrShape, "dimension mismatch")
	// ErrVariant reports an unknown variant name or an option out of range.
	ErrVariant = pkgErrs.New(errs.ErrUnknown, "unknown variant or invalid option")
	// ErrNotFinite reports a solution holding NaN or Inf (overflow or a
	// nearly singular matrix); the solver never returns such a vector.
	ErrNotFinite = pkgErrs.New(errs.ErrNonFinite, "solution is not finite")
	// ErrNotFactorized reports the use of an LU before a successful
	// Factorize.
	ErrNotFactorized = pkgErrs.New(errs.ErrNotFactorized, "LU not factorized")
)

// SingularError is the error for a zero pivot. It matches ErrSingular.
type SingularError struct {
	// Pivot is the 0-based elimination step (the column) whose pivot was
	// zero. With pivoting it is the first column with no nonzero entry on
	// or below the diagonal of the partially reduced matrix.
	Pivot int
	// Pivoting reports whether partial pivoting was used.
	Pivoting bool
}

func (e *SingularError) Error() string {
	if e.Pivoting {
		return fmt.Sprintf("gauss: matrix is singular: no nonzero pivot in column %d", e.Pivot)
	}
	return fmt.Sprintf("gauss: zero pivot at step %d without pivoting (the matrix is singular or needs row exchanges)", e.Pivot)
}

// Unwrap makes a SingularError match ErrSingular.
func (e *SingularError) Unwrap() error { return ErrSingular }
