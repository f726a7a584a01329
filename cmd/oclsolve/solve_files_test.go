package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestSolveWritesSolution: -o writes x in the original numbering, as .mtx
// and .npy, equal to what solver.Run returns in-process; the --json time
// split adds up to its total.
func TestSolveWritesSolution(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "matrices", "bcsstk13.mtx")
	d, err := sparse.ReadMatrixMarketFile(src)
	if err != nil {
		t.Skip(err)
	}
	b := make([]float64, d.COO.Rows)
	for i := range b {
		b[i] = 1
	}
	want, _, err := solver.Run(d.COO, b, solver.Options{Method: "cholesky", Order: sparse.OrderRCM})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"x.mtx", "x.npy"} {
		out := filepath.Join(dir, name)
		rep, code, stderr := solveJSON(t, "--order", "rcm", "-o", out, src)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var x []float64
		if strings.HasSuffix(name, ".npy") {
			x, err = sparse.ReadNPY(out)
		} else {
			f, _ := os.Open(out)
			x, err = sparse.ReadMatrixMarketVector(f)
			f.Close()
		}
		if err != nil || !slices.Equal(x, want) {
			t.Errorf("%s: solution differs from solver.Run's (%v)", name, err)
		}
		ts := rep["times_s"].(map[string]any)
		var sum float64
		for _, k := range []string{"read", "ordering", "upload", "convert", "compile", "symbolic", "factorize", "solve", "download", "other"} {
			v, ok := ts[k].(float64)
			if !ok || v < 0 {
				t.Errorf("times_s.%s = %v", k, ts[k])
			}
			sum += v
		}
		if total := ts["total"].(float64); total <= 0 || sum < total*(1-1e-9)-1e-9 || sum > total*(1+1e-9)+1e-9 {
			t.Errorf("split sums to %v, total %v", sum, total)
		}
	}
	// "-" writes the vector to standard output and the report to stderr.
	var stderr bytes.Buffer
	out := captureStdout(t, func() {
		if code := runMain([]string{"solve", "--order", "rcm", "-o", "-", src}, os.Stdout, &stderr); code != 0 {
			t.Errorf("-o -: exit %d", code)
		}
	})
	x, err := sparse.ReadMatrixMarketVector(strings.NewReader(out))
	if err != nil || !slices.Equal(x, want) {
		t.Errorf("-o -: %v", err)
	}
	if _, code, _ := solveJSON(t, "-o", filepath.Join(dir, "x.txt"), src); code != 2 {
		t.Errorf("-o x.txt: exit %d, want 2", code)
	}
}

