package cyclic

import (
	"fmt"
	"math"
)

// Poisson1D returns the second-difference discretisation of -u” = f on
// (0, 1) with u(0) = u(1) = 0 on n interior points (h = 1/(n+1)), scaled by
// h^2: rows tridiag(-1, 2, -1), right-hand side h^2 f(x_i). The source f is
// manufactured so that u(x) = sin(pi x) is the exact solution; Poisson1DExact
// returns it at the grid points. The matrix is symmetric positive definite
// (weakly diagonally dominant), the classic cyclic-reduction test problem.
func Poisson1D(n int) (*Tridiag, error) { return Poisson1DBatch(n, 1) }

// Poisson1DBatch returns count such systems of order n; system s has exact
// solution u(x) = sin((s+1) pi x), so the systems of a batch differ.
func Poisson1DBatch(n, count int) (*Tridiag, error) {
	t, err := NewTridiag(n, count)
	if err != nil {
		return nil, err
	}
	h := 1 / float64(n+1)
	for s := range count {
		w := float64(s+1) * math.Pi
		for i := range n {
			k := s*n + i
			t.Sub[k], t.Diag[k], t.Sup[k] = -1, 2, -1
			t.RHS[k] = h * h * w * w * math.Sin(w*float64(i+1)*h)
		}
		t.Sub[s*n], t.Sup[s*n+n-1] = 0, 0
	}
	return t, nil
}

// Poisson1DExact returns the exact solutions of Poisson1DBatch(n, count) at
// the grid points.
func Poisson1DExact(n, count int) ([]float64, error) {
	if n < 1 || count < 1 {
		return nil, fmt.Errorf("%w: batch of %d systems of order %d", ErrShape, count, n)
	}
	h := 1 / float64(n+1)
	u := make([]float64, n*count)
	for s := range count {
		w := float64(s+1) * math.Pi
		for i := range n {
			u[s*n+i] = math.Sin(w * float64(i+1) * h)
		}
	}
	return u, nil
}
