//go:build petsc && !petscfault

package petsc

import "testing"

// The shipped build ignores the tests' fault injector.
func TestFaultInjectorNotShipped(t *testing.T) {
	t.Setenv("OCLSOLVE_PETSC_FAULT", "assembly@0")
	if err := injectedFault("assembly", 0); err != nil {
		t.Fatalf("OCLSOLVE_PETSC_FAULT honoured in a build without petscfault: %v", err)
	}
}
