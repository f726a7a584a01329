package cyclic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/kernels"
)

func testDevice(t testing.TB) *kernels.Device {
	t.Helper()
	d, err := kernels.Default()
	if err != nil {
		t.Fatalf("no OpenCL device: %v", err)
	}
	return d
}

// randomDominant returns a batch of strictly diagonally dominant systems with
// diagonals of both signs and random entries in the ignored corners, which
// the solvers must not read.
func randomDominant(n, count int, seed uint64) *Tridiag {
	r := rand.New(rand.NewPCG(seed, 7))
	t, _ := NewTridiag(n, count)
	for k := range t.Diag {
		t.Sub[k] = 2*r.Float64() - 1
		t.Sup[k] = 2*r.Float64() - 1
		d := math.Abs(t.Sub[k]) + math.Abs(t.Sup[k]) + 0.5 + r.Float64()
		if r.IntN(2) == 0 {
			d = -d
		}
		t.Diag[k] = d
		t.RHS[k] = 10 * (2*r.Float64() - 1)
	}
	return t
}

func maxRelDiff(x, y []float64) float64 {
	num, den := 0.0, 0.0
	for i := range x {
		num = math.Max(num, math.Abs(x[i]-y[i]))
		den = math.Max(den, math.Abs(y[i]))
	}
	return num / den
}

var testSizes = []int{1, 2, 3, 7, 8, 100, 1000, 4097}

func TestSolveDouble(t *testing.T) {
	dev := testDevice(t)
	for _, method := range []string{"cr", "pcr", "crpcr"} {
		for _, maxLocal := range []int{0, 16} {
			for _, n := range testSizes {
				for _, count := range []int{1, 3} {
					name := fmt.Sprintf("%s/maxlocal=%d/n=%d/count=%d", method, maxLocal, n, count)
					sys := randomDominant(n, count, uint64(n*10+count))
					want, err := sys.Thomas()
					if err != nil {
						t.Fatalf("%s: Thomas: %v", name, err)
					}
					x, rep, err := Solve(dev, sys, Options{Method: method, MaxLocal: maxLocal, LocalSize: 32})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if rep.BackwardError > 1e-14 {
						t.Errorf("%s: backward error %.2e", name, rep.BackwardError)
					}
					if d := maxRelDiff(x, want); d > 1e-13 {
						t.Errorf("%s: differs from Thomas by %.2e", name, d)
					}
					if maxLocal > 0 && n > maxLocal && rep.Levels == 0 {
						t.Errorf("%s: expected global levels, report %v", name, rep)
					}
				}
			}
		}
	}
}

func TestSolveFloat(t *testing.T) {
	dev := testDevice(t)
	for _, method := range []string{"cr", "pcr", "crpcr"} {
		for _, maxLocal := range []int{0, 7} {
			for _, n := range testSizes {
				name := fmt.Sprintf("%s/maxlocal=%d/n=%d", method, maxLocal, n)
				sys64 := randomDominant(n, 2, uint64(n))
				sys := sys64.Float32()
				want, err := sys.Thomas()
				if err != nil {
					t.Fatal(err)
				}
				x, rep, err := Solve32(dev, sys, Options{Method: method, MaxLocal: maxLocal, LocalSize: 32})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// The unit roundoff of float32 is 6e-8; the reduction
				// adds a small multiple of it per level.
				if rep.BackwardError > 1e-6 {
					t.Errorf("%s: backward error %.2e", name, rep.BackwardError)
				}
				if d := maxRelDiff(convert[float64](x), convert[float64](want)); d > 1e-5 {
					t.Errorf("%s: differs from Thomas by %.2e", name, d)
				}
			}
		}
	}
}

// TestLargeBatch solves many small systems at once: one work-group each.
func TestLargeBatch(t *testing.T) {
	dev := testDevice(t)
	sys := randomDominant(33, 500, 3)
	want, _ := sys.Thomas()
	for _, method := range []string{"cr", "pcr", "crpcr"} {
		x, rep, err := Solve(dev, sys, Options{Method: method, Switch: 4, LocalSize: 32})
		if err != nil {
			t.Fatal(err)
		}
		if rep.BackwardError > 1e-14 || maxRelDiff(x, want) > 1e-13 {
			t.Errorf("%s: backward error %.2e, difference %.2e", method, rep.BackwardError, maxRelDiff(x, want))
		}
	}
}

// TestPoisson1D checks the solvers on the SPD, only weakly dominant
// second-difference matrix, against the manufactured solution: the error
// must fall by about 4 when h halves.
func TestPoisson1D(t *testing.T) {
	dev := testDevice(t)
	for _, method := range []string{"cr", "pcr", "crpcr", "thomas"} {
		var prev float64
		for _, n := range []int{63, 127, 255, 511} {
			sys, err := Poisson1DBatch(n, 2)
			if err != nil {
				t.Fatal(err)
			}
			exact, _ := Poisson1DExact(n, 2)
			x, rep, err := Solve(dev, sys, Options{Method: method, MaxLocal: 100, LocalSize: 32})
			if err != nil {
				t.Fatal(err)
			}
			if rep.BackwardError > 1e-14 {
				t.Errorf("%s n=%d: backward error %.2e", method, n, rep.BackwardError)
			}
			e := maxRelDiff(x, exact)
			if prev != 0 && (prev/e < 3.5 || prev/e > 4.5) {
				t.Errorf("%s n=%d: error ratio %.2f, want about 4 (second order)", method, n, prev/e)
			}
			prev = e
		}
	}
}

