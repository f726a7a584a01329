package solver

import (
	"errors"
	"fmt"
)

// Sentinel errors of the solvers.
var (
	// ErrNotPositiveDefinite reports a Cholesky factorization that met a
	// non-positive pivot; the *NotPositiveDefiniteError names the column.
	ErrNotPositiveDefinite = errors.New("solver: matrix is not positive definite")
	// ErrZeroPivot reports an LDLᵀ (or elimination) pivot that is zero; the
	// *ZeroPivotError names the column.
	ErrZeroPivot = errors.New("solver: zero pivot")
	// ErrNotConverged reports an iterative solve that stopped before reaching
	// its tolerance; the *NotConvergedError carries the iterations and the
	// residual.
	ErrNotConverged = errors.New("solver: iteration did not converge")
	// ErrNonFinite reports NaN or Inf in the input or in a result.
	ErrNonFinite = errors.New("solver: NaN or Inf")
	// ErrUnknown reports an unknown method, format, variant or ordering name.
	ErrUnknown = errors.New("solver: unknown name")
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

// Is makes the error match ErrNotPositiveDefinite.
func (e *NotPositiveDefiniteError) Is(target error) bool { return target == ErrNotPositiveDefinite }

// ZeroPivotError is returned when the pivot of column Column (0-based) is
// zero (or too small to divide by safely).
type ZeroPivotError struct {
	Column int
	Pivot  float64
}

func (e *ZeroPivotError) Error() string {
	return fmt.Sprintf("solver: zero pivot %g at column %d", e.Pivot, e.Column)
}

// Is makes the error match ErrZeroPivot.
func (e *ZeroPivotError) Is(target error) bool { return target == ErrZeroPivot }

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

// Is makes the error match ErrNotConverged.
func (e *NotConvergedError) Is(target error) bool { return target == ErrNotConverged }

// NonFiniteError says where a NaN or Inf was found.
type NonFiniteError struct {
	Where string // "matrix", "right-hand side", "solution", ...
	Index int
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("solver: NaN or Inf in the %s at index %d", e.Where, e.Index)
}

// Is makes the error match ErrNonFinite.
func (e *NonFiniteError) Is(target error) bool { return target == ErrNonFinite }
