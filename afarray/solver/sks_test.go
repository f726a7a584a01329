package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// sksFactorizer is what the tests need of SKSCholesky and SKSLDLT.
type sksFactorizer interface {
	Factorize(a *afarray.SKS, v Variant) error
	FactorizeInPlace(a *afarray.SKS, v Variant) error
	SolveTo(dst, b *afarray.Array) error
	Solve(b *afarray.Array) (*afarray.Array, error)
	Stats() SparseStats
	Release()
}

func newSKSFactor(ldlt bool, width int) sksFactorizer {
	if ldlt {
		f := &SKSLDLT{}
		f.BlockWidth = width
		return f
	}
	f := &SKSCholesky{}
	f.BlockWidth = width
	return f
}

func sksMethod(ldlt bool) string {
	if ldlt {
		return "ldlt"
	}
	return "chol"
}

// sksUpload converts c to the skyline layout and uploads it.
func sksUpload(tb testing.TB, c *sparse.COO) *afarray.SKS {
	tb.Helper()
	h, err := sparse.SKSFromCOO(c)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := afarray.UploadSKS(h)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Release)
	return a
}

// sksSolve factors c and solves for b, returning x or the error of
// Factorize or Solve.
func sksSolve(tb testing.TB, c *sparse.COO, ldlt bool, v Variant, width int, b []float64) ([]float64, SparseStats, error) {
	tb.Helper()
	a := sksUpload(tb, c)
	f := newSKSFactor(ldlt, width)
	defer f.Release()
	if err := f.FactorizeInPlace(a, v); err != nil {
		return nil, f.Stats(), err
	}
	x, err := f.Solve(sparseVector(tb, b))
	if err != nil {
		return nil, f.Stats(), err
	}
	defer x.Release()
	return sparseHost(tb, x), f.Stats(), nil
}

// TestSKSThesisExamples runs the thesis's two skyline examples (§3.4), which
// are symmetric but indefinite: Cholesky must stop at the first negative
// pivot, LDLT must match gonum's dense LU solve.
func TestSKSThesisExamples(t *testing.T) {
	sparseDevice(t)
	examples := []struct {
		a      []float64
		n, col int
	}{
		{[]float64{1, 2, 3, 0, 0, 0, 2, 5, 0, 3, 0, 0, 3, 0, 3, 0, 9, 0, 0, 3, 0, 9, 6, 0, 0, 0, 9, 6, 5, 0, 0, 0, 0, 0, 0, 8}, 6, 2},
		{[]float64{3, 4, 0, 1, 0, 0, 0, 4, 1, 2, 0, 0, 0, 0, 0, 2, 2, 4, 4, 0, 0, 1, 0, 4, 9, 0, 5, 0, 0, 0, 4, 0, 2, 0, 1, 0, 0, 0, 5, 0, 5, 0, 0, 0, 0, 0, 1, 0, 8}, 7, 1},
	}
	for e, ex := range examples {
		c, err := sparse.COOFromDense(mat.NewDense(ex.n, ex.n, ex.a))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]float64, ex.n)
		for i := range b {
			b[i] = float64(i + 1)
		}
		ref := sparseGonumSolve(t, c, b)
		for _, v := range sparseVariants {
			label := fmt.Sprintf("example %d %s", e, v)
			_, _, err := sksSolve(t, c, false, v, 0, b)
			sparseWantErr(t, label+" chol", err, ErrNotPositiveDefinite, ex.col)
			x, _, err := sksSolve(t, c, true, v, 0, b)
			if err != nil {
				t.Fatalf("%s ldlt: %v", label, err)
			}
			sparseThesisCriterion(t, label+" ldlt", x, ref)
		}
	}
}

// TestSKSRandom compares every method, variant and block width with gonum's
// dense Cholesky on random sparse SPD matrices, with orders around the block
// width and profiles from narrow to full.
func TestSKSRandom(t *testing.T) {
	sparseDevice(t)
	cases := []struct{ n, bw int }{{1, 0}, {2, 1}, {5, 4}, {31, 3}, {33, 40}, {64, 10}, {100, 7}, {150, 150}, {257, 20}}
	for k, cs := range cases {
		c := sparseRandomSPD(cs.n, cs.bw, uint64(k))
		b := sparseRHS(t, c, uint64(k))
		ref := sparseGonumSolve(t, c, b)
		for _, ldlt := range []bool{false, true} {
			for _, v := range sparseVariants {
				widths := []int{0}
				if v == Fast {
					widths = []int{32, 64}
				}
				for _, w := range widths {
					label := fmt.Sprintf("n=%d bw=%d %s %s B=%d", cs.n, cs.bw, sksMethod(ldlt), v, w)
					x, _, err := sksSolve(t, c, ldlt, v, w, b)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					sparseThesisCriterion(t, label, x, ref)
					if be := sparseBackwardError(t, c, x, b); be > 1e-14 {
						t.Errorf("%s: backward error %.3g", label, be)
					}
				}
			}
		}
	}
}

