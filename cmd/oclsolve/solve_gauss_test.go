package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSolveGauss(t *testing.T) {
	for _, m := range []string{"gauss", "gauss-pivot"} {
		for _, v := range []string{"buffer", "vec4", "image", "blocked"} {
			src := "random:40"
			if m == "gauss" {
				src = "randspd:40" // safe without row exchanges
			}
			rep, code, stderr := solveJSON(t, "--method", m, "--variant", v, "--rhs", "random", src)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", m, v, code, stderr)
			}
			limit := 1e-14
			if v == "image" {
				limit = 1e-5 // float32 elimination
			}
			if be := rep["backward_error"].(float64); be > limit {
				t.Errorf("%s %s: backward error %.2e", m, v, be)
			}
			if rep["method"] != m || rep["variant"] != v || rep["kernel_launches"].(float64) < 1 {
				t.Errorf("%s %s: report %v", m, v, rep)
			}
		}
	}
}

// A Matrix Market array file whose leading pivot is zero: gauss must fail
// with the zero-pivot error, gauss-pivot must solve it.
func TestSolveGaussFileAndZeroPivot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.mtx")
	content := "%%MatrixMarket matrix array real general\n3 3\n0\n1\n2\n1\n1\n0\n2\n0\n1\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	_, code, stderr := solveJSON(t, "--method", "gauss", path)
	if code == 0 || !strings.Contains(stderr, "zero pivot at step 0") {
		t.Errorf("gauss on a zero leading pivot: exit %d, %s", code, stderr)
	}
	rep, code, stderr := solveJSON(t, "--method", "gauss-pivot", "--variant", "blocked", path)
	if code != 0 {
		t.Fatalf("gauss-pivot: exit %d: %s", code, stderr)
	}
	if be := rep["backward_error"].(float64); be > 1e-15 {
		t.Errorf("backward error %.2e", be)
	}
	_, code, _ = solveJSON(t, "--method", "gauss", "--variant", "texture", path)
	if code != 2 {
		t.Errorf("unknown variant: exit %d, want 2", code)
	}
}

// A symmetric coordinate file of the shared collection (lower triangle
// stored): both triangles must reach the dense matrix.
func TestSolveGaussCoordinateFile(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "matrices", "bcsstk01.mtx")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("matrix collection not found: %v", err)
	}
	for _, v := range []string{"buffer", "blocked"} {
		rep, code, stderr := solveJSON(t, "--method", "gauss", "--variant", v, path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", v, code, stderr)
		}
		if be := rep["backward_error"].(float64); be > 1e-15 || rep["n"].(float64) != 48 {
			t.Errorf("%s: backward error %.2e, n %v", v, be, rep["n"])
		}
	}
}
