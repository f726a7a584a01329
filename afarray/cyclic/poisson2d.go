package cyclic

import (
	"fmt"
	"math"
)

// Grid2D is the 2-D Poisson problem -Δu = f on the unit square with Dirichlet
// boundary values, discretised by the five-point stencil on P x Q interior
// points (hx = 1/(P+1), hy = 1/(Q+1)):
//
//	(2u_ij - u_{i-1,j} - u_{i+1,j})/hx^2 + (2u_ij - u_{i,j-1} - u_{i,j+1})/hy^2 = F_ij.
//
// Point (x_i, y_j) = (i hx, j hy), i = 1..P, j = 1..Q, is entry (i-1)*Q + j-1
// of F, of Exact and of a solution: one grid line of constant x after
// another. F already holds the boundary values moved to the right-hand side.
// Block cyclic reduction eliminates lines, so P must be 2^k - 1; Q is free.
type Grid2D struct {
	P, Q   int
	Hx, Hy float64
	F      []float64
	// Exact is the exact solution of the differential problem at the grid
	// points when it is known (manufactured problems), else nil.
	Exact []float64
}

// Validate checks that P = 2^k - 1, Q >= 1, the spacings are positive and F
// has P*Q entries.
func (g *Grid2D) Validate() error {
	if g == nil {
		return fmt.Errorf("%w: nil grid", ErrShape)
	}
	if err := validateGrid(g.P, g.Q, g.Hx, g.Hy); err != nil {
		return err
	}
	if len(g.F) != g.P*g.Q {
		return fmt.Errorf("%w: grid %d x %d needs %d right-hand side entries, has %d", ErrShape, g.P, g.Q, g.P*g.Q, len(g.F))
	}
	if g.Exact != nil && len(g.Exact) != g.P*g.Q {
		return fmt.Errorf("%w: grid %d x %d has %d exact values", ErrShape, g.P, g.Q, len(g.Exact))
	}
	return nil
}

func validateGrid(p, q int, hx, hy float64) error {
	if p < 1 || (p+1)&p != 0 || q < 1 {
		return fmt.Errorf("%w: grid %d x %d: block cyclic reduction needs 2^k - 1 lines and at least one point per line", ErrShape, p, q)
	}
	if p > math.MaxInt32/q {
		return fmt.Errorf("%w: grid %d x %d exceeds 2^31 points", ErrShape, p, q)
	}
	if !(hx > 0) || !(hy > 0) {
		return fmt.Errorf("%w: grid spacings %g, %g", ErrShape, hx, hy)
	}
	return nil
}

// Poisson2DProblem discretises -Δu = f on the unit square with u = g on the
// boundary on a p x q interior grid (p = 2^k - 1). If g is nil the boundary
// values are zero. Exact is left nil.
func Poisson2DProblem(p, q int, f, g func(x, y float64) float64) (*Grid2D, error) {
	if p < 1 || q < 1 || (p+1)&p != 0 {
		return nil, fmt.Errorf("%w: grid %d x %d: block cyclic reduction needs 2^k - 1 lines", ErrShape, p, q)
	}
	if f == nil {
		return nil, fmt.Errorf("%w: nil source function", ErrShape)
	}
	if g == nil {
		g = func(x, y float64) float64 { return 0 }
	}
	hx, hy := 1/float64(p+1), 1/float64(q+1)
	gr := &Grid2D{P: p, Q: q, Hx: hx, Hy: hy, F: make([]float64, p*q)}
	ix, iy := 1/(hx*hx), 1/(hy*hy)
	for i := 1; i <= p; i++ {
		x := float64(i) * hx
		for j := 1; j <= q; j++ {
			y := float64(j) * hy
			v := f(x, y)
			if i == 1 {
				v += g(0, y) * ix
			}
			if i == p {
				v += g(1, y) * ix
			}
			if j == 1 {
				v += g(x, 0) * iy
			}
			if j == q {
				v += g(x, 1) * iy
			}
			gr.F[(i-1)*q+j-1] = v
		}
	}
	return gr, nil
}

// Poisson2DManufactured returns the p x q problem whose exact solution is
//
//	u(x, y) = sin(pi x) sin(2 pi y) + e^x cos(y),
//
// with the source f = 5 pi^2 sin(pi x) sin(2 pi y) (the second term is
// harmonic and enters through the boundary values). Exact holds u at the
// grid points; the discrete solution approaches it as O(h^2).
func Poisson2DManufactured(p, q int) (*Grid2D, error) {
	u := func(x, y float64) float64 { return math.Sin(math.Pi*x)*math.Sin(2*math.Pi*y) + math.Exp(x)*math.Cos(y) }
	f := func(x, y float64) float64 { return 5 * math.Pi * math.Pi * math.Sin(math.Pi*x) * math.Sin(2*math.Pi*y) }
	g, err := Poisson2DProblem(p, q, f, u)
	if err != nil {
		return nil, err
	}
	g.Exact = make([]float64, p*q)
	for i := 1; i <= p; i++ {
		for j := 1; j <= q; j++ {
			g.Exact[(i-1)*q+j-1] = u(float64(i)*g.Hx, float64(j)*g.Hy)
		}
	}
	return g, nil
}

// Apply computes the five-point operator of the grid applied to u into dst
// (both P*Q entries), with zero boundary values (those are in F).
func (g *Grid2D) Apply(dst, u []float64) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if len(u) != g.P*g.Q || len(dst) != len(u) {
		return fmt.Errorf("%w: grid %d x %d given vectors of %d and %d entries", ErrShape, g.P, g.Q, len(u), len(dst))
	}
	ix, iy := 1/(g.Hx*g.Hx), 1/(g.Hy*g.Hy)
	P, Q := g.P, g.Q
	for i := range P {
		for j := range Q {
			k := i*Q + j
			v := (2*ix + 2*iy) * u[k]
			if i > 0 {
				v -= ix * u[k-Q]
			}
			if i < P-1 {
				v -= ix * u[k+Q]
			}
			if j > 0 {
				v -= iy * u[k-1]
			}
			if j < Q-1 {
				v -= iy * u[k+1]
			}
			dst[k] = v
		}
	}
	return nil
}

// BackwardError returns the normwise backward error of u as a solution of
// the discrete problem, ||F - A u||_inf / (||A||_inf ||u||_inf + ||F||_inf).
func (g *Grid2D) BackwardError(u []float64) (float64, error) {
	au := make([]float64, len(u))
	if err := g.Apply(au, u); err != nil {
		return 0, err
	}
	var r, un, fn float64
	for k := range u {
		if math.IsNaN(u[k]) || math.IsInf(u[k], 0) {
			return math.Inf(1), nil
		}
		r = math.Max(r, math.Abs(g.F[k]-au[k]))
		un = math.Max(un, math.Abs(u[k]))
		fn = math.Max(fn, math.Abs(g.F[k]))
	}
	anorm := 4/(g.Hx*g.Hx) + 4/(g.Hy*g.Hy)
	den := anorm*un + fn
	if den == 0 {
		return 0, nil
	}
	return r / den, nil
}
