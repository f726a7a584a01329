//go:build !petsc

package petsc

import "github.com/oclsolve/oclsolve/afarray/sparse"

// Available reports whether this build has the PETSc engine: it has not
// (build with -tags petsc).
func Available() bool { return false }

// Init returns ErrNotBuilt.
func Init() error { return ErrNotBuilt }

// Finalize does nothing: nothing was initialized.
func Finalize() error { return nil }

// Rank returns 0: without MPI the process is alone.
func Rank() int { return 0 }

// Size returns 1.
func Size() int { return 1 }

// Agree returns err: there are no other ranks.
func Agree(err error) error { return err }

// LocalRows returns ErrNotBuilt.
func LocalRows(n int, coords []float64, equation []int32) (lo, hi int, err error) {
	return 0, 0, ErrNotBuilt
}

// Solve returns ErrNotBuilt.
func Solve(a *sparse.COO, b []float64, opts Options) ([]float64, *Report, error) {
	return nil, nil, ErrNotBuilt
}