// sksMatrices are the real SPD matrices each variant solves in the unit
// tests (the larger ones only in the fast variant, to keep the run short).
var sksMatrices = []struct {
	name   string
	thesis bool // also run the thesis variant
	gonum  bool // compare with gonum's dense solve
}{
	{"LFAT5", true, true}, {"LF10", true, true}, {"bcsstk01", true, true}, {"mesh1e1", true, true},
	{"bcsstk02", true, true}, {"nos4", true, true}, {"bcsstk03", true, true}, {"lund_a", true, true},
	{"nos3", true, true}, {"bcsstk13", false, false}, {"bcsstk24", false, false}, {"bcsstk16", false, false},
}

// TestSKSMatrices solves the real SPD test matrices (ordered for the
// skyline with "auto") to a backward error of 1e-14, and checks the thesis
// criterion against gonum where the dense solve is cheap.
func TestSKSMatrices(t *testing.T) {
	sparseDevice(t)
	for _, m := range sksMatrices {
		c := sparseLoad(t, m.name, sparse.OrderAuto)
		b := sparseRHS(t, c, 1)
		var ref []float64
		if m.gonum {
			ref = sparseGonumSolve(t, c, b)
		}
		for _, ldlt := range []bool{false, true} {
			for _, v := range sparseVariants {
				if v == Thesis && !m.thesis {
					continue
				}
				label := fmt.Sprintf("%s %s %s", m.name, sksMethod(ldlt), v)
				x, st, err := sksSolve(t, c, ldlt, v, 0, b)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				be := sparseBackwardError(t, c, x, b)
				if be > 1e-14 {
					t.Errorf("%s: backward error %.3g", label, be)
				}
				if ref != nil {
					sparseThesisCriterion(t, label, x, ref)
				}
				t.Logf("%s: n=%d len=%d backward error %.2g, factor %v (%d launches), solve %v (%d launches)",
					label, c.Rows, st.FactorLen, be, st.FactorTime, st.FactorLaunches, st.SolveTime, st.SolveLaunches)
			}
		}
	}
}

// TestSKSNotPositiveDefinite: nasa1824 is indefinite; Cholesky must refuse
// it in both variants, naming the same first bad column.
func TestSKSNotPositiveDefinite(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "nasa1824", sparse.OrderAuto)
	b := sparseRHS(t, c, 1)
	col := -1
	for _, v := range sparseVariants {
		_, _, err := sksSolve(t, c, false, v, 0, b)
		sparseWantErr(t, "nasa1824 "+string(v), err, ErrNotPositiveDefinite, col)
		if npd, ok := err.(*NotPositiveDefiniteError); ok {
			if !(npd.Pivot <= 0) {
				t.Errorf("nasa1824 %s: reported pivot %g is positive", v, npd.Pivot)
			}
			col = npd.Column
		}
	}
}

// TestSKSZeroPivot: LDLT of a matrix whose second pivot is exactly zero.
func TestSKSZeroPivot(t *testing.T) {
	sparseDevice(t)
	for _, n := range []int{3, 40, 70} { // inside the first block, and in a later one
		c := sparseRandomSPD(n, 3, 5)
		d := mat.NewDense(n, n, nil)
		for k, v := range c.V {
			d.Set(int(c.I[k]), int(c.J[k]), v)
			d.Set(int(c.J[k]), int(c.I[k]), v)
		}
		// Rows/columns p, p+1 become [[4 2] [2 1]] coupled to nothing else
		// above: the pivot of column p+1 is 1 - 2·2/4 = 0 exactly.
		p := n - 2
		if n > 40 {
			p = 36
		}
		for i := 0; i < n; i++ {
			for _, j := range []int{p, p + 1} {
				if i != j && i < p+2 {
					d.Set(i, j, 0)
					d.Set(j, i, 0)
				}
			}
		}
		d.Set(p, p, 4)
		d.Set(p+1, p, 2)
		d.Set(p, p+1, 2)
		d.Set(p+1, p+1, 1)
		z, err := sparse.COOFromDense(d)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]float64, n)
		for _, v := range sparseVariants {
			_, _, err := sksSolve(t, z, true, v, 0, b)
			sparseWantErr(t, fmt.Sprintf("n=%d %s", n, v), err, ErrZeroPivot, p+1)
		}
	}
}

