package solver

import (
	"fmt"
	"math"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// cscFactorizer is what the tests need of CSCCholesky and CSCLDLT.
type cscFactorizer interface {
	Factorize(a *afarray.CSC, v Variant) error
	SolveTo(dst, b *afarray.Array) error
	Solve(b *afarray.Array) (*afarray.Array, error)
	Stats() SparseStats
	Release()
}

func newCSCFactor(ldlt bool) cscFactorizer {
	if ldlt {
		return &CSCLDLT{}
	}
	return &CSCCholesky{}
}

func cscUpload(tb testing.TB, c *sparse.COO) *afarray.CSC {
	tb.Helper()
	h, err := sparse.CSCFromCOO(c)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := afarray.UploadCSC(h)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Release)
	return a
}

func cscSolve(tb testing.TB, c *sparse.COO, ldlt bool, v Variant, b []float64) ([]float64, SparseStats, error) {
	tb.Helper()
	a := cscUpload(tb, c)
	f := newCSCFactor(ldlt)
	defer f.Release()
	if err := f.Factorize(a, v); err != nil {
		return nil, f.Stats(), err
	}
	x, err := f.Solve(sparseVector(tb, b))
	if err != nil {
		return nil, f.Stats(), err
	}
	defer x.Release()
	return sparseHost(tb, x), f.Stats(), nil
}

// TestCSCThesisExamples runs the thesis's CSC example (§3.2) and the
// skyline padding example: symmetric indefinite, so Cholesky stops at the
// first negative pivot and LDLT matches gonum's LU solve.
func TestCSCThesisExamples(t *testing.T) {
	sparseDevice(t)
	examples := []struct {
		a      []float64
		n, col int
	}{
		{[]float64{1, 2, 3, 0, 0, 0, 2, 5, 0, 3, 0, 0, 3, 0, 3, 0, 9, 0, 0, 3, 0, 9, 6, 0, 0, 0, 9, 6, 5, 0, 0, 0, 0, 0, 0, 8}, 6, 2},
		{[]float64{5, 1, -2, 0, 1, 2, 0, 0, -2, 0, 4, 1, 0, 0, 1, 3}, 4, -1}, // SPD: the repo header's example
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
			x, _, err := cscSolve(t, c, false, v, b)
			if ex.col >= 0 {
				sparseWantErr(t, label+" chol", err, ErrNotPositiveDefinite, ex.col)
			} else if err != nil {
				t.Fatalf("%s chol: %v", label, err)
			} else {
				sparseThesisCriterion(t, label+" chol", x, ref)
			}
			x, _, err = cscSolve(t, c, true, v, b)
			if err != nil {
				t.Fatalf("%s ldlt: %v", label, err)
			}
			sparseThesisCriterion(t, label+" ldlt", x, ref)
		}
	}
}

// TestCSCRandom compares both methods and variants with gonum's dense
// Cholesky on random sparse SPD matrices, and checks that the two variants
// compute the same factor.
func TestCSCRandom(t *testing.T) {
	sparseDevice(t)
	cases := []struct{ n, bw int }{{1, 0}, {2, 1}, {5, 4}, {33, 3}, {64, 40}, {100, 7}, {150, 150}, {257, 20}}
	for k, cs := range cases {
		c := sparseRandomSPD(cs.n, cs.bw, uint64(100+k))
		b := sparseRHS(t, c, uint64(k))
		ref := sparseGonumSolve(t, c, b)
		for _, ldlt := range []bool{false, true} {
			var factors [][]float64
			for _, v := range sparseVariants {
				label := fmt.Sprintf("n=%d bw=%d %s %s", cs.n, cs.bw, sksMethod(ldlt), v)
				a := cscUpload(t, c)
				var f cscFactorizer
				var getL func() (*afarray.CSC, error)
				if ldlt {
					g := &CSCLDLT{}
					f, getL = g, g.LD
				} else {
					g := &CSCCholesky{}
					f, getL = g, g.L
				}
				if err := f.Factorize(a, v); err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				x, err := f.Solve(sparseVector(t, b))
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				xs := sparseHost(t, x)
				x.Release()
				sparseThesisCriterion(t, label, xs, ref)
				if be := sparseBackwardError(t, c, xs, b); be > 1e-14 {
					t.Errorf("%s: backward error %.3g", label, be)
				}
				L, err := getL()
				if err != nil {
					t.Fatal(err)
				}
				factors = append(factors, sparseHost(t, L.Elements))
				L.Release()
				f.Release()
			}
			for i := range factors[0] {
				if d := math.Abs(factors[0][i] - factors[1][i]); d > 1e-10*(1+math.Abs(factors[0][i])) {
					t.Errorf("n=%d %s: thesis and fast factors differ at %d: %g vs %g", cs.n, sksMethod(ldlt), i, factors[0][i], factors[1][i])
					break
				}
			}
		}
	}
}

// cscMatrices are the real SPD matrices of the CSC unit tests (the thesis
// variant, with its quadratic symbolic phase and linear searches, only on
// the small ones).
var cscMatrices = []struct {
	name          string
	thesis, gonum bool
}{
	{"LFAT5", true, true}, {"LF10", true, true}, {"bcsstk01", true, true}, {"mesh1e1", true, true},
	{"bcsstk02", true, true}, {"nos4", true, true}, {"bcsstk03", true, true}, {"lund_a", true, true},
	{"nos3", true, true}, {"bcsstk13", false, false}, {"bcsstk24", false, false}, {"bcsstk16", false, false},
}

