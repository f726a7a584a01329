package solver

import (
	"fmt"
	"os"
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
						if err := f.FactorizeInPlace(a, v); err != nil {
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

// sparseGrid returns the 7-point Laplacian (plus a small shift, so it is
// SPD and not too ill-conditioned) of an nx x ny x nz grid in natural
// order: a banded matrix with bandwidth nx·ny, a stand-in for the thesis's
// large RCM-ordered FE models (n = 40·40·90 = 144 000 gives a skyline of
// 230 million entries, like the thesis's largest, 185 million).
func sparseGrid(nx, ny, nz int) *sparse.COO {
	n := nx * ny * nz
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	add := func(i, j int, v float64) {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
	}
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				j := x + nx*(y+ny*z)
				add(j, j, 6.01)
				if x+1 < nx {
					add(j+1, j, -1)
				}
				if y+1 < ny {
					add(j+nx, j, -1)
				}
				if z+1 < nz {
					add(j+nx*ny, j, -1)
				}
			}
		}
	}
	return c
}

// BenchmarkSKSGrid runs the fast skyline Cholesky on a 3-D grid matrix of
// $OCLSOLVE_GRID (for example "40x40x90", n = 144 000, about 1.8 GB of
// skyline; default "20x20x40") and the thesis variant when
// $OCLSOLVE_GRID_THESIS is set (it makes about 4n launches).
func BenchmarkSKSGrid(b *testing.B) {
	nx, ny, nz := 20, 20, 40
	if s := os.Getenv("OCLSOLVE_GRID"); s != "" {
		if _, err := fmt.Sscanf(s, "%dx%dx%d", &nx, &ny, &nz); err != nil {
			b.Fatalf("OCLSOLVE_GRID=%q: %v", s, err)
		}
	}
	c := sparseGrid(nx, ny, nz)
	rhs := sparseRHS(b, c, 1)
	variants := []Variant{Fast}
	if os.Getenv("OCLSOLVE_GRID_THESIS") != "" {
		variants = sparseVariants
	}
	for _, v := range variants {
		for _, w := range []int{32, 64} {
			if v == Thesis && w == 64 {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/chol/%s/B=%d", c.Rows, v, w), func(b *testing.B) {
				sparseDevice(b)
				a := sksUpload(b, c)
				pristine, err := a.Elements.Copy()
				if err != nil {
					b.Fatal(err)
				}
				defer pristine.Release()
				bd := sparseVector(b, rhs)
				f := &SKSCholesky{}
				f.BlockWidth = w
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
					if err := f.FactorizeInPlace(a, v); err != nil {
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
				b.ReportMetric(float64(st.FactorLen), "skyline-len")
				b.ReportMetric(factor/float64(b.N), "factor-s/op")
				b.ReportMetric(solve/float64(b.N), "solve-s/op")
				b.ReportMetric(float64(st.FactorLaunches+st.SolveLaunches), "launches/op")
			})
		}
	}
}
