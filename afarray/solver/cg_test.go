package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// cgTestFormats builds the three operators of a symmetric COO for a variant
// and returns them with the host matrix.
type cgTestSystem struct {
	name  string
	n     int
	dense *mat.SymDense // nil above order 5000
	ops   map[string]Operator
}

func cgTestBuild(t testing.TB, name string, c *sparse.COO, v Variant) *cgTestSystem {
	t.Helper()
	var d *mat.SymDense
	if c.Rows <= 5000 {
		var err error
		if d, err = c.ToSymDense(); err != nil {
			t.Fatal(err)
		}
	}
	csc, err := sparse.CSCFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	sks, err := sparse.SKSFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	dcsc, err := afarray.UploadCSC(csc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dcsc.Release)
	dsks, err := afarray.UploadSKS(sks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dsks.Release)
	s := &cgTestSystem{name: name, n: c.Rows, dense: d, ops: map[string]Operator{}}
	s.ops["csc"], err = NewCSCOperator(dcsc, v)
	if err != nil {
		t.Fatal(err)
	}
	s.ops["sks"], err = NewSKSOperator(dsks, v)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows <= 2000 {
		s.ops["dense"], err = NewDenseOperator(denseTestUpload(t, d), v)
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		s.ops["csc"].(*CSCOperator).Release()
		s.ops["sks"].(*SKSOperator).Release()
	})
	return s
}

// cgTestRandomSparse returns a random sparse SPD matrix (diagonally
// dominant) with an irregular profile: empty columns, long columns and a
// few far entries, so that the index structures see every case.
func cgTestRandomSparse(n int, seed uint64) *sparse.COO { return cgTestRandomSparseFar(n, seed, true) }

// cgTestRandomSparseFar is cgTestRandomSparse with the far entries (which
// make the skyline nearly full) optional.
func cgTestRandomSparseFar(n int, seed uint64, far bool) *sparse.COO {
	r := rand.New(rand.NewPCG(seed, 3))
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	rowSum := make([]float64, n)
	for j := 0; j < n; j++ {
		k := 0
		switch r.IntN(4) {
		case 1:
			k = 2
		case 2:
			k = 8
		}
		for e := 0; e < k; e++ {
			i := j + 1 + r.IntN(max(1, min(n-j-1, 40)))
			if far && r.IntN(10) == 0 {
				i = j + 1 + r.IntN(max(1, n-j-1))
			}
			if i >= n {
				continue
			}
			v := r.Float64()*2 - 1
			c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
			rowSum[i] += math.Abs(v)
			rowSum[j] += math.Abs(v)
		}
	}
	for i := 0; i < n; i++ {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i)), append(c.V, rowSum[i]+1+r.Float64())
	}
	if err := c.Compact(); err != nil {
		panic(err)
	}
	return c
}

// cgTestTeams runs f with each team size of the row kernels forced, so
// that the team reductions are tested on any device (PoCL picks 1).
func cgTestTeams(t *testing.T, f func(t *testing.T)) {
	defer func() { forceTeam = 0 }()
	for _, team := range []int{1, 4, 32} {
		forceTeam = team
		t.Run("team="+itoa(team), f)
	}
}

func TestSpMVOperators(t *testing.T) { cgTestTeams(t, testSpMVOperators) }

