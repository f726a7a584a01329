package solver

import (
	"os"
	"strconv"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// BenchmarkCGMultiModel2 compares Jacobi CG on Model 2 (RCM numbering, its
// loads as b) on one device (the one-device CG of Run, and CGMulti on that
// device alone) and on every device, the devices served at once (one
// goroutine each) or one after the other (multi-serial), with the one-sync
// iteration or the textbook one (multi-2sync), of OCLSOLVE_MULTI_DEVICES (default
// "all"; the default device split in two where that is one device).
// OCLSOLVE_MULTI_N sets the order (default 20000). Run it once per
// configuration: go test -run x -bench CGMultiModel2 -benchtime 1x.
func BenchmarkCGMultiModel2(b *testing.B) {
	n := 20000
	if s := os.Getenv("OCLSOLVE_MULTI_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	devs, err := kernels.SelectDevices(envOr("OCLSOLVE_MULTI_DEVICES", "all"))
	if err != nil {
		b.Fatal(err)
	}
	if len(devs) == 1 {
		if devs, err = devs[0].Split(2); err != nil {
			b.Fatal(err)
		}
	}
	ga, gb, gc, _, err := fem.Model2ForOrder(n)
	if err != nil {
		b.Fatal(err)
	}
	sys, err := fem.Model2(fem.Model2Options{A: ga, B: gb, C: gc, Numbering: fem.RCM})
	if err != nil {
		b.Fatal(err)
	}
	a, rhs := sys.K, sys.F
	b.Logf("model2 %s: n = %d, nnz = %d, assembled in %v; devices %s", sys.Grid, sys.NumDOF, a.NNZ(), sys.AssemblyTime, kernels.Labels(devs))
	report := func(b *testing.B, x []float64, res *CGResult, solveS float64, peak int64) {
		be := BackwardError(a, x, rhs)
		b.ReportMetric(float64(res.Iterations), "iterations")
		b.ReportMetric(solveS, "solve-s")
		b.ReportMetric(float64(peak)/1e6, "MB/device")
		b.ReportMetric(be, "backward-error")
	}
	b.Run("cg/1dev", func(b *testing.B) {
		for b.Loop() {
			x, rep, err := Run(a, rhs, Options{Method: MethodCG, Format: FormatCSC, Order: sparse.OrderNatural, Jacobi: true, Device: devs[0]})
			if err != nil {
				b.Fatal(err)
			}
			report(b, x, &CGResult{Iterations: rep.Iterations}, rep.SolveTime.Seconds(), rep.DeviceBytes)
		}
	})
	for _, c := range []struct {
		name            string
		k               int
		serial, twoSync bool
	}{{"multi", 1, false, false}, {"multi", len(devs), false, false}, {"multi-serial", len(devs), true, false},
		{"multi-2sync", 1, false, true}, {"multi-2sync", len(devs), false, true}} {
		k := c.k
		b.Run(c.name+"/"+strconv.Itoa(k)+"dev", func(b *testing.B) {
			mcgSerial, mcgTwoSync = c.serial, c.twoSync
			defer func() { mcgSerial, mcgTwoSync = false, false }()
			for b.Loop() {
				x, res, st, err := CGMulti(a, rhs, devs[:k], CGOptions{Jacobi: true})
				if err != nil {
					b.Fatal(err)
				}
				var peak int64
				for _, s := range st.Shares {
					peak = max(peak, s.PeakBytes)
					b.Logf("%s: rows %d, nnz %d, halo %d, send %d, peak %.1f MB", s.Device, s.Rows, s.NNZ, s.Halo, s.Send, float64(s.PeakBytes)/1e6)
				}
				b.Logf("setup %.3f s, solve %.3f s, %d iterations", st.SetupTime.Seconds(), st.SolveTime.Seconds(), res.Iterations)
				report(b, x, res, st.SolveTime.Seconds(), peak)
			}
		})
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
