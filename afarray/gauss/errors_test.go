package gauss

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// allCases runs f for every variant with and without pivoting.
func allCases(t *testing.T, f func(t *testing.T, opts Options)) {
	for _, variant := range Variants() {
		for _, pivot := range []bool{false, true} {
			opts := Options{Variant: variant, Pivot: pivot, BlockSize: 16}
			t.Run(fmt.Sprintf("%s/pivot=%v", variant, pivot), func(t *testing.T) { f(t, opts) })
		}
	}
}

// A zero leading pivot defeats elimination without row exchanges although
// the matrix is regular: no pivot must report step 0, pivoting must solve.
func TestZeroLeadingPivot(t *testing.T) {
	dev := testDevice(t)
	const n = 17
	a, b := randomSystem(n, 99, true)
	a.Set(0, 0, 0)
	allCases(t, func(t *testing.T, opts Options) {
		x, _, err := Solve(dev, a, b, opts)
		if !opts.Pivot {
			var se *SingularError
			if !errors.Is(err, ErrSingular) || !errors.As(err, &se) || se.Pivot != 0 {
				t.Fatalf("got x=%v err=%v, want a SingularError at pivot 0", x != nil, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		bwd, _ := tolerances(opts.Variant, n)
		if be := backwardError(a, x, b); be > bwd {
			t.Errorf("backward error %.3g > %.3g", be, bwd)
		}
	})
}

// Singular matrices whose elimination meets an exactly zero pivot: two equal
// rows (their difference cancels exactly) and a zero column.
func TestSingular(t *testing.T) {
	dev := testDevice(t)
	const n = 23
	dup, b := randomSystem(n, 5, true)
	dup.SetRow(9, mat.Row(nil, 5, dup))
	zeroCol, _ := randomSystem(n, 6, true)
	for i := 0; i < n; i++ {
		zeroCol.Set(i, 11, 0)
	}
	for _, c := range []struct {
		name string
		a    *mat.Dense
		max  int // the zero pivot appears at this step at the latest
	}{{"equal rows", dup, 9}, {"zero column", zeroCol, 11}} {
		t.Run(c.name, func(t *testing.T) {
			allCases(t, func(t *testing.T, opts Options) {
				_, _, err := Solve(dev, c.a, b, opts)
				var se *SingularError
				if !errors.Is(err, ErrSingular) || !errors.As(err, &se) {
					t.Fatalf("err = %v, want ErrSingular", err)
				}
				// With pivoting the zero row may be exchanged down to the end.
				last := c.max
				if opts.Pivot {
					last = n - 1
				}
				if se.Pivot < 0 || se.Pivot > last || se.Pivoting != opts.Pivot {
					t.Errorf("singular error %+v, want pivot <= %d", se, last)
				}
			})
		})
	}
}

// Overflow to Inf must not come back as a solution.
func TestNotFinite(t *testing.T) {
	dev := testDevice(t)
	allCases(t, func(t *testing.T, opts Options) {
		scale := 1e200
		if opts.Variant == VariantImage {
			scale = 1e30 // float32 overflows beyond 3.4e38
		}
		// Uniformly tiny entries: a regular, well-conditioned matrix whose
		// solution overflows.
		a := mat.NewDense(2, 2, []float64{1 / scale, 0, 0, 1 / scale})
		b := []float64{scale, 1}
		x, _, err := Solve(dev, a, b, opts)
		if !errors.Is(err, ErrNotFinite) || x != nil {
			t.Fatalf("x=%v err=%v, want ErrNotFinite", x, err)
		}
	})
}

// A matrix holding NaN is rejected before any work.
func TestNaNInput(t *testing.T) {
	dev := testDevice(t)
	allCases(t, func(t *testing.T, opts Options) {
		for _, n := range []int{5, 16} { // 16: the blocked LU reads a *mat.Dense in place
			a, b := randomSystem(n, 8, true)
			a.Set(3, 1, math.NaN())
			if _, _, err := Solve(dev, a, b, opts); !errors.Is(err, ErrNotFinite) {
				t.Errorf("n = %d: err = %v, want ErrNotFinite", n, err)
			}
		}
	})
}

func TestShapeAndOptionErrors(t *testing.T) {
	dev := testDevice(t)
	sq := mat.NewDense(3, 3, []float64{4, 1, 0, 1, 4, 1, 0, 1, 4})
	for _, c := range []struct {
		name string
		a    mat.Matrix
		b    []float64
		opts Options
		want error
	}{
		{"not square", mat.NewDense(2, 3, nil), []float64{1, 2}, Options{}, ErrShape},
		{"short rhs", sq, []float64{1, 2}, Options{}, ErrShape},
		{"nil matrix", nil, nil, Options{}, ErrShape},
		{"unknown variant", sq, []float64{1, 2, 3}, Options{Variant: "texture"}, ErrVariant},
		{"negative tile", sq, []float64{1, 2, 3}, Options{BackSubTile: -1}, ErrVariant},
		{"bad block size", sq, []float64{1, 2, 3}, Options{Variant: VariantBlocked, BlockSize: 24}, ErrVariant},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := Solve(dev, c.a, c.b, c.opts); !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
	lu := LU{BlockSize: 16} // the tests' block size: one program to compile
	if err := lu.SolveVecTo(make([]float64, 3), make([]float64, 3)); !errors.Is(err, ErrNotFactorized) {
		t.Errorf("solve before factorize: %v", err)
	}
	if err := lu.Factorize(dev, sq); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	if err := lu.SolveVecTo(make([]float64, 3), make([]float64, 4)); !errors.Is(err, ErrShape) {
		t.Errorf("wrong rhs length: %v", err)
	}
	if err := lu.SolveTo(mat.NewDense(3, 1, nil), mat.NewDense(3, 2, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("wrong destination shape: %v", err)
	}
}