// TestSKSReuse solves several right-hand sides with one factor, in place
// and into new vectors, and checks that Factorize leaves the matrix
// alone.
func TestSKSReuse(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "lund_a", sparse.OrderAuto)
	for _, ldlt := range []bool{false, true} {
		for _, v := range sparseVariants {
			label := sksMethod(ldlt) + " " + string(v)
			a := sksUpload(t, c)
			before := sparseHost(t, a.Elements)
			f := newSKSFactor(ldlt, 0)
			if err := f.Factorize(a, v); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if after := sparseHost(t, a.Elements); !mat.EqualApprox(mat.NewVecDense(len(before), before), mat.NewVecDense(len(after), after), 0) {
				t.Errorf("%s: Factorize changed the matrix", label)
			}
			for k := 0; k < 3; k++ {
				b := sparseRHS(t, c, uint64(10+k))
				bd := sparseVector(t, b)
				if k == 2 {
					if err := f.SolveTo(bd, bd); err != nil {
						t.Fatalf("%s in place: %v", label, err)
					}
				} else {
					x, err := f.Solve(bd)
					if err != nil {
						t.Fatalf("%s: %v", label, err)
					}
					bd = x
					t.Cleanup(x.Release)
				}
				if be := sparseBackwardError(t, c, sparseHost(t, bd), b); be > 1e-14 {
					t.Errorf("%s rhs %d: backward error %.3g", label, k, be)
				}
			}
			if f.Stats().Solves != 3 {
				t.Errorf("%s: %d solves counted, want 3", label, f.Stats().Solves)
			}
			f.Release()
		}
	}
}

// TestSKSErrors covers the argument errors, NaN in the matrix and in the
// right-hand side, use after Release, and leaks.
func TestSKSErrors(t *testing.T) {
	sparseDevice(t)
	dev, _ := afarray.CurrentDevice()
	c := sparseRandomSPD(50, 5, 3)
	for _, ldlt := range []bool{false, true} {
		for _, v := range sparseVariants {
			label := sksMethod(ldlt) + " " + string(v)
			live := dev.MemoryStats().Live
			t.Run(label, func(t *testing.T) { sksErrorCases(t, c, ldlt, v) })
			if got := dev.MemoryStats().Live; got != live {
				t.Errorf("%s: %d bytes of device memory leaked", label, got-live)
			}
		}
	}
}

func sksErrorCases(t *testing.T, c *sparse.COO, ldlt bool, v Variant) {
	label := sksMethod(ldlt) + " " + string(v)
	a := sksUpload(t, c)
	f := newSKSFactor(ldlt, 0)
	if err := f.Factorize(nil, v); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("%s: nil matrix: %v", label, err)
	}
	if _, err := f.Solve(sparseVector(t, make([]float64, 50))); err == nil {
		t.Errorf("%s: Solve before Factorize succeeded", label)
	}
	if err := f.Factorize(a, Variant("slow")); !errorsIs(err, ErrUnknown) {
		t.Errorf("%s: bad variant: %v", label, err)
	}
	if err := f.Factorize(a, v); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if _, err := f.Solve(sparseVector(t, make([]float64, 49))); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("%s: short b: %v", label, err)
	}
	if err := f.SolveTo(sparseVector(t, make([]float64, 51)), sparseVector(t, make([]float64, 50))); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("%s: long dst: %v", label, err)
	}
	nan := make([]float64, 50)
	nan[17] = math.NaN()
	_, err := f.Solve(sparseVector(t, nan))
	if !errorsIs(err, ErrNonFinite) || err.(*NonFiniteError).Index != 17 {
		t.Errorf("%s: NaN in b: %v", label, err)
	}
	f.Release()
	if _, err := f.Solve(sparseVector(t, make([]float64, 50))); err == nil {
		t.Errorf("%s: Solve after Release succeeded", label)
	}

	h, _ := sparse.SKSFromCOO(c)
	h.Elements[5] = math.Inf(1)
	bad, err := afarray.UploadSKS(h)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Factorize(bad, v)
	if !errorsIs(err, ErrNonFinite) || err.(*NonFiniteError).Index != 5 {
		t.Errorf("%s: Inf in the matrix: %v", label, err)
	}
	f.Release()
	bad.Release()
}
