package sparse

import (
	"testing"
)

// bandedCOO returns the lower triangle of an n×n SPD band matrix with
// half-bandwidth w: 2w+1 on the diagonal and -1 inside the band.
func bandedCOO(n, w int) *COO {
	c := &COO{Rows: n, Cols: n, Symmetric: true}
	for j := 0; j < n; j++ {
		for i := j; i < min(n, j+w+1); i++ {
			v := -1.0
			if i == j {
				v = float64(2*w + 1)
			}
			c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
		}
	}
	return c
}

// TestThesisSizeConversions converts a matrix of the thesis's largest order,
// n = 142 422, whose dense form would need 162 GB: the COO conversions and
// the symbolic analysis must work in O(nnz) memory.
func TestThesisSizeConversions(t *testing.T) {
	const n, w = 142422, 3
	c := bandedCOO(n, w)
	// Feed it as a shuffled full matrix to exercise the symmetry check too.
	full, err := c.Full()
	if err != nil {
		t.Fatal(err)
	}
	csc, err := CSCFromCOO(full)
	if err != nil {
		t.Fatal(err)
	}
	sks, err := SKSFromCOO(full)
	if err != nil {
		t.Fatal(err)
	}
	wantLen := n*(w+1) - w*(w+1)/2
	if csc.Len() != wantLen || sks.Len() != wantLen {
		t.Fatalf("CSC len %d, SKS len %d, want %d", csc.Len(), sks.Len(), wantLen)
	}
	for _, ij := range [][2]int{{0, 0}, {3, 0}, {4, 0}, {n - 1, n - 4}, {n - 1, n - 1}, {70000, 70002}} {
		want := 0.0
		if d := ij[0] - ij[1]; d == 0 {
			want = 2*w + 1
		} else if d >= -w && d <= w {
			want = -1
		}
		a, _ := csc.At(ij[0], ij[1])
		b, _ := sks.At(ij[0], ij[1])
		if a != want || b != want {
			t.Fatalf("A%v: CSC %v SKS %v, want %v", ij, a, b, want)
		}
	}
	sym, err := SymbolicCholesky(csc)
	if err != nil {
		t.Fatal(err)
	}
	// A band matrix has no fill outside its band.
	if sym.NNZ != int64(wantLen) {
		t.Fatalf("nnz(L)=%d, want %d", sym.NNZ, wantLen)
	}
	if mb := MB(ThesisMemoryDense(n)); mb < 162e3 || mb > 163e3 {
		t.Fatalf("dense memory %v MB", mb)
	}
}

func benchMatrix(b *testing.B, name string) *COO {
	c := readShared(b, name)
	perm, err := ReverseCuthillMcKee(c)
	if err != nil {
		b.Fatal(err)
	}
	p, err := c.Permute(perm)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkSymbolicCholesky(b *testing.B) {
	a, _ := CSCFromCOO(benchMatrix(b, "bcsstk13"))
	for b.Loop() {
		if _, err := SymbolicCholesky(a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkThesisSymbolicCholesky(b *testing.B) {
	a, _ := CSCFromCOO(benchMatrix(b, "bcsstk13"))
	for b.Loop() {
		if _, err := ThesisSymbolicCholesky(a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReverseCuthillMcKee(b *testing.B) {
	c := readShared(b, "bcsstk38")
	for b.Loop() {
		if _, err := ReverseCuthillMcKee(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadMatrixMarket(b *testing.B) {
	for b.Loop() {
		readShared(b, "bcsstk38")
	}
}

func BenchmarkCSCFromCOO(b *testing.B) {
	c := readShared(b, "bcsstk38")
	for b.Loop() {
		if _, err := CSCFromCOO(c); err != nil {
			b.Fatal(err)
		}
	}
}
