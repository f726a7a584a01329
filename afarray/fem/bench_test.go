package fem

import (
	"fmt"
	"testing"
)

// BenchmarkModel1 measures mesh generation plus assembly of Model 1 at
// about 10^4, 10^5 and 10^6 DOFs, in both numberings.
func BenchmarkModel1(b *testing.B) {
	for _, n := range []int{10044, 100000, 1000000} {
		nx, ny, nz, _, err := Model1ForOrder(n)
		if err != nil {
			b.Fatal(err)
		}
		for _, num := range []Numbering{Natural, RCM} {
			b.Run(fmt.Sprintf("n=%d/%v", Model1DOFs(nx, ny, nz), num), func(b *testing.B) {
				var asm float64
				for b.Loop() {
					sys, err := Model1(Model1Options{NX: nx, NY: ny, NZ: nz, Numbering: num})
					if err != nil {
						b.Fatal(err)
					}
					asm += sys.AssemblyTime.Seconds()
				}
				b.ReportMetric(asm/float64(b.N), "assembly-s/op")
			})
		}
	}
}

// BenchmarkModel2 measures mesh generation plus assembly of Model 2 at
// about 10^4, 1.4·10^5 and 10^6 DOFs, in both numberings.
func BenchmarkModel2(b *testing.B) {
	for _, n := range []int{10449, 142422, 1000000} {
		a, bb, c, _, err := Model2ForOrder(n)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := Model2DOFs(a, bb, c)
		for _, num := range []Numbering{Natural, RCM} {
			b.Run(fmt.Sprintf("n=%d/%v", got, num), func(b *testing.B) {
				var asm float64
				for b.Loop() {
					sys, err := Model2(Model2Options{A: a, B: bb, C: c, Numbering: num})
					if err != nil {
						b.Fatal(err)
					}
					asm += sys.AssemblyTime.Seconds()
				}
				b.ReportMetric(asm/float64(b.N), "assembly-s/op")
			})
		}
	}
}
