package sparse

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// MulVec, NormInf and BackwardError against gonum on a symmetric matrix
// stored as its lower triangle.
func TestResidualMeasures(t *testing.T) {
	c := &COO{Rows: 3, Cols: 3, Symmetric: true,
		I: []int32{0, 1, 2, 2}, J: []int32{0, 0, 1, 2}, V: []float64{4, -1, 2, 5}}
	d := mat.NewDense(3, 3, []float64{4, -1, 0, -1, 0, 2, 0, 2, 5})
	x := []float64{1, -2, 0.5}
	b := []float64{6, 1, -3}
	ax, err := c.MulVec(x)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(d, mat.NewVecDense(3, x))
	for i := range ax {
		if ax[i] != want.AtVec(i) {
			t.Errorf("MulVec[%d] = %g, want %g", i, ax[i], want.AtVec(i))
		}
	}
	if got, w := c.NormInf(), mat.Norm(d, math.Inf(1)); got != w {
		t.Errorf("NormInf = %g, want %g", got, w)
	}
	// Ax = (6, 0, -1.5): ‖b − Ax‖∞ = 1.5; ‖A‖∞ = 7, ‖x‖∞ = 2, ‖b‖∞ = 6.
	be, err := BackwardErrorOf(c, x, b)
	if err != nil || math.Abs(be-1.5/20) > 1e-15 {
		t.Errorf("BackwardErrorOf = %g, %v; want 0.075", be, err)
	}
	if _, err := c.MulVec(x[:2]); !errors.Is(err, ErrShape) {
		t.Errorf("short vector: %v", err)
	}
	if BackwardError(0, []float64{0}, []float64{0}, []float64{0}) != 0 {
		t.Error("0/0 backward error is not 0")
	}
}
