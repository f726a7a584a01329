package solver

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// pkgErrs makes the sentinels below: each message begins "solver: ".
const pkgErrs = errs.Package("solver")

// Sentinel errors of the solvers. Each is of a shared kind (package errs),
// so it also matches the other packages' sentinels of that kind:
// errors.Is(err, ErrShape) holds for a solver shape error, and
// errors.Is(err, solver.ErrNonFinite) for a sparse non-finite value.
var (
	// ErrNotPositiveDefinite reports a Cholesky factorization that met a
	// non-positive pivot; the *NotPositiveDefiniteError names the column.
	ErrNotPositiveDefinite = pkgErrs.Of(errs.ErrNotPositiveDefinite)
	// ErrZeroPivot reports an LDLᵀ (or elimination) pivot that is zero; the
	// *ZeroPivotError names the column.
	ErrZeroPivot = pkgErrs.Of(errs.ErrZeroPivot)
	// ErrNotConverged reports an iterative solve that stopped before reaching
	// its tolerance; the *NotConvergedError carries the iterations and the
	// residual.
	ErrNotConverged = pkgErrs.Of(errs.ErrNotConverged)
	// ErrNonFinite reports NaN or Inf in the input or in a result.
	ErrNonFinite = pkgErrs.Of(errs.ErrNonFinite)
	// ErrUnknown reports an unknown method, format, variant or ordering name.
	ErrUnknown = pkgErrs.Of(errs.ErrUnknown)
	// ErrShape reports operands whose shapes do not fit.
	ErrShape = pkgErrs.Of(errs.ErrShape)
	// ErrDType reports operands that are not float64 (or int32 indices).
	ErrDType = pkgErrs.Of(errs.ErrDType)
	// ErrDevice reports operands on different devices, or a device without
	// what a variant needs (double precision, 64-bit atomics).
	ErrDevice = pkgErrs.Of(errs.ErrDevice)
	// ErrReleased reports a factor or operator used after Release, or before
	// a successful Factorize.
	ErrReleased = pkgErrs.New(errs.ErrReleased, "no factorization or released")
)

// NotPositiveDefiniteError is returned when the pivot of column Column is
// not positive. Column is 0-based, in the numbering of the matrix the
// caller gave: Run maps it back through its reordering, so it names the
// column of the file (the message prints it 1-based, as files do).
type NotPositiveDefiniteError struct {
	Column int
	Pivot  float64
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("solver: matrix is not positive definite: pivot %.6g at column %d", e.Pivot, e.Column+1)
}

// Unwrap makes the error match ErrNotPositiveDefinite.
func (e *NotPositiveDefiniteError) Unwrap() error { return ErrNotPositiveDefinite }

// ZeroPivotError is returned when the pivot of column Column is zero (or
// too small to divide by safely). It has NotPositiveDefiniteError's fields:
// Column is 0-based in the caller's numbering; the message prints it
// 1-based.
type ZeroPivotError NotPositiveDefiniteError

func (e *ZeroPivotError) Error() string {
	return fmt.Sprintf("solver: zero pivot %.6g at column %d", e.Pivot, e.Column+1)
}

// Unwrap makes the error match ErrZeroPivot.
func (e *ZeroPivotError) Unwrap() error { return ErrZeroPivot }

// NotConvergedError reports the state of an iterative solve that stopped at
// its iteration limit.
type NotConvergedError struct {
	Iterations int
	Residual   float64 // the residual norm the method tests (relative or absolute, as configured)
	Tolerance  float64
}

func (e *NotConvergedError) Error() string {
	return fmt.Sprintf("solver: not converged after %d iterations: residual %.3g > tolerance %g", e.Iterations, e.Residual, e.Tolerance)
}

// Unwrap makes the error match ErrNotConverged.
func (e *NotConvergedError) Unwrap() error { return ErrNotConverged }

// NonFiniteError says where a NaN or Inf was found.
type NonFiniteError struct {
	Where string // "matrix", "right-hand side", "solution", ...
	Index int
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("solver: NaN or Inf in the %s at index %d", e.Where, e.Index)
}

// Unwrap makes the error match ErrNonFinite.
func (e *NonFiniteError) Unwrap() error { return ErrNonFinite }

// ErrInaccurate reports a direct solve whose solution fails its own
// accuracy check: the normwise backward error exceeds MaxBackwardError.
var ErrInaccurate = errors.New("solver: inaccurate solution")

// MaxBackwardError is the largest normwise backward error
// ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞) Run accepts from a direct method
// in double precision. A backward-stable factorization of any matrix it
// can factor stays near n times the unit roundoff (1e-13 for the systems
// here); beyond 1e-8 the factorization itself went wrong (no pivoting on
// an indefinite or nearly singular matrix).
const MaxBackwardError = 1e-8

// InaccurateError is returned by Run, together with x and its report,
// when a direct method's solution has a backward error above
// MaxBackwardError.
type InaccurateError struct {
	Method        Method
	BackwardError float64
}

func (e *InaccurateError) Error() string {
	hint := "the matrix is ill-conditioned or singular"
	switch e.Method {
	case MethodCholesky:
		hint = "the matrix may not be positive definite, or is ill-conditioned: try --method ldlt, or gauss-pivot (partial pivoting)"
	case MethodLDLT:
		hint = "LDLᵀ without pivoting is unstable on indefinite or nearly singular matrices: try --method gauss-pivot (partial pivoting)"
	case MethodGaussJordan:
		hint = "Gauss-Jordan without pivoting is unstable on this matrix: try --method gauss-pivot (partial pivoting)"
	}
	return fmt.Sprintf("solver: inaccurate solution: %s normwise backward error %.3g exceeds %g; %s", e.Method, e.BackwardError, MaxBackwardError, hint)
}

// Unwrap makes the error match ErrInaccurate.
func (e *InaccurateError) Unwrap() error { return ErrInaccurate }
