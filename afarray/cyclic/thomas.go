package cyclic

import (
	"fmt"
	"math"
)

// Thomas solves every system of the batch on the host by the Thomas
// algorithm (Gaussian elimination without pivoting, specialised to
// tridiagonal matrices), sequentially. It is the reference the device
// methods are tested against. A zero or subnormal pivot returns ErrBreakdown
// naming the system and row.
func (t *Tridiag) Thomas() ([]float64, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	x := make([]float64, t.N*t.Count)
	return x, thomas(t.N, t.Count, t.Sub, t.Diag, t.Sup, t.RHS, x)
}

// Thomas solves the single-precision batch on the host, computing in double
// precision and rounding the solution to single.
func (t *Tridiag32) Thomas() ([]float32, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	x := make([]float64, t.N*t.Count)
	if err := thomas(t.N, t.Count, t.Sub, t.Diag, t.Sup, t.RHS, x); err != nil {
		return nil, err
	}
	return convert[float32](x), nil
}

func thomas[T real](n, count int, sub, diag, sup, rhs []T, x []float64) error {
	cp := make([]float64, n) // modified superdiagonal
	for s := range count {
		o := s * n
		var dprev float64
		for i := range n {
			den := float64(diag[o+i])
			dv := float64(rhs[o+i])
			if i > 0 {
				a := float64(sub[o+i])
				den -= a * cp[i-1]
				dv -= a * dprev
			}
			if !(math.Abs(den) >= 0x1p-1022) {
				return fmt.Errorf("%w: Thomas pivot %g in row %d of system %d", ErrBreakdown, den, i, s)
			}
			if i < n-1 {
				cp[i] = float64(sup[o+i]) / den
			}
			dprev = dv / den
			x[o+i] = dprev
		}
		for i := n - 2; i >= 0; i-- {
			x[o+i] -= cp[i] * x[o+i+1]
		}
		for i := range n {
			if math.IsNaN(x[o+i]) || math.IsInf(x[o+i], 0) {
				return fmt.Errorf("%w: Thomas solution of system %d is not finite at row %d", ErrBreakdown, s, i)
			}
		}
	}
	return nil
}
