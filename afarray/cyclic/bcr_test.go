package cyclic

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseLaplacian assembles the grid's five-point matrix for gonum.
func denseLaplacian(g *Grid2D) *mat.SymDense {
	n := g.P * g.Q
	a := mat.NewSymDense(n, nil)
	ix, iy := 1/(g.Hx*g.Hx), 1/(g.Hy*g.Hy)
	for i := range g.P {
		for j := range g.Q {
			k := i*g.Q + j
			a.SetSym(k, k, 2*ix+2*iy)
			if i > 0 {
				a.SetSym(k, k-g.Q, -ix)
			}
			if j > 0 {
				a.SetSym(k, k-1, -iy)
			}
		}
	}
	return a
}

// TestPoisson2DAgainstDense compares BCR with gonum's dense Cholesky solve on
// small grids of every reduction depth k = 1..5 and various line lengths.
func TestPoisson2DAgainstDense(t *testing.T) {
	dev := testDevice(t)
	src := func(x, y float64) float64 { return math.Exp(x*y) + 10*x - y*y }
	bnd := func(x, y float64) float64 { return x - 2*y + x*y }
	for k := 1; k <= 5; k++ {
		for _, q := range []int{1, 2, 5, 16, 17} {
			p := 1<<k - 1
			if p*q > 600 {
				continue
			}
			name := fmt.Sprintf("%dx%d", p, q)
			g, err := Poisson2DProblem(p, q, src, bnd)
			if err != nil {
				t.Fatal(err)
			}
			var ch mat.Cholesky
			if !ch.Factorize(denseLaplacian(g)) {
				t.Fatalf("%s: dense Laplacian not positive definite", name)
			}
			var want mat.VecDense
			if err := ch.SolveVecTo(&want, mat.NewVecDense(len(g.F), append([]float64(nil), g.F...))); err != nil {
				t.Fatal(err)
			}
			for _, method := range []string{"", "cr", "pcr"} {
				u, rep, err := Poisson2D(dev, g, Options{Method: method, LocalSize: 32, MaxLocal: 8})
				if err != nil {
					t.Fatalf("%s %s: %v", name, method, err)
				}
				d := maxRelDiff(u, want.RawVector().Data)
				if method == "" {
					t.Logf("%s: difference %.2e, backward error %.2e", name, d, rep.BackwardError)
				}
				if d > 1e-12 {
					t.Errorf("%s %s: differs from dense Cholesky by %.2e", name, method, d)
				}
				if rep.BackwardError > 1e-15 {
					t.Errorf("%s %s: backward error %.2e", name, method, rep.BackwardError)
				}
			}
		}
	}
}

// TestPoisson2DConvergence checks second-order convergence to the
// manufactured solution, on square and non-square grids.
func TestPoisson2DConvergence(t *testing.T) {
	dev := testDevice(t)
	for _, shape := range [][2]int{{1, 1}, {1, 2}, {2, 1}} {
		var prev float64
		for _, k := range []int{4, 5, 6, 7} {
			p := 1<<k - 1
			q := (p+1)*shape[1]/shape[0] - 1
			g, err := Poisson2DManufactured(p, q)
			if err != nil {
				t.Fatal(err)
			}
			u, rep, err := Poisson2D(dev, g, Options{LocalSize: 32})
			if err != nil {
				t.Fatal(err)
			}
			if rep.BackwardError > 1e-14 {
				t.Errorf("%dx%d: backward error %.2e", p, q, rep.BackwardError)
			}
			e := maxRelDiff(u, g.Exact)
			t.Logf("%dx%d: error %.3e, backward error %.2e, %d launches", p, q, e, rep.BackwardError, rep.Launches)
			if prev != 0 && (prev/e < 3.5 || prev/e > 4.6) {
				t.Errorf("%dx%d: error %.3e, ratio %.2f to the coarser grid, want about 4", p, q, e, prev/e)
			}
			prev = e
		}
	}
}

// TestBunemanRoots checks the closed-form partial-fraction coefficients
// against the defining products.
func TestBunemanRoots(t *testing.T) {
	for r := range 7 {
		lam, coef := BunemanRoots(r)
		for l := range lam {
			prod := 1.0
			for m := range lam {
				if m != l {
					prod *= lam[l] - lam[m]
				}
			}
			if math.Abs(coef[l]*prod-1) > 1e-9 {
				t.Errorf("r=%d l=%d: coefficient %g, 1/product %g", r, l, coef[l], 1/prod)
			}
		}
	}
}

func TestPoisson2DErrors(t *testing.T) {
	dev := testDevice(t)
	if _, err := Poisson2DManufactured(6, 5); !errors.Is(err, ErrShape) {
		t.Errorf("6 lines: got %v, want ErrShape", err)
	}
	g, _ := Poisson2DManufactured(7, 5)
	g.F = g.F[:30]
	if _, _, err := Poisson2D(dev, g, Options{}); !errors.Is(err, ErrShape) {
		t.Errorf("short F: got %v, want ErrShape", err)
	}
	if _, err := NewBCRPlan(dev, 7, 5, 0.1, 0.1, Options{Method: "thomas"}); !errors.Is(err, ErrMethod) {
		t.Errorf("thomas line solver: got %v, want ErrMethod", err)
	}
	bp, err := NewBCRPlan(dev, 3, 4, 0.25, 0.2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bp.Release()
	small, _ := dev.Alloc(8)
	defer small.Release()
	if err := bp.SolveTo(small, small); !errors.Is(err, ErrShape) {
		t.Errorf("small buffers: got %v, want ErrShape", err)
	}
}
