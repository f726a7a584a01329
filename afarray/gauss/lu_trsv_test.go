package gauss

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// rhsColumns returns an n x k right-hand side with distinct columns.
func rhsColumns(n, k int) *mat.Dense {
	b := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			b.Set(i, j, math.Sin(float64(1+i*(j+2)))+float64(j))
		}
	}
	return b
}

// SolveTo's columns, solved together by the chained solves (one write, a
// launch per column, one read), match gonum column by column and are
// exactly SolveVecTo's, over one and several row blocks of lu_trsv, a
// partial last block, both pivotings and none; SolveTo may overwrite b.
// Rounds of two columns (solveBatchBytes) make the scratch grow after a
// first single-column solve, copying the inverses and exchanges along.
func TestLUSolveToColumns(t *testing.T) {
	dev := testDevice(t)
	defer func(v int) { solveBatchBytes = v }(solveBatchBytes)
	for _, n := range []int{5, 64, 150, 300} {
		for _, piv := range []string{"partial", "tournament", "none"} {
			for _, rounds := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/%s/rounds=%v", n, piv, rounds), func(t *testing.T) {
					solveBatchBytes = 64 << 20
					if rounds {
						solveBatchBytes = 2 * 16 * kernels.RoundUp(n, 16)
					}
					a, _ := randomSystem(n, uint64(n)+7, piv == "none")
					lu := LU{BlockSize: 16, NoPivot: piv == "none", Pivoting: PivotingPartial}
					if piv == "tournament" {
						lu.Pivoting = PivotingTournament
					}
					if err := lu.Factorize(dev, a); err != nil {
						t.Fatal(err)
					}
					defer lu.Release()
					const k = 5
					b := rhsColumns(n, k)
					single := make([][]float64, k)
					for j := range single {
						single[j] = make([]float64, n)
						if err := lu.SolveVecTo(single[j], mat.Col(nil, j, b)); err != nil {
							t.Fatal(err)
						}
					}
					var x mat.Dense
					x.ReuseAs(n, k)
					if err := lu.SolveTo(&x, b); err != nil {
						t.Fatal(err)
					}
					for j := 0; j < k; j++ {
						xj, bj := mat.Col(nil, j, &x), mat.Col(nil, j, b)
						if be := backwardError(a, xj, bj); be > 1e-13 {
							t.Errorf("column %d: backward error %.3g", j, be)
						}
						if d := relDiff(xj, gonumSolve(t, a, bj)); d > 1e-9 {
							t.Errorf("column %d: relative difference from gonum %.3g", j, d)
						}
						for i := range xj {
							if xj[i] != single[j][i] {
								t.Fatalf("column %d: SolveTo's x[%d] = %v, SolveVecTo's %v", j, i, xj[i], single[j][i])
							}
						}
					}
					// In place: b becomes X.
					if err := lu.SolveTo(b, b); err != nil {
						t.Fatal(err)
					}
					if !mat.Equal(b, &x) {
						t.Error("SolveTo(b, b) differs from SolveTo(x, b)")
					}
				})
			}
		}
	}
}

// The flags of the chained solves hold the epoch of the launch that raised
// them; when the epochs reach solveEpochLimit they are cleared and count
// again. Solves across several clears give the first solve's answer.
func TestLUSolveEpochReset(t *testing.T) {
	dev := testDevice(t)
	defer func(v int) { solveEpochLimit = v }(solveEpochLimit)
	const n = 200 // 4 blocks of 64 rows (8 groups per launch) or 7 of 32
	a, b := randomSystem(n, 17, false)
	lu := LU{BlockSize: 16}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	want := make([]float64, n)
	if err := lu.SolveVecTo(want, b); err != nil {
		t.Fatal(err)
	}
	if be := backwardError(a, want, b); be > 1e-13 {
		t.Fatalf("backward error %.3g", be)
	}
	solveEpochLimit = 3 * 2 * lu.solver.nblk // a clear every third launch or so
	clears := 0
	for r := 0; r < 7; r++ {
		x := make([]float64, n)
		before := lu.solver.epoch
		if err := lu.SolveVecTo(x, b); err != nil {
			t.Fatal(err)
		}
		if lu.solver.epoch <= before {
			clears++
		}
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("solve %d: x[%d] = %v, want %v", r, i, x[i], want[i])
			}
		}
	}
	bs := mat.NewDense(n, 4, nil)
	for j := 0; j < 4; j++ {
		bs.SetCol(j, b)
	}
	if err := lu.SolveTo(bs, bs); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 4; j++ {
		if d := relDiff(mat.Col(nil, j, bs), want); d != 0 {
			t.Errorf("SolveTo column %d differs by %.3g", j, d)
		}
	}
	if clears < 2 {
		t.Errorf("%d clears of the flags, want at least 2", clears)
	}
}