func testSpMVOperators(t *testing.T) {
	systems := map[string]*sparse.COO{
		"random300": cgTestRandomSparse(300, 1),
		"random1":   cgTestRandomSparse(1, 2),
		"random2":   cgTestRandomSparse(2, 2),
		"nos4":      denseTestLoad(t, "nos4"),
		"bcsstk01":  denseTestLoad(t, "bcsstk01"),
		"nasa1824":  denseTestLoad(t, "nasa1824"),
	}
	for name, c := range systems {
		for _, v := range variants {
			s := cgTestBuild(t, name, c, v)
			n := s.dense.SymmetricDim()
			xs := denseTestVec(n, 5)
			var want mat.VecDense
			want.MulVec(s.dense, mat.NewVecDense(n, xs))
			x := denseTestUploadVec(t, xs)
			y, _ := afarray.Zeros(n)
			for fmtName, op := range s.ops {
				if op.N() != n {
					t.Fatalf("%s N = %d, want %d", fmtName, op.N(), n)
				}
				if err := y.Fill(math.NaN()); err != nil {
					t.Fatal(err)
				}
				// Twice: the thesis CSC product must overwrite, not accumulate.
				for rep := 0; rep < 2; rep++ {
					if err := op.MulVecTo(y, x); err != nil {
						t.Fatalf("%s %s %s: %v", name, fmtName, v, err)
					}
				}
				got, _ := y.Float64s()
				for i := range got {
					if d := math.Abs(got[i] - want.AtVec(i)); !(d <= 1e-12*(1+math.Abs(want.AtVec(i)))) {
						t.Fatalf("%s %s %s: y[%d] = %g, want %g", name, fmtName, v, i, got[i], want.AtVec(i))
					}
				}
				// The diagonal, for Jacobi.
				if err := op.(Diagonaler).DiagonalTo(y); err != nil {
					t.Fatal(err)
				}
				got, _ = y.Float64s()
				for i := range got {
					if got[i] != s.dense.At(i, i) {
						t.Fatalf("%s %s %s: diag[%d] = %g, want %g", name, fmtName, v, i, got[i], s.dense.At(i, i))
					}
				}
				if err := op.MulVecTo(x, x); !errors.Is(err, afarray.ErrShape) {
					t.Errorf("%s: aliased product: %v", fmtName, err)
				}
			}
			y.Release()
		}
	}
}

// cgTestTrueResidual returns ||b - A x|| / ||b||.
func cgTestTrueResidual(a mat.Symmetric, x, b []float64) float64 {
	n := len(b)
	var r mat.VecDense
	r.MulVec(a, mat.NewVecDense(n, x))
	r.SubVec(mat.NewVecDense(n, b), &r)
	return mat.Norm(&r, 2) / mat.Norm(mat.NewVecDense(n, b), 2)
}

func TestCGFast(t *testing.T) { cgTestTeams(t, testCGFast) }

func testCGFast(t *testing.T) {
	cases := []struct {
		name   string
		c      *sparse.COO
		jacobi bool
	}{
		{"mesh1e1", denseTestLoad(t, "mesh1e1"), false},
		{"LF10", denseTestLoad(t, "LF10"), true},
		{"nos4", denseTestLoad(t, "nos4"), true},
		{"bcsstk01", denseTestLoad(t, "bcsstk01"), true},
		{"random300", cgTestRandomSparse(300, 9), false},
	}
	const tol = 1e-10
	for _, tc := range cases {
		s := cgTestBuild(t, tc.name, tc.c, Fast)
		n := s.dense.SymmetricDim()
		b := denseTestVec(n, 77)
		db := denseTestUploadVec(t, b)
		xref, cond := denseTestReference(t, s.dense, b)
		iters := map[string]int{}
		for fmtName, op := range s.ops {
			x, res, err := CG(op, db, CGOptions{Tol: tol, Jacobi: tc.jacobi})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, fmtName, err)
			}
			xs, _ := x.Float64s()
			x.Release()
			if rr := cgTestTrueResidual(s.dense, xs, b); rr > 10*tol {
				t.Errorf("%s %s: true relative residual %.3g after %d iterations", tc.name, fmtName, rr, res.Iterations)
			}
			if !res.Converged || res.Residual > tol || len(res.History) != res.Iterations+1 || res.History[0] != 1 || res.History[res.Iterations] != res.Residual {
				t.Errorf("%s %s: result %+v", tc.name, fmtName, res)
			}
			if res.Iterations > 0 && res.History[res.Iterations-1] <= tol {
				t.Errorf("%s %s: stopped one iteration late", tc.name, fmtName)
			}
			// The forward error is bounded by cond times the residual.
			maxd := 0.0
			for i := range xs {
				maxd = math.Max(maxd, math.Abs(xs[i]-xref[i]))
			}
			if xn := mat.Norm(mat.NewVecDense(n, xref), math.Inf(1)); maxd > 10*cond*tol*math.Max(xn, 1) {
				t.Errorf("%s %s: max|x-xref| = %.3g (cond %.3g)", tc.name, fmtName, maxd, cond)
			}
			iters[fmtName] = res.Iterations
			t.Logf("%s (n=%d, jacobi %v) %s: %d iterations, %d launches, residual %.2g", tc.name, n, tc.jacobi, fmtName, res.Iterations, res.Launches, res.Residual)
		}
		// The formats compute the same products, so their iteration counts
		// agree to within rounding.
		if d := iters["csc"] - iters["sks"]; d > 2 || d < -2 {
			t.Errorf("%s: CSC %d vs SKS %d iterations", tc.name, iters["csc"], iters["sks"])
		}
	}
}

