package solver

import (
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// BenchmarkCSC times symbolic analysis, factorization and one solve of each
// CSC method and variant on bcsstk16 and bcsstk38 (ordered with "auto"),
// from $OCLSOLVE_MATRICES or the shared folder. The symbolic time is
// reported apart, as the thesis excludes it.
//
//	go test -run XXX -bench CSC -benchtime 1x ./afarray/solver/
func BenchmarkCSC(b *testing.B) {
	for _, name := range []string{"bcsstk16", "bcsstk38"} {
		c := sparseLoad(b, name, sparse.OrderAuto)
		rhs := sparseRHS(b, c, 1)
		for _, ldlt := range []bool{false, true} {
			for _, v := range sparseVariants {
				b.Run(name+"/"+sksMethod(ldlt)+"/"+string(v), func(b *testing.B) {
					sparseDevice(b)
					a := cscUpload(b, c)
					bd := sparseVector(b, rhs)
					f := newCSCFactor(ldlt)
					defer f.Release()
					var symbolic, factor, solve float64
					var st SparseStats
					for i := 0; i < b.N; i++ {
						if err := f.Factorize(a, v); err != nil {
							b.Fatal(err)
						}
						x, err := f.Solve(bd)
						if err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						st = f.Stats()
						symbolic += st.SymbolicTime.Seconds()
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
					b.ReportMetric(symbolic/float64(b.N), "symbolic-s/op")
					b.ReportMetric(factor/float64(b.N), "factor-s/op")
					b.ReportMetric(solve/float64(b.N), "solve-s/op")
					b.ReportMetric(float64(st.FactorLaunches+st.SolveLaunches), "launches/op")
				})
			}
		}
	}
}
