package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestGenWritesFiles runs "oclsolve gen" through runMain and reads the
// files back, comparing them with the system built directly from Go.
func TestGenWritesFiles(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if rc := runMain([]string{"gen", "model1", "--mesh", "6x1x2", "-o", dir}, &out, &errb); rc != 0 {
		t.Fatalf("rc = %d, stderr: %s", rc, errb.String())
	}
	want, err := fem.Model1(fem.Model1Options{NX: 6, NY: 1, NZ: 2})
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, want.FileName())
	set, err := sparse.ReadOpenFEM(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if set.A.Rows != want.NumDOF || set.A.NNZ() != want.K.NNZ() || len(set.F) != want.NumDOF {
		t.Fatalf("read back n=%d nnz=%d len(F)=%d, want %d %d", set.A.Rows, set.A.NNZ(), len(set.F), want.NumDOF, want.K.NNZ())
	}
	for p := range want.K.V {
		if set.A.I[p] != want.K.I[p] || set.A.J[p] != want.K.J[p] || set.A.V[p] != want.K.V[p] {
			t.Fatalf("entry %d differs: (%d,%d,%g) vs (%d,%d,%g)", p, set.A.I[p], set.A.J[p], set.A.V[p],
				want.K.I[p], want.K.J[p], want.K.V[p])
		}
	}
	for i, f := range want.F {
		if set.F[i] != f {
			t.Fatalf("F[%d] = %g, want %g", i, set.F[i], f)
		}
	}
	f, err := os.Open(prefix + ".mtx")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := sparse.ReadMatrixMarket(f)
	if err != nil {
		t.Fatal(err)
	}
	full, err := m.Full()
	if err != nil {
		t.Fatal(err)
	}
	if full.Rows != want.NumDOF || full.NNZ() != want.K.NNZ() {
		t.Errorf(".mtx: n=%d nnz=%d (full), want %d %d", full.Rows, full.NNZ(), want.NumDOF, want.K.NNZ())
	}
	if _, err := os.Stat(prefix + "_b.mtx"); err != nil {
		t.Error(err)
	}
}

// TestGenOrder checks the report for --order, including the note when no
// mesh has exactly the requested order, and the format selection.
func TestGenOrder(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runGen([]string{"model1", "--order", "1080", "--format", "openfem", "-o", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "n = 1080") || !strings.Contains(s, "24x2x4") || strings.Contains(s, "nearest") {
		t.Errorf("output: %s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "model1_1080.mtx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--format openfem wrote a .mtx file (stat: %v)", err)
	}
	out.Reset()
	if err := runGen([]string{"model2", "--order", "1572", "--format", "mtx", "-o", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "nearest") || !strings.Contains(s, "rcm numbering") {
		t.Errorf("output: %s", s)
	}
}

func TestGenUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"gen"},
		{"gen", "model3", "--order", "10", "-o", dir},
		{"gen", "model1", "--order", "1080"},
		{"gen", "model1", "--order", "1080", "--mesh", "2x2x2", "-o", dir},
		{"gen", "model1", "-o", dir},
		{"gen", "model1", "--mesh", "2x2", "-o", dir},
		{"gen", "model1", "--mesh", "2x2x2", "--numbering", "amd", "-o", dir},
		{"gen", "model1", "--mesh", "2x2x2", "--format", "csv", "-o", dir},
		{"gen", "model2", "--order", "-4", "-o", dir},
	} {
		var out, errb bytes.Buffer
		if rc := runMain(args, &out, &errb); rc != 2 {
			t.Errorf("%q: rc = %d, want 2 (stderr %q)", args, rc, errb.String())
		}
	}
}
