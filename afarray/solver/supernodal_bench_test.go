package solver

import (
	"slices"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// BenchmarkSupernodal times the numeric supernodal Cholesky (the ordering is
// computed once per factorization but not timed: FactorTime covers upload,
// scatter and the level steps) of the systems of issue 13's PoCL target:
// bcsstk16, bcsstk38 and Model 1 n = 10,044 (mesh 31x8x11), reporting the
// least and the median factor time over b.N factorizations. Compare with
// CHOLMOD's factor_s (../shared/anchors/cholmod_mm.c) on the same cores:
// go test -run x -bench Supernodal$ -benchtime 8x.
func BenchmarkSupernodal(b *testing.B) {
	sparseDevice(b)
	m1, err := fem.Model1(fem.Model1Options{NX: 31, NY: 8, NZ: 11})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		load func() *sparse.COO
	}{
		{"bcsstk16", func() *sparse.COO { return sparseLoad(b, "bcsstk16", sparse.OrderNatural) }},
		{"bcsstk38", func() *sparse.COO { return sparseLoad(b, "bcsstk38", sparse.OrderNatural) }},
		{"model1-10044", func() *sparse.COO { return m1.K }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a := cscUpload(b, tc.load())
			var times []time.Duration
			for b.Loop() {
				f := &SupernodalCholesky{}
				if err := f.Factorize(a, sparse.OrderFillAuto); err != nil {
					b.Fatal(err)
				}
				times = append(times, f.SupernodalStats().FactorTime)
				f.Release()
			}
			slices.Sort(times)
			b.ReportMetric(times[0].Seconds(), "min-factor-s")
			b.ReportMetric(times[len(times)/2].Seconds(), "median-factor-s")
		})
	}
}
