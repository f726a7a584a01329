package gauss

import (
	"fmt"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// The shuffles are asked for on NVIDIA's CUDA platform only, and
// OCLSOLVE_LU_SHFL=off turns them off.
func TestWarpShuffleOnlyOnNVIDIA(t *testing.T) {
	nv := kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "NVIDIA CUDA"}
	for _, c := range []struct {
		info kernels.DeviceInfo
		env  string
		want bool
	}{
		{nv, "", true},
		{nv, "off", false},
		{kernels.DeviceInfo{Type: "CPU", Vendor: "AuthenticAMD", Platform: "Portable Computing Language"}, "", false},
		{kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "Portable Computing Language"}, "", false},
		{kernels.DeviceInfo{Type: "GPU", Vendor: "Advanced Micro Devices, Inc.", Platform: "AMD Accelerated Parallel Processing"}, "", false},
	} {
		t.Setenv("OCLSOLVE_LU_SHFL", c.env)
		if got := warpShuffle(c.info); got != c.want {
			t.Errorf("%+v with OCLSOLVE_LU_SHFL=%q: %v, want %v", c.info, c.env, got, c.want)
		}
	}
}

// PivotingAuto takes the tournament on every GPU up to gpuSmallOrder and
// above it only where the shuffles are on; CPUs take partial pivoting.
func TestAutoPivotingChoice(t *testing.T) {
	nv := kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "NVIDIA CUDA"}
	amd := kernels.DeviceInfo{Type: "GPU", Vendor: "Advanced Micro Devices, Inc.", Platform: "AMD Accelerated Parallel Processing"}
	pocl := kernels.DeviceInfo{Type: "CPU", Vendor: "AuthenticAMD", Platform: "Portable Computing Language"}
	poclCUDA := kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "Portable Computing Language"}
	for _, c := range []struct {
		name string
		info kernels.DeviceInfo
		env  string
		n    int
		want Pivoting
	}{
		{"NVIDIA small", nv, "", 2047, PivotingTournament},
		{"NVIDIA at the bound", nv, "", gpuSmallOrder, PivotingTournament},
		{"NVIDIA large", nv, "", 8192, PivotingTournament},
		{"NVIDIA large, shuffles off", nv, "off", 8192, PivotingPartial},
		{"NVIDIA small, shuffles off", nv, "off", 2047, PivotingTournament},
		{"AMD small", amd, "", gpuSmallOrder, PivotingTournament},
		{"AMD large", amd, "", gpuSmallOrder + 1, PivotingPartial},
		{"PoCL CUDA large", poclCUDA, "", 8192, PivotingPartial},
		{"PoCL CUDA small", poclCUDA, "", 100, PivotingTournament},
		{"CPU small", pocl, "", 100, PivotingPartial},
		{"CPU large", pocl, "", 8192, PivotingPartial},
	} {
		t.Setenv("OCLSOLVE_LU_SHFL", c.env)
		if got := autoPivoting(c.info, c.n); got != c.want {
			t.Errorf("%s (n = %d, OCLSOLVE_LU_SHFL=%q): %v, want %v", c.name, c.n, c.env, got, c.want)
		}
	}
}

