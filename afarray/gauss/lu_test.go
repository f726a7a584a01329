package gauss

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// One factorization serves several right-hand sides; Factorize can be called
// again on the same LU; Release makes it unusable.
func TestLUFactorizeSolveTo(t *testing.T) {
	dev := testDevice(t)
	for _, n := range []int{1, 16, 33, 100} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a, _ := randomSystem(n, uint64(n)+40, false)
			b := mat.NewDense(n, 3, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < 3; j++ {
					b.Set(i, j, float64(i*j%7)-3)
				}
			}
			lu := LU{BlockSize: 16}
			if err := lu.Factorize(dev, a); err != nil {
				t.Fatal(err)
			}
			var x mat.Dense
			x.ReuseAs(n, 3)
			if err := lu.SolveTo(&x, b); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < 3; j++ {
				xj, bj := mat.Col(nil, j, &x), mat.Col(nil, j, b)
				if be := backwardError(a, xj, bj); be > 1e-13 {
					t.Errorf("column %d: backward error %.3g", j, be)
				}
				if d := relDiff(xj, gonumSolve(t, a, bj)); d > 1e-9 {
					t.Errorf("column %d: relative difference from gonum %.3g", j, d)
				}
			}
			// The pivots form a valid exchange sequence: row i with a row >= i.
			piv := lu.Pivots()
			if len(piv) != n {
				t.Fatalf("%d pivots for order %d", len(piv), n)
			}
			for i, p := range piv {
				if p < i || p >= n {
					t.Errorf("pivot %d exchanges row %d", i, p)
				}
			}
			// Factorize again with another matrix.
			a2, b2 := randomSystem(n, uint64(n)+41, true)
			if err := lu.Factorize(dev, a2); err != nil {
				t.Fatal(err)
			}
			x2 := make([]float64, n)
			if err := lu.SolveVecTo(x2, b2); err != nil {
				t.Fatal(err)
			}
			if be := backwardError(a2, x2, b2); be > 1e-13 {
				t.Errorf("refactorized: backward error %.3g", be)
			}
			lu.Release()
			if err := lu.SolveVecTo(x2, b2); !errors.Is(err, ErrNotFactorized) || lu.Order() != 0 {
				t.Errorf("after Release: %v, order %d", err, lu.Order())
			}
		})
	}
}

// The multi-group panel (a grid-wide barrier) runs only where every group
// of the launch is known to be resident at once; everything else gets one
// group, whose barrier is a no-op.
func TestPanelGroupsOnlyWhereCoResident(t *testing.T) {
	for _, c := range []struct {
		name                   string
		typ, vendor, platform  string
		units, local, wantMore int // wantMore: 1 expects a single group, 0 several
	}{
		{"H100", "GPU", "NVIDIA Corporation", "NVIDIA CUDA", 132, 256, 0},
		{"MI250", "GPU", "Advanced Micro Devices, Inc.", "AMD Accelerated Parallel Processing", 104, 256, 0},
		{"Intel Arc", "GPU", "Intel(R) Corporation", "Intel(R) OpenCL Graphics", 512, 256, 1},
		{"PoCL CPU", "CPU", "GenuineIntel", "Portable Computing Language", 2, 256, 1},
		{"PoCL CUDA", "GPU", "NVIDIA Corporation", "Portable Computing Language", 132, 256, 1},
		{"rusticl AMD", "GPU", "AMD", "rusticl", 60, 256, 1},
		{"Apple", "GPU", "Apple", "Apple", 10, 256, 1},
		{"big groups", "GPU", "NVIDIA Corporation", "NVIDIA CUDA", 132, 1024, 1},
		{"no units", "GPU", "NVIDIA Corporation", "NVIDIA CUDA", 0, 256, 1},
	} {
		info := kernels.DeviceInfo{Type: c.typ, Vendor: c.vendor, Platform: c.platform, ComputeUnits: c.units}
		g := panelGroups(info, c.local)
		if c.wantMore == 1 && g != 1 {
			t.Errorf("%s: %d groups, want 1", c.name, g)
		}
		if c.wantMore == 0 && (g < 2 || g > luPanelMaxGroups || g > luPanelGroupsPerCU*c.units) {
			t.Errorf("%s: %d groups, want 2..%d", c.name, g, min(luPanelMaxGroups, luPanelGroupsPerCU*c.units))
		}
	}
}

