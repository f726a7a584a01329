package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestNNZSameForEveryInput loads one matrix as a generator, a Matrix Market
// file (one triangle) and an OpenFEM set (both triangles): each reports the
// same lower-triangle and full counts.
func TestNNZSameForEveryInput(t *testing.T) {
	o := solveOptions{Method: "cholesky", Format: "sks", Variant: "fast", Order: "natural", Seed: 1}
	gen, err := loadProblem("model1:1080", &o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lower, err := gen.A.Lower()
	if err != nil {
		t.Fatal(err)
	}
	mtx := filepath.Join(dir, "k.mtx")
	f, err := os.Create(mtx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.WriteMatrixMarket(f, lower, ""); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := sparse.WriteOpenFEM(filepath.Join(dir, "k"), gen.A, nil); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{mtx, filepath.Join(dir, "k.nz")} {
		p, err := loadProblem(src, &o)
		if err != nil {
			t.Fatal(err)
		}
		if p.NNZ != gen.NNZ || p.NNZFull != gen.NNZFull || p.NNZ != 29205 || p.NNZFull != 57330 {
			t.Errorf("%s: nnz %d / %d, the generator %d / %d (want 29205 / 57330)", src, p.NNZ, p.NNZFull, gen.NNZ, gen.NNZFull)
		}
	}
}
