package gauss

import (
	"fmt"
	"testing"
	"time"
)

// Benchmarks at the documents' sizes (1023 and 2047 unknowns, i.e.
// augmented 1023 x 1024 and 2047 x 2048 matrices) and beyond. The
// documents' best published times on a GTX 1060 are 31.2 ms and 178 ms.
// Run on a GPU with, for example,
//
//	go test -c -o gauss.test ./afarray/gauss
//	./gauss.test -test.run '^$' -test.bench 'Solve|LUFactorize' -test.benchtime 3x
//
// Every benchmark reports the phases of the last solve (upload, eliminate,
// back-substitution, in ms), the launches per solve and GFLOP/s of the
// nominal 2/3 n^3 + 2 n^2 operations over the whole solve.

var (
	pingPongSizes = []int{1023, 2047, 4095}
	blockedSizes  = []int{1023, 2047, 4096, 8192}
)

func BenchmarkSolve(b *testing.B) {
	for _, variant := range Variants() {
		sizes := pingPongSizes
		if variant == VariantBlocked {
			sizes = blockedSizes
		}
		for _, pivot := range []bool{false, true} {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("%s/pivot=%v/n=%d", variant, pivot, n), func(b *testing.B) {
					benchSolve(b, n, Options{Variant: variant, Pivot: pivot})
				})
			}
		}
	}
}

func benchSolve(b *testing.B, n int, opts Options) {
	dev := testDevice(b)
	a, rhs := randomSystem(n, uint64(n), !opts.Pivot)
	// One untimed solve builds the program and warms the caches.
	if _, _, err := Solve(dev, a, rhs, opts); err != nil {
		b.Fatal(err)
	}
	var rep *Report
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if _, rep, err = Solve(dev, a, rhs, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(rep.Upload), "upload-ms")
	b.ReportMetric(ms(rep.Eliminate), "eliminate-ms")
	b.ReportMetric(ms(rep.BackSubstitution), "backsub-ms")
	b.ReportMetric(float64(rep.Launches), "launches")
	b.ReportMetric(rep.GFlops, "GFLOP/s")
}

// BenchmarkLUFactorize times the blocked factorization alone (the matrix
// already packed on the host; upload excluded) for several block sizes.
func BenchmarkLUFactorize(b *testing.B) {
	for _, nb := range []int{32, 64} {
		for _, n := range []int{2048, 4096, 8192, 16384} {
			b.Run(fmt.Sprintf("nb=%d/n=%d", nb, n), func(b *testing.B) {
				dev := testDevice(b)
				if int64(8*n*n) > dev.Info().MaxAllocBytes {
					b.Skipf("%d x %d exceeds the device's largest allocation", n, n)
				}
				a, _ := randomSystem(n, uint64(n), false)
				lu := LU{BlockSize: nb}
				if err := lu.Factorize(dev, a); err != nil {
					b.Fatal(err)
				}
				var total time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := lu.Factorize(dev, a); err != nil {
						b.Fatal(err)
					}
					total += lu.factor
				}
				b.StopTimer()
				lu.Release()
				per := total.Seconds() / float64(b.N)
				b.ReportMetric(per*1e3, "factor-ms")
				b.ReportMetric(2.0/3.0*float64(n)*float64(n)*float64(n)/per/1e9, "GFLOP/s")
			})
		}
	}
}
