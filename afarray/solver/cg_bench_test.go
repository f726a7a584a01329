package solver

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// benchSystem is one sparse system of the CG and SpMV benchmarks.
type benchSystem struct {
	name string
	c    *sparse.COO
}

// benchSystems returns the sparse systems of the CG and SpMV benchmarks:
// real matrices that CG handles without a preconditioner (left out when
// the matrices folder is absent), and random diagonally dominant banded
// ones (bandwidth 40) of growing size.
func benchSystems(b *testing.B) []benchSystem {
	real := []string{"mesh1e1"}
	if benchLarge() {
		real = append(real, "crystm01")
	}
	var out []benchSystem
	for _, name := range real {
		path := filepath.Join(denseTestMatrixDir(), name+".mtx")
		if _, err := os.Stat(path); err != nil {
			b.Logf("%s left out: %v", name, err)
			continue
		}
		out = append(out, benchSystem{name, denseTestLoad(b, name)})
	}
	out = append(out, benchSystem{"random2000", cgTestRandomSparseFar(2000, 1, false)})
	if benchLarge() {
		out = append(out, benchSystem{"random200000", cgTestRandomSparseFar(200000, 2, false)})
	}
	return out
}

// BenchmarkSpMV times one product per operation.
func BenchmarkSpMV(b *testing.B) {
	for _, sys := range benchSystems(b) {
		for _, v := range variants {
			s := cgTestBuild(b, sys.name, sys.c, v)
			n := s.n
			x, _ := afarray.FromFloat64s(denseTestVec(n, 1))
			y, _ := afarray.Zeros(n)
			for _, f := range []string{"csc", "sks", "dense"} {
				op, ok := s.ops[f]
				if !ok {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/%s", f, v, sys.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if err := op.MulVecTo(y, x); err != nil {
							b.Fatal(err)
						}
					}
					if err := y.Sync(); err != nil {
						b.Fatal(err)
					}
				})
			}
			x.Release()
			y.Release()
		}
	}
}

// BenchmarkCG times a whole solve to a relative residual of 1e-8 (the
// thesis variant gets the equivalent absolute tolerance, and both may run
// to 10n iterations), reporting iterations and launches per solve.
func BenchmarkCG(b *testing.B) {
	for _, sys := range benchSystems(b) {
		for _, v := range variants {
			s := cgTestBuild(b, sys.name, sys.c, v)
			n := s.n
			bv := denseTestVec(n, 3)
			rhs, _ := afarray.FromFloat64s(bv)
			tol := 1e-8
			if v == Thesis {
				sum := 0.0
				for _, e := range bv {
					sum += e * e
				}
				tol *= math.Sqrt(sum)
			}
			for _, f := range []string{"csc", "sks", "dense"} {
				op, ok := s.ops[f]
				if !ok {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/%s", f, v, sys.name), func(b *testing.B) {
					var res *CGResult
					for i := 0; i < b.N; i++ {
						x, r, err := CG(op, rhs, CGOptions{Variant: v, Tol: tol, MaxIter: 10 * n})
						if err != nil {
							b.Fatal(err)
						}
						x.Release()
						res = r
					}
					b.ReportMetric(float64(res.Iterations), "iterations")
					b.ReportMetric(float64(res.Launches), "launches/op")
				})
			}
			rhs.Release()
		}
	}
}
