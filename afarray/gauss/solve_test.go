package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

func testDevice(t testing.TB) *kernels.Device {
	t.Helper()
	d, err := kernels.Default()
	if err != nil {
		t.Fatalf("no OpenCL device: %v", err)
	}
	return d
}

// randomSystem returns a seeded random n x n matrix with entries in [-1, 1)
// and a right-hand side. With dominant, the diagonal is raised so that the
// matrix is strictly diagonally dominant (safe without pivoting).
func randomSystem(n int, seed uint64, dominant bool) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, 2*rng.Float64()-1)
		}
		if dominant {
			a.Set(i, i, float64(n)+1)
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	return a, b
}

// backwardError returns ||A x - b|| / (||A|| ||x|| + ||b||) in the infinity
// norm: the normwise backward error of x, which a stable solver keeps at a
// small multiple of the unit roundoff.
func backwardError(a mat.Matrix, x, b []float64) float64 {
	var ax mat.VecDense
	ax.MulVec(a, mat.NewVecDense(len(x), x))
	return sparse.BackwardError(mat.Norm(a, math.Inf(1)), ax.RawVector().Data, x, b)
}

// solveBackwardError solves A x = b with lu (a failed solve fails the
// test) and returns x with its backward error (backwardError).
func solveBackwardError(t testing.TB, lu *LU, a mat.Matrix, b []float64) ([]float64, float64) {
	t.Helper()
	x := make([]float64, len(b))
	if err := lu.SolveVecTo(x, b); err != nil {
		t.Fatal(err)
	}
	return x, backwardError(a, x, b)
}

// gonumSolve is the independent reference: gonum's LU with partial pivoting.
func gonumSolve(t testing.TB, a *mat.Dense, b []float64) []float64 {
	var lu mat.LU
	lu.Factorize(a)
	var x mat.VecDense
	if err := lu.SolveVecTo(&x, false, mat.NewVecDense(len(b), append([]float64(nil), b...))); err != nil {
		t.Fatalf("gonum LU: %v", err)
	}
	return x.RawVector().Data
}

func relDiff(x, ref []float64) float64 {
	var d, m float64
	for i := range x {
		d = math.Max(d, math.Abs(x[i]-ref[i]))
		m = math.Max(m, math.Abs(ref[i]))
	}
	return d / m
}

// tolerances returns the backward-error bound and the bound on the relative
// difference from gonum's solution (well-conditioned test matrices) for a
// variant: double variants are held to 1e-13 (about 900 u), the float image
// variant to the same multiple of float32's unit roundoff, 2^-24. Measured
// at n = 257: 1.9e-16 (double), 1.2e-7 (float).
func tolerances(variant string, n int) (backward, forward float64) {
	if variant == VariantImage {
		return 5e-5, 1e-3
	}
	return 1e-13, 1e-10
}

var testSizes = []int{1, 2, 3, 5, 17, 64, 100, 257}

func TestSolveAgainstGonum(t *testing.T) {
	dev := testDevice(t)
	for _, variant := range Variants() {
		for _, pivot := range []bool{false, true} {
			for _, n := range testSizes {
				name := fmt.Sprintf("%s/pivot=%v/n=%d", variant, pivot, n)
				t.Run(name, func(t *testing.T) {
					// Without pivoting the matrix must be safe for it.
					a, b := randomSystem(n, uint64(n)*7+1, !pivot)
					opts := Options{Pivot: pivot, Variant: variant, BlockSize: 16}
					x, rep, err := Solve(dev, a, b, opts)
					if err != nil {
						t.Fatal(err)
					}
					bwd, fwd := tolerances(variant, n)
					if be := backwardError(a, x, b); be > bwd {
						t.Errorf("backward error %.3g > %.3g", be, bwd)
					}
					if pivot || n < 100 { // random general matrices of n >= 100 may be ill-conditioned
						if d := relDiff(x, gonumSolve(t, a, b)); d > fwd {
							t.Errorf("relative difference from gonum %.3g > %.3g", d, fwd)
						}
					}
					if rep.N != n || rep.Variant != variant || rep.Launches <= 0 {
						t.Errorf("report %+v", rep)
					}
				})
			}
		}
	}
}
