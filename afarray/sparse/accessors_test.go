package sparse

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAccessors checks the shape accessors and At of every format against
// the dense matrix, on a shared matrix small enough to compare entry by
// entry.
func TestAccessors(t *testing.T) {
	c := readShared(t, "lund_a")
	d, _ := c.ToDense()
	n := c.Rows
	csr, _ := CSRFromCOO(c)
	csc, _ := CSCFromCOO(c)
	sks, _ := SKSFromCOO(c)
	if c.N() != n || csr.N() != n || csc.Rows() != n || csc.Cols() != n || sks.Rows() != n || sks.Cols() != n {
		t.Fatal("orders differ")
	}
	if csr.NNZ() != 2449 || csc.NNZ() != 1298 || csc.Len() != 1298 {
		t.Fatalf("nnz: CSR %d CSC %d (INDEX: 2449 full, 1298 lower)", csr.NNZ(), csc.NNZ())
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := d.At(i, j)
			for name, at := range map[string]func(int, int) (float64, error){"COO": c.At, "CSR": csr.At, "CSC": csc.At, "SKS": sks.At} {
				if v, err := at(i, j); err != nil || v != want {
					t.Fatalf("%s.At(%d,%d)=%v (%v), want %v", name, i, j, v, err, want)
				}
			}
		}
	}
	for name, at := range map[string]func(int, int) (float64, error){"COO": c.At, "CSR": csr.At, "CSC": csc.At, "SKS": sks.At,
		"Tridiag": (&Tridiag{Diag: []float64{1}}).At} {
		if _, err := at(-1, 0); !errors.Is(err, ErrIndex) {
			t.Errorf("%s.At(-1,0): %v", name, err)
		}
	}
	sym, err := csr.ToSymDense()
	if err != nil || !mat.Equal(sym, d) {
		t.Fatalf("CSR.ToSymDense: %v", err)
	}
	if sl, _ := SkylineLen(c, nil); sl != 2870+147 {
		t.Fatalf("SkylineLen %d, INDEX profile+n = %d", sl, 2870+147)
	}
	dup := &COO{Rows: 2, Cols: 2, I: []int32{1, 1}, J: []int32{0, 0}, V: []float64{1, 2}}
	if err := dup.SumDuplicates(); err != nil || dup.NNZ() != 1 || dup.V[0] != 3 {
		t.Fatalf("SumDuplicates: %v %v", err, dup.V)
	}
	tr := &Tridiag{Sub: []float64{7}, Diag: []float64{1, 2}, Super: []float64{9}}
	if v, _ := tr.At(1, 0); v != 7 || tr.N() != 2 || tr.Rows() != 2 || tr.Cols() != 2 {
		t.Fatalf("Tridiag accessors")
	}
	if v, _ := tr.At(0, 1); v != 9 {
		t.Fatalf("Tridiag super")
	}
	bad := []*CSR{
		{Rows: 2, Cols: 2, RowPtr: []int32{0, 1}, ColIdx: []int32{0}, Values: []float64{1}},
		{Rows: 2, Cols: 2, RowPtr: []int32{0, 2, 1}, ColIdx: []int32{0}, Values: []float64{1}},
		{Rows: 2, Cols: 2, RowPtr: []int32{0, 2, 2}, ColIdx: []int32{1, 0}, Values: []float64{1, 1}},
		{Rows: 2, Cols: 2, RowPtr: []int32{0, 1, 2}, ColIdx: []int32{0, 2}, Values: []float64{1, 1}},
	}
	for k, a := range bad {
		if err := a.Validate(); !errors.Is(err, ErrIndex) && !errors.Is(err, ErrShape) {
			t.Errorf("bad CSR %d: %v", k, err)
		}
	}
	if _, err := (&COO{Rows: 0, Cols: 0}).ToDense(); !errors.Is(err, ErrShape) {
		t.Errorf("empty dense: %v", err)
	}
	if _, err := (&COO{Rows: 1, Cols: 1, I: []int32{0}, J: []int32{0}, V: []float64{1}}).Permute([]int{0}); err != nil {
		t.Errorf("1x1 permute: %v", err)
	}
}