// Where the kernels reduce the pivot candidates by warp shuffles (NVIDIA),
// they choose exactly the pivots of the portable reductions and compute
// the same factors, for both pivotings and several panel widths. Elsewhere
// there is nothing to compare (the other tests cover the portable path).
func TestWarpShuffleSameFactors(t *testing.T) {
	dev := testDevice(t)
	if !warpShuffle(dev.Info()) {
		t.Skipf("%s: no warp shuffles", dev.Name())
	}
	factors := func(lu *LU) []float64 {
		f := make([]float64, lu.ld*lu.ld)
		if err := lu.a.Read(0, f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, n := range []int{70, 1000} {
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			for _, nb := range []int{16, 32} {
				t.Run(fmt.Sprintf("n=%d/%v/nb=%d", n, piv, nb), func(t *testing.T) {
					a, _ := randomSystem(n, uint64(n)+uint64(nb), false)
					var fs [2][]float64
					var ps [2][]int
					for i, env := range []string{"", "off"} {
						t.Setenv("OCLSOLVE_LU_SHFL", env)
						lu := LU{BlockSize: nb, Pivoting: piv}
						if err := lu.Factorize(dev, a); err != nil {
							t.Fatalf("OCLSOLVE_LU_SHFL=%q: %v", env, err)
						}
						fs[i], ps[i] = factors(&lu), lu.Pivots()
						lu.Release()
					}
					for i := range ps[0] {
						if ps[0][i] != ps[1][i] {
							t.Fatalf("pivot %d: %d with shuffles, %d without", i, ps[0][i], ps[1][i])
						}
					}
					if d := relDiff(fs[0], fs[1]); d > 1e-13 {
						t.Errorf("factors differ by %.3g", d)
					}
				})
			}
		}
	}
}

// The warp-wide reductions are asked for where the shuffles are and the
// compute capability is 8.0 or later, and OCLSOLVE_LU_REDUX=off turns
// them off.
func TestWarpReduxOnlyFromSM80(t *testing.T) {
	nv := func(major int) kernels.DeviceInfo {
		return kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "NVIDIA CUDA", NVComputeMajor: major}
	}
	t.Setenv("OCLSOLVE_LU_SHFL", "")
	for _, c := range []struct {
		info kernels.DeviceInfo
		env  string
		want bool
	}{
		{nv(9), "", true},
		{nv(8), "", true},
		{nv(9), "off", false},
		{nv(7), "", false},
		{nv(0), "", false}, // no cl_nv_device_attribute_query
		{kernels.DeviceInfo{Type: "GPU", Vendor: "NVIDIA Corporation", Platform: "Portable Computing Language", NVComputeMajor: 9}, "", false},
		{kernels.DeviceInfo{Type: "CPU", Vendor: "AuthenticAMD", Platform: "Portable Computing Language"}, "", false},
	} {
		t.Setenv("OCLSOLVE_LU_REDUX", c.env)
		if got := warpRedux(c.info); got != c.want {
			t.Errorf("%+v with OCLSOLVE_LU_REDUX=%q: %v, want %v", c.info, c.env, got, c.want)
		}
	}
	t.Setenv("OCLSOLVE_LU_SHFL", "off")
	t.Setenv("OCLSOLVE_LU_REDUX", "")
	if warpRedux(nv(9)) {
		t.Error("redux without the shuffles")
	}
}

// Where lu_tsel reduces by redux.sync (warp_winner), it chooses exactly
// the pivots of the shuffles' reduction (OCLSOLVE_LU_REDUX=off) and
// computes the same factors: for random matrices, and for tieSystem's,
// whose ties take warp_winner's third reduction, at orders whose panels
// take both kernels (lu_tsel and lu_tsel2, panelRows) and trees of two
// and three levels.
func TestWarpReduxSameFactors(t *testing.T) {
	dev := testDevice(t)
	if !warpRedux(dev.Info()) {
		t.Skipf("%s: no warp-wide reductions", dev.Name())
	}
	factors := func(lu *LU) []float64 {
		f := make([]float64, lu.ld*lu.ld)
		if err := lu.a.Read(0, f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, n := range []int{1000, 3000} {
		for _, nb := range []int{16, 32} {
			for _, ties := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/nb=%d/ties=%v", n, nb, ties), func(t *testing.T) {
					a, b := randomSystem(n, uint64(n)+uint64(nb), false)
					if ties {
						a, b = tieSystemDensity(n, uint64(n)+uint64(nb), tieDensity(n))
					}
					var fs [2][]float64
					var ps [2][]int
					for i, env := range []string{"", "off"} {
						t.Setenv("OCLSOLVE_LU_REDUX", env)
						lu := LU{BlockSize: nb, Pivoting: PivotingTournament}
						if err := lu.Factorize(dev, a); err != nil {
							t.Fatalf("OCLSOLVE_LU_REDUX=%q: %v", env, err)
						}
						fs[i], ps[i] = factors(&lu), lu.Pivots()
						if i == 0 {
							_, be := solveBackwardError(t, &lu, a, b)
							if be > 1e-13 {
								t.Errorf("backward error %.3g", be)
							}
						}
						lu.Release()
					}
					for i := range ps[0] {
						if ps[0][i] != ps[1][i] {
							t.Fatalf("pivot %d: %d with redux, %d without", i, ps[0][i], ps[1][i])
						}
					}
					if d := relDiff(fs[0], fs[1]); d > 1e-13 {
						t.Errorf("factors differ by %.3g", d)
					}
				})
			}
		}
	}
}
