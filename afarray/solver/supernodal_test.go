package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// snFactorizer is what the tests need of SupernodalCholesky and
// SupernodalLDLT.
type snFactorizer interface {
	Factorize(a *afarray.CSC, ordering sparse.Ordering) error
	SolveTo(dst, b *afarray.Array) error
	Solve(b *afarray.Array) (*afarray.Array, error)
	SupernodalStats() SupernodalStats
	Release()
}

func newSNFactor(ldlt bool) snFactorizer {
	if ldlt {
		return &SupernodalLDLT{}
	}
	return &SupernodalCholesky{}
}

func snSolve(tb testing.TB, c *sparse.COO, ldlt bool, ordering sparse.Ordering, b []float64) ([]float64, SupernodalStats, error) {
	tb.Helper()
	a := cscUpload(tb, c)
	f := newSNFactor(ldlt)
	defer f.Release()
	if err := f.Factorize(a, ordering); err != nil {
		return nil, f.SupernodalStats(), err
	}
	x, err := f.Solve(sparseVector(tb, b))
	if err != nil {
		return nil, f.SupernodalStats(), err
	}
	defer x.Release()
	return sparseHost(tb, x), f.SupernodalStats(), nil
}

// TestSupernodalL compares the supernodal L (every ordering, fronts small
// and large) with gonum's dense Cholesky of the permuted matrix, and LDLᵀ's
// unit L and D with it too (L_chol = L_ldlt sqrt(D)).
func TestSupernodalL(t *testing.T) {
	sparseDevice(t)
	for _, tc := range []struct{ n, bw int }{{1, 1}, {7, 3}, {60, 8}, {150, 40}, {300, 120}} {
		c := sparseRandomSPD(tc.n, tc.bw, uint64(tc.n))
		a := cscUpload(t, c)
		for _, ord := range []sparse.Ordering{sparse.OrderNatural, sparse.OrderAMD, sparse.OrderND, sparse.OrderRCM} {
			label := fmt.Sprintf("n=%d bw=%d %s", tc.n, tc.bw, ord)
			var ch SupernodalCholesky
			if err := ch.Factorize(a, ord); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			sym, lv, err := ch.L()
			if err != nil {
				t.Fatal(err)
			}
			var ld SupernodalLDLT
			if err := ld.Factorize(a, ord); err != nil {
				t.Fatalf("%s ldlt: %v", label, err)
			}
			_, dv, err := ld.LD()
			if err != nil {
				t.Fatal(err)
			}
			ch.Release()
			ld.Release()
			pc, err := c.Permute(sym.Perm)
			if err != nil {
				t.Fatal(err)
			}
			s, err := pc.ToSymDense()
			if err != nil {
				t.Fatal(err)
			}
			var g mat.Cholesky
			if !g.Factorize(s) {
				t.Fatalf("%s: gonum says not SPD", label)
			}
			var ref mat.TriDense
			g.LTo(&ref)
			dense := func(v []float64, ldlt bool) *mat.Dense {
				out := mat.NewDense(tc.n, tc.n, nil)
				for k := 0; k < sym.NS; k++ {
					f0, ns, F := sym.Front(k)
					rows := sym.Rows[sym.RowPtr[k]:sym.RowPtr[k+1]]
					for j := 0; j < ns; j++ {
						d := v[sym.LPtr[k]+int64(j*F+j)]
						for q := j; q < F; q++ {
							x := v[sym.LPtr[k]+int64(j*F+q)]
							if ldlt {
								if q == j {
									x = math.Sqrt(d)
								} else {
									x *= math.Sqrt(d)
								}
							}
							out.Set(int(rows[q]), f0+j, x)
						}
					}
				}
				return out
			}
			for _, m := range []struct {
				what string
				l    *mat.Dense
			}{{"cholesky", dense(lv, false)}, {"ldlt", dense(dv, true)}} {
				var diff mat.Dense
				diff.Sub(m.l, &ref)
				if e := mat.Norm(&diff, math.Inf(1)) / mat.Norm(&ref, math.Inf(1)); e > 1e-13 || math.IsNaN(e) {
					t.Errorf("%s %s: L differs from gonum's by %.3g", label, m.what, e)
				}
			}
		}
	}
}

// snMatrices lists the shared matrices with the largest for the solves.
var snMatrices = []string{"LFAT5", "LF10", "bcsstk01", "mesh1e1", "bcsstk02", "nos4", "bcsstk03",
	"lund_a", "nos3", "nasa1824", "bcsstk13", "bcsstk24", "bcsstk15", "msc04515", "crystm01",
	"bcsstk16", "bcsstk38"}

