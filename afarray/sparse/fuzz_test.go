package sparse

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"testing"
)

// FuzzReadMatrixMarket feeds arbitrary bytes to the Matrix Market reader. It
// must return a ParseError or a valid matrix, never panic; a matrix it
// accepts must survive a write/read round trip unchanged. Seeds are in
// testdata/fuzz/FuzzReadMatrixMarket.
func FuzzReadMatrixMarket(f *testing.F) {
	f.Add([]byte("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 1e-3\n"))
	f.Add([]byte("%%MatrixMarket matrix array real general\n2 1\n1\n2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadMatrixMarketData(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		if (d.COO == nil) == (d.Dense == nil) {
			t.Fatal("exactly one of COO and Dense must be set")
		}
		var buf bytes.Buffer
		if d.Dense != nil {
			if err := WriteMatrixMarketArray(&buf, d.Dense); err != nil {
				t.Fatal(err)
			}
			back, err := ReadDenseMatrixMarket(&buf)
			if err != nil || !slices.Equal(back.RawMatrix().Data, d.Dense.RawMatrix().Data) {
				t.Fatalf("array round trip: %v", err)
			}
			return
		}
		c := d.COO
		if err := c.Validate(); err != nil {
			t.Fatalf("reader returned an invalid COO: %v", err)
		}
		if err := WriteMatrixMarket(&buf, c, "fuzz"); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMatrixMarket(&buf)
		if err != nil {
			t.Fatalf("cannot read back what was written: %v", err)
		}
		if back.Rows != c.Rows || back.Cols != c.Cols || back.Symmetric != c.Symmetric || !slices.Equal(back.V, c.V) {
			t.Fatal("round trip changed the matrix")
		}
		// Conversions of small accepted matrices must not fail or panic
		// (a huge empty matrix would only test allocation).
		if c.Rows <= 1000 && c.Cols <= 1000 {
			if _, err := CSRFromCOO(c); err != nil {
				t.Fatal(err)
			}
			if csc, err := CSCFromCOO(c); err == nil {
				if err := csc.Validate(); err != nil {
					t.Fatal(err)
				}
				if _, err := SymbolicCholesky(csc); err != nil {
					t.Fatal(err)
				}
				if _, err := SKSFromCSC(csc); err != nil {
					t.Fatal(err)
				}
			} else if !errors.Is(err, ErrNotSymmetric) && !errors.Is(err, ErrShape) {
				t.Fatal(err)
			}
		}
	})
}

// FuzzReadOpenFEM feeds arbitrary bytes as the .nz, .row, .col and .fzs
// files of an OpenFEM set. Seeds are in testdata/fuzz/FuzzReadOpenFEM.
func FuzzReadOpenFEM(f *testing.F) {
	f.Add([]byte("4\n-1\n-1\n4\n"), []byte("1\n2\n1\n2\n"), []byte("1\n1\n2\n2\n"), []byte("1\n2\n"))
	f.Fuzz(func(t *testing.T, nz, row, col, fzs []byte) {
		var fr *bytes.Reader
		if len(fzs) > 0 {
			fr = bytes.NewReader(fzs)
		}
		var set *OpenFEMSet
		var err error
		if fr != nil {
			set, err = ReadOpenFEMFrom(bytes.NewReader(nz), bytes.NewReader(row), bytes.NewReader(col), fr, nil)
		} else {
			set, err = ReadOpenFEMFrom(bytes.NewReader(nz), bytes.NewReader(row), bytes.NewReader(col), nil, nil)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if err := set.A.Validate(); err != nil {
			t.Fatalf("invalid COO: %v", err)
		}
		if set.F != nil && len(set.F) != set.A.Rows {
			t.Fatalf("F has %d values for order %d", len(set.F), set.A.Rows)
		}
		if set.A.Rows <= 1000 {
			if _, err := CSCFromCOO(set.A); err != nil && !errors.Is(err, ErrNotSymmetric) {
				t.Fatal(err)
			}
			if _, err := ReverseCuthillMcKee(set.A); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzFastFloat checks the reader's float fast path against
// strconv.ParseFloat: wherever it answers, it must give the same bits.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"1", "-0", "3.563114170501439e+09", "1e22", "1e23", "0.1", "-2.5E-3", "9007199254740993", ".5", "5.", "1e", "+.e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := fastFloat([]byte(s))
		if !ok {
			return
		}
		w, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(w) {
			t.Fatalf("fastFloat(%q) = %v, strconv says %v (%v)", s, v, w, err)
		}
	})
}