// The chained solve's errors: a zero diagonal entry of U (written into the
// factors after Factorize, so that only lu_trinv can see it) is a
// *SingularError at that pivot, brought back with the solution's read; a
// non-finite solution is refused, and SolveTo names its column.
func TestLUSolveErrors(t *testing.T) {
	dev := testDevice(t)
	const n = 100
	a, b := randomSystem(n, 23, false)
	for _, pivot := range []int{3, 70} {
		lu := LU{BlockSize: 16}
		if err := lu.Factorize(dev, a); err != nil {
			t.Fatal(err)
		}
		if err := lu.a.Write(int64(8*(pivot*lu.ld+pivot)), []float64{0}); err != nil {
			t.Fatal(err)
		}
		x := make([]float64, n)
		var se *SingularError
		if err := lu.SolveVecTo(x, b); !errors.As(err, &se) || !errors.Is(err, ErrSingular) || se.Pivot != pivot {
			t.Errorf("zero U(%d,%d): %v, want a SingularError at pivot %d", pivot, pivot, err, pivot)
		}
		// Every later solve reports it too.
		if err := lu.SolveTo(mat.NewDense(n, 2, nil), rhsColumns(n, 2)); !errors.As(err, &se) || se.Pivot != pivot {
			t.Errorf("zero U(%d,%d), SolveTo: %v", pivot, pivot, err)
		}
		lu.Release()
	}
	lu := LU{BlockSize: 16}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	defer lu.Release()
	bad := append([]float64(nil), b...)
	bad[40] = math.Inf(1)
	if err := lu.SolveVecTo(make([]float64, n), bad); !errors.Is(err, ErrNotFinite) {
		t.Errorf("infinite b: %v, want ErrNotFinite", err)
	}
	bs := rhsColumns(n, 4)
	bs.Set(7, 2, math.NaN())
	err := lu.SolveTo(mat.NewDense(n, 4, nil), bs)
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "column 2") {
		t.Errorf("NaN in column 2: %v, want ErrNotFinite in column 2", err)
	}
	// The LU is still usable.
	_, be := solveBackwardError(t, &lu, a, b)
	if be > 1e-13 {
		t.Errorf("after the errors: backward error %.3g", be)
	}
}

// Factorizing the same matrix again gives bitwise the same factors and
// pivots, and solving again the same solution, with the solves' y and x
// filled with NaN before each solve so that a read of them before their
// write (which stale values from an earlier solve of the same system would
// hide) shows. On a GPU the order is 8192 (lu_trsv runs 256 groups), 12
// factorizations of 8 solves each: it tells a factorization that varies
// from a solve that does (bench dense saw one wrong solve at 8192 on an
// H100 on 2026-11-23, cause not found).
func TestLURepeatable(t *testing.T) {
	dev := testDevice(t)
	n, rounds, solves := 256, 3, 2
	if isGPU(dev) {
		n, rounds, solves = 8192, 12, 8
	}
	a, b := randomSystem(n, 31, false)
	var a0 []float64
	var piv0 []int
	var x0 []float64
	for r := 0; r < rounds; r++ {
		lu := LU{}
		if err := lu.Factorize(dev, a); err != nil {
			t.Fatal(err)
		}
		f := make([]float64, lu.ld*lu.ld)
		if err := lu.a.Read(0, f); err != nil {
			t.Fatal(err)
		}
		piv := lu.Pivots()
		if r == 0 {
			a0, piv0 = f, piv
		} else {
			for i := range piv {
				if piv[i] != piv0[i] {
					t.Fatalf("factorization %d: pivot %d is %d, was %d", r, i, piv[i], piv0[i])
				}
			}
			for i := range f {
				if f[i] != a0[i] && !(math.IsNaN(f[i]) && math.IsNaN(a0[i])) {
					t.Fatalf("factorization %d: factor entry (%d, %d) is %v, was %v", r, i/lu.ld, i%lu.ld, f[i], a0[i])
				}
			}
		}
		for k := 0; k < solves; k++ {
			if s := lu.solver; s != nil {
				nan := make([]float64, s.size(lu.ld, n, s.cols)-s.yOff)
				for i := range nan {
					nan[i] = math.NaN()
				}
				if err := s.buf.Write(int64(8*s.yOff), nan); err != nil {
					t.Fatal(err)
				}
			}
			x := make([]float64, n)
			if err := lu.SolveVecTo(x, b); err != nil {
				t.Fatalf("factorization %d, solve %d: %v", r, k, err)
			}
			if x0 == nil {
				x0 = x
				if be := backwardError(a, x, b); be > 1e-13 {
					t.Fatalf("backward error %.3g", be)
				}
				continue
			}
			for i := range x {
				if x[i] != x0[i] {
					t.Fatalf("factorization %d, solve %d: x[%d] = %v, was %v (backward error %.3g)", r, k, i, x[i], x0[i], backwardError(a, x, b))
				}
			}
		}
		lu.Release()
	}
}
