package gauss

import (
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

func solveBlocked(dev *kernels.Device, a mat.Matrix, b []float64, n int, opts Options) ([]float64, *Report, error) {
	return nil, nil, ErrVariant
}
