package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// solveJSON runs `oclsolve solve --json args...` and decodes the report.
func solveJSON(t *testing.T, args ...string) (map[string]any, int, string) {
	t.Helper()
	var stderr bytes.Buffer
	var code int
	out := captureStdout(t, func() {
		code = runMain(append([]string{"solve", "--json"}, args...), os.Stdout, &stderr)
	})
	if code != 0 {
		return nil, code, stderr.String()
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return rep, code, stderr.String()
}

func TestSolveCyclicGenerated(t *testing.T) {
	for _, m := range []string{"cr", "pcr", "crpcr"} {
		for _, v := range []string{"double", "float"} {
			rep, code, stderr := solveJSON(t, "--method", m, "--variant", v, "poisson1d:1000")
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", m, v, code, stderr)
			}
			limit := 1e-15
			if v == "float" {
				// Measured against the double-precision system, so the
				// rounding of its entries to float counts too.
				limit = 1e-6
			}
			if be := rep["backward_error"].(float64); be > limit {
				t.Errorf("%s %s: backward error %.2e", m, v, be)
			}
			// Against the exact solution of the differential equation: the
			// discretisation error, about h^2 = 1e-6.
			if d := rep["ref_max_abs_diff"].(float64); d > 1e-5 {
				t.Errorf("%s %s: max |x - u| = %.2e", m, v, d)
			}
		}
	}
	rep, code, stderr := solveJSON(t, "--method", "bcr", "--variant", "cr", "poisson2d:31x20")
	if code != 0 {
		t.Fatalf("bcr: exit %d: %s", code, stderr)
	}
	if be := rep["backward_error"].(float64); be > 1e-15 {
		t.Errorf("bcr: backward error %.2e", be)
	}
	if d := rep["ref_max_abs_diff"].(float64); d > 1e-2 {
		t.Errorf("bcr: max |x - u| = %.2e", d)
	}
}

func TestSolveCyclicFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tri.mtx")
	var b strings.Builder
	n := 50
	fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, 3*n-2)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d %d %g\n", i, i, 4+float64(i%3))
		if i > 1 {
			fmt.Fprintf(&b, "%d %d %g\n", i, i-1, -1-float64(i%2))
		}
		if i < n {
			fmt.Fprintf(&b, "%d %d %g\n", i, i+1, 0.5)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"cr", "pcr", "crpcr"} {
		rep, code, stderr := solveJSON(t, "--method", m, "--rhs", "random", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, stderr)
		}
		if be := rep["backward_error"].(float64); be > 1e-15 {
			t.Errorf("%s: backward error %.2e", m, be)
		}
	}
	// A pentadiagonal matrix is refused with the file named.
	penta := filepath.Join(dir, "penta.mtx")
	os.WriteFile(penta, []byte("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2\n2 2 2\n3 3 2\n3 1 1\n"), 0o644)
	if _, code, stderr := solveJSON(t, "--method", "cr", penta); code == 0 || !strings.Contains(stderr, "penta.mtx") {
		t.Errorf("pentadiagonal: exit %d, %q", code, stderr)
	}
	if _, code, _ := solveJSON(t, "--method", "bcr", path); code != 2 {
		t.Errorf("bcr on a file: exit %d, want 2 (usage)", code)
	}
	if _, code, _ := solveJSON(t, "--method", "cr", "poisson2d:7x7"); code != 2 {
		t.Errorf("cr on a grid: exit %d, want 2 (usage)", code)
	}
	if _, code, _ := solveJSON(t, "--method", "bcr", "poisson2d:6x7"); code == 0 {
		t.Errorf("bcr on 6 lines: exit 0")
	}
}

func TestSolveCyclicBreakdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "swap.mtx")
	os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n"), 0o644)
	_, code, stderr := solveJSON(t, "--method", "cr", path)
	if code != 1 || !strings.Contains(stderr, "breakdown") {
		t.Errorf("zero diagonal: exit %d, %q", code, stderr)
	}
}