// TestSupernodalMatrices solves every shared matrix (Cholesky on the SPD
// ones, LDLᵀ on all) with the automatic ordering: backward error <= 1e-14,
// and the same solution as gonum's dense solver on the small ones and as
// the CSC Cholesky on the others.
func TestSupernodalMatrices(t *testing.T) {
	sparseDevice(t)
	for _, name := range snMatrices {
		c := sparseLoad(t, name, sparse.OrderNatural)
		b := sparseRHS(t, c, 3)
		var ref []float64
		if c.Rows <= 1000 {
			ref = sparseGonumSolve(t, c, b)
		} else if name != "nasa1824" {
			var err error
			if ref, _, err = cscSolve(t, c, false, Fast, b); err != nil {
				t.Fatal(err)
			}
		}
		for _, ldlt := range []bool{false, true} {
			label := fmt.Sprintf("%s %s", name, sksMethod(ldlt))
			x, st, err := snSolve(t, c, ldlt, sparse.OrderFillAuto, b)
			if name == "nasa1824" && !ldlt {
				sparseWantErr(t, label, err, ErrNotPositiveDefinite, -1)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			be := sparseBackwardError(t, c, x, b)
			// nasa1824 is numerically indefinite (Cholesky meets a
			// negative pivot in every order); LDLᵀ without pivoting
			// solves it with some element growth.
			limit := 1e-14
			if name == "nasa1824" {
				limit = 1e-12
			}
			if be > limit || math.IsNaN(be) {
				t.Errorf("%s: backward error %.3g", label, be)
			}
			switch {
			case ref != nil && c.Rows <= 1000:
				sparseThesisCriterion(t, label, x, ref)
			case ref != nil:
				// bcsstk24 and bcsstk38 are ill-conditioned: two
				// backward-stable solvers agree to ~1e-8 there.
				var d2, r2 float64
				for i := range x {
					d2 += (x[i] - ref[i]) * (x[i] - ref[i])
					r2 += ref[i] * ref[i]
				}
				if rel := math.Sqrt(d2 / r2); rel > 1e-6 || math.IsNaN(rel) {
					t.Errorf("%s: differs from the CSC Cholesky by %.3g (relative 2-norm)", label, rel)
				}
			}
			t.Logf("%s: n=%d %s nnz(L)=%d supernodes %d levels %d, backward error %.2g, factor %v (%d launches), solve %v (%d launches)",
				label, c.Rows, st.Ordering, st.NNZL, st.Supernodes, st.Levels, be, st.FactorTime, st.FactorLaunches, st.SolveTime, st.SolveLaunches)
		}
	}
}

// TestSupernodalModels solves the generated FE models (both, a few
// thousand unknowns) with every ordering.
func TestSupernodalModels(t *testing.T) {
	sparseDevice(t)
	m1, err := fem.Model1(fem.Model1Options{NX: 24, NY: 3, NZ: 6})
	if err != nil {
		t.Fatal(err)
	}
	a, b, cc, _, err := fem.Model2ForOrder(3534)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := fem.Model2(fem.Model2Options{A: a, B: b, C: cc})
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range []*fem.System{m1, m2} {
		c := sys.K
		rhs := sparseRHS(t, c, 5)
		for _, ord := range []sparse.Ordering{sparse.OrderAMD, sparse.OrderND, sparse.OrderRCM} {
			for _, ldlt := range []bool{false, true} {
				label := fmt.Sprintf("%s %s %s", sys.FileName(), ord, sksMethod(ldlt))
				x, st, err := snSolve(t, c, ldlt, ord, rhs)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if be := sparseBackwardError(t, c, x, rhs); be > 1e-14 || math.IsNaN(be) {
					t.Errorf("%s: backward error %.3g", label, be)
				}
				t.Logf("%s: n=%d nnz(L)=%d flops %.3g supernodes %d levels %d factor %v (%d launches) solve %v",
					label, c.Rows, st.NNZL, st.Flops, st.Supernodes, st.Levels, st.FactorTime, st.FactorLaunches, st.SolveTime)
			}
		}
	}
}

// TestSupernodalNotPositiveDefinite: in the natural order the supernodal
// Cholesky must stop at the same column of nasa1824 as the CSC Cholesky;
// in any order the column it names must be in the matrix's own numbering,
// which the permuted leading block test confirms.
func TestSupernodalNotPositiveDefinite(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "nasa1824", sparse.OrderNatural)
	b := sparseRHS(t, c, 1)
	_, _, err := cscSolve(t, c, false, Fast, b)
	npd, ok := err.(*NotPositiveDefiniteError)
	if !ok {
		t.Fatalf("CSC Cholesky of nasa1824: %v", err)
	}
	_, _, err = snSolve(t, c, false, sparse.OrderNatural, b)
	sparseWantErr(t, "nasa1824 natural", err, ErrNotPositiveDefinite, npd.Column)
	// A matrix SPD except one column: the error names it whatever the
	// ordering.
	n := 200
	d := sparseRandomSPD(n, 10, 9)
	bad := 123
	for k := range d.V {
		if d.I[k] == int32(bad) && d.J[k] == int32(bad) {
			d.V[k] = -1
		}
	}
	for _, ord := range []sparse.Ordering{sparse.OrderAMD, sparse.OrderND} {
		_, _, err := snSolve(t, d, false, ord, make([]float64, n))
		if !errorsIs(err, ErrNotPositiveDefinite) {
			t.Fatalf("%s: %v", ord, err)
		}
		e := err.(*NotPositiveDefiniteError)
		// Every failure comes from column 123's negative diagonal: either
		// that column, or (when it is eliminated after its neighbours)
		// still that column, since the others' Schur complements stay
		// positive.
		if e.Column != bad {
			t.Errorf("%s: failed at column %d, want %d", ord, e.Column, bad)
		}
	}
}

