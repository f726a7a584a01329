package sparse

import (
	"fmt"
	"math"
	"runtime"
)

// The accuracy measures every solver reports: the product A x and ‖A‖∞ of a
// COO matrix (both triangles of a Symmetric one), and the normwise backward
// error. The CLI, the benchmarks, the notebooks and the tests all use these.

// MulVec returns A x. For a Symmetric matrix the stored triangle stands for
// both.
func (c *COO) MulVec(x []float64) ([]float64, error) {
	if len(x) != c.Cols {
		return nil, fmt.Errorf("%w: vector of %d for a %dx%d matrix", ErrShape, len(x), c.Rows, c.Cols)
	}
	return scatterRows(c, func(y []float64, k int) {
		i, j, v := c.I[k], c.J[k], c.V[k]
		y[i] += v * x[j]
		if c.Symmetric && i != j {
			y[j] += v * x[i]
		}
	}), nil
}

// scatterRows runs add over every entry into a row vector and returns the
// sum. Large matrices are split among the cores, each with its own vector
// (a symmetric entry updates two rows), added up after.
func scatterRows(c *COO, add func(y []float64, k int)) []float64 {
	m := len(c.V)
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<17), 16))
	parts := make([][]float64, workers)
	run(workers, workers, func(w int) {
		y := make([]float64, c.Rows)
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			add(y, k)
		}
		parts[w] = y
	})
	y := parts[0]
	if len(parts) > 1 {
		// Added in worker order, range by range on every core: the same
		// sums as one core would make.
		scanVertices(len(y), func(lo, hi int) {
			for _, p := range parts[1:] {
				for i := lo; i < hi; i++ {
					y[i] += p[i]
				}
			}
		})
	}
	return y
}

// NormInf returns ‖A‖∞, the largest row sum of |a_ij| (both triangles of a
// Symmetric matrix).
func (c *COO) NormInf() float64 {
	row := scatterRows(c, func(y []float64, k int) {
		i, j, v := c.I[k], c.J[k], math.Abs(c.V[k])
		y[i] += v
		if c.Symmetric && i != j {
			y[j] += v
		}
	})
	var m float64
	for _, r := range row {
		m = math.Max(m, r)
	}
	return m
}

// BackwardError is the normwise backward error of x as a solution of
// A x = b, ‖b − A x‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞), from normA = ‖A‖∞ and ax = A x
// (so that matrix-free and device products can use it too). A backward
// stable solver keeps it at a small multiple of the unit roundoff. It is 0
// when the denominator is (b = 0 and x = 0).
func BackwardError(normA float64, ax, x, b []float64) float64 {
	var r, xn, bn float64
	for i := range b {
		r = math.Max(r, math.Abs(b[i]-ax[i]))
		bn = math.Max(bn, math.Abs(b[i]))
	}
	for _, v := range x {
		xn = math.Max(xn, math.Abs(v))
	}
	if d := normA*xn + bn; d != 0 {
		return r / d // NaN when x or A holds NaN, so accuracy gates refuse it
	}
	return 0
}

// BackwardErrorOf is BackwardError of x for the COO system A x = b.
func BackwardErrorOf(a *COO, x, b []float64) (float64, error) {
	ax, err := a.MulVec(x)
	if err != nil {
		return 0, err
	}
	if len(b) != a.Rows {
		return 0, fmt.Errorf("%w: right-hand side of %d for a %dx%d matrix", ErrShape, len(b), a.Rows, a.Cols)
	}
	return BackwardError(a.NormInf(), ax, x, b), nil
}