// TestCSCMatrices solves the real SPD matrices (ordered with "auto") to a
// backward error of 1e-14, with the thesis criterion against gonum where
// the dense solve is cheap.
func TestCSCMatrices(t *testing.T) {
	sparseDevice(t)
	for _, m := range cscMatrices {
		c := sparseLoad(t, m.name, sparse.OrderAuto)
		b := sparseRHS(t, c, 2)
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
				x, st, err := cscSolve(t, c, ldlt, v, b)
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
				t.Logf("%s: n=%d nnz(L)=%d backward error %.2g, symbolic %v, factor %v (%d launches, %d supernodes), solve %v (%d launches)",
					label, c.Rows, st.FactorLen, be, st.SymbolicTime, st.FactorTime, st.FactorLaunches, st.Levels, st.SolveTime, st.SolveLaunches)
			}
		}
	}
}

// TestCSCNotPositiveDefinite: Cholesky must refuse the indefinite nasa1824
// in both variants, at the same column.
func TestCSCNotPositiveDefinite(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "nasa1824", sparse.OrderNatural)
	b := sparseRHS(t, c, 1)
	col := -1
	for _, v := range sparseVariants {
		_, _, err := cscSolve(t, c, false, v, b)
		sparseWantErr(t, "nasa1824 "+string(v), err, ErrNotPositiveDefinite, col)
		if npd, ok := err.(*NotPositiveDefiniteError); ok {
			col = npd.Column
		}
	}
}

// TestCSCZeroPivot: LDLT of a matrix whose pivot p+1 is exactly zero.
func TestCSCZeroPivot(t *testing.T) {
	sparseDevice(t)
	for _, n := range []int{3, 70} {
		p := n - 2
		if n > 40 {
			p = 36
		}
		d := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			d.Set(i, i, 3)
			if i > 0 && i != p && i != p+1 && i-1 != p && i-1 != p+1 {
				d.Set(i, i-1, -1)
				d.Set(i-1, i, -1)
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
			_, _, err := cscSolve(t, z, true, v, b)
			sparseWantErr(t, fmt.Sprintf("n=%d %s", n, v), err, ErrZeroPivot, p+1)
		}
	}
}

// TestCSCReuse solves several right-hand sides with one factor and checks
// that A is left unchanged.
func TestCSCReuse(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "lund_a", sparse.OrderAuto)
	for _, ldlt := range []bool{false, true} {
		for _, v := range sparseVariants {
			label := sksMethod(ldlt) + " " + string(v)
			a := cscUpload(t, c)
			before := sparseHost(t, a.Elements)
			f := newCSCFactor(ldlt)
			if err := f.Factorize(a, v); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			after := sparseHost(t, a.Elements)
			for i := range before {
				if before[i] != after[i] {
					t.Fatalf("%s: Factorize changed A", label)
				}
			}
			for k := 0; k < 3; k++ {
				b := sparseRHS(t, c, uint64(20+k))
				bd := sparseVector(t, b)
				if err := f.SolveTo(bd, bd); err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if be := sparseBackwardError(t, c, sparseHost(t, bd), b); be > 1e-14 {
					t.Errorf("%s rhs %d: backward error %.3g", label, k, be)
				}
			}
			f.Release()
		}
	}
}

// TestCSCErrors covers argument errors, NaN and Inf, use after Release and
// leaks.
func TestCSCErrors(t *testing.T) {
	sparseDevice(t)
	dev, _ := afarray.CurrentDevice()
	c := sparseRandomSPD(50, 5, 3)
	for _, ldlt := range []bool{false, true} {
		for _, v := range sparseVariants {
			label := sksMethod(ldlt) + " " + string(v)
			live := dev.MemoryStats().Live
			t.Run(label, func(t *testing.T) { cscErrorCases(t, c, ldlt, v) })
			if got := dev.MemoryStats().Live; got != live {
				t.Errorf("%s: %d bytes of device memory leaked", label, got-live)
			}
		}
	}
}

func cscErrorCases(t *testing.T, c *sparse.COO, ldlt bool, v Variant) {
	a := cscUpload(t, c)
	f := newCSCFactor(ldlt)
	if err := f.Factorize(nil, v); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("nil matrix: %v", err)
	}
	if _, err := f.Solve(sparseVector(t, make([]float64, 50))); err == nil {
		t.Errorf("Solve before Factorize succeeded")
	}
	if err := f.Factorize(a, Variant("slow")); !errorsIs(err, ErrUnknown) {
		t.Errorf("bad variant: %v", err)
	}
	if err := f.Factorize(a, v); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Solve(sparseVector(t, make([]float64, 49))); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("short b: %v", err)
	}
	if err := f.SolveTo(sparseVector(t, make([]float64, 51)), sparseVector(t, make([]float64, 50))); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("long dst: %v", err)
	}
	nan := make([]float64, 50)
	nan[17] = math.NaN()
	if _, err := f.Solve(sparseVector(t, nan)); !errorsIs(err, ErrNonFinite) || err.(*NonFiniteError).Index != 17 {
		t.Errorf("NaN in b: %v", err)
	}
	f.Release()
	if _, err := f.Solve(sparseVector(t, make([]float64, 50))); err == nil {
		t.Errorf("Solve after Release succeeded")
	}
	h, _ := sparse.CSCFromCOO(c)
	h.Elements[7] = math.NaN()
	bad, err := afarray.UploadCSC(h)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Release()
	if err := f.Factorize(bad, v); !errorsIs(err, ErrNonFinite) || err.(*NonFiniteError).Index != 7 {
		t.Errorf("NaN in the matrix: %v", err)
	}
	f.Release()
}
