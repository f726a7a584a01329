package solver

import (
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
)

// The thesis variants make exactly the thesis's launches (§4.11), plus
// this package's NaN/Inf scans (one per input or result); the fast
// variants make two per 32-column block. Every run gives back all the
// device memory it took.
func TestDenseLaunchCountsAndLeaks(t *testing.T) {
	n := 70
	blocks := (n + 31) / 32
	leaves := (n + 63) / 64
	a := denseTestUpload(t, denseTestSPD(n, 1))
	b := denseTestUploadVec(t, denseTestVec(n, 2))
	dev := a.Device()
	cases := []struct {
		name           string
		v              Variant
		ldlt           bool
		factor, solve  int
		thesisFormulas int
	}{
		// factor: scan + 2n (+1 square roots); solve: scan b + n + 1 + n + scan x.
		{"Cholesky", Thesis, false, 1 + 2*n + 1, 1 + 2*n + 1 + 1, 4*n + 2},
		{"LDLT", Thesis, true, 1 + 2*n, 1 + 2*n + 1 + 1, 4*n + 1},
		// factor: scan + panel and update per block (no update after the
		// last) + storing the last diagonal block; solve: 2 per block + 2 scans.
		// Cholesky: scan + dense.Potrf, one block column of n <= 512 in
		// potrf_panel leaves of 64 columns with a GEMM update between two.
		{"Cholesky", Fast, false, 1 + 2*leaves - 1, 2*blocks + 2, 0},
		{"LDLT", Fast, true, 1 + 2*blocks - 1 + 1, 2*blocks + 2, 0},
	}
	dst, err := afarray.Zeros(n)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Release()
	for _, c := range cases {
		live := dev.MemoryStats().Live
		var f denseFactor
		f.ldlt = c.ldlt
		l0 := dev.Launches()
		if err := f.factorize(a, c.v, false); err != nil {
			t.Fatal(err)
		}
		l1 := dev.Launches()
		if err := f.solveTo(dst, b); err != nil {
			t.Fatal(err)
		}
		l2 := dev.Launches()
		if got := int(l1 - l0); got != c.factor {
			t.Errorf("%s %s: factorization made %d launches, want %d", c.name, c.v, got, c.factor)
		}
		if got := int(l2 - l1); got != c.solve {
			t.Errorf("%s %s: solve made %d launches, want %d", c.name, c.v, got, c.solve)
		}
		if c.thesisFormulas > 0 && int(l2-l0)-3 != c.thesisFormulas {
			t.Errorf("%s %s: %d launches besides the scans, thesis %d", c.name, c.v, l2-l0-3, c.thesisFormulas)
		}
		f.release()
		if after := dev.MemoryStats().Live; after != live {
			t.Errorf("%s %s: live device bytes %d -> %d", c.name, c.v, live, after)
		}
	}
	for _, v := range variants {
		live := dev.MemoryStats().Live
		l0 := dev.Launches()
		x, err := GaussJordan(a, b, v)
		if err != nil {
			t.Fatal(err)
		}
		got := int(dev.Launches() - l0)
		// scans of A, B and X, two copies into [A|B]; thesis: n + extract;
		// fast: per block the pivot rows and a GEMM each for the rows above
		// and below them (none above the first block, none below the
		// last), then the copy out.
		want := 3 + 2 + n + 1
		if v == Fast {
			want = 3 + 2 + blocks + 2*(blocks-1) + 1
		}
		if got != want {
			t.Errorf("GaussJordan %s: %d launches, want %d", v, got, want)
		}
		x.Release()
		if after := dev.MemoryStats().Live; after != live {
			t.Errorf("GaussJordan %s: live device bytes %d -> %d", v, live, after)
		}
	}
}

func TestCGLeaks(t *testing.T) {
	for _, v := range variants {
		s := cgTestBuild(t, "mesh1e1", denseTestLoad(t, "mesh1e1"), v)
		b := denseTestUploadVec(t, denseTestVec(s.dense.SymmetricDim(), 4))
		dev := b.Device()
		for name, op := range s.ops {
			live := dev.MemoryStats().Live
			x, _, err := CG(op, b, CGOptions{Variant: v, Jacobi: v == Fast})
			if err != nil {
				t.Fatal(err)
			}
			x.Release()
			// A run that stops at its iteration limit returns its iterate
			// and nothing else.
			x, _, err = CG(op, b, CGOptions{Variant: v, MaxIter: 2, Tol: 1e-300})
			if err == nil {
				t.Fatal("converged in 2 iterations to 1e-300")
			}
			x.Release()
			if after := dev.MemoryStats().Live; after != live {
				t.Errorf("%s %s: live device bytes %d -> %d", v, name, live, after)
			}
		}
	}
}
