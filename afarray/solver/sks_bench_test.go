package solver

import (
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// BenchmarkSKS times factorization plus one solve of each skyline method and
// variant on bcsstk16 and bcsstk38 (ordered with "auto", the better of
// natural and RCM for the skyline), taken from $OCLSOLVE_MATRICES or the
// shared folder. The matrix is restored on the device before each iteration,
// outside the timing. Extra metrics: launches per factorization and solve,
// and the two times separately.
//
//	go test -run XXX -bench SKS -benchtime 1x ./afarray/solver/
func BenchmarkSKS(b *testing.B) {
	for _, name := range []string{"bcsstk16", "bcsstk38"} {
		c := sparseLoad(b, name, sparse.OrderAuto)
		rhs := sparseRHS(b, c, 1)
		for _, ldlt := range []bool{false, true} {
			for _, v := range sparseVariants {
				b.Run(name+"/"+sksMethod(ldlt)+"/"+string(v), func(b *testing.B) {
					sparseDevice(b)
					a := sksUpload(b, c)
					pristine, err := a.Elements.Copy()
					if err != nil {
						b.Fatal(err)
					}
					defer pristine.Release()
					bd := sparseVector(b, rhs)
					f := newSKSFactor(ldlt, 0)
					defer f.Release()
					var factor, solve float64
					var st SparseStats
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						if err := a.Elements.CopyFrom(pristine); err != nil {
							b.Fatal(err)
						}
						if err := a.Elements.Sync(); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						if err := f.Factorize(a, v); err != nil {
							b.Fatal(err)
						}
						x, err := f.Solve(bd)
						if err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						st = f.Stats()
						factor += st.FactorTime.Seconds()
						solve += st.SolveTime.Seconds()
						if i == 0 {
							if be := sparseBackwardError(b, c, sparseHost(b, x), rhs); be > 1e-14 {
								b.Errorf("backward error %.3g", be)
							}
						}
						x.Release()
						b.StartTimer()
					}
					b.ReportMetric(factor/float64(b.N), "factor-s/op")
					b.ReportMetric(solve/float64(b.N), "solve-s/op")
					b.ReportMetric(float64(st.FactorLaunches+st.SolveLaunches), "launches/op")
				})
			}
		}
	}
}
