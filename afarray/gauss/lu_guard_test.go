package gauss

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// conspiringLU returns A = L U of order n with L unit lower, every
// multiplier m (|m| <= 1: partial pivoting keeps L, and the growth is
// about 1), and U upper with diagonal in [1, 2) and entries in [-0.1,
// 0.1]: a well-conditioned matrix whose L11 blocks are not (inv(L) has
// entries -m (1+m)^(i-j-1)), review8's finding 2. And a right-hand side.
func conspiringLU(n int, m float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	a := productLU(n, rng, func() float64 { return m }, func(int) float64 { return 1 + rng.Float64() })
	b := make([]float64, n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	return a, b
}

// productLU returns L U of order n: L unit lower with the multipliers
// mult() (row after row), U upper with the diagonal diag(i) and entries
// above it uniform in [-0.1, 0.1] from rng. The guard tests build their
// matrices from the factors they want.
func productLU(n int, rng *rand.Rand, mult func() float64, diag func(i int) float64) *mat.Dense {
	l := mat.NewDense(n, n, nil)
	u := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		l.Set(i, i, 1)
		for j := 0; j < i; j++ {
			l.Set(i, j, mult())
		}
		u.Set(i, i, diag(i))
		for j := i + 1; j < n; j++ {
			u.Set(i, j, 0.1*(2*rng.Float64()-1))
		}
	}
	var a mat.Dense
	a.Mul(l, u)
	return &a
}

// TestLUInverseGuard: the outer blocks' solves by L11's inverse gave these
// matrices backward errors of 1e-9 (PoCL's outer blocks of 64; about 1e-2
// was the triangular residual at the GPU's 256 and 512, also run here). The guard sees
// max |inv(L11)| beyond luInverseMax and Factorize factorizes again by
// substitution: backward error at most 1e-13 (gonum: about 2e-17), and
// Refactored says so. Both pivotings, both solves.
func TestLUInverseGuard(t *testing.T) {
	dev := testDevice(t)
	defer func(v int) { luOuterBlock = v }(luOuterBlock)
	for _, c := range []struct {
		n, ow int // ow: the outer block (64: PoCL's default)
		m     float64
	}{{256, 64, -0.5}, {512, 64, -0.2}, {600, 256, -0.2}, {1100, 512, -0.5}} {
		a, b := conspiringLU(c.n, c.m, uint64(c.n))
		luOuterBlock = c.ow
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			for _, tile := range []int{0, 64} {
				t.Run(fmt.Sprintf("n=%d/ow=%d/m=%g/%v/tile=%d", c.n, c.ow, c.m, piv, tile), func(t *testing.T) {
					lu := LU{BlockSize: 16, Pivoting: piv, SolveTile: tile}
					if err := lu.Factorize(dev, a); err != nil {
						t.Fatal(err)
					}
					defer lu.Release()
					if !lu.Refactored() {
						t.Errorf("not refactored: max |inv(L11)| %.3g, bound %.3g", lu.invMax, luInverseMax)
					}
					_, be := solveBackwardError(t, &lu, a, b)
					if be > 1e-13 {
						t.Errorf("backward error %.3g (max |inv(L11)| %.3g)", be, lu.invMax)
					}
				})
			}
		}
	}
}

// pinOuterBlock sets the blocked LU's outer block to ow for the test: the
// default depends on the device (a GPU's 256 columns leave a matrix of
// order 256 one outer block, with no inverse taken and nothing to guard).
func pinOuterBlock(t *testing.T, ow int) {
	old := luOuterBlock
	luOuterBlock = ow
	t.Cleanup(func() { luOuterBlock = old })
}

// TestLUInverseGuardQuiet: random matrices (and the -0.5 matrix with the
// bound raised above its inverse, which must then keep the inverse's
// factors) do not refactor, and the guard did measure the inverses.
func TestLUInverseGuardQuiet(t *testing.T) {
	dev := testDevice(t)
	pinOuterBlock(t, 64)
	for _, n := range []int{200, 520} {
		a, b := randomSystem(n, uint64(n)+7, false)
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			lu := LU{BlockSize: 16, Pivoting: piv}
			if err := lu.Factorize(dev, a); err != nil {
				t.Fatal(err)
			}
			if lu.Refactored() || !(lu.invMax > 0) || lu.invMax > luInverseMax {
				t.Errorf("n=%d %v: refactored %v, max |inv(L11)| %.3g (want in (0, %.3g])", n, piv, lu.Refactored(), lu.invMax, luInverseMax)
			}
			t.Logf("n=%d %v: max |inv(L11)| %.3g", n, piv, lu.invMax)
			_, be := solveBackwardError(t, &lu, a, b)
			if be > 1e-13 {
				t.Errorf("n=%d %v: backward error %.3g", n, piv, be)
			}
			lu.Release()
		}
	}
	// The guard's bound is what decides: raised, the same matrix keeps
	// the inverse's (worse) factors.
	a, _ := conspiringLU(256, -0.5, 256)
	old := luInverseMax
	luInverseMax = 1e300
	defer func() { luInverseMax = old }()
	lu := LU{BlockSize: 16, Pivoting: PivotingPartial}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	if lu.Refactored() || !(lu.invMax > 1e9) {
		t.Errorf("bound 1e300: refactored %v, max |inv(L11)| %.3g (want about 4e10)", lu.Refactored(), lu.invMax)
	}
}

// TestOuterScratchFallback: where the inverse's scratch cannot be
// allocated, or substitution is asked for, the outer solves take Trsm
// (work nil) instead of failing the factorization.
func TestOuterScratchFallback(t *testing.T) {
	dev := testDevice(t)
	var got []int
	ok := func(bytes int) (*kernels.Buffer, error) {
		got = append(got, bytes)
		return dev.Alloc(int64(bytes))
	}
	fail := func(bytes int) (*kernels.Buffer, error) { return nil, kernels.ErrReleased }
	w := outerScratch(ok, 1024, 256, false)
	if w == nil || len(got) != 1 || int64(got[0]) != 8*dense.TrsmInverseWorkspace(256, 768) {
		t.Fatalf("scratch %v after allocations %v", w, got)
	}
	w.Release()
	if w := outerScratch(fail, 1024, 256, false); w != nil {
		t.Error("a failed allocation gave scratch")
	}
	if w := outerScratch(ok, 1024, 256, true); w != nil || len(got) != 1 {
		t.Error("subst allocated scratch")
	}
	if w := outerScratch(ok, 256, 256, false); w != nil || len(got) != 1 {
		t.Error("one outer block allocated scratch")
	}
}

// TestSolveReportsGuards: gauss.Solve's report says when the blocked LU
// refactored by substitution, and not otherwise.
func TestSolveReportsGuards(t *testing.T) {
	dev := testDevice(t)
	pinOuterBlock(t, 64)
	a, b := conspiringLU(256, -0.5, 256)
	_, rep, err := Solve(dev, a, b, Options{Pivot: true, Variant: VariantBlocked, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Refactored {
		t.Error("the -0.5 matrix: Report.Refactored false")
	}
	r, rb := randomSystem(256, 7, false)
	_, rep, err = Solve(dev, r, rb, Options{Pivot: true, Variant: VariantBlocked, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Refactored || rep.SolveSubstituted {
		t.Errorf("a random matrix: Refactored %v, SolveSubstituted %v", rep.Refactored, rep.SolveSubstituted)
	}
}
