package solver

import (
	"fmt"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// Sentinel errors of the solvers. Each is of a shared kind (package errs),
// so it also matches the other packages' sentinels of that kind:
// errors.Is(err, ErrShape) holds for a solver shape error, and
// errors.Is(err, solver.ErrNonFinite) for a sparse non-finite value.
var (
	// ErrNotPositiveDefinite reports a Cholesky factorization that met a
	// non-positive pivot; the *NotPositiveDefiniteError names the column.
	ErrNotPositiveDefinite = errs.New("solver", errs.ErrNotPositiveDefinite, "")
	// ErrZeroPivot reports an LDLᵀ (or elimination) pivot that is zero; the
	// *ZeroPivotError names the column.
	ErrZeroPivot = errs.New("solver", errs.ErrZeroPivot, "")
	// ErrNotConverged reports an iterative solve that stopped before reaching
	// its tolerance; the *NotConvergedError carries the iterations and the
	// residual.
	ErrNotConverged = errs.New("solver", errs.ErrNotConverged, "")
	// ErrNonFinite reports NaN or Inf in the input or in a result.
	ErrNonFinite = errs.New("solver", errs.ErrNonFinite, "")
	// ErrUnknown reports an unknown method, format, variant or ordering name.
	ErrUnknown = errs.New("solver", errs.ErrUnknown, "")
	// ErrShape reports operands whose shapes do not fit.
	ErrShape = errs.New("solver", errs.ErrShape, "")
	// ErrDType reports operands that are not float64 (or int32 indices).
	ErrDType = errs.New("solver", errs.ErrDType, "")
	// ErrDevice reports operands on different devices, or a device without
	// what a variant needs (double precision, 64-bit atomics).
	ErrDevice = errs.New("solver", errs.ErrDevice, "")
	// ErrReleased reports a factor or operator used after Release, or before
	// a successful Factorize.
	ErrReleased = errs.New("solver", errs.ErrReleased, "no factorization or released")
)

// NotPositiveDefiniteError is returned when the pivot of column Column
// (0-based) is not positive.
type NotPositiveDefiniteError struct {
	Column int
	Pivot  float64
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("solver: matrix is not positive definite: pivot %g at column %d", e.Pivot, e.Column)
}

// Unwrap makes the error match ErrNotPositiveDefinite.
func (e *NotPositiveDefiniteError) Unwrap() error { return ErrNotPositiveDefinite }

// ZeroPivotError is returned when the pivot of column Column (0-based) is
// zero (or too small to divide by safely).
type ZeroPivotError struct {
	Column int
	Pivot  float64
}

func (e *ZeroPivotError) Error() string {
	return fmt.Sprintf("solver: zero pivot %g at column %d", e.Pivot, e.Column)
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
	return fmt.Sprintf("solver: not converged after %d iterations: residual %g > tolerance %g", e.Iterations, e.Residual, e.Tolerance)
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
