package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gradedLU returns A = L U of order n with L unit lower, its entries below
// the diagonal random in [-0.3, 0.3], and U's diagonal graded from 1 down
// to 10^-decades within every 64 rows (its entries above the diagonal
// random in [-0.1, 0.1]): a badly scaled matrix, not a contrived one, on
// which the product by the inverted diagonal blocks of U loses about
// decades digits of the backward error (notes/review8.md, finding 2).
func gradedLU(n int, decades float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	return productLU(n, rng, func() float64 { return 0.3 * (2*rng.Float64() - 1) },
		func(i int) float64 { return math.Pow(10, -decades*float64(i%64)/63) })
}

// The guard on the chained solve's inverted diagonal blocks: on the graded
// U the solve (SolveVecTo, then SolveTo, then SolveVecTo again) comes back
// by substitution with a backward error at the substitution's order (the
// inverses gave 2e-11 .. 2e-10), and the LU keeps substituting; a new
// Factorize of a random matrix takes the fast path again.
func TestTrinvGuardGradedU(t *testing.T) {
	dev := testDevice(t)
	guardExp := trinvGuardExp
	defer func() { trinvGuardExp = guardExp }()
	for _, decades := range []float64{8, 12} {
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			t.Run(fmt.Sprintf("1e-%g/%v", decades, piv), func(t *testing.T) {
				const n = 256
				a := gradedLU(n, decades, uint64(decades))
				b := make([]float64, n)
				for i := range b {
					b[i] = math.Sin(float64(3*i + 1))
				}
				lu := LU{BlockSize: 16, Pivoting: piv}
				if err := lu.Factorize(dev, a); err != nil {
					t.Fatal(err)
				}
				defer lu.Release()
				x := make([]float64, n)
				if err := lu.SolveVecTo(x, b); err != nil {
					t.Fatal(err)
				}
				if lu.solver == nil || lu.solver.guard < trinvGuardExp {
					t.Fatalf("guard did not fire (solver %v)", lu.solver != nil)
				}
				t.Logf("guard exponent %d", lu.solver.guard)
				if !lu.subst {
					t.Error("the LU does not remember to substitute")
				}
				if be := backwardError(a, x, b); be > 1e-13 {
					t.Errorf("backward error %.3g", be)
				}
				// The same factors without the guard, for the record.
				trinvGuardExp = math.MaxInt32
				if _, err := lu.solveChained(x, b, 1); err != nil {
					t.Fatal(err)
				}
				trinvGuardExp = guardExp
				t.Logf("backward error of the chained solve without the guard %.3g", backwardError(a, x, b))
				bs := rhsColumns(n, 3)
				var xs mat.Dense
				xs.CloneFrom(bs)
				if err := lu.SolveTo(&xs, bs); err != nil {
					t.Fatal(err)
				}
				for j := 0; j < 3; j++ {
					if be := backwardError(a, mat.Col(nil, j, &xs), mat.Col(nil, j, bs)); be > 1e-13 {
						t.Errorf("SolveTo column %d: backward error %.3g", j, be)
					}
				}
				epoch := lu.solver.epoch
				if err := lu.SolveVecTo(x, b); err != nil {
					t.Fatal(err)
				}
				if lu.solver.epoch != epoch {
					t.Error("a later solve launched the chained solve again")
				}
				if be := backwardError(a, x, b); be > 1e-13 {
					t.Errorf("second solve: backward error %.3g", be)
				}
				r, rb := randomSystem(n, 5, false)
				if err := lu.Factorize(dev, r); err != nil {
					t.Fatal(err)
				}
				if err := lu.SolveVecTo(x, rb); err != nil {
					t.Fatal(err)
				}
				if lu.subst || lu.solver.guard >= trinvGuardExp {
					t.Errorf("random matrix after refactorizing: substitution %v, guard %d", lu.subst, lu.solver.guard)
				}
			})
		}
	}
}

