package sparse

import (
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// thesisM is the 6×6 matrix of the thesis's CSC and SKS examples.
var thesisM = mat.NewDense(6, 6, []float64{
	1, 2, 3, 0, 0, 0,
	2, 5, 0, 3, 0, 0,
	3, 0, 3, 0, 9, 0,
	0, 3, 0, 9, 6, 0,
	0, 0, 9, 6, 5, 0,
	0, 0, 0, 0, 0, 8,
})

// repoCSC is the 4×4 example from the thesis repository's header.
var repoCSC = mat.NewDense(4, 4, []float64{
	5, 1, -2, 0,
	1, 2, 0, 0,
	-2, 0, 4, 1,
	0, 0, 1, 3,
})

// repoSKS is the 7×7 repository example that exercises the padding rule.
var repoSKS = mat.NewDense(7, 7, []float64{
	3, 4, 0, 1, 0, 0, 0,
	4, 1, 2, 0, 0, 0, 0,
	0, 2, 2, 4, 4, 0, 0,
	1, 0, 4, 9, 0, 5, 0,
	0, 0, 4, 0, 2, 0, 1,
	0, 0, 0, 5, 0, 5, 0,
	0, 0, 0, 0, 1, 0, 8,
})

// oneBased turns the thesis's printed 1-based index vectors into 0-based.
func oneBased(v ...int32) []int32 {
	for i := range v {
		v[i]--
	}
	return v
}

// cscVariants builds a CSC of d by every route: from dense (sparse_ms), from
// the full COO, from the lower and the upper triangle (Symmetric), and from
// the SKS layout.
func cscVariants(t *testing.T, d *mat.Dense) map[string]*CSC {
	t.Helper()
	out := map[string]*CSC{}
	var err error
	if out["dense"], err = CSCFromDense(d); err != nil {
		t.Fatal(err)
	}
	for name, c := range cooVariants(t, d) {
		if out[name], err = CSCFromCOO(c); err != nil {
			t.Fatal(name, err)
		}
	}
	s, err := SKSFromDense(d)
	if err != nil {
		t.Fatal(err)
	}
	if out["sks"], err = CSCFromSKS(s); err != nil {
		t.Fatal(err)
	}
	return out
}

// cooVariants returns d as a full COO (shuffled, with a split duplicate) and
// as its lower and upper triangles with Symmetric set.
func cooVariants(t *testing.T, d *mat.Dense) map[string]*COO {
	t.Helper()
	full, err := COOFromDense(d)
	if err != nil {
		t.Fatal(err)
	}
	// Reverse the order and split the first entry in two halves, so that
	// sorting and duplicate summing are exercised.
	slices.Reverse(full.I)
	slices.Reverse(full.J)
	slices.Reverse(full.V)
	full.V[0] /= 2
	full.I, full.J, full.V = append(full.I, full.I[0]), append(full.J, full.J[0]), append(full.V, full.V[0])
	lo := &COO{Rows: full.Rows, Cols: full.Cols, Symmetric: true}
	up := &COO{Rows: full.Rows, Cols: full.Cols, Symmetric: true}
	for k, v := range full.V {
		i, j := full.I[k], full.J[k]
		if i >= j {
			lo.I, lo.J, lo.V = append(lo.I, i), append(lo.J, j), append(lo.V, v)
		}
		if i <= j {
			up.I, up.J, up.V = append(up.I, i), append(up.J, j), append(up.V, v)
		}
	}
	return map[string]*COO{"full": full, "lower": lo, "upper": up}
}

func TestThesisCSCExamples(t *testing.T) {
	cases := []struct {
		name     string
		d        *mat.Dense
		elements []float64
		col, row []int32
	}{
		{"thesis 6x6", thesisM, []float64{1, 2, 3, 5, 3, 3, 9, 9, 6, 5, 8},
			oneBased(1, 4, 6, 8, 10, 11), oneBased(2, 3, 4, 5, 5)},
		{"repo 4x4", repoCSC, []float64{5, 1, -2, 2, 4, 1, 3}, []int32{0, 3, 4, 6}, []int32{1, 2, 3}},
	}
	for _, tc := range cases {
		for route, a := range cscVariants(t, tc.d) {
			if !slices.Equal(a.Elements, tc.elements) || !slices.Equal(a.DiagPos, tc.col) || !slices.Equal(a.RowIdx, tc.row) {
				t.Errorf("%s via %s: got elements %v col %v row %v", tc.name, route, a.Elements, a.DiagPos, a.RowIdx)
			}
			if err := a.Validate(); err != nil {
				t.Errorf("%s via %s: %v", tc.name, route, err)
			}
			if mb := MB(a.ThesisMemory()); mb != 4*(3*float64(len(tc.elements))+2*float64(a.N))/1e6 {
				t.Errorf("memory %v", mb)
			}
			back, err := a.ToDense()
			if err != nil || !mat.Equal(back, tc.d) {
				t.Errorf("%s via %s: dense round trip differs (%v)", tc.name, route, err)
			}
			for i := 0; i < a.N; i++ {
				for j := 0; j < a.N; j++ {
					if v, err := a.At(i, j); err != nil || v != tc.d.At(i, j) {
						t.Fatalf("%s: At(%d,%d)=%v, want %v", tc.name, i, j, v, tc.d.At(i, j))
					}
				}
			}
		}
	}
}

func TestThesisSKSExamples(t *testing.T) {
	cases := []struct {
		name     string
		d        *mat.Dense
		elements []float64
		index    []int32
	}{
		{"thesis 6x6", thesisM, []float64{1, 2, 3, 5, 0, 3, 3, 0, 9, 9, 6, 5, 8}, oneBased(1, 4, 7, 10, 12, 13)},
		{"repo 7x7", repoSKS, []float64{3, 4, 0, 1, 1, 2, 0, 2, 4, 4, 9, 0, 5, 2, 0, 1, 5, 0, 8}, []int32{0, 4, 7, 10, 13, 16, 18}},
	}
	for _, tc := range cases {
		routes := map[string]*SKS{}
		var err error
		if routes["dense"], err = SKSFromDense(tc.d); err != nil {
			t.Fatal(err)
		}
		for name, c := range cooVariants(t, tc.d) {
			if routes[name], err = SKSFromCOO(c); err != nil {
				t.Fatal(err)
			}
		}
		csc, _ := CSCFromDense(tc.d)
		if routes["csc"], err = SKSFromCSC(csc); err != nil {
			t.Fatal(err)
		}
		for route, s := range routes {
			if !slices.Equal(s.Elements, tc.elements) || !slices.Equal(s.Index, tc.index) {
				t.Errorf("%s via %s: got elements %v index %v", tc.name, route, s.Elements, s.Index)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("%s via %s: %v", tc.name, route, err)
			}
			back, err := s.ToDense()
			if err != nil || !mat.Equal(back, tc.d) {
				t.Errorf("%s via %s: dense round trip differs (%v)", tc.name, route, err)
			}
			for i := 0; i < s.N; i++ {
				for j := 0; j < s.N; j++ {
					if v, err := s.At(i, j); err != nil || v != tc.d.At(i, j) {
						t.Fatalf("%s: At(%d,%d)=%v, want %v", tc.name, i, j, v, tc.d.At(i, j))
					}
				}
			}
		}
		le, err := SKSLen(routes["full"].mustCOO(t), nil)
		if err != nil || le != int64(len(tc.elements)) {
			t.Errorf("%s: SKSLen %d, want %d (%v)", tc.name, le, len(tc.elements), err)
		}
	}
}

func (s *SKS) mustCOO(t *testing.T) *COO {
	c, err := s.ToCOO()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestThesisMemoryFormulas(t *testing.T) {
	// Table 15-style figures: dense 8n(n+1), CSC 4(3le+2n), SKS 4(2le+3n).
	if got := ThesisMemoryDense(1000); got != 8*1000*1001 {
		t.Errorf("dense %v", got)
	}
	if got := MB(ThesisMemoryCSC(1572, 98119)); got != 4*(3*98119.0+2*1572)/1e6 {
		t.Errorf("csc %v", got)
	}
	// §7.1: model 2, n=1572, SKS len 176 955 gives 1.43 MB.
	if got := MB(ThesisMemorySKS(1572, 176955)); got < 1.42 || got > 1.44 {
		t.Errorf("sks %v MB", got)
	}
}

func TestLayoutValidation(t *testing.T) {
	good, _ := CSCFromDense(thesisM)
	bad := []*CSC{
		{N: 6, Elements: good.Elements, DiagPos: good.DiagPos[:5], RowIdx: good.RowIdx},
		{N: 6, Elements: good.Elements, DiagPos: []int32{0, 3, 2, 7, 9, 10}, RowIdx: good.RowIdx},
		{N: 6, Elements: good.Elements, DiagPos: good.DiagPos, RowIdx: []int32{1, 2, 3, 4, 9}},
		{N: 6, Elements: good.Elements, DiagPos: []int32{0, 3, 5, 7, 9, 9}, RowIdx: good.RowIdx},
		{N: 6, Elements: good.Elements, DiagPos: []int32{0, 10, 10, 10, 10, 10}, RowIdx: good.RowIdx},
	}
	for k, a := range bad {
		if err := a.Validate(); !errors.Is(err, ErrShape) && !errors.Is(err, ErrIndex) {
			t.Errorf("bad CSC %d: %v", k, err)
		}
		if _, err := a.ToCOO(); err == nil {
			t.Errorf("bad CSC %d converted", k)
		}
	}
	s, _ := SKSFromDense(repoSKS)
	badS := []*SKS{
		{N: 7, Elements: s.Elements, Index: []int32{0, 4, 5, 10, 13, 16, 18}}, // column 1 above column 0's last row
		{N: 7, Elements: s.Elements, Index: []int32{0, 4, 7, 10, 13, 16, 17}}, // last column taller than 1
		{N: 7, Elements: s.Elements, Index: s.Index[:6]},
	}
	for k, a := range badS {
		if err := a.Validate(); !errors.Is(err, ErrShape) && !errors.Is(err, ErrIndex) {
			t.Errorf("bad SKS %d: %v", k, err)
		}
	}
	if _, err := (&COO{Rows: 2, Cols: 2, I: []int32{0, 2}, J: []int32{0, 0}, V: []float64{1, 1}}).Lower(); !errors.Is(err, ErrIndex) {
		t.Errorf("index: %v", err)
	}
	if _, err := CSCFromCOO(&COO{Rows: 2, Cols: 2, I: []int32{0, 1}, J: []int32{1, 0}, V: []float64{1, 2}}); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("asymmetric: %v", err)
	}
	if _, err := CSCFromCOO(&COO{Rows: 2, Cols: 3}); !errors.Is(err, ErrShape) {
		t.Errorf("rectangular: %v", err)
	}
	if _, err := SKSFromDense(mat.NewDense(2, 2, []float64{1, 2, 3, 4})); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("dense asymmetric: %v", err)
	}
	if _, err := (&COO{Rows: 2, Cols: 2}).At(2, 0); !errors.Is(err, ErrIndex) {
		t.Errorf("At: %v", err)
	}
}

