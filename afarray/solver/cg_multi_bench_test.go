package solver

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// BenchmarkCGMultiModel2 compares Jacobi CG on Model 2 (RCM numbering, its
// loads as b) on one device (the one-device CG of Run on CSC and on SELL,
// and CGMulti on that device alone) and on every device of
// OCLSOLVE_MULTI_DEVICES (default "all"; the default device split in two
// where that is one device): Chronopoulos and Gear's iteration (multi, the
// default: product on sliced ELLPACK, exchanges enqueued from one
// goroutine once the host has the scalars; multi-gated: each iteration
// enqueued ahead behind gates; multi-blocking: a goroutine per device and
// blocking reads;
// multi-csr: the product on CSR with a team of lanes per row, and blocking
// reads), the pipelined one (pipe; pipe-copyq with its exchanges on a
// queue of their own) and the textbook one (multi-2sync, its devices
// served at once or one after the other). OCLSOLVE_MULTI_N sets the order
// (default 20000). The one-sync runs log the host's time per iteration by
// phase (mcgTimes). Run it once per configuration: go test -run x -bench
// CGMultiModel2 -benchtime 1x.
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
	for _, f := range []Format{FormatCSC, formatSELL} {
		name := "cg/1dev"
		if f != FormatCSC {
			name = "cg-" + string(f) + "/1dev"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				x, rep, err := Run(a, rhs, Options{Method: MethodCG, Format: f, Order: sparse.OrderNatural, Jacobi: true, Device: devs[0]})
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("solve %.3f s, %d iterations, %.1f us per iteration", rep.SolveTime.Seconds(), rep.Iterations,
					1e6*rep.SolveTime.Seconds()/float64(max(rep.Iterations, 1)))
				report(b, x, &CGResult{Iterations: rep.Iterations}, rep.SolveTime.Seconds(), rep.DeviceBytes)
			}
		})
	}
	for _, c := range []struct {
		name                             string
		k                                int
		form                             mcgForm
		serial, copyQ, csr, blocks, gate bool
	}{{"multi", 1, mcgOneSync, false, false, false, false, false}, {"multi", len(devs), mcgOneSync, false, false, false, false, false},
		{"multi-gated", 1, mcgOneSync, false, false, false, false, true},
		{"multi-gated", len(devs), mcgOneSync, false, false, false, false, true},
		{"multi-blocking", len(devs), mcgOneSync, false, false, false, true, false},
		{"multi-csr", 1, mcgOneSync, false, false, true, true, false}, {"multi-csr", len(devs), mcgOneSync, false, false, true, true, false},
		{"pipe", 1, mcgPipelined, false, false, false, false, false}, {"pipe", len(devs), mcgPipelined, false, false, false, false, false},
		{"pipe-copyq", 1, mcgPipelined, false, true, false, false, false}, {"pipe-copyq", len(devs), mcgPipelined, false, true, false, false, false},
		{"multi-2sync", 1, mcgTextbook, false, false, false, false, false}, {"multi-2sync", len(devs), mcgTextbook, false, false, false, false, false},
		{"multi-2sync-serial", len(devs), mcgTextbook, true, false, false, false, false}} {
		k := c.k
		b.Run(c.name+"/"+strconv.Itoa(k)+"dev", func(b *testing.B) {
			mcgDefault, mcgSerial, mcgCopyQueue, mcgSELL, mcgExchange, mcgGate = c.form, c.serial, c.copyQ, !c.csr, !c.blocks, c.gate
			var times mcgTimes
			mcgTimeline = &times
			defer func() {
				mcgDefault, mcgSerial, mcgCopyQueue, mcgSELL, mcgExchange, mcgGate = mcgOneSync, false, false, true, true, false
				mcgTimeline = nil
			}()
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
				b.Logf("setup %.3f s, solve %.3f s, %d iterations, %.1f us per iteration; pipelined solves fallen back so far %d",
					st.SetupTime.Seconds(), st.SolveTime.Seconds(), res.Iterations, 1e6*st.SolveTime.Seconds()/float64(max(res.Iterations, 1)),
					mcgFallbacks.Load())
				report(b, x, res, st.SolveTime.Seconds(), peak)
			}
			if it := times.Iterations; it > 0 {
				us := func(d time.Duration) float64 { return 1e6 * d.Seconds() / float64(it) }
				b.Logf("host per iteration: wait %.1f us, sums and in[] %.1f us, release %.1f us, ahead %.1f us",
					us(times.Wait), us(times.Host), us(times.Release), us(times.Ahead))
				b.ReportMetric(us(times.Host+times.Release), "host-us/it")
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