// guardCase solves a x = b with the default (chained) solve and reports the
// guard's exponent, whether the LU went to substitution, and the backward
// error.
func guardCase(t *testing.T, a *mat.Dense, b []float64, lu *LU) (int, bool, float64) {
	t.Helper()
	if err := lu.Factorize(testDevice(t), a); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	x := make([]float64, len(b))
	if err := lu.SolveVecTo(x, b); err != nil {
		t.Fatal(err)
	}
	guard := -1
	if lu.solver != nil {
		guard = lu.solver.guard
	}
	return guard, lu.subst, backwardError(a, x, b)
}

// The guard's threshold against data: random matrices (partial and
// tournament pivoting; none on diagonally dominant ones) and the
// collection's matrices keep the fast path, i.e. the chained solve with
// inverses, and their estimates stay below 2^trinvGuardExp with room (the
// largest are logged: trinvGuardExp's comment quotes them).
func TestTrinvGuardEstimates(t *testing.T) {
	worst := 0
	check := func(t *testing.T, a *mat.Dense, b []float64, lu *LU) {
		e, subst, be := guardCase(t, a, b, lu)
		worst = max(worst, e)
		t.Logf("guard exponent %d, backward error %.3g", e, be)
		if subst || e >= trinvGuardExp {
			t.Errorf("guard fired: exponent %d", e)
		}
		if be > 1e-13 {
			t.Errorf("backward error %.3g", be)
		}
	}
	for _, n := range []int{5, 64, 150, 300, 700} {
		for _, piv := range []string{"partial", "tournament", "none"} {
			for seed := uint64(1); seed <= 2; seed++ {
				t.Run(fmt.Sprintf("random/n=%d/%s/%d", n, piv, seed), func(t *testing.T) {
					a, b := randomSystem(n, seed*1000+uint64(n), piv == "none")
					lu := LU{BlockSize: 16, NoPivot: piv == "none", Pivoting: PivotingPartial}
					if piv == "tournament" {
						lu.Pivoting = PivotingTournament
					}
					check(t, a, b, &lu)
				})
			}
		}
	}
	if _, err := os.Stat(matricesDir); err != nil {
		t.Logf("largest exponent %d (random only)", worst)
		t.Skipf("matrix collection not found beside the repository: %v", err)
	}
	for _, name := range []string{"LFAT5", "LF10", "bcsstk01", "mesh1e1", "bcsstk02", "nos4", "bcsstk03", "lund_a", "nos3", "nasa1824", "bcsstk13"} {
		a := readDense(t, name)
		n, _ := a.Dims()
		b := make([]float64, n)
		for i := range b {
			b[i] = 1 + float64(i%5)
		}
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			t.Run(fmt.Sprintf("%s/%v", name, piv), func(t *testing.T) {
				check(t, a, b, &LU{BlockSize: 16, Pivoting: piv})
			})
		}
	}
	t.Logf("largest exponent %d", worst)
}

// lu_trsv takes its tickets modulo 2 nblk, so a launch that the host did
// not count (one enqueued although Launch returned an error) cannot throw
// the next ones out of range: with the counter moved on by whole launches
// behind the host's back, the solves still return the same solution.
func TestLUSolveTicketsLostLaunch(t *testing.T) {
	dev := testDevice(t)
	const n = 200
	a, b := randomSystem(n, 23, false)
	lu := LU{BlockSize: 16}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	want := make([]float64, n)
	if err := lu.SolveVecTo(want, b); err != nil {
		t.Fatal(err)
	}
	s := lu.solver
	groups := 2 * s.nblk
	for _, lost := range []int{1, 3, 1000} {
		if err := s.buf.Write(int64(4*groups), []int32{int32(lost*groups + s.tickets)}); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, n)
		if err := lu.SolveVecTo(x, b); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(x, want); d != 0 {
			t.Errorf("%d launches lost: solution differs by %.3g", lost, d)
		}
	}
}
