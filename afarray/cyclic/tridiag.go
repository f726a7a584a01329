package cyclic

import (
	"fmt"
	"math"
)

// Tridiag is a batch of Count independent tridiagonal systems of order N in
// double precision. System s occupies entries [s*N, (s+1)*N) of each slice;
// row i of system s reads
//
//	Sub[s*N+i]*x[i-1] + Diag[s*N+i]*x[i] + Sup[s*N+i]*x[i+1] = RHS[s*N+i].
//
// Sub[s*N] and Sup[s*N+N-1] lie outside the matrix and are ignored, so that
// all four slices have the same length N*Count and the same layout.
type Tridiag struct {
	N, Count            int
	Sub, Diag, Sup, RHS []float64
}

// Tridiag32 is the single-precision twin of Tridiag, with the same layout.
type Tridiag32 struct {
	N, Count            int
	Sub, Diag, Sup, RHS []float32
}

// NewTridiag returns a zeroed batch of count systems of order n.
func NewTridiag(n, count int) (*Tridiag, error) {
	if n < 1 || count < 1 {
		return nil, fmt.Errorf("%w: batch of %d systems of order %d", ErrShape, count, n)
	}
	l := n * count
	return &Tridiag{N: n, Count: count, Sub: make([]float64, l), Diag: make([]float64, l), Sup: make([]float64, l), RHS: make([]float64, l)}, nil
}

// NewTridiag32 returns a zeroed single-precision batch.
func NewTridiag32(n, count int) (*Tridiag32, error) {
	if n < 1 || count < 1 {
		return nil, fmt.Errorf("%w: batch of %d systems of order %d", ErrShape, count, n)
	}
	l := n * count
	return &Tridiag32{N: n, Count: count, Sub: make([]float32, l), Diag: make([]float32, l), Sup: make([]float32, l), RHS: make([]float32, l)}, nil
}

// dims returns the order and count of the systems, for solveBatch.
func (t *Tridiag) dims() (n, count int)   { return t.N, t.Count }
func (t *Tridiag32) dims() (n, count int) { return t.N, t.Count }

// Validate checks that N and Count are positive and that every slice holds
// N*Count entries.
func (t *Tridiag) Validate() error {
	if t == nil {
		return fmt.Errorf("%w: nil batch", ErrShape)
	}
	return validateShape(t.N, t.Count, len(t.Sub), len(t.Diag), len(t.Sup), len(t.RHS))
}

// Validate checks that N and Count are positive and that every slice holds
// N*Count entries.
func (t *Tridiag32) Validate() error {
	if t == nil {
		return fmt.Errorf("%w: nil batch", ErrShape)
	}
	return validateShape(t.N, t.Count, len(t.Sub), len(t.Diag), len(t.Sup), len(t.RHS))
}

func validateShape(n, count, ls, ld, lu, lr int) error {
	if n < 1 || count < 1 {
		return fmt.Errorf("%w: batch of %d systems of order %d", ErrShape, count, n)
	}
	if n > math.MaxInt32/count {
		return fmt.Errorf("%w: %d systems of order %d exceed 2^31 unknowns", ErrShape, count, n)
	}
	l := n * count
	if ls != l || ld != l || lu != l || lr != l {
		return fmt.Errorf("%w: %d systems of order %d need %d entries per slice, have sub %d, diag %d, sup %d, rhs %d",
			ErrShape, count, n, l, ls, ld, lu, lr)
	}
	return nil
}

// Float32 converts the batch to single precision.
func (t *Tridiag) Float32() *Tridiag32 {
	return &Tridiag32{N: t.N, Count: t.Count, Sub: convert[float32](t.Sub), Diag: convert[float32](t.Diag), Sup: convert[float32](t.Sup), RHS: convert[float32](t.RHS)}
}

// Float64 converts the batch to double precision.
func (t *Tridiag32) Float64() *Tridiag {
	return &Tridiag{N: t.N, Count: t.Count, Sub: convert[float64](t.Sub), Diag: convert[float64](t.Diag), Sup: convert[float64](t.Sup), RHS: convert[float64](t.RHS)}
}

// convert returns v in precision D, rounded to nearest.
func convert[D, S real](v []S) []D {
	w := make([]D, len(v))
	for i, x := range v {
		w[i] = D(x)
	}
	return w
}

type real interface{ ~float32 | ~float64 }

// BackwardError returns the largest normwise backward error of x over the
// systems of the batch,
//
//	||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf),
//
// computed in double precision. It is about the unit roundoff for a
// backward-stable solve; NaN or Inf in x gives +Inf.
func (t *Tridiag) BackwardError(x []float64) (float64, error) {
	if err := t.Validate(); err != nil {
		return 0, err
	}
	return backwardError(t.N, t.Count, t.Sub, t.Diag, t.Sup, t.RHS, x)
}

// BackwardError is Tridiag.BackwardError for a single-precision batch and
// solution, evaluated in double precision.
func (t *Tridiag32) BackwardError(x []float32) (float64, error) {
	if err := t.Validate(); err != nil {
		return 0, err
	}
	return backwardError(t.N, t.Count, t.Sub, t.Diag, t.Sup, t.RHS, x)
}

func backwardError[T real](n, count int, sub, diag, sup, rhs, x []T) (float64, error) {
	if len(x) != n*count {
		return 0, fmt.Errorf("%w: solution has %d entries, want %d", ErrShape, len(x), n*count)
	}
	worst := 0.0
	for s := range count {
		o := s * n
		var rmax, amax, xmax, bmax float64
		for i := range n {
			xi := float64(x[o+i])
			if math.IsNaN(xi) || math.IsInf(xi, 0) {
				return math.Inf(1), nil
			}
			ax := float64(diag[o+i]) * xi
			arow := math.Abs(float64(diag[o+i]))
			if i > 0 {
				ax += float64(sub[o+i]) * float64(x[o+i-1])
				arow += math.Abs(float64(sub[o+i]))
			}
			if i < n-1 {
				ax += float64(sup[o+i]) * float64(x[o+i+1])
				arow += math.Abs(float64(sup[o+i]))
			}
			rmax = math.Max(rmax, math.Abs(float64(rhs[o+i])-ax))
			amax = math.Max(amax, arow)
			xmax = math.Max(xmax, math.Abs(xi))
			bmax = math.Max(bmax, math.Abs(float64(rhs[o+i])))
		}
		den := amax*xmax + bmax
		if den == 0 {
			continue // A = 0 and b = 0: x = 0 is exact
		}
		worst = math.Max(worst, rmax/den)
	}
	return worst, nil
}
