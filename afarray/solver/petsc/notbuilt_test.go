//go:build !petsc

package petsc

import (
	"errors"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestNotBuilt: without the petsc tag every solve says so.
func TestNotBuilt(t *testing.T) {
	a := &sparse.COO{Rows: 1, Cols: 1, I: []int32{0}, J: []int32{0}, V: []float64{1}}
	if _, _, err := Solve(a, []float64{1}, Options{}); !errors.Is(err, ErrNotBuilt) || Available() {
		t.Errorf("Solve without the engine: %v", err)
	}
	if err := Init(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Init: %v", err)
	}
	if Finalize() != nil || Rank() != 0 || Size() != 1 {
		t.Errorf("Finalize, Rank, Size of a build without MPI")
	}
}
