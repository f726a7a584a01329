//go:build !petsc

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSolveEngineNotBuilt: the default binary says it lacks the PETSc
// engine, and the engine's flags need it.
func TestSolveEngineNotBuilt(t *testing.T) {
	var errBuf bytes.Buffer
	code := runMain([]string{"solve", "--engine", "petsc", "model1:300"}, os.Stdout, &errBuf)
	if code == 0 || !strings.Contains(errBuf.String(), "built without the PETSc engine") {
		t.Errorf("--engine petsc: exit %d, %q", code, errBuf.String())
	}
	errBuf.Reset()
	if code = runMain([]string{"solve", "--pc", "gamg", "model1:300"}, os.Stdout, &errBuf); code != 2 {
		t.Errorf("--pc without --engine petsc: exit %d, %q", code, errBuf.String())
	}
	errBuf.Reset()
	if code = runMain([]string{"solve", "--engine", "cuda", "model1:300"}, os.Stdout, &errBuf); code != 2 {
		t.Errorf("--engine cuda: exit %d, %q", code, errBuf.String())
	}
}
