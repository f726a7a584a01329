package solver

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// BenchmarkSupernodalMultiModel2 compares the supernodal Cholesky of Model 2
// (nested dissection, computed once; its loads as b) on one device
// (SupernodalCholesky, and the split factorization on that device alone)
// and split over every device of OCLSOLVE_MULTI_DEVICES (default "all"; the
// default device split in two where that is one device). OCLSOLVE_MULTI_N
// sets the order (default 20000); a run that does not fit its devices is
// skipped, naming the sizes; OCLSOLVE_MULTI_SKIP1=1 skips the one-device
// runs. Run it
// once per configuration: go test -run x -bench SupernodalMultiModel2
// -benchtime 1x.
func BenchmarkSupernodalMultiModel2(b *testing.B) {
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
	sys, err := fem.Model2(fem.Model2Options{A: ga, B: gb, C: gc})
	if err != nil {
		b.Fatal(err)
	}
	t := time.Now()
	h0, err := sparse.CSCFromCOO(sys.K)
	if err != nil {
		b.Fatal(err)
	}
	perm, _, _, _, err := sparse.FillOrder(h0, sparse.OrderND)
	if err != nil {
		b.Fatal(err)
	}
	a, err := sys.K.Permute(perm)
	if err != nil {
		b.Fatal(err)
	}
	rhs, err := sparse.PermuteVec(sys.F, perm)
	if err != nil {
		b.Fatal(err)
	}
	h, err := sparse.CSCFromCOO(a)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("model2 %s: n = %d, nnz = %d, assembled in %v, ordered in %v; devices %s", sys.Grid, sys.NumDOF, a.NNZ(), sys.AssemblyTime, time.Since(t), kernels.Labels(devs))
	report := func(b *testing.B, x []float64, factorS, solveS float64, peak int64) {
		be := BackwardError(a, x, rhs)
		b.ReportMetric(factorS, "factor-s")
		b.ReportMetric(solveS, "solve-s")
		b.ReportMetric(float64(peak)/1e6, "MB/device")
		b.ReportMetric(be, "backward-error")
		if !(be <= 1e-14) {
			b.Errorf("backward error %g", be)
		}
	}
	skip1 := os.Getenv("OCLSOLVE_MULTI_SKIP1") != ""
	if !skip1 {
		b.Run("sn/1dev", func(b *testing.B) {
			prev, _ := afarray.CurrentDevice()
			afarray.SetDevice(devs[0])
			defer afarray.SetDevice(prev)
			for b.Loop() {
				ad, err := afarray.UploadCSC(h)
				if err != nil {
					b.Fatal(err)
				}
				bd, err := afarray.FromFloat64s(rhs)
				if err != nil {
					b.Fatal(err)
				}
				devs[0].ResetPeak()
				base := devs[0].MemoryStats().Live
				var f SupernodalCholesky
				if err := f.Factorize(ad, sparse.OrderNatural); errors.Is(err, afarray.ErrOutOfMemory) {
					ad.Release()
					afarray.ReleaseAll(bd)
					b.Skipf("does not fit one device: %v", err)
				} else if err != nil {
					b.Fatal(err)
				}
				t := time.Now()
				xd, err := f.Solve(bd)
				if err != nil {
					b.Fatal(err)
				}
				x, err := xd.Float64s()
				if err != nil {
					b.Fatal(err)
				}
				solveS := time.Since(t).Seconds()
				st := f.SupernodalStats()
				peak := devs[0].MemoryStats().Peak - base
				f.Release()
				ad.Release()
				afarray.ReleaseAll(bd, xd)
				b.Logf("%s", st)
				report(b, x, st.FactorTime.Seconds(), solveS, peak)
			}
		})
	}
	for _, k := range []int{1, len(devs)} {
		if k == 1 && skip1 {
			continue
		}
		b.Run("multi/"+strconv.Itoa(k)+"dev", func(b *testing.B) {
			for b.Loop() {
				var f SupernodalCholeskyMulti
				if err := f.Factorize(h, devs[:k], sparse.OrderNatural); errors.Is(err, afarray.ErrOutOfMemory) {
					b.Skipf("does not fit %d devices: %v", k, err)
				} else if err != nil {
					b.Fatal(err)
				}
				t := time.Now()
				x, err := f.Solve(rhs)
				if err != nil {
					b.Fatal(err)
				}
				solveS := time.Since(t).Seconds()
				st := f.Stats()
				f.Release()
				var peak int64
				for _, s := range st.Shares {
					peak = max(peak, s.PeakBytes)
					b.Logf("%s: columns %d, nnz %d, top rows %d, send %d, peak %.1f MB", s.Device, s.Rows, s.NNZ, s.Halo, s.Send, float64(s.PeakBytes)/1e6)
				}
				info := devs[0].Info()
				b.Logf("%s; profile %v; L %.1f GB in all (one device's largest buffer %.1f GB, memory %.1f GB)", st.Factor, st.Factor.Profile,
					8*float64(st.Factor.Stored)/1e9, float64(info.MaxAllocBytes)/1e9, float64(info.GlobalMemBytes)/1e9)
				report(b, x, st.Factor.FactorTime.Seconds(), solveS, peak)
			}
		})
	}
}
