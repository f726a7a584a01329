package petsc

import (
	"os"
	"time"
)

// AgreeTimeout is how long a rank that failed inside a collective step
// waits for the other ranks to agree on the failure before it aborts the
// whole job (see the package documentation, "Failures"): long enough for
// the others to finish the step they are in when they are merely slower
// (a MUMPS factorization), short enough that a job left waiting for a rank
// that will never come ends. OCLSOLVE_PETSC_AGREE_TIMEOUT (a Go duration,
// "90s") sets it at start-up; 60 s by default.
var AgreeTimeout = agreeTimeoutFromEnv()

func agreeTimeoutFromEnv() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("OCLSOLVE_PETSC_AGREE_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return time.Minute
}
