package study

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/oclsolve/oclsolve/afarray/cyclic"
	"github.com/oclsolve/oclsolve/kernels"
)

// The helpers of notebook 05 (cyclic reduction).

// CyclicSizes returns, for a scale, the orders of the 1-D systems, the
// grids of the 2-D ones (P = 2^k - 1 points a side) and the batch's order
// and number of systems.
func CyclicSizes(scale string) (sizes1D, grids []int, batchN, batchCount int) {
	switch scale {
	case Thesis:
		return []int{1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22}, []int{31, 63, 127, 255, 511, 1023}, 512, 4096
	case Large:
		return []int{1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24}, []int{63, 127, 255, 511, 1023, 2047, 4095}, 1024, 16384
	}
	return []int{1 << 10, 1 << 12, 1 << 14, 1 << 16}, []int{15, 31, 63, 127}, 512, 256
}

// TimedSolve solves t by method m twice, once to build the kernels and
// once timed, and returns the timed solve.
func TimedSolve(dev *kernels.Device, t *cyclic.Tridiag, m string) ([]float64, *cyclic.Report, error) {
	if _, _, err := cyclic.Solve(dev, t, cyclic.Options{Method: m}); err != nil {
		return nil, nil, err
	}
	return cyclic.Solve(dev, t, cyclic.Options{Method: m})
}

// TimedSolve32 is TimedSolve in single precision.
func TimedSolve32(dev *kernels.Device, t *cyclic.Tridiag32, m string) ([]float32, *cyclic.Report, error) {
	if _, _, err := cyclic.Solve32(dev, t, cyclic.Options{Method: m}); err != nil {
		return nil, nil, err
	}
	return cyclic.Solve32(dev, t, cyclic.Options{Method: m})
}

// BunemanRow solves the manufactured 2-D Poisson problem on a g x g grid by
// Buneman's BCR (once to build the kernels, once timed) and returns its row
// of the convergence table — grid, unknowns, time, backward error, max error
// against the exact solution, the ratio of prevErr (the previous grid's
// error; 0 for none) to this one, launches — and the max error.
func BunemanRow(dev *kernels.Device, g int, prevErr float64) ([]any, float64, error) {
	prob, err := cyclic.Poisson2DManufactured(g, g)
	if err != nil {
		return nil, 0, err
	}
	if _, _, err := cyclic.Poisson2D(dev, prob, cyclic.Options{}); err != nil {
		return nil, 0, err
	}
	u, rep, err := cyclic.Poisson2D(dev, prob, cyclic.Options{})
	if err != nil {
		return nil, 0, err
	}
	e := floats.Distance(u, prob.Exact, math.Inf(1))
	ratio := any("—")
	if prevErr > 0 {
		ratio = prevErr / e
	}
	return []any{fmt.Sprintf("%d × %d", g, g), g * g, rep.Compute.Seconds(), fmt.Sprintf("%.1e", rep.BackwardError), fmt.Sprintf("%.2e", e),
		ratio, rep.Launches}, e, nil
}
