//go:build petsc && petscfault

package main

import (
	"strings"
	"testing"
	"time"
)

// TestPETScFailureOnOneRank: one rank fails inside the assembly while the
// other enters its collective calls and waits there. The failing rank
// cannot reach the other to agree; after OCLSOLVE_PETSC_AGREE_TIMEOUT it
// says why and aborts the job, which must end with a non-zero status
// instead of hanging.
func TestPETScFailureOnOneRank(t *testing.T) {
	start := time.Now()
	_, errOut, code := mpiOclsolveEnv(t, []string{"OCLSOLVE_PETSC_FAULT=assembly@1", "OCLSOLVE_PETSC_AGREE_TIMEOUT=2s"},
		"solve", "--engine", "petsc", "model2:1572")
	if code == 0 || !strings.Contains(errOut, "failure injected on rank 1") || !strings.Contains(errOut, "aborting every rank") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	t.Logf("ended with status %d after %v", code, time.Since(start))
}
