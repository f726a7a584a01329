//go:build petsc && petscfault

package petsc

import (
	"errors"
	"testing"
)

func TestFaultInjector(t *testing.T) {
	t.Setenv("OCLSOLVE_PETSC_FAULT", "assembly@1")
	if err := injectedFault("assembly", 1); !errors.Is(err, ErrPETSc) {
		t.Errorf("rank 1: %v, want an ErrPETSc", err)
	}
	for _, c := range []struct {
		step string
		rank int
	}{{"assembly", 0}, {"factor", 1}} {
		if err := injectedFault(c.step, c.rank); err != nil {
			t.Errorf("%s on rank %d: %v, want none", c.step, c.rank, err)
		}
	}
}