// lu_panel_local (the panel's rows in local memory) and lu_panel (in global
// memory) compute the same factorization: the same pivots as gonum's LU
// (LAPACK's dgetrf), factors that agree, and the same singular column.
func TestLUPanelKernelsAgree(t *testing.T) {
	dev := testDevice(t)
	defer func(v bool) { luPanelUseLocal = v }(luPanelUseLocal)
	factors := func(lu *LU) []float64 {
		f := make([]float64, lu.ld*lu.ld)
		if err := lu.a.Read(0, f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// n = 300 with the default block: several groups of lu_panel_local on a
	// GPU (64 columns, 86 rows per group in 48 KiB), one on PoCL.
	for _, n := range []int{1, 17, 70, 300} {
		nb := 16
		if n == 300 {
			nb = 0
		}
		for _, pivot := range []bool{true, false} {
			a, b := randomSystem(n, uint64(n)+7, !pivot)
			var fs [2][]float64
			var ps [2][]int
			for i, useLocal := range []bool{true, false} {
				luPanelUseLocal = useLocal
				lu := LU{BlockSize: nb, NoPivot: !pivot, Pivoting: PivotingPartial}
				if err := lu.Factorize(dev, a); err != nil {
					t.Fatalf("n=%d pivot=%v local=%v: %v", n, pivot, useLocal, err)
				}
				_, be := solveBackwardError(t, &lu, a, b)
				if be > 1e-13 {
					t.Errorf("n=%d pivot=%v local=%v: backward error %.3g", n, pivot, useLocal, be)
				}
				fs[i], ps[i] = factors(&lu), lu.Pivots()
				lu.Release()
			}
			if pivot {
				var ref mat.LU
				ref.Factorize(a)
				rp := ref.RowPivots(nil)
				// gonum gives the permutation; replay ours to compare.
				perm := make([]int, n)
				for i := range perm {
					perm[i] = i
				}
				for i, p := range ps[0] {
					perm[i], perm[p] = perm[p], perm[i]
				}
				// gonum's RowPivots is the inverse: row rp[i] of P A is row i.
				for i := range perm {
					if rp[perm[i]] != i {
						t.Errorf("n=%d: row %d of P A is row %d, gonum's row %d", n, i, perm[i], rp[perm[i]])
						break
					}
				}
			}
			for i := range ps[0] {
				if ps[0][i] != ps[1][i] {
					t.Fatalf("n=%d pivot=%v: pivot %d: %d (local) vs %d", n, pivot, i, ps[0][i], ps[1][i])
				}
			}
			if d := relDiff(fs[0], fs[1]); d > 1e-12 {
				t.Errorf("n=%d pivot=%v: factors differ by %.3g", n, pivot, d)
			}
		}
	}
	// A zero column: both report the same singular step.
	a, _ := randomSystem(40, 3, false)
	for i := 0; i < 40; i++ {
		a.Set(i, 21, 0)
	}
	for _, useLocal := range []bool{true, false} {
		luPanelUseLocal = useLocal
		lu := LU{BlockSize: 16, Pivoting: PivotingPartial}
		err := lu.Factorize(dev, a)
		var se *SingularError
		if !errors.As(err, &se) || se.Pivot != 21 {
			t.Errorf("local=%v: %v, want a singular pivot at column 21", useLocal, err)
		}
	}
}

// The single-launch chained triangular solve (the default) and the tiled
// one agree, over several row blocks and a partial last block.
func TestLUSolveChainedMatchesTiled(t *testing.T) {
	dev := testDevice(t)
	for _, n := range []int{5, 64, 65, 150} {
		a, b := randomSystem(n, uint64(n)+91, false)
		var xs [2][]float64
		for i, tile := range []int{0, 16} {
			lu := LU{BlockSize: 16, SolveTile: tile}
			if err := lu.Factorize(dev, a); err != nil {
				t.Fatal(err)
			}
			xs[i] = make([]float64, n)
			if err := lu.SolveVecTo(xs[i], b); err != nil {
				t.Fatalf("n=%d tile=%d: %v", n, tile, err)
			}
			if be := backwardError(a, xs[i], b); be > 1e-13 {
				t.Errorf("n=%d tile=%d: backward error %.3g", n, tile, be)
			}
			lu.Release()
		}
		if d := relDiff(xs[0], xs[1]); d > 1e-12 {
			t.Errorf("n=%d: chained and tiled solves differ by %.3g", n, d)
		}
	}
}

// lu_swap_panel and lu_swap_trsm (with no triangular solve: cend = k) apply
// a panel's exchanges to every column exactly as the exchanges one after
// the other would, also when several exchanges reach the same place below
// the block (a row brought down is chosen again) and when exchanges stay
// inside the block: swap_plan's replay and gather_column's reads before
// writes.
func TestSwapPlanMatchesSerialExchanges(t *testing.T) {
	dev := testDevice(t)
	const nb, n = 16, 80
	prog, err := luProgram(dev, nb)
	if err != nil {
		t.Fatal(err)
	}
	panel, err := prog.Kernel("lu_swap_panel")
	if err != nil {
		t.Fatal(err)
	}
	swap, err := prog.Kernel("lu_swap_trsm")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 6; trial++ {
		k := nb * (trial % 3)
		ipiv := make([]int32, n)
		for i := range ipiv {
			ipiv[i] = int32(i)
		}
		// Places below the block from a small set, so that they repeat;
		// some exchanges inside the block, some none.
		for i := k; i < k+nb; i++ {
			switch rng.IntN(4) {
			case 0, 1:
				ipiv[i] = int32(k + nb + rng.IntN(3))
			case 2:
				ipiv[i] = int32(i + rng.IntN(k+nb-i))
			}
		}
		host := make([]float64, n*n)
		for i := range host {
			host[i] = float64(i)
		}
		want := append([]float64(nil), host...)
		for i := k; i < k+nb; i++ {
			p := int(ipiv[i])
			for c := 0; c < n; c++ {
				want[i*n+c], want[p*n+c] = want[p*n+c], want[i*n+c]
			}
		}
		a, err := dev.Alloc(8 * n * n)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := dev.Alloc(4 * n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Write(0, host); err != nil {
			t.Fatal(err)
		}
		if err := ib.Write(0, ipiv); err != nil {
			t.Fatal(err)
		}
		if err := panel.Launch([]int{64}, []int{64}, n, k, a, ib); err != nil {
			t.Fatal(err)
		}
		if err := swap.Launch([]int{kernels.RoundUp(n-nb, 32)}, []int{32}, n, k, k, a, ib, kernels.Local(8*nb*nb)); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n*n)
		if err := a.Read(0, got); err != nil {
			t.Fatal(err)
		}
		a.Release()
		ib.Release()
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d (k=%d, ipiv %v): entry (%d,%d) = %g, want %g", trial, k, ipiv[k:k+nb], i/n, i%n, got[i], want[i])
			}
		}
	}
}
