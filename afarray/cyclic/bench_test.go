package cyclic

import (
	"fmt"
	"os"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// Benchmarks keep the data on the device and time whole solves (until the
// device has finished); transfers are timed apart in BenchmarkTransfer. The
// default sizes suit PoCL; set OCLSOLVE_BENCH_LARGE=1 for the GPU sizes
// (2^20..2^24 unknowns, Poisson grids up to 4095 x 4095). The test binary
// (go test -c) embeds its kernels and runs standalone:
//
//	OCLSOLVE_BENCH_LARGE=1 ./cyclic.test -test.run '^$' -test.bench . -test.benchtime 20x

func benchLarge() bool { return os.Getenv("OCLSOLVE_BENCH_LARGE") != "" }

func benchSizes() []int {
	if benchLarge() {
		return []int{1 << 20, 1 << 22, 1 << 24}
	}
	return []int{1 << 16, 1 << 18}
}

// benchSingle solves one system of order n, for both precisions and the
// three device methods.
func BenchmarkSingleSystem(b *testing.B) {
	for _, prec := range []string{"double", "float"} {
		for _, method := range []string{"cr", "pcr", "crpcr"} {
			for _, n := range benchSizes() {
				b.Run(fmt.Sprintf("%s/%s/n=%d", prec, method, n), func(b *testing.B) {
					benchTridiag(b, n, 1, prec == "float", method)
				})
			}
		}
	}
}

// BenchmarkBatch solves many small systems at once, one work-group each.
func BenchmarkBatch(b *testing.B) {
	total := 1 << 18
	if benchLarge() {
		total = 1 << 22
	}
	for _, prec := range []string{"double", "float"} {
		for _, method := range []string{"cr", "pcr", "crpcr"} {
			for _, n := range []int{64, 512} {
				b.Run(fmt.Sprintf("%s/%s/n=%d/count=%d", prec, method, n, total/n), func(b *testing.B) {
					benchTridiag(b, n, total/n, prec == "float", method)
				})
			}
		}
	}
}

func benchTridiag(b *testing.B, n, count int, single bool, method string) {
	dev := testDevice(b)
	sys64 := randomDominant(n, count, 1)
	var dsys *DeviceTridiag
	var err error
	if single {
		dsys, err = Upload32(dev, sys64.Float32())
	} else {
		dsys, err = Upload(dev, sys64)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer dsys.Release()
	x, err := dev.Alloc(dsys.RHS.Size())
	if err != nil {
		b.Fatal(err)
	}
	defer x.Release()
	p, err := NewPlan(dev, n, count, single, Options{Method: method})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Release()
	// One checked solve outside the timing: the benchmark must measure a
	// correct solver.
	if err := p.SolveTo(x, dsys); err != nil {
		b.Fatal(err)
	}
	var berr float64
	if single {
		xs := make([]float32, n*count)
		if err := x.Read(0, xs); err != nil {
			b.Fatal(err)
		}
		berr, _ = sys64.Float32().BackwardError(xs)
	} else {
		xs := make([]float64, n*count)
		if err := x.Read(0, xs); err != nil {
			b.Fatal(err)
		}
		berr, _ = sys64.BackwardError(xs)
	}
	l0 := dev.Launches()
	b.ResetTimer()
	for range b.N {
		if err := p.SolveTo(x, dsys); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	eps := 0x1p-53
	if single {
		eps = 0x1p-24
	}
	b.ReportMetric(berr/eps, "berr/eps")
	b.ReportMetric(float64(dev.Launches()-l0)/float64(b.N), "launches/op")
	b.ReportMetric(float64(n*count)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Munknowns/s")
	b.ReportMetric(float64(p.Levels()), "levels")
}

// BenchmarkTransfer times the host-device traffic that Solve adds around a
// device solve: the four input arrays up and the solution down.
func BenchmarkTransfer(b *testing.B) {
	dev := testDevice(b)
	n := benchSizes()[len(benchSizes())-1]
	sys := randomDominant(n, 1, 1)
	for range b.N {
		d, err := Upload(dev, sys)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.RHS.Read(0, sys.RHS); err != nil {
			b.Fatal(err)
		}
		d.Release()
	}
	b.ReportMetric(float64(n), "n")
}

func BenchmarkPoisson2D(b *testing.B) {
	grids := []int{255, 511, 1023}
	if benchLarge() {
		grids = []int{255, 1023, 2047, 4095}
	}
	dev := testDevice(b)
	for _, m := range grids {
		b.Run(fmt.Sprintf("%dx%d", m, m), func(b *testing.B) {
			g, err := Poisson2DManufactured(m, m)
			if err != nil {
				b.Fatal(err)
			}
			bp, err := NewBCRPlan(dev, m, m, g.Hx, g.Hy, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer bp.Release()
			f, u := mustAlloc(b, dev, len(g.F)), mustAlloc(b, dev, len(g.F))
			defer f.Release()
			defer u.Release()
			if err := f.Write(0, g.F); err != nil {
				b.Fatal(err)
			}
			if err := bp.SolveTo(u, f); err != nil {
				b.Fatal(err)
			}
			x := make([]float64, len(g.F))
			if err := u.Read(0, x); err != nil {
				b.Fatal(err)
			}
			berr, _ := g.BackwardError(x)
			b.ResetTimer()
			for range b.N {
				if err := bp.SolveTo(u, f); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(berr/0x1p-53, "berr/eps")
			b.ReportMetric(maxRelDiff(x, g.Exact), "err-vs-exact")
			b.ReportMetric(float64(bp.Launches()), "launches/op")
		})
	}
}

func mustAlloc(b *testing.B, dev *kernels.Device, n int) *kernels.Buffer {
	buf, err := dev.Alloc(int64(n) * 8)
	if err != nil {
		b.Fatal(err)
	}
	return buf
}