// opaque hides an operator's concrete type so that CG takes its generic
// path through MulVecTo.
type opaque struct{ Operator }

type opaqueDiag struct {
	Operator
	Diagonaler
}

func TestCGGenericOperator(t *testing.T) {
	s := cgTestBuild(t, "nos4", denseTestLoad(t, "nos4"), Fast)
	n := s.dense.SymmetricDim()
	b := denseTestVec(n, 3)
	db := denseTestUploadVec(t, b)
	op := s.ops["csc"]
	x1, r1, err := CG(op, db, CGOptions{Tol: 1e-10, Jacobi: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x1.Release()
	x2, r2, err := CG(opaqueDiag{op, op.(Diagonaler)}, db, CGOptions{Tol: 1e-10, Jacobi: true, CheckEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer x2.Release()
	if d := r1.Iterations - r2.Iterations; d > 1 || d < -1 {
		t.Errorf("fused %d vs generic %d iterations", r1.Iterations, r2.Iterations)
	}
	a, _ := x1.Float64s()
	c, _ := x2.Float64s()
	for i := range a {
		if math.Abs(a[i]-c[i]) > 1e-8*math.Max(1, math.Abs(a[i])) {
			t.Fatalf("fused and generic CG differ at %d: %g vs %g", i, a[i], c[i])
		}
	}
	if _, _, err := CG(opaque{op}, db, CGOptions{Jacobi: true}); err == nil {
		t.Error("Jacobi accepted an operator without a diagonal")
	}
	t.Logf("fused: %d iterations, %d launches; generic: %d iterations, %d launches", r1.Iterations, r1.Launches, r2.Iterations, r2.Launches)
}

func TestCGCheckEvery(t *testing.T) {
	s := cgTestBuild(t, "mesh1e1", denseTestLoad(t, "mesh1e1"), Fast)
	db := denseTestUploadVec(t, denseTestVec(s.dense.SymmetricDim(), 8))
	var want []float64
	for _, every := range []int{1, 3, 10, 1000} {
		x, res, err := CG(s.ops["sks"], db, CGOptions{CheckEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		xs, _ := x.Float64s()
		x.Release()
		if want == nil {
			want = xs
			continue
		}
		for i := range xs {
			if xs[i] != want[i] {
				t.Fatalf("CheckEvery %d changed the solution (%d iterations)", every, res.Iterations)
			}
		}
	}
}

func TestCGThesis(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *sparse.COO
	}{
		{"mesh1e1", denseTestLoad(t, "mesh1e1")},
		{"random300", cgTestRandomSparse(300, 4)},
	} {
		s := cgTestBuild(t, tc.name, tc.c, Thesis)
		n := s.dense.SymmetricDim()
		b := denseTestVec(n, 12)
		db := denseTestUploadVec(t, b)
		for fmtName, op := range s.ops {
			x, res, err := CG(op, db, CGOptions{Variant: Thesis, Tol: 1e-9})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, fmtName, err)
			}
			xs, _ := x.Float64s()
			x.Release()
			bn := mat.Norm(mat.NewVecDense(n, b), 2)
			if rr := cgTestTrueResidual(s.dense, xs, b) * bn; rr > 1e-8 {
				t.Errorf("%s %s: true residual %.3g", tc.name, fmtName, rr)
			}
			if res.Iterations > n || len(res.History) != res.Iterations || res.Residual > 1e-9 {
				t.Errorf("%s %s: %+v", tc.name, fmtName, res)
			}
			t.Logf("%s (n=%d) thesis %s: %d iterations, %d launches (%.1f per iteration)", tc.name, n, fmtName, res.Iterations, res.Launches, float64(res.Launches)/float64(res.Iterations))
		}
	}
}

func TestCGNotConverged(t *testing.T) {
	for _, v := range variants {
		s := cgTestBuild(t, "nos4", denseTestLoad(t, "nos4"), v)
		db := denseTestUploadVec(t, denseTestVec(100, 1))
		x, res, err := CG(s.ops["csc"], db, CGOptions{Variant: v, MaxIter: 3, Tol: 1e-12})
		var nc *NotConvergedError
		if !errors.As(err, &nc) || !errors.Is(err, ErrNotConverged) {
			t.Fatalf("%s: %v, want NotConvergedError", v, err)
		}
		if x == nil || res == nil || res.Converged || res.Iterations != 3 || nc.Iterations != 3 || nc.Residual != res.Residual {
			t.Fatalf("%s: x %v, result %+v, error %+v", v, x, res, nc)
		}
		x.Release()
	}
}

func TestCGErrors(t *testing.T) {
	s := cgTestBuild(t, "mesh1e1", denseTestLoad(t, "mesh1e1"), Fast)
	n := s.dense.SymmetricDim()
	b := denseTestVec(n, 1)
	b[7] = math.NaN()
	for _, v := range variants {
		_, _, err := CG(s.ops["csc"], denseTestUploadVec(t, b), CGOptions{Variant: v})
		var nf *NonFiniteError
		if !errors.As(err, &nf) || nf.Where != "right-hand side" || nf.Index != 7 {
			t.Errorf("%s NaN rhs: %v", v, err)
		}
	}
	short := denseTestUploadVec(t, make([]float64, n-1))
	if _, _, err := CG(s.ops["sks"], short, CGOptions{}); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("short rhs: %v", err)
	}
	if _, _, err := CG(s.ops["sks"], short, CGOptions{Variant: "x"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("bad variant: %v", err)
	}
	// A zero right-hand side converges at once to zero.
	x, res, err := CG(s.ops["dense"], denseTestUploadVec(t, make([]float64, n)), CGOptions{})
	if err != nil || res.Iterations != 0 {
		t.Fatalf("zero rhs: %v %+v", err, res)
	}
	if m, _ := afarray.MaxAbs(x); m != 0 {
		t.Errorf("zero rhs gave |x| = %g", m)
	}
	x.Release()
	// A matrix with NaN is refused by the operator constructors.
	csc, err := sparse.CSCFromCOO(denseTestLoad(t, "mesh1e1"))
	if err != nil {
		t.Fatal(err)
	}
	csc.Elements[3] = math.Inf(-1)
	dcsc, err := afarray.UploadCSC(csc)
	if err != nil {
		t.Fatal(err)
	}
	defer dcsc.Release()
	if _, err := NewCSCOperator(dcsc, Fast); !errors.Is(err, ErrNonFinite) {
		t.Errorf("Inf in CSC: %v", err)
	}
	// Released operands.
	op := s.ops["csc"].(*CSCOperator)
	sks := s.ops["sks"].(*SKSOperator)
	gone, _ := afarray.Zeros(n)
	gone.Release()
	if _, _, err := CG(op, gone, CGOptions{}); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("released rhs: %v", err)
	}
	dsks := sks.m
	dsks.Release()
	if err := sks.MulVecTo(short, short); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("released matrix: %v", err)
	}
	if _, err := NewSKSOperator(dsks, Fast); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("released SKS: %v", err)
	}
}

// An indefinite matrix breaks CG down or stalls it; either way it must not
// return a NaN solution silently.
func TestCGIndefinite(t *testing.T) {
	c := denseTestLoad(t, "nasa1824")
	csc, _ := sparse.CSCFromCOO(c)
	d, _ := afarray.UploadCSC(csc)
	defer d.Release()
	db := denseTestUploadVec(t, denseTestVec(csc.N, 2))
	for _, v := range variants {
		iters := 200
		if v == Thesis {
			iters = 20 // the thesis's product costs about 40 ms here on PoCL
		}
		x, res, err := CGCSC(d, db, CGOptions{Variant: v, MaxIter: iters})
		if err == nil {
			t.Logf("%s: converged?! %+v", v, res)
		}
		if x != nil {
			xs, _ := x.Float64s()
			for _, e := range xs {
				if math.IsNaN(e) || math.IsInf(e, 0) {
					t.Fatalf("%s: NaN solution returned with error %v", v, err)
				}
			}
			x.Release()
		}
		t.Logf("%s on nasa1824: %v", v, err)
	}
}
