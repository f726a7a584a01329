package gauss

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// luFactorsOf reads the n x n leading block of lu's factors (row-major,
// L\U) back from the device.
func luFactorsOf(t *testing.T, lu *LU) (l, u *mat.Dense) {
	t.Helper()
	f := make([]float64, lu.ld*lu.ld)
	if err := lu.a.Read(0, f); err != nil {
		t.Fatal(err)
	}
	n := lu.n
	l, u = mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := f[i*lu.ld+j]
			switch {
			case j < i:
				l.Set(i, j, v)
			case j == i:
				l.Set(i, i, 1)
				u.Set(i, j, v)
			default:
				u.Set(i, j, v)
			}
		}
	}
	return l, u
}

// permuted returns P A for LAPACK-style exchanges piv.
func permuted(a *mat.Dense, piv []int) *mat.Dense {
	var pa mat.Dense
	pa.CloneFrom(a)
	n, _ := a.Dims()
	for i, p := range piv {
		if p != i {
			ri, rp := mat.Row(nil, i, &pa), mat.Row(nil, p, &pa)
			pa.SetRow(i, rp)
			pa.SetRow(p, ri)
		}
	}
	_ = n
	return &pa
}

// growth is max |U| / max |A|.
func growth(a, u mat.Matrix) float64 {
	return mat.Norm(u, math.Inf(1)) / mat.Norm(a, math.Inf(1))
}

// Tournament pivoting (CALU) against gonum's partial pivoting: P A = L U to
// working precision, |L| <= a small bound, a growth factor close to gonum's,
// solutions with gonum's backward error; over one panel, several leaves
// and a tree of several levels (n = 300 with 16 columns per panel: 5 leaves
// of 64 rows, then 2 nodes, then the last), orders that are not multiples
// of the block, and matrices with ties and with a zero column.
func TestLUTournament(t *testing.T) {
	dev := testDevice(t)
	for _, n := range []int{1, 2, 16, 17, 33, 70, 129, 300} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a, b := randomSystem(n, uint64(n)+501, false)
			lu := LU{BlockSize: 16, Pivoting: PivotingTournament}
			if err := lu.Factorize(dev, a); err != nil {
				t.Fatal(err)
			}
			defer lu.Release()
			if !lu.tour {
				t.Fatal("the tournament did not run")
			}
			piv := lu.Pivots()
			for i, p := range piv {
				if p < i || p >= n {
					t.Fatalf("pivot %d exchanges row %d", i, p)
				}
			}
			l, u := luFactorsOf(t, &lu)
			var prod, diff mat.Dense
			prod.Mul(l, u)
			pa := permuted(a, piv)
			diff.Sub(pa, &prod)
			if r := mat.Norm(&diff, math.Inf(1)) / mat.Norm(a, math.Inf(1)); r > 1e-14*float64(n) {
				t.Errorf("||P A - L U|| / ||A|| = %.3g", r)
			}
			// Each panel's first pivot is the column's largest entry, as in
			// partial pivoting, so L's first column of each panel is <= 1;
			// elsewhere CALU's multipliers may exceed 1 but stay modest.
			var lmax float64
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					lmax = math.Max(lmax, math.Abs(l.At(i, j)))
					if j%16 == 0 && math.Abs(l.At(i, j)) > 1 {
						t.Errorf("L(%d,%d) = %g: a panel's first column has |l| > 1", i, j, l.At(i, j))
					}
				}
			}
			if lmax > 20 {
				t.Errorf("max |L| = %g", lmax)
			}
			var ref mat.LU
			ref.Factorize(a)
			var ru mat.TriDense
			ref.UTo(&ru)
			if g, gr := growth(a, u), growth(a, &ru); g > 4*gr+1 {
				t.Errorf("growth %.3g, gonum's %.3g", g, gr)
			}
			x, be := solveBackwardError(t, &lu, a, b)
			if be > 1e-13 {
				t.Errorf("backward error %.3g", be)
			}
			if d := relDiff(x, gonumSolve(t, a, b)); d > 1e-9 {
				t.Errorf("relative difference from gonum %.3g", d)
			}
		})
	}
	// Ties: integer entries in a few values, many equal maxima per column.
	t.Run("ties", func(t *testing.T) {
		n := 150
		a, b := randomSystem(n, 9, false)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a.Set(i, j, math.Round(3*a.At(i, j)))
			}
			a.Set(i, i, a.At(i, i)+0.5) // regular
		}
		lu := LU{BlockSize: 16, Pivoting: PivotingTournament}
		if err := lu.Factorize(dev, a); err != nil {
			t.Fatal(err)
		}
		defer lu.Release()
		_, be := solveBackwardError(t, &lu, a, b)
		if be > 1e-13 {
			t.Errorf("backward error %.3g", be)
		}
	})
	// A zero column and a repeated row: ErrSingular with the column,
	// as partial pivoting reports it.
	t.Run("singular", func(t *testing.T) {
		for _, c := range []struct {
			name string
			edit func(a *mat.Dense)
			col  int
		}{
			{"zero column 21", func(a *mat.Dense) {
				for i := 0; i < 100; i++ {
					a.Set(i, 21, 0)
				}
			}, 21},
			{"zero column 0", func(a *mat.Dense) {
				for i := 0; i < 100; i++ {
					a.Set(i, 0, 0)
				}
			}, 0},
			{"column 40 = column 3", func(a *mat.Dense) {
				for i := 0; i < 100; i++ {
					a.Set(i, 40, a.At(i, 3))
				}
			}, 40},
		} {
			a, _ := randomSystem(100, 3, false)
			c.edit(a)
			for _, p := range []Pivoting{PivotingPartial, PivotingTournament} {
				lu := LU{BlockSize: 16, Pivoting: p}
				err := lu.Factorize(dev, a)
				var se *SingularError
				if !errors.As(err, &se) || !errors.Is(err, ErrSingular) || se.Pivot != c.col {
					t.Errorf("%s, %v: %v, want a singular pivot at column %d", c.name, p, err, c.col)
				}
			}
		}
	})
	// Solve's option reaches the LU; an unknown value is a typed error.
	t.Run("options", func(t *testing.T) {
		a, b := randomSystem(40, 77, false)
		x, _, err := Solve(dev, a, b, Options{Variant: VariantBlocked, Pivot: true, BlockSize: 16, Pivoting: PivotingTournament})
		if err != nil {
			t.Fatal(err)
		}
		if be := backwardError(a, x, b); be > 1e-13 {
			t.Errorf("backward error %.3g", be)
		}
		lu := LU{BlockSize: 16, Pivoting: Pivoting(9)}
		if err := lu.Factorize(dev, a); !errors.Is(err, ErrVariant) {
			t.Errorf("pivoting 9: %v, want ErrVariant", err)
		}
		// Auto is partial pivoting on a CPU; a too wide block cannot run the tournament.
		if !isGPU(dev) {
			lu := LU{BlockSize: 16}
			if err := lu.Factorize(dev, a); err != nil || lu.tour {
				t.Errorf("auto on a CPU: tournament %v, %v", lu.tour, err)
			}
			lu.Release()
		}
	})
}