// TestSupernodalZeroPivot: LDLᵀ reports an exact zero pivot by column.
func TestSupernodalZeroPivot(t *testing.T) {
	sparseDevice(t)
	n := 5
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 2)
	}
	d.Set(3, 3, 0)
	z, err := sparse.COOFromDense(d)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = snSolve(t, z, true, sparse.OrderNatural, make([]float64, n))
	sparseWantErr(t, "zero pivot", err, ErrZeroPivot, 3)
}

// TestSupernodalManyRHS solves several right-hand sides in one call and
// reuses the factor.
func TestSupernodalManyRHS(t *testing.T) {
	sparseDevice(t)
	c := sparseLoad(t, "bcsstk13", sparse.OrderNatural)
	a := cscUpload(t, c)
	const k = 3
	r := rand.New(rand.NewPCG(1, 2))
	bs := make([][]float64, k)
	all := make([]float64, 0, k*c.Rows)
	for j := range bs {
		bs[j] = make([]float64, c.Rows)
		for i := range bs[j] {
			bs[j][i] = r.Float64() - 0.5
		}
		all = append(all, bs[j]...)
	}
	B, err := afarray.FromFloat64s(all, c.Rows, k)
	if err != nil {
		t.Fatal(err)
	}
	defer B.Release()
	for i, ldlt := range []bool{false, true, false, true} {
		// The second pair sends every supernode of more than 2000
		// entries through the blocked device-wide solves.
		if i >= 2 {
			defer func(v int64) { snSolveLarge = v }(snSolveLarge)
			snSolveLarge = 2000
		}
		f := newSNFactor(ldlt)
		if err := f.Factorize(a, ""); err != nil {
			t.Fatal(err)
		}
		X, err := f.Solve(B)
		if err != nil {
			t.Fatal(err)
		}
		xs := sparseHost(t, X)
		X.Release()
		for j := range bs {
			if be := sparseBackwardError(t, c, xs[j*c.Rows:(j+1)*c.Rows], bs[j]); be > 1e-14 {
				t.Errorf("%s rhs %d: backward error %.3g", sksMethod(ldlt), j, be)
			}
		}
		// In place, one column.
		x := sparseVector(t, bs[1])
		if err := f.SolveTo(x, x); err != nil {
			t.Fatal(err)
		}
		if be := sparseBackwardError(t, c, sparseHost(t, x), bs[1]); be > 1e-14 {
			t.Errorf("%s in place: backward error %.3g", sksMethod(ldlt), be)
		}
		f.Release()
		if _, err := f.Solve(x); !errorsIs(err, afarray.ErrReleased) {
			t.Errorf("solve after release: %v", err)
		}
	}
}

