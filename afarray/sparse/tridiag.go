package sparse

import "fmt"

// Tridiag is a tridiagonal matrix: Diag has N entries, Sub (the first
// subdiagonal, A[i+1][i] = Sub[i]) and Super (the first superdiagonal,
// A[i][i+1] = Super[i]) have N-1 each (0 when N is 0).
type Tridiag struct {
	Sub, Diag, Super []float64
}

// N returns the order of the matrix.
func (t *Tridiag) N() int { return len(t.Diag) }

// Rows returns N.
func (t *Tridiag) Rows() int { return len(t.Diag) }

// Cols returns N.
func (t *Tridiag) Cols() int { return len(t.Diag) }

// Len returns the number of stored values, 3N-2 (0 for N = 0).
func (t *Tridiag) Len() int { return len(t.Sub) + len(t.Diag) + len(t.Super) }

// Validate checks the lengths of the three diagonals (ErrShape).
func (t *Tridiag) Validate() error {
	if t == nil {
		return fmt.Errorf("%w: nil Tridiag", ErrShape)
	}
	n := len(t.Diag)
	want := max(n-1, 0)
	if len(t.Sub) != want || len(t.Super) != want {
		return fmt.Errorf("%w: tridiagonal of order %d has %d sub and %d super entries", ErrShape, n, len(t.Sub), len(t.Super))
	}
	return nil
}

// At returns element (i, j), or ErrIndex outside the matrix.
func (t *Tridiag) At(i, j int) (float64, error) {
	n := len(t.Diag)
	if i < 0 || i >= n || j < 0 || j >= n {
		return 0, fmt.Errorf("%w: (%d,%d) outside %dx%d", ErrIndex, i, j, n, n)
	}
	switch i - j {
	case 0:
		return t.Diag[i], nil
	case 1:
		return t.Sub[j], nil
	case -1:
		return t.Super[i], nil
	}
	return 0, nil
}

// ToCOO returns the nonzero entries as a general COO in column-major order.
func (t *Tridiag) ToCOO() (*COO, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	n := len(t.Diag)
	c := &COO{Rows: n, Cols: n}
	add := func(i, j int, v float64) {
		if v != 0 {
			c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
		}
	}
	for j := 0; j < n; j++ {
		if j > 0 {
			add(j-1, j, t.Super[j-1])
		}
		add(j, j, t.Diag[j])
		if j < n-1 {
			add(j+1, j, t.Sub[j])
		}
	}
	return c, nil
}

// TridiagFromCOO converts c (general or Symmetric) to a Tridiag, summing
// duplicates. It returns ErrShape when c is not square or has an entry
// outside the three diagonals.
func TridiagFromCOO(c *COO) (*Tridiag, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Rows != c.Cols {
		return nil, fmt.Errorf("%w: %dx%d matrix is not square", ErrShape, c.Rows, c.Cols)
	}
	n := c.Rows
	t := &Tridiag{Diag: make([]float64, n), Sub: make([]float64, max(n-1, 0)), Super: make([]float64, max(n-1, 0))}
	for k, v := range c.V {
		i, j := int(c.I[k]), int(c.J[k])
		switch i - j {
		case 0:
			t.Diag[i] += v
		case 1:
			t.Sub[j] += v
			if c.Symmetric {
				t.Super[j] += v
			}
		case -1:
			t.Super[i] += v
			if c.Symmetric {
				t.Sub[i] += v
			}
		default:
			return nil, fmt.Errorf("%w: entry (%d,%d) is outside the tridiagonal band", ErrShape, i, j)
		}
	}
	return t, nil
}