// TestSolveNPZ: a SciPy-style .npz with a .npy right-hand side solves like
// the Matrix Market file. An .npz of one triangle alone without the
// symmetric marker is the triangular matrix it stores: the symmetric
// methods refuse it (exit 1, naming --symmetric), --symmetric solves the
// symmetric matrix it stores (either triangle), and LU solves the
// triangular matrix itself.
func TestSolveNPZ(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "matrices", "bcsstk13.mtx")
	d, err := sparse.ReadMatrixMarketFile(src)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	general := *d.COO
	general.Symmetric = false // the lower triangle as a general matrix, as scipy.sparse.tril saves it
	f, _ := os.Create(filepath.Join(dir, "a.npz"))
	if err := sparse.WriteNPZ(f, &general, "csr"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b := make([]float64, d.COO.Rows)
	for i := range b {
		b[i] = float64(i%4) - 1.5
	}
	f, _ = os.Create(filepath.Join(dir, "b.npy"))
	sparse.WriteNPY(f, b)
	f.Close()
	A, B := filepath.Join(dir, "a.npz"), filepath.Join(dir, "b.npy")
	for _, method := range []string{"cholesky", "ldlt", "cg"} {
		if _, code, stderr := solveJSON(t, "--method", method, A, B); code != 1 || !strings.Contains(stderr, "--symmetric") || !strings.Contains(stderr, "lower triangle") {
			t.Errorf("%s of a triangle not marked symmetric: exit %d: %s", method, code, stderr)
		}
	}
	upper := general
	upper.I, upper.J = general.J, general.I
	f, _ = os.Create(filepath.Join(dir, "u.npz"))
	if err := sparse.WriteNPZ(f, &upper, "csc"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for tri, path := range map[string]string{"lower": A, "upper": filepath.Join(dir, "u.npz")} {
		rep, code, stderr := solveJSON(t, "--symmetric", path, B)
		if code != 0 {
			t.Fatalf("%s --symmetric: exit %d: %s", tri, code, stderr)
		}
		if be := rep["backward_error"].(float64); be > 1e-12 {
			t.Errorf("%s --symmetric: backward error %g", tri, be)
		}
		if n := rep["nnz_full"].(float64); int(n) != d.COO.NNZFull() {
			t.Errorf("%s --symmetric: nnz_full %v, want %d", tri, n, d.COO.NNZFull())
		}
		if notes, _ := rep["notes"].([]any); len(notes) == 0 || !strings.Contains(notes[0].(string), tri+" triangle") {
			t.Errorf("%s --symmetric: notes: %v", tri, rep["notes"])
		}
	}
	// The triangular matrix itself, by LU with partial pivoting: the
	// backward error is measured against the triangle, not its mirror.
	rep, code, stderr := solveJSON(t, "--method", "gauss-pivot", A, B)
	if code != 0 {
		t.Fatalf("gauss-pivot of the triangle: exit %d: %s", code, stderr)
	}
	if rep["nnz_full"].(float64) != float64(d.COO.NNZLower()) {
		t.Errorf("gauss-pivot: nnz_full %v, want the triangle's %d", rep["nnz_full"], d.COO.NNZLower())
	}
}

// TestSolveRefusesOversized: generators and devices too small for the
// problem are refused at once, naming the sizes.
func TestSolveRefusesOversized(t *testing.T) {
	if avail, ok := sparse.HostMemoryAvailable(); !ok || avail > 300<<30 {
		t.Skip("host memory unknown or too large for the test's models")
	}
	for _, args := range [][]string{
		{"model2:100000000"},
		{"--method", "cholesky", "--format", "dense", "randspd:46000"},
	} {
		start := time.Now()
		_, code, stderr := solveJSON(t, args...)
		if code == 0 || !strings.Contains(stderr, "too large") || !strings.Contains(stderr, "GiB") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%v: refusal took %v", args, el)
		}
	}
}

// TestSolveOutPathChecks: an -o path of no known kind is a usage error
// found before anything is read (exit 2, even for an A that does not
// exist); an answer that fails its checks removes the -o file of an
// earlier run (and says so), and one that passes replaces it.
func TestSolveOutPathChecks(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := runMain([]string{"solve", "-o", filepath.Join(dir, "x.txt"), filepath.Join(dir, "missing.mtx")}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "want FILE.mtx, FILE.npy or -") {
		t.Errorf("-o x.txt: exit %d, %s", code, stderr.String())
	}
	src := filepath.Join("..", "..", "..", "shared", "matrices", "bcsstk13.mtx")
	if _, err := os.Stat(src); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(out, []byte("an earlier run's answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	var code int
	stdout := captureStdout(t, func() {
		code = runMain([]string{"solve", "--method", "cg", "--maxit", "1", "-o", out, src}, os.Stdout, &stderr)
	})
	if code != exitNotConverged {
		t.Fatalf("unconverged CG: exit %d, %s", code, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an answer that failed its checks left the earlier %s (%v)", out, err)
	}
	if !strings.Contains(stdout, "removed the earlier file") {
		t.Errorf("report does not say the earlier file was removed:\n%s", stdout)
	}
	os.WriteFile(out, []byte("an earlier run's answer"), 0o644)
	captureStdout(t, func() { code = runMain([]string{"solve", "-o", out, src}, os.Stdout, &stderr) })
	if code != 0 {
		t.Fatalf("cholesky: exit %d, %s", code, stderr.String())
	}
	if x, err := sparse.ReadNPY(out); err != nil || len(x) != 2003 {
		t.Errorf("passing answer: %d values, %v", len(x), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".x.npy.*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
