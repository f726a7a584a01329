package main

import (
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The command line's progress line names the phase and progress of the
// solve under way, and falls back to the launch count outside solver.Run.
func TestProgressText(t *testing.T) {
	a, err := sparse.ReadFile("../../../shared/matrices/nos3.mtx")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	opts := solver.Options{Method: solver.MethodCG, Format: solver.FormatCSC, Progress: func(solver.Progress) {
		lines = append(lines, progressText("solving", 3*time.Second, 0))
	}}
	if _, _, err := solver.Run(a, nil, opts); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{"solving 3.0 s: upload", "solving 3.0 s: solve: ", " CG iterations, residual ", "(tol 1e-08)"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("progress lines lack %q:\n%s", want, joined)
		}
	}
	if s := progressText("solving", time.Second, 5); s != "solving 1.0 s, 5 kernel launches so far" {
		t.Fatalf("%q", s)
	}
}
