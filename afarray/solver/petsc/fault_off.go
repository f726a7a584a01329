//go:build petsc && !petscfault

package petsc

// injectedFault never fails outside a petscfault build: the fault injector
// of the tests (fault.go) is not part of the shipped binary.
func injectedFault(step string, rank int) error { return nil }
