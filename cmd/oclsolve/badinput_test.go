package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The bad inputs of issue 15, each run through the real binary under a
// 4 GB address-space limit (ulimit -v 4000000): what the user sees (exit
// status and message), and, for the inputs that used to allocate 16 GB and
// die with the Go runtime's out-of-memory trace, that the refusal comes
// within 2 s.

// write creates dir/name with text.
func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runLimited runs the binary with args under ulimit -v 4000000 and returns
// its exit status, standard output and error, and wall time.
func runLimited(t *testing.T, bin string, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -v 4000000 && exec "$0" "$@"`, bin}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("oclsolve %v: no exit within 2 minutes", args)
	}
	took := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String(), took
}

// A 3x3 SPD matrix as an OpenFEM set (both triangles, one entry a line).
const (
	ofNZ  = "4\n-1\n-1\n4\n-1\n-1\n4\n"
	ofRow = "1\n2\n1\n2\n3\n2\n3\n"
	ofCol = "1\n1\n2\n2\n2\n3\n3\n"
	ofFZS = "1\n2\n3\n"
)

func TestBadInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary on every bad input")
	}
	bin := oclsolveBinary(t)
	dir := t.TempDir()
	mm := func(name, text string) string { return write(t, dir, name, "%%MatrixMarket matrix "+text) }
	huge := mm("huge.mtx", "coordinate real symmetric\n2000000000 2000000000 1\n1 1 4.0\n")
	upper := mm("upper.mtx", "coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n1 2 3\n")
	nonsym := mm("nonsym.mtx", "coordinate real general\n2 2 4\n1 1 1\n2 1 2\n1 2 0\n2 2 1\n")
	nonsymDense := mm("nonsym_dense.mtx", "array real general\n2 2\n1\n2\n0\n1\n")
	noDiag := mm("nodiag.mtx", "coordinate real symmetric\n2 2 2\n1 1 1\n2 1 1\n")
	nearSingular := mm("nearsing.mtx", "coordinate real symmetric\n2 2 3\n1 1 1e-17\n2 1 1\n2 2 1\n")
	spd := mm("spd.mtx", "coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n")

	set := func(name string, parts map[string]string) string {
		for ext, text := range parts {
			write(t, dir, name+ext, text)
		}
		return filepath.Join(dir, name)
	}
	hugeIndex := set("hugeidx/m", map[string]string{".nz": "4\n", ".row": "2000000000\n", ".col": "2000000000\n"})
	hugeIndexOne := set("hugeidx1/m", map[string]string{".nz": ofNZ, ".row": "1\n2\n2000000000\n2\n3\n2\n3\n", ".col": ofCol})
	badRow := set("badrow/m", map[string]string{".nz": ofNZ, ".row": "1\n2\n1\n2\n999999\n2\n3\n", ".col": ofCol, ".fzs": ofFZS})
	noNZ := set("nonz/m", map[string]string{".row": ofRow, ".col": ofCol, ".fzs": ofFZS})
	noFZS := set("nofzs/m", map[string]string{".nz": ofNZ, ".row": ofRow, ".col": ofCol})
	shortFZS := set("shortfzs/m", map[string]string{".nz": ofNZ, ".row": ofRow, ".col": ofCol, ".fzs": "1\n2\n"})

	cases := []struct {
		args []string
		code int
		says []string
		fast bool // must fail within 2 s
	}{
		{[]string{"stat", huge}, 1, []string{"order 2000000000 with only 1 stored entries", "holds no entry"}, true},
		{[]string{"solve", huge}, 1, []string{"order 2000000000 with only 1 stored entries"}, true},
		{[]string{"stat", hugeIndex}, 1, []string{"m.row:1: index 2000000000", "order 2000000000", "1 entries"}, true},
		{[]string{"solve", hugeIndex}, 1, []string{"m.row:1: index 2000000000"}, true},
		{[]string{"solve", hugeIndexOne}, 1, []string{"m.row:3: index 2000000000 exceeds", "m.col's largest index 3"}, true},
		{[]string{"solve", upper}, 1, []string{"upper.mtx:5", "above the diagonal"}, false},
		{[]string{"solve", nonsym}, 1, []string{"cholesky needs a symmetric matrix", "A(2,1) = 2 but A(1,2) = 0"}, false},
		{[]string{"solve", "--method", "cholesky", "--format", "dense", nonsymDense}, 1, []string{"cholesky needs a symmetric matrix"}, false},
		{[]string{"solve", "--method", "ldlt", "--format", "dense", nonsymDense}, 1, []string{"ldlt needs a symmetric matrix"}, false},
		{[]string{"solve", "--method", "ldlt", "--format", "csc", nonsym}, 1, []string{"ldlt needs a symmetric matrix"}, false},
		{[]string{"solve", noDiag}, 1, []string{"diagonal entry (2,2) is missing"}, false},
		{[]string{"solve", "--method", "ldlt", "--rhs", "random", nearSingular}, exitInaccurate, []string{"backward error", "exceeds 1e-08", "gauss-pivot"}, false},
		{[]string{"solve", "--method", "ldlt", "--format", "dense", "--rhs", "random", nearSingular}, exitInaccurate, []string{"backward error"}, false},
		{[]string{"solve", "--method", "gauss-pivot", "--rhs", "random", nearSingular}, 0, nil, false},
		{[]string{"solve", "--method", "cg", "--maxit", "1", spd}, exitNotConverged, []string{"not converged after 1 iterations"}, false},
		{[]string{"solve", badRow}, 1, []string{"m.row:5: index 999999 exceeds the order 3 of", "m.fzs"}, false},
		{[]string{"solve", noNZ}, 1, []string{"m.nz (the matrix values) is missing", "it has .row, .col, .fzs"}, false},
		{[]string{"stat", noNZ}, 1, []string{"m.nz (the matrix values) is missing"}, false},
		{[]string{"solve", noFZS}, 1, []string{"m.fzs is missing, so the OpenFEM set has no load vector", "--rhs"}, false},
		{[]string{"solve", "--rhs", "ones", noFZS}, 0, []string{"m.fzs is missing: b = ones"}, false},
		{[]string{"solve", shortFZS}, 1, []string{"m.fzs: 2 values, but", "up to 3"}, false},
		{[]string{"solve", spd}, 0, nil, false},
	}
	for _, c := range cases {
		code, stdout, stderr, took := runLimited(t, bin, c.args...)
		out := stdout + stderr
		t.Logf("oclsolve %s -> exit %d in %v: %s", strings.Join(c.args, " "), code, took.Round(time.Millisecond), strings.TrimSpace(stderr))
		if code != c.code {
			t.Errorf("oclsolve %v: exit %d, want %d\n%s", c.args, code, c.code, out)
		}
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("oclsolve %v: output does not say %q:\n%s", c.args, s, out)
			}
		}
		if strings.Contains(out, "goroutine ") || strings.Contains(out, "fatal error") {
			t.Errorf("oclsolve %v: a Go runtime trace:\n%s", c.args, out)
		}
		if c.fast && took > 2*time.Second {
			t.Errorf("oclsolve %v: took %v to refuse, want under 2 s", c.args, took)
		}
	}

	// --json of CG that stopped early says so, with the same exit status.
	code, stdout, _, _ := runLimited(t, bin, "solve", "--json", "--method", "cg", "--maxit", "1", spd)
	if code != exitNotConverged || !strings.Contains(stdout, `"converged": false`) || !strings.Contains(stdout, `"error": "solver: not converged`) {
		t.Errorf("CG --json: exit %d\n%s", code, stdout)
	}
	code, stdout, _, _ = runLimited(t, bin, "solve", "--json", "--method", "cg", spd)
	if code != 0 || !strings.Contains(stdout, `"converged": true`) {
		t.Errorf("converged CG --json: exit %d\n%s", code, stdout)
	}
}
