//go:build petsc && petscfault

package petsc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// injectedFault is the failure the tests make one rank have inside a
// collective step, as a rank running out of memory in the middle of the
// assembly would: OCLSOLVE_PETSC_FAULT=STEP@RANK (only "assembly" is a
// step so far) makes rank RANK skip the step's collective calls and
// return this error, while the other ranks enter them and wait. It exists
// only in a build with the petscfault tag (make test-petsc builds the
// command's tests with it); the shipped binary reads no such variable
// (fault_off.go).
func injectedFault(step string, rank int) error {
	s, r, ok := strings.Cut(os.Getenv("OCLSOLVE_PETSC_FAULT"), "@")
	if !ok || s != step {
		return nil
	}
	if n, err := strconv.Atoi(r); err != nil || n != rank {
		return nil
	}
	return fmt.Errorf("%w: %s: failure injected on rank %d (OCLSOLVE_PETSC_FAULT)", ErrPETSc, step, rank)
}
