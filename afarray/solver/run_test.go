package solver

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

func runMatrix(t *testing.T, name string) *sparse.COO {
	t.Helper()
	dir := os.Getenv("OCLSOLVE_MATRICES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "matrices")
	}
	d, err := sparse.ReadMatrixMarketFile(filepath.Join(dir, name+".mtx"))
	if err != nil {
		t.Fatal(err)
	}
	return d.COO
}

// backwardError is ||b-Ax||∞ / (||A||∞ ||x||∞ + ||b||∞) computed densely.
func backwardError(a *mat.Dense, x, b []float64) float64 { return denseTestBackwardError(a, x, b) }

// Every method x format x variant through the one entry point, on a real
// matrix, against the backward-error bound and a gonum dense solve.
func TestRunAllCombinations(t *testing.T) {
	a := runMatrix(t, "bcsstk01")
	n := a.Rows
	d, _ := a.ToDense()
	b := make([]float64, n)
	for i := range b {
		b[i] = 1 + float64(i%7)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mustSym(t, a)) {
		t.Fatal("gonum says bcsstk01 is not SPD")
	}
	xref := mat.NewVecDense(n, nil)
	if err := ch.SolveVecTo(xref, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	combos := []Options{{Method: "gj", Format: "dense"}}
	for _, m := range []Method{"cholesky", "ldlt"} {
		for _, f := range []Format{"dense", "csc", "sks"} {
			combos = append(combos, Options{Method: m, Format: f})
		}
	}
	for _, o := range combos {
		for _, v := range []Variant{Fast, Thesis} {
			for _, order := range []sparse.Ordering{"none", "rcm", "auto"} {
				o.Variant, o.Order = v, order
				x, rep, err := Run(a, b, o)
				if err != nil {
					t.Fatalf("%+v: %v", o, err)
				}
				if be := backwardError(d, x, b); be > 1e-14 {
					t.Errorf("%s/%s/%s/%s: backward error %g", o.Method, o.Format, v, order, be)
				}
				var mx float64
				for i := range x {
					mx = math.Max(mx, math.Abs(x[i]-xref.AtVec(i)))
				}
				if mx > 1e-9*math.Max(1, mat.Norm(xref, math.Inf(1))) {
					t.Errorf("%s/%s/%s/%s: max |x - xref| = %g", o.Method, o.Format, v, order, mx)
				}
				if rep.N != n || rep.ThesisMemory <= 0 || rep.Launches <= 0 || rep.TotalTime <= 0 {
					t.Errorf("%s/%s/%s: incomplete report %+v", o.Method, o.Format, v, rep)
				}
			}
		}
	}
}

func mustSym(t *testing.T, a *sparse.COO) *mat.SymDense {
	t.Helper()
	s, err := a.ToSymDense()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunCG(t *testing.T) {
	a := runMatrix(t, "mesh1e1")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1
	}
	d, _ := a.ToDense()
	for _, f := range []Format{"dense", "csc", "sks"} {
		x, rep, err := Run(a, b, Options{Method: "cg", Format: f, Tol: 1e-12})
		if err != nil {
			t.Fatalf("cg/%s: %v", f, err)
		}
		if be := backwardError(d, x, b); be > 1e-11 {
			t.Errorf("cg/%s: backward error %g after %d iterations", f, be, rep.Iterations)
		}
		if rep.Iterations == 0 || len(rep.History) == 0 {
			t.Errorf("cg/%s: no iteration record", f)
		}
	}
}

func TestRunRefusesIndefinite(t *testing.T) {
	a := runMatrix(t, "nasa1824")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1
	}
	for _, f := range []Format{"dense", "csc", "sks"} {
		for _, v := range []Variant{Fast, Thesis} {
			_, _, err := Run(a, b, Options{Method: "cholesky", Format: f, Variant: v})
			var npd *NotPositiveDefiniteError
			if !errors.As(err, &npd) {
				t.Errorf("cholesky/%s/%s on nasa1824: err = %v, want not positive definite", f, v, err)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	a := runMatrix(t, "LFAT5")
	b := make([]float64, a.Rows)
	if _, _, err := Run(a, b[:3], Options{Method: "cholesky"}); err == nil {
		t.Error("short right-hand side accepted")
	}
	if _, _, err := Run(a, b, Options{Method: "qr"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown method: %v", err)
	}
	if _, _, err := Run(a, b, Options{Method: "gj", Format: "sks"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("gj on sks: %v", err)
	}
	b[2] = math.NaN()
	if _, _, err := Run(a, b, Options{Method: "cholesky"}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN right-hand side: %v", err)
	}
}

// A CG that stops at its iteration limit returns the iterate, the report
// and a *NotConvergedError, for every format.
func TestRunReportsNotConverged(t *testing.T) {
	a := runMatrix(t, "bcsstk01")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1
	}
	for _, f := range []Format{"dense", "csc", "sks"} {
		for _, v := range []Variant{Fast, Thesis} {
			x, rep, err := Run(a, b, Options{Method: "cg", Format: f, Variant: v, MaxIter: 3, Tol: 1e-14})
			if !errors.Is(err, ErrNotConverged) || x == nil || rep == nil || rep.Iterations == 0 {
				t.Errorf("cg/%s/%s with 3 iterations: x=%v rep=%v err=%v", f, v, x != nil, rep != nil, err)
			}
		}
	}
}

// A NaN or Inf met in the factor names its column in the caller's
// numbering, like a pivot failure; other NaN reports keep their index.
func TestOriginalColumnNonFinite(t *testing.T) {
	perm := []int{2, 0, 1}
	nf := &NonFiniteError{Where: "factor", Index: 1}
	originalColumn(fmt.Errorf("wrapped: %w", nf), perm)
	sol := &NonFiniteError{Where: "solution", Index: 1}
	originalColumn(sol, perm)
	if nf.Index != 0 || sol.Index != 1 {
		t.Errorf("factor column %d (want 0), solution index %d (want 1)", nf.Index, sol.Index)
	}
}
