package fem

import (
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// bandSolve solves K x = f for a symmetric positive definite K given as a
// full COO, by a band Cholesky factorization on the lower band. It is an
// independent host reference for the tests, cheap for the bandwidths of
// naturally numbered Model 1 meshes.
func bandSolve(k *sparse.COO, f []float64) ([]float64, error) {
	n := k.Rows
	bw := 0
	for p := range k.V {
		if d := int(k.I[p]) - int(k.J[p]); d > bw {
			bw = d
		}
	}
	w := bw + 1
	// band[j*w + (i-j)] holds K[i][j] for 0 ≤ i-j ≤ bw.
	band := make([]float64, n*w)
	for p, v := range k.V {
		i, j := int(k.I[p]), int(k.J[p])
		if i >= j {
			band[j*w+i-j] += v
		}
	}
	for j := 0; j < n; j++ {
		d := band[j*w]
		if !(d > 0) {
			return nil, fmt.Errorf("pivot %d is %g: matrix not positive definite", j, d)
		}
		d = math.Sqrt(d)
		band[j*w] = d
		for i := j + 1; i < n && i-j <= bw; i++ {
			band[j*w+i-j] /= d
		}
		// Update the trailing columns within the band.
		for c := j + 1; c < n && c-j <= bw; c++ {
			lcj := band[j*w+c-j]
			if lcj == 0 {
				continue
			}
			for i := c; i < n && i-j <= bw; i++ {
				band[c*w+i-c] -= band[j*w+i-j] * lcj
			}
		}
	}
	x := append([]float64(nil), f...)
	for j := 0; j < n; j++ {
		x[j] /= band[j*w]
		for i := j + 1; i < n && i-j <= bw; i++ {
			x[i] -= band[j*w+i-j] * x[j]
		}
	}
	for j := n - 1; j >= 0; j-- {
		s := x[j]
		for i := j + 1; i < n && i-j <= bw; i++ {
			s -= band[j*w+i-j] * x[i]
		}
		x[j] = s / band[j*w]
	}
	return x, nil
}

// mulVec returns K x for a full COO K.
func mulVec(k *sparse.COO, x []float64) []float64 {
	y, err := k.MulVec(x)
	if err != nil {
		panic(err)
	}
	return y
}
