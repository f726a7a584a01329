package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// Helpers shared by the skyline and CSC solver tests and benchmarks.

// sparseMatrixDir is where the real test matrices live: $OCLSOLVE_MATRICES,
// else the shared folder beside the repository.
func sparseMatrixDir() string {
	if d := os.Getenv("OCLSOLVE_MATRICES"); d != "" {
		return d
	}
	return "../../../shared/matrices"
}

// sparseLoad reads a matrix by name (without .mtx) and reorders it with the
// named ordering (sparse.Order), returning the symmetric COO.
func sparseLoad(tb testing.TB, name string, ordering sparse.Ordering) *sparse.COO {
	tb.Helper()
	path := filepath.Join(sparseMatrixDir(), name+".mtx")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("matrix %s not available: %v", name, err)
	}
	defer f.Close()
	c, err := sparse.ReadMatrixMarket(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if ordering != "" && ordering != sparse.OrderNatural {
		perm, _, err := sparse.Order(c, ordering)
		if err != nil {
			tb.Fatal(err)
		}
		if c, err = c.Permute(perm); err != nil {
			tb.Fatal(err)
		}
	}
	return c
}

// sparseLowerSym returns c's lower triangle marked symmetric: the matrix
// whose lower (or upper) triangle, or both, c holds.
func sparseLowerSym(tb testing.TB, c *sparse.COO) *sparse.COO {
	tb.Helper()
	l, err := c.Lower()
	if err != nil {
		tb.Fatal(err)
	}
	l.Symmetric = true
	return l
}

// sparseMulVec returns A x for the symmetric matrix whose lower (or upper)
// triangle, or both, c holds.
func sparseMulVec(tb testing.TB, c *sparse.COO, x []float64) []float64 {
	tb.Helper()
	y, err := sparseLowerSym(tb, c).MulVec(x)
	if err != nil {
		tb.Fatal(err)
	}
	return y
}

// sparseBackwardError is the normwise backward error of x for A x = b:
// ‖b − A x‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞).
func sparseBackwardError(tb testing.TB, c *sparse.COO, x, b []float64) float64 {
	tb.Helper()
	be, err := sparse.BackwardErrorOf(sparseLowerSym(tb, c), x, b)
	if err != nil {
		tb.Fatal(err)
	}
	return be
}

// sparseRHS returns b = A·(1, 1, ..., 1) plus a little noise, so that the
// solution is of order one and not trivially structured.
func sparseRHS(tb testing.TB, c *sparse.COO, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, c.Rows)
	for i := range x {
		x[i] = 1 + 0.1*r.Float64()
	}
	return sparseMulVec(tb, c, x)
}

// sparseRandomSPD returns a random sparse SPD matrix of order n (as a
// symmetric lower COO) whose entries lie within bandwidth bw of the
// diagonal, with some longer off-band entries, made diagonally dominant.
func sparseRandomSPD(n, bw int, seed uint64) *sparse.COO {
	r := rand.New(rand.NewPCG(seed, 11))
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	diag := make([]float64, n)
	add := func(i, j int, v float64) {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
		diag[i] += math.Abs(v)
		diag[j] += math.Abs(v)
	}
	for j := 0; j < n; j++ {
		for i := j + 1; i < min(n, j+bw+1); i++ {
			if r.Float64() < 0.4 {
				add(i, j, r.Float64()*2-1)
			}
		}
		if r.Float64() < 0.05 && j+bw+1 < n {
			add(j+bw+1+r.IntN(n-j-bw-1), j, r.Float64()*2-1)
		}
	}
	for i := 0; i < n; i++ {
		add(i, i, 0) // placeholder, fixed below
		c.V[len(c.V)-1] = diag[i] + 0.5 + r.Float64()
	}
	return c
}

// sparseGonumSolve solves the system with gonum's dense Cholesky, or LU when
// the matrix is not positive definite.
func sparseGonumSolve(tb testing.TB, c *sparse.COO, b []float64) []float64 {
	tb.Helper()
	s, err := c.ToSymDense()
	if err != nil {
		tb.Fatal(err)
	}
	var x mat.VecDense
	var ch mat.Cholesky
	if ch.Factorize(s) {
		if err := ch.SolveVecTo(&x, mat.NewVecDense(len(b), b)); err != nil {
			tb.Fatal(err)
		}
		return x.RawVector().Data
	}
	var lu mat.LU
	lu.Factorize(s)
	if err := lu.SolveVecTo(&x, false, mat.NewVecDense(len(b), b)); err != nil {
		tb.Fatal(err)
	}
	return x.RawVector().Data
}

// sparseThesisCriterion checks the thesis's validation (§5.6): the largest
// absolute difference at most 1e-9 and the 2-norm of the difference at
// most 1e-5.
func sparseThesisCriterion(tb testing.TB, label string, x, ref []float64) {
	tb.Helper()
	var mx, n2 float64
	for i := range x {
		d := math.Abs(x[i] - ref[i])
		mx, n2 = max(mx, d), n2+d*d
	}
	if mx > 1e-9 || math.Sqrt(n2) > 1e-5 || math.IsNaN(mx) {
		tb.Errorf("%s: differs from gonum: max %.3g, 2-norm %.3g", label, mx, math.Sqrt(n2))
	}
}

func sparseVector(tb testing.TB, v []float64) *afarray.Array {
	tb.Helper()
	a, err := afarray.FromFloat64s(v)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Release)
	return a
}

func sparseHost(tb testing.TB, a *afarray.Array) []float64 {
	tb.Helper()
	v, err := a.Float64s()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// sparseDevice fails the test when no OpenCL device is available.
func sparseDevice(tb testing.TB) {
	tb.Helper()
	if _, err := afarray.CurrentDevice(); err != nil {
		tb.Fatalf("no OpenCL device: %v", err)
	}
}

// sparseWantErr checks err against a sentinel and, for the pivot errors,
// the column.
func sparseWantErr(tb testing.TB, label string, err, want error, column int) {
	tb.Helper()
	if !errors.Is(err, want) {
		tb.Fatalf("%s: got error %v, want %v", label, err, want)
	}
	var npd *NotPositiveDefiniteError
	var zp *ZeroPivotError
	switch {
	case errors.As(err, &npd) && column >= 0 && npd.Column != column:
		tb.Errorf("%s: not positive definite at column %d, want %d", label, npd.Column, column)
	case errors.As(err, &zp) && column >= 0 && zp.Column != column:
		tb.Errorf("%s: zero pivot at column %d, want %d", label, zp.Column, column)
	}
}

var sparseVariants = []Variant{Thesis, Fast}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