func TestTridiag(t *testing.T) {
	tr := &Tridiag{Sub: []float64{-1, -2}, Diag: []float64{4, 5, 6}, Super: []float64{-1, -2}}
	c, err := tr.ToCOO()
	if err != nil {
		t.Fatal(err)
	}
	back, err := TridiagFromCOO(c)
	if err != nil || !slices.Equal(back.Sub, tr.Sub) || !slices.Equal(back.Diag, tr.Diag) || !slices.Equal(back.Super, tr.Super) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	sym, err := tr.ToSymDense()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tr.ToDense()
	if !mat.Equal(sym, d) || d.At(2, 1) != -2 || d.At(0, 1) != -1 || tr.Len() != 7 {
		t.Fatalf("dense %v", mat.Formatted(d))
	}
	l, _ := c.Lower()
	fromSym, err := TridiagFromCOO(l)
	if err != nil || !slices.Equal(fromSym.Super, tr.Super) {
		t.Fatalf("symmetric COO: %v %+v", err, fromSym)
	}
	if _, err := TridiagFromCOO(&COO{Rows: 3, Cols: 3, I: []int32{2}, J: []int32{0}, V: []float64{1}}); !errors.Is(err, ErrShape) {
		t.Errorf("outside band: %v", err)
	}
	if _, err := (&Tridiag{Sub: []float64{1, 2}, Diag: []float64{1, 2, 3}, Super: []float64{1, 3}}).ToSymDense(); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("asymmetric: %v", err)
	}
}
