package sparse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileDispatch(t *testing.T) {
	mm := filepath.Join(matrixDir, "bcsstk01.mtx")
	if _, err := os.Stat(mm); err != nil {
		t.Skip("matrix collection not found")
	}
	a, err := ReadFile(mm)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rows != 48 || !a.Symmetric {
		t.Fatalf("bcsstk01: %v", a)
	}
	// The same matrix as an OpenFEM set (both triangles, general) reports
	// the same lower and full counts as the symmetric Matrix Market file.
	dir := t.TempDir()
	prefix := filepath.Join(dir, "k")
	if err := WriteOpenFEM(prefix, a, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{prefix, prefix + OpenFEMValues} {
		b, err := ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b.Symmetric || b.NNZLower() != a.NNZLower() || b.NNZFull() != a.NNZFull() {
			t.Fatalf("%s: lower %d full %d, Matrix Market lower %d full %d", p, b.NNZLower(), b.NNZFull(), a.NNZLower(), a.NNZFull())
		}
	}
	if a.NNZFull() != 2*a.NNZLower()-48 {
		t.Fatalf("full count %d, lower %d", a.NNZFull(), a.NNZLower())
	}
	// An array file gives the COO of its nonzeros.
	arr := filepath.Join(dir, "a.mtx")
	if err := os.WriteFile(arr, []byte("%%MatrixMarket matrix array real general\n2 2\n4\n0\n1\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(arr)
	if err != nil || c.NNZ() != 3 || c.Rows != 2 {
		t.Fatalf("array file: %v %v", c, err)
	}
	// A save_npz archive, whatever its name.
	npz := filepath.Join(dir, "k.data")
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, a, "csr"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(npz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	z, err := ReadFile(npz)
	if err != nil || z.NNZLower() != a.NNZLower() || z.NNZFull() != a.NNZFull() {
		t.Fatalf("npz: %v, %v", z, err)
	}
	bad := filepath.Join(dir, "bad.npz")
	if err := os.WriteFile(bad, []byte("PK\x03\x04rest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("broken zip archive: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestSummariesAreBounded(t *testing.T) {
	n := 100000
	c := &COO{Rows: n, Cols: n, Symmetric: true}
	for i := 0; i < n; i++ {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i)), append(c.V, 2)
		if i > 0 {
			c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i-1)), append(c.V, -1)
		}
	}
	s, h := c.String(), c.HTML()
	if strings.Contains(s, "\n") || len(s) > 200 || len(h) > 2000 {
		t.Fatalf("summary not bounded: %d, %d bytes", len(s), len(h))
	}
	if !strings.Contains(s, "nnz 199999 (lower triangle; 299998 in the full matrix)") {
		t.Fatalf("COO summary %q", s)
	}
	l, err := CSCFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	if s := l.String(); !strings.Contains(s, "nnz 199999") || !strings.Contains(l.HTML(), "299998") {
		t.Fatalf("CSC summary %q", s)
	}
	k, err := SKSFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	if s := k.String(); !strings.Contains(s, "skyline length 199999") || !strings.Contains(k.HTML(), "<table") {
		t.Fatalf("SKS summary %q", s)
	}
}