// TestSupernodalErrors: NaN in A or b, wrong shapes, unknown ordering.
func TestSupernodalErrors(t *testing.T) {
	sparseDevice(t)
	c := sparseRandomSPD(50, 5, 3)
	a := cscUpload(t, c)
	var f SupernodalCholesky
	defer f.Release()
	if err := f.Factorize(a, "colamd"); !errorsIs(err, sparse.ErrUnsupported) {
		t.Errorf("unknown ordering: %v", err)
	}
	if err := f.Factorize(a, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Solve(sparseVector(t, make([]float64, 49))); !errorsIs(err, afarray.ErrShape) {
		t.Errorf("short b: %v", err)
	}
	b := make([]float64, 50)
	b[7] = math.NaN()
	if _, err := f.Solve(sparseVector(t, b)); !errorsIs(err, ErrNonFinite) {
		t.Errorf("NaN in b: %v", err)
	}
	h, err := sparse.CSCFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	h.Elements[h.DiagPos[10]] = math.Inf(1)
	bad, err := afarray.UploadCSC(h)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Release()
	if err := f.Factorize(bad, ""); !errorsIs(err, ErrNonFinite) {
		t.Errorf("Inf in A: %v", err)
	}
}

// TestSupernodalTooLarge: a factor beyond the device is refused before
// anything of its size is allocated: an arrow matrix (column 0 full) in
// natural order has a dense L, here larger than the device's largest
// allocation.
func TestSupernodalTooLarge(t *testing.T) {
	sparseDevice(t)
	dev, err := afarray.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	// An order whose dense L exceeds the device's largest allocation.
	n := int(math.Sqrt(float64(dev.Info().MaxAllocBytes)/4)) + 100
	if n > 40000 {
		t.Skipf("device allows %d-byte allocations: the test matrix would be too large to build quickly", dev.Info().MaxAllocBytes)
	}
	// Column 0 couples to every row: natural order fills L completely.
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	for i := 0; i < n; i++ {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i)), append(c.V, float64(n))
		if i > 0 {
			c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, 0), append(c.V, 1)
		}
	}
	a := cscUpload(t, c)
	var f SupernodalCholesky
	defer f.Release()
	err = f.Factorize(a, sparse.OrderNatural)
	if !errorsIs(err, kernels.ErrOutOfMemory) {
		t.Fatalf("dense L of order %d: %v", n, err)
	}
}

// TestSupernodalGPUPlan runs the GPU launch plan on the test device too
// (snGPUKernels): sn_syrk with the next diagonal block factored by its tile
// (0, 0) group instead of a POTRF launch, the assembly over 256 items; the
// answers must be as accurate, and a failing pivot found there must name
// the same column as the default plan.
func TestSupernodalGPUPlan(t *testing.T) {
	sparseDevice(t)
	defer func(v bool) { snGPUKernels = v }(snGPUKernels)
	for _, name := range []string{"bcsstk16", "bcsstk13"} {
		c := sparseLoad(t, name, sparse.OrderNatural)
		b := sparseRHS(t, c, 1)
		for _, ldlt := range []bool{false, true} {
			snGPUKernels = true
			x, st, err := snSolve(t, c, ldlt, sparse.OrderFillAuto, b)
			snGPUKernels = false
			if err != nil {
				t.Fatalf("%s %s: %v", name, sksMethod(ldlt), err)
			}
			if be := sparseBackwardError(t, c, x, b); be > 1e-14 {
				t.Errorf("%s %s: backward error %.3g", name, sksMethod(ldlt), be)
			}
			x0, st0, err := snSolve(t, c, ldlt, sparse.OrderFillAuto, b)
			if err != nil {
				t.Fatal(err)
			}
			// On a GPU both runs take the GPU plan.
			if dev, _ := afarray.CurrentDevice(); dev.Info().Type == "CPU" && st.FactorLaunches >= st0.FactorLaunches && st0.Supernodes > 1 {
				t.Errorf("%s %s: %d launches on the GPU plan, %d on the CPU one", name, sksMethod(ldlt), st.FactorLaunches, st0.FactorLaunches)
			}
			for i := range x {
				if d := math.Abs(x[i] - x0[i]); d > 1e-8*(1+math.Abs(x0[i])) {
					t.Fatalf("%s %s: x[%d] = %g on the GPU plan, %g on the CPU one", name, sksMethod(ldlt), i, x[i], x0[i])
				}
			}
		}
	}
	// A negative pivot inside a large front's later block column: both
	// plans stop at the same column.
	n := 300
	d := sparseRandomSPD(n, n, 5)
	for k := range d.V {
		if d.I[k] == d.J[k] && d.I[k] == int32(n-10) {
			d.V[k] = -1
		}
	}
	_, _, err0 := snSolve(t, d, false, sparse.OrderNatural, make([]float64, n))
	snGPUKernels = true
	_, _, err1 := snSolve(t, d, false, sparse.OrderNatural, make([]float64, n))
	snGPUKernels = false
	e0, ok0 := err0.(*NotPositiveDefiniteError)
	e1, ok1 := err1.(*NotPositiveDefiniteError)
	if !ok0 || !ok1 || e0.Column != e1.Column {
		t.Fatalf("not positive definite: CPU plan %v, GPU plan %v", err0, err1)
	}
}
