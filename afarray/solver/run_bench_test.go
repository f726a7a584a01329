package solver

import (
	"os"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// BenchmarkRunSplit is solver.Run from a COO already in host memory: the
// file in $OCLSOLVE_BENCH_NPZ (oclsolve gen model2 --order 142422 --numbering
// rcm --format npz writes the case), else bcsstk38, by fast skyline
// Cholesky with the automatic and the natural ordering. Beside ns/op it
// reports each phase of the time split in ms, "host_ms", everything but
// factorize and solve (what issue 12 asks to be at most 150 ms at n =
// 142,422 on the GPU host), and the upload, compile and other times of the
// process's first Run.
//
//	OCLSOLVE_DEVICE=gpu OCLSOLVE_BENCH_NPZ=m2.npz go test -run XXX -bench RunSplit -benchtime 3x ./afarray/solver/
func BenchmarkRunSplit(b *testing.B) {
	var a *sparse.COO
	if p := os.Getenv("OCLSOLVE_BENCH_NPZ"); p != "" {
		var err error
		if a, err = sparse.ReadNPZ(p); err != nil {
			b.Fatal(err)
		}
	} else {
		a = sparseLoad(b, "bcsstk38", sparse.OrderNatural)
	}
	for _, order := range []sparse.Ordering{sparse.OrderAuto, sparse.OrderNatural} {
		b.Run(string(order), func(b *testing.B) {
			sparseDevice(b)
			opts := Options{Method: MethodCholesky, Format: FormatSKS, Variant: Fast, Order: order}
			// The first Run of the process also pays for first uses
			// (programs loaded, pinned staging and device memory allocated):
			// its upload, compile and other are reported apart.
			_, first, err := Run(a, nil, opts)
			if err != nil {
				b.Fatal(err)
			}
			var sum Report
			for b.Loop() {
				_, rep, err := Run(a, nil, opts)
				if err != nil {
					b.Fatal(err)
				}
				sum.OrderingTime += rep.OrderingTime
				sum.UploadTime += rep.UploadTime
				sum.ConvertTime += rep.ConvertTime
				sum.CompileTime += rep.CompileTime
				sum.SymbolicTime += rep.SymbolicTime
				sum.FactorizeTime += rep.FactorizeTime
				sum.SolveTime += rep.SolveTime
				sum.DownloadTime += rep.DownloadTime
				sum.OtherTime += rep.OtherTime
				sum.TotalTime += rep.TotalTime
			}
			n := float64(b.N) / 1000
			for name, d := range map[string]float64{
				"ordering_ms": sum.OrderingTime.Seconds(), "upload_ms": sum.UploadTime.Seconds(),
				"convert_ms": sum.ConvertTime.Seconds(), "compile_ms": sum.CompileTime.Seconds(),
				"factorize_ms": sum.FactorizeTime.Seconds(), "solve_ms": sum.SolveTime.Seconds(),
				"download_ms": sum.DownloadTime.Seconds(), "other_ms": sum.OtherTime.Seconds(),
				"host_ms": (sum.TotalTime - sum.FactorizeTime - sum.SolveTime).Seconds(),
			} {
				b.ReportMetric(d/n, name)
			}
			b.ReportMetric(first.UploadTime.Seconds()*1000, "first_upload_ms")
			b.ReportMetric(first.CompileTime.Seconds()*1000, "first_compile_ms")
			b.ReportMetric(first.OtherTime.Seconds()*1000, "first_other_ms")
		})
	}
}
