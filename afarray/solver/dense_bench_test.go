package solver

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray"
)

// benchLarge reports whether OCLSOLVE_BENCH_LARGE=1 asks for the large
// sizes (meant for a GPU; the defaults suit PoCL on two cores).
func benchLarge() bool { return os.Getenv("OCLSOLVE_BENCH_LARGE") == "1" }

// BenchmarkDense times factor + solve (Gauss-Jordan: the solve) for each
// dense method and variant, including the device copy of A that Factorize
// makes and the status read that ends each call. It reports launches per
// operation and GFLOP/s of the nominal n³/3 (Cholesky, LDLᵀ) or n³ (GJ).
func BenchmarkDense(b *testing.B) {
	sizes := []int{64, 256}
	if benchLarge() {
		sizes = []int{1024, 4096, 8192}
	}
	for _, n := range sizes {
		a, err := afarray.FromDense(benchSPD(n, 1))
		if err != nil {
			b.Fatal(err)
		}
		rhs, err := afarray.FromFloat64s(denseTestVec(n, 2))
		if err != nil {
			b.Fatal(err)
		}
		dst, err := afarray.Zeros(n)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []string{"Cholesky", "LDLT", "GaussJordan"} {
			for _, v := range variants {
				if v == Thesis && n > 4096 {
					continue // 4n launches of a full-matrix sweep: minutes
				}
				b.Run(fmt.Sprintf("%s/%s/n=%d", m, v, n), func(b *testing.B) {
					dev := a.Device()
					flops := float64(n) * float64(n) * float64(n) / 3
					if m == "GaussJordan" {
						flops *= 3
					}
					l0 := dev.Launches()
					for i := 0; i < b.N; i++ {
						var err error
						switch m {
						case "Cholesky":
							var c DenseCholesky
							if err = c.Factorize(a, v); err == nil {
								err = c.SolveTo(dst, rhs)
							}
							c.Release()
						case "LDLT":
							var c DenseLDLT
							if err = c.Factorize(a, v); err == nil {
								err = c.SolveTo(dst, rhs)
							}
							c.Release()
						default:
							var x *afarray.Array
							if x, err = GaussJordan(a, rhs, v); err == nil {
								x.Release()
							}
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(dev.Launches()-l0)/float64(b.N), "launches/op")
					b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
		a.Release()
		rhs.Release()
		dst.Release()
	}
}

// benchSPD returns a random symmetric, diagonally dominant (so positive
// definite) matrix in O(n²) host time: denseTestSPD's M Mᵀ costs O(n³),
// minutes at the large sizes.
func benchSPD(n int, seed uint64) *mat.SymDense {
	r := rand.New(rand.NewPCG(seed, 5))
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a.SetSym(i, j, r.Float64()*2-1)
		}
		a.SetSym(i, i, float64(n)+r.Float64())
	}
	return a
}
