//go:build petsc

package petsc

import (
	"os"
	"strconv"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/fem"
)

// The benchmarks solve Model 2 (order OCLSOLVE_PETSC_ORDER, default 51156)
// on OCLSOLVE_PETSC_RANKS ranks (default 2) and report the phases as
// metrics. Every rank must run each benchmark exactly once, so run them
// with -benchtime 1x:
//
//	OCLSOLVE_PETSC_RANKS=1 go test -tags petsc -run '^$' -bench . -benchtime 1x ./afarray/solver/petsc
//
// Every rank generates the model and keeps its rows (the generator is not
// distributed; its time is not in the metrics).

func benchSystem(b *testing.B) *fem.System {
	if b.N != 1 {
		b.Fatalf("collective benchmark: run with -benchtime 1x (b.N = %d)", b.N)
	}
	order := 51156
	if s := os.Getenv("OCLSOLVE_PETSC_ORDER"); s != "" {
		var err error
		if order, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	a, bb, c, _, err := fem.Model2ForOrder(order)
	if err != nil {
		b.Fatal(err)
	}
	sys, err := fem.Model2(fem.Model2Options{A: a, B: bb, C: c, Numbering: fem.RCM})
	if err != nil {
		b.Fatal(err)
	}
	return sys
}

func report(b *testing.B, rep *Report) {
	b.ReportMetric(float64(rep.N), "n")
	b.ReportMetric(float64(rep.Ranks), "ranks")
	b.ReportMetric(rep.UploadTime.Seconds(), "upload-s")
	b.ReportMetric(rep.SymbolicTime.Seconds(), "symbolic-s")
	b.ReportMetric(rep.FactorizeTime.Seconds(), "factorize-s")
	b.ReportMetric(rep.SolveTime.Seconds(), "solve-s")
	b.ReportMetric(rep.TotalTime.Seconds(), "total-s")
	b.ReportMetric(float64(rep.PeakRSS)/1e6, "peakRSS-MB/rank")
	b.ReportMetric(rep.BackwardError*1e16, "backward-error*1e16")
	if rep.FactorEntries > 0 {
		b.ReportMetric(float64(rep.FactorEntries), "nnz(L)")
		b.ReportMetric(float64(rep.FactorBytesMax)/1e6, "MUMPS-MB/rank")
		b.ReportMetric(rep.FactorFlops/rep.FactorizeTime.Seconds()/1e9, "factor-GF/s")
		b.ReportMetric(rep.FactorFlops, "flops")
		b.ReportMetric(float64(rep.LargestFront), "largest-front")
	}
	if rep.Iterations > 0 {
		b.ReportMetric(float64(rep.Iterations), "iterations")
	}
}

func BenchmarkMUMPSModel2(b *testing.B) {
	sys := benchSystem(b)
	b.ResetTimer()
	_, rep, err := Solve(sys.K, sys.F, Options{Method: MethodCholesky, Coords: sys.Mesh.Coords, Equation: sys.Equation})
	if err != nil {
		b.Fatal(err)
	}
	report(b, rep)
}

func BenchmarkGAMGModel2(b *testing.B) {
	sys := benchSystem(b)
	b.ResetTimer()
	_, rep, err := Solve(sys.K, sys.F, Options{Method: MethodCG, Tol: 1e-8, Coords: sys.Mesh.Coords, Equation: sys.Equation})
	if err != nil {
		b.Fatal(err)
	}
	report(b, rep)
}

// BenchmarkGAMGModel2NoModes is BenchmarkGAMGModel2 without the rigid-body
// modes (block size 3 kept): the comparison the near-null space is for.
func BenchmarkGAMGModel2NoModes(b *testing.B) {
	sys := benchSystem(b)
	b.ResetTimer()
	_, rep, err := Solve(sys.K, sys.F, Options{Method: MethodCG, Tol: 1e-8, Coords: sys.Mesh.Coords, Equation: sys.Equation, NoNearNullSpace: true})
	if err != nil {
		b.Fatal(err)
	}
	report(b, rep)
}
