package main

import (
	"os"
	"testing"

	"github.com/oclsolve/oclsolve/notebook"
)

// TestMain lets this test binary serve as the notebook worker process that
// `oclsolve kernel` and `oclsolve notebook run` start.
func TestMain(m *testing.M) {
	notebook.RunWorkerIfChild()
	os.Exit(m.Run())
}
