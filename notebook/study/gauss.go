package study

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/gauss"
	"github.com/oclsolve/oclsolve/kernels"
	"github.com/oclsolve/oclsolve/repl/display"
)

// The helpers of notebook 04 (Gaussian elimination).

// RandomDense returns an n x n matrix uniform in [0, 1), generated on the
// current device (afarray.Random with the seed) and brought to the host.
func RandomDense(n int, seed uint64) (*mat.Dense, error) {
	r, err := afarray.Random(seed, afarray.Float64, n, n)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.ToDense()
}

// Dominant returns a random matrix of order n with n added to its diagonal:
// diagonally dominant, so safe to eliminate without pivoting.
func Dominant(n int) (*mat.Dense, error) {
	a, err := RandomDense(n, uint64(n))
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+float64(n))
	}
	return a, nil
}

// General returns a random matrix of order n uniform in [-1, 1), which
// needs pivoting to be solved accurately.
func General(n int) (*mat.Dense, error) {
	a, err := RandomDense(n, uint64(n)+7)
	if err != nil {
		return nil, err
	}
	floats.AddConst(-0.5, a.RawMatrix().Data)
	floats.Scale(2, a.RawMatrix().Data)
	return a, nil
}

// SineRHS returns b_i = sin((i+1)/7), a right-hand side without structure.
func SineRHS(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = math.Sin(float64(i+1) / 7)
	}
	return b
}

// BackwardError is ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞), on the host
// with gonum (+Inf for mismatched sizes).
func BackwardError(a mat.Matrix, x, b []float64) float64 {
	r, c := a.Dims()
	if r != c || len(x) != c || len(b) != r {
		return math.Inf(1)
	}
	res := mat.NewVecDense(r, nil)
	res.MulVec(a, mat.NewVecDense(len(x), x))
	res.SubVec(mat.NewVecDense(len(b), b), res)
	return mat.Norm(res, math.Inf(1)) / (mat.Norm(a, math.Inf(1))*floats.Norm(x, math.Inf(1)) + floats.Norm(b, math.Inf(1)))
}

// GaussRun is one measured gauss.Solve.
type GaussRun struct {
	Variant string
	Pivot   bool
	N       int
	Rep     *gauss.Report
	BackErr float64
}

// GaussRuns measures gauss.Solve on one device and keeps the runs.
type GaussRuns struct {
	Device *kernels.Device
	Runs   []GaussRun
}

// Measure solves a diagonally dominant system of order n with variant v,
// once to build the kernels (PoCL compiles once per work-group size) and
// once timed, records the timed run and prints a line. A system the device
// cannot hold (two copies of [A | b] beyond its largest allocation, an
// image wider than it allows) is skipped with a line saying why.
func (g *GaussRuns) Measure(v string, piv bool, n int) error {
	info := g.Device.Info()
	switch {
	case int64(n)*int64(n+1)*8*2 > info.MaxAllocBytes:
		fmt.Printf("%-7s n = %d: two copies of [A | b] exceed the largest allocation; skipped\n", v, n)
		return nil
	case v == gauss.VariantImage && n+1 > info.Image2DMax[0]:
		fmt.Printf("%-7s n = %d: wider than the device's largest image; skipped\n", v, n)
		return nil
	}
	a, err := Dominant(n)
	if err != nil {
		return err
	}
	b := SineRHS(n)
	if _, _, err := gauss.Solve(g.Device, a, b, gauss.Options{Variant: v, Pivot: piv}); err != nil {
		return err
	}
	x, rep, err := gauss.Solve(g.Device, a, b, gauss.Options{Variant: v, Pivot: piv})
	if err != nil {
		return err
	}
	r := GaussRun{Variant: v, Pivot: piv, N: n, Rep: rep, BackErr: BackwardError(a, x, b)}
	g.Runs = append(g.Runs, r)
	fmt.Printf("%-7s pivot %-5v n = %5d: %9.4f s (eliminate %9.4f s), %6d launches, %6.2f GFLOP/s, backward error %.1e\n",
		v, piv, n, rep.Total.Seconds(), rep.Eliminate.Seconds(), rep.Launches, rep.GFlops, r.BackErr)
	return nil
}

// Find returns the run of variant v at order n, with or without pivoting,
// or nil.
func (g *GaussRuns) Find(v string, piv bool, n int) *GaussRun {
	for i := range g.Runs {
		if r := &g.Runs[i]; r.Variant == v && r.Pivot == piv && r.N == n {
			return r
		}
	}
	return nil
}

// Common returns the largest of sizes at which every variant ran with
// pivoting (0 if none).
func (g *GaussRuns) Common(sizes []int, variants []string) int {
	common := 0
	for _, n := range sizes {
		all := true
		for _, v := range variants {
			all = all && g.Find(v, true, n) != nil
		}
		if all {
			common = n
		}
	}
	return common
}

// Chart draws every variant's total time against n, solid with pivoting
// and dashed without.
func (g *GaussRuns) Chart(title string, variants []string) *display.Chart {
	c := display.NewChart(title, "order n", "s")
	for _, v := range variants {
		for _, piv := range []bool{true, false} {
			var x, y []float64
			for _, r := range g.Runs {
				if r.Variant == v && r.Pivot == piv {
					x, y = append(x, float64(r.N)), append(y, r.Rep.Total.Seconds())
				}
			}
			if piv {
				c.Line(v+" (pivot)", x, y)
			} else {
				c.Dashed(v+" (no pivot)", x, y)
			}
		}
	}
	return c
}

// GaussSizes returns, for a scale, the orders the ping-pong variants and the
// blocked LU run at.
func GaussSizes(scale string) (sizes, blockedSizes []int) {
	switch scale {
	case Thesis:
		return []int{256, 512, 1024, 2048, 4096}, []int{256, 512, 1024, 2048, 4096, 8192}
	case Large:
		return []int{512, 1024, 2048, 4096, 8192}, []int{1024, 2048, 4096, 8192, 16384, 32768}
	}
	return []int{64, 128, 256, 512}, []int{64, 128, 256, 512}
}
