package afarray

import (
	"fmt"
	"os"
	"testing"
)

// Benchmarks report GB/s (bytes the operation must move through device
// memory) and GFLOP/s via b.ReportMetric. Sizes grow with
// OCLSOLVE_BENCH_LARGE=1, for GPUs.

func benchSizes(small, large []int) []int {
	if os.Getenv("OCLSOLVE_BENCH_LARGE") != "" {
		return large
	}
	return small
}

func BenchmarkDot(b *testing.B) {
	for _, n := range benchSizes([]int{1 << 16, 1 << 20}, []int{1 << 20, 1 << 24, 1 << 26}) {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x, _ := Random(1, Float64, n)
			y, _ := Random(2, Float64, n)
			defer ReleaseAll(x, y)
			if _, err := Dot(x, y); err != nil { // build and warm up
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Dot(x, y); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(16*n)/sec/1e9, "GB/s")
			b.ReportMetric(float64(2*n)/sec/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkGemv(b *testing.B) {
	for _, n := range benchSizes([]int{512, 2048}, []int{4096, 16384}) {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			a, _ := Random(1, Float64, n, n)
			x, _ := Random(2, Float64, n)
			y, _ := Zeros(n)
			defer ReleaseAll(a, x, y)
			if err := Gemv(false, 1, a, x, 0, y); err != nil {
				b.Fatal(err)
			}
			y.Sync()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Gemv(false, 1, a, x, 0, y); err != nil {
					b.Fatal(err)
				}
			}
			y.Sync()
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(8*n*n)/sec/1e9, "GB/s")
			b.ReportMetric(float64(2*n*n)/sec/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range benchSizes([]int{128, 512}, []int{2048, 4096, 8192}) {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x, _ := Random(1, Float64, n, n)
			y, _ := Random(2, Float64, n, n)
			c, _ := Zeros(n, n)
			defer ReleaseAll(x, y, c)
			if err := Gemm(false, false, 1, x, y, 0, c); err != nil {
				b.Fatal(err)
			}
			c.Sync()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := Gemm(false, false, 1, x, y, 0, c); err != nil {
					b.Fatal(err)
				}
			}
			c.Sync()
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(2*float64(n)*float64(n)*float64(n)/sec/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkTransfer(b *testing.B) {
	for _, n := range benchSizes([]int{1 << 20}, []int{1 << 20, 1 << 25}) {
		data := make([]float64, n)
		b.Run(fmt.Sprintf("upload/%d", n), func(b *testing.B) {
			a, _ := Zeros(n)
			defer a.Release()
			for i := 0; i < b.N; i++ {
				if err := a.Write(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(8*n)/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("download/%d", n), func(b *testing.B) {
			a, _ := Zeros(n)
			defer a.Release()
			for i := 0; i < b.N; i++ {
				a.touch() // force a real download each time
				if _, err := a.Float64s(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(8*n)/(b.Elapsed().Seconds()/float64(b.N))/1e9, "GB/s")
		})
	}
}
