package sparse

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseLimit is the largest order compared through gonum dense matrices; the
// larger matrices are compared as sorted triplets (bcsstk38 dense would be
// 64M entries).
const denseLimit = 2100

// TestRoundTripsAllMatrices converts every shared matrix file through every
// format and back and checks that nothing changes, exactly.
func TestRoundTripsAllMatrices(t *testing.T) {
	for _, name := range matrixNames {
		t.Run(name, func(t *testing.T) {
			c := readShared(t, name)
			full, err := c.Full()
			if err != nil {
				t.Fatal(err)
			}
			upper := c.Clone()
			upper.I, upper.J = upper.J, upper.I
			// CSR from either triangle and from the full matrix.
			for label, src := range map[string]*COO{"lower": c, "full": full, "upper": upper} {
				csr, err := CSRFromCOO(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := csr.Validate(); err != nil {
					t.Fatal(err)
				}
				sameMatrix(t, "CSR from "+label, c, csr.ToCOO())
			}
			// The thesis CSC from the three inputs must be identical.
			csc, err := CSCFromCOO(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := csc.Validate(); err != nil {
				t.Fatal(err)
			}
			for label, src := range map[string]*COO{"full": full, "upper": upper} {
				other, err := CSCFromCOO(src)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(other.Elements, csc.Elements) || !slices.Equal(other.DiagPos, csc.DiagPos) || !slices.Equal(other.RowIdx, csc.RowIdx) {
					t.Fatalf("CSC from %s differs from CSC from lower", label)
				}
			}
			cscCOO, err := csc.ToCOO()
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "CSC", c, cscCOO)
			// SKS from COO and from CSC must be identical, and give back
			// the matrix directly and through CSC.
			sks, err := SKSFromCOO(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := sks.Validate(); err != nil {
				t.Fatal(err)
			}
			sks2, err := SKSFromCSC(csc)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sks.Elements, sks2.Elements) || !slices.Equal(sks.Index, sks2.Index) {
				t.Fatal("SKS from COO and from CSC differ")
			}
			if le, _ := SKSLen(c, nil); le != int64(sks.Len()) {
				t.Fatalf("SKSLen %d, SKS.Len %d", le, sks.Len())
			}
			sksCOO, err := sks.ToCOO()
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "SKS", c, sksCOO)
			csc2, err := CSCFromSKS(sks)
			if err != nil {
				t.Fatal(err)
			}
			csc2COO, _ := csc2.ToCOO()
			sameMatrix(t, "SKS->CSC", c, csc2COO)
			if c.Rows > denseLimit {
				return
			}
			// Dense comparisons, and the thesis's dense->sparse rules.
			want, err := c.ToDense()
			if err != nil {
				t.Fatal(err)
			}
			sym, err := c.ToSymDense()
			if err != nil || !mat.Equal(sym, want) {
				t.Fatalf("ToSymDense: %v", err)
			}
			for label, f := range map[string]func() (*mat.Dense, error){
				"full": full.ToDense, "csc": csc.ToDense, "sks": sks.ToDense,
				"csr": func() (*mat.Dense, error) { a, _ := CSRFromCOO(c); return a.ToDense() },
			} {
				got, err := f()
				if err != nil || !mat.Equal(got, want) {
					t.Fatalf("%s ToDense differs (%v)", label, err)
				}
			}
			dcsc, err := CSCFromDense(want)
			if err != nil {
				t.Fatal(err)
			}
			dcscCOO, _ := dcsc.ToCOO()
			sameMatrix(t, "dense->CSC", c, dcscCOO)
			dsks, err := SKSFromDense(sym)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dsks.Index, csc2Index(t, dcsc)) {
				t.Fatal("dense->SKS and dense->CSC->SKS differ")
			}
			dsksCOO, _ := dsks.ToCOO()
			sameMatrix(t, "dense->SKS", c, dsksCOO)
			dcoo, err := COOFromDense(sym)
			if err != nil || !dcoo.Symmetric {
				t.Fatal(err)
			}
			sameMatrix(t, "dense->COO", c, dcoo)
		})
	}
}

func csc2Index(t *testing.T, a *CSC) []int32 {
	s, err := SKSFromCSC(a)
	if err != nil {
		t.Fatal(err)
	}
	return s.Index
}

func TestCompact(t *testing.T) {
	c := &COO{Rows: 3, Cols: 3, Symmetric: true,
		I: []int32{0, 2, 1, 0, 2}, J: []int32{2, 0, 1, 0, 0}, V: []float64{1, 2, 3, 4, 5}}
	if err := c.Compact(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.I, []int32{0, 2, 1}) || !slices.Equal(c.J, []int32{0, 0, 1}) || !slices.Equal(c.V, []float64{4, 8, 3}) {
		t.Fatalf("compact: %v %v %v", c.I, c.J, c.V)
	}
	if v, _ := c.At(0, 2); v != 8 {
		t.Fatalf("At(0,2)=%v", v)
	}
}