// TestThomasAgainstDense checks the host reference itself against gonum's
// dense LU.
func TestThomasAgainstDense(t *testing.T) {
	for _, n := range []int{1, 2, 5, 40} {
		sys := randomDominant(n, 1, uint64(n))
		x, err := sys.Thomas()
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewDense(n, n, nil)
		for i := range n {
			a.Set(i, i, sys.Diag[i])
			if i > 0 {
				a.Set(i, i-1, sys.Sub[i])
			}
			if i < n-1 {
				a.Set(i, i+1, sys.Sup[i])
			}
		}
		var want mat.VecDense
		if err := want.SolveVec(a, mat.NewVecDense(n, append([]float64(nil), sys.RHS...))); err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(x, want.RawVector().Data); d > 1e-13 {
			t.Errorf("n=%d: Thomas differs from dense LU by %.2e", n, d)
		}
	}
}

func TestBreakdown(t *testing.T) {
	dev := testDevice(t)
	// [[0 1] [1 0]] is nonsingular but needs pivoting.
	sys := &Tridiag{N: 2, Count: 1, Sub: []float64{0, 1}, Diag: []float64{0, 0}, Sup: []float64{1, 0}, RHS: []float64{1, 2}}
	for _, method := range Methods {
		_, _, err := Solve(dev, sys, Options{Method: method})
		if !errors.Is(err, ErrBreakdown) {
			t.Errorf("%s: got %v, want ErrBreakdown", method, err)
		}
		_, _, err = Solve32(dev, sys.Float32(), Options{Method: method})
		if !errors.Is(err, ErrZeroPivot) {
			t.Errorf("%s float: got %v, want ErrZeroPivot", method, err)
		}
	}
	// Overflow to Inf in the middle of a long system, through global levels.
	big := randomDominant(1000, 1, 9)
	big.Diag[500], big.RHS[500] = 1e-320, 1e300
	for _, method := range []string{"cr", "pcr", "crpcr"} {
		x, _, err := Solve(dev, big, Options{Method: method, MaxLocal: 64, LocalSize: 32})
		if !errors.Is(err, ErrBreakdown) {
			t.Errorf("%s: subnormal pivot gave %v (solution has NaN: %v)", method, err, hasNaN(x))
		}
	}
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func TestErrors(t *testing.T) {
	dev := testDevice(t)
	bad := &Tridiag{N: 3, Count: 2, Sub: make([]float64, 6), Diag: make([]float64, 5), Sup: make([]float64, 6), RHS: make([]float64, 6)}
	if _, _, err := Solve(dev, bad, Options{}); !errors.Is(err, ErrShape) {
		t.Errorf("short diagonal: got %v, want ErrShape", err)
	}
	if _, err := NewTridiag(0, 1); !errors.Is(err, ErrShape) {
		t.Errorf("order 0: got %v, want ErrShape", err)
	}
	ok := randomDominant(4, 1, 1)
	if _, _, err := Solve(dev, ok, Options{Method: "lu"}); !errors.Is(err, ErrMethod) {
		t.Errorf("unknown method: got %v, want ErrMethod", err)
	}
	if _, err := ok.BackwardError(make([]float64, 3)); !errors.Is(err, ErrShape) {
		t.Errorf("short solution: got %v, want ErrShape", err)
	}
	p, err := NewPlan(dev, 4, 1, false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	dsys, err := Upload(dev, randomDominant(5, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer dsys.Release()
	if err := p.SolveTo(dsys.RHS, dsys); !errors.Is(err, ErrShape) {
		t.Errorf("plan/system mismatch: got %v, want ErrShape", err)
	}
}

// TestSolveDeviceInPlace uses the device-resident API, overwriting the
// right-hand side with the solution.
func TestSolveDeviceInPlace(t *testing.T) {
	dev := testDevice(t)
	sys := randomDominant(300, 4, 5)
	want, _ := sys.Thomas()
	dsys, err := Upload(dev, sys)
	if err != nil {
		t.Fatal(err)
	}
	defer dsys.Release()
	rep, err := SolveDevice(dev, dsys, dsys.RHS, Options{Method: "cr", MaxLocal: 40, LocalSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Launches != int64(2*rep.Levels+1) {
		t.Errorf("%d launches for %d levels", rep.Launches, rep.Levels)
	}
	x := make([]float64, 1200)
	if err := dsys.RHS.Read(0, x); err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(x, want); d > 1e-13 {
		t.Errorf("differs from Thomas by %.2e", d)
	}
}
