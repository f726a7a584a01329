package sparse

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Conversions between the sparse formats and gonum's dense matrices. They are
// O(n²) in memory and meant for small systems and for tests against gonum
// references; the sparse-to-sparse conversions never build a dense matrix.

// maxDense bounds the order of a dense matrix built by this package: 20 000²
// float64 is 3.2 GB, already more than any test should use.
const maxDense = 20000

func checkDense(r, c int) error {
	if r <= 0 || c <= 0 {
		return fmt.Errorf("%w: gonum cannot hold an empty %dx%d dense matrix", ErrShape, r, c)
	}
	if r > maxDense || c > maxDense {
		return fmt.Errorf("%w: %dx%d is too large for a dense matrix (limit %d)", ErrShape, r, c, maxDense)
	}
	// Refused before the allocation, with the sizes, rather than grown
	// until the system kills the process.
	return CheckHostMemory(fmt.Sprintf("a dense %dx%d matrix", r, c), 8*int64(r)*int64(c))
}

// ToDense returns c as a dense matrix, mirroring a Symmetric c and summing
// duplicates.
func (c *COO) ToDense() (*mat.Dense, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := checkDense(c.Rows, c.Cols); err != nil {
		return nil, err
	}
	d := mat.NewDense(c.Rows, c.Cols, nil)
	raw := d.RawMatrix()
	for k, v := range c.V {
		i, j := int(c.I[k]), int(c.J[k])
		raw.Data[i*raw.Stride+j] += v
		if c.Symmetric && i != j {
			raw.Data[j*raw.Stride+i] += v
		}
	}
	return d, nil
}

// ToSymDense returns c as a gonum symmetric matrix. A general c must be
// symmetric (ErrNotSymmetric otherwise).
func (c *COO) ToSymDense() (*mat.SymDense, error) {
	l, err := c.Lower()
	if err != nil {
		return nil, err
	}
	if err := checkDense(l.Rows, l.Cols); err != nil {
		return nil, err
	}
	s := mat.NewSymDense(l.Rows, nil)
	for k, v := range l.V {
		s.SetSym(int(l.I[k]), int(l.J[k]), v)
	}
	return s, nil
}

// ToDense returns a as a dense matrix.
func (a *CSR) ToDense() (*mat.Dense, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a.ToCOO().ToDense()
}

// ToSymDense returns a as a gonum symmetric matrix, or ErrNotSymmetric.
func (a *CSR) ToSymDense() (*mat.SymDense, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a.ToCOO().ToSymDense()
}

// ToDense returns the symmetric matrix a as a dense matrix.
func (a *CSC) ToDense() (*mat.Dense, error) { return denseOfSym(a.ToSymDense()) }

// ToSymDense returns a as a gonum symmetric matrix.
func (a *CSC) ToSymDense() (*mat.SymDense, error) { return symDenseOf(a.ToCOO()) }

// ToDense returns the symmetric matrix s as a dense matrix.
func (s *SKS) ToDense() (*mat.Dense, error) { return denseOfSym(s.ToSymDense()) }

// ToSymDense returns s as a gonum symmetric matrix.
func (s *SKS) ToSymDense() (*mat.SymDense, error) { return symDenseOf(s.ToCOO()) }

// ToDense returns t as a dense matrix.
func (t *Tridiag) ToDense() (*mat.Dense, error) {
	c, err := t.ToCOO()
	if err != nil {
		return nil, err
	}
	return c.ToDense()
}

// ToSymDense returns t as a gonum symmetric matrix, or ErrNotSymmetric when
// Sub and Super differ.
func (t *Tridiag) ToSymDense() (*mat.SymDense, error) { return symDenseOf(t.ToCOO()) }

// symDenseOf and denseOfSym finish the conversions that go through a COO
// or a SymDense, passing an error on.
func symDenseOf(c *COO, err error) (*mat.SymDense, error) {
	if err != nil {
		return nil, err
	}
	return c.ToSymDense()
}

func denseOfSym(s *mat.SymDense, err error) (*mat.Dense, error) {
	if err != nil {
		return nil, err
	}
	return mat.DenseCopyOf(s), nil
}

// COOFromDense returns the nonzero entries of a. When a implements
// mat.Symmetric (a *mat.SymDense, for instance) the result holds the lower
// triangle with Symmetric set; otherwise it is general.
func COOFromDense(a mat.Matrix) (*COO, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	r, cols := a.Dims()
	_, sym := a.(mat.Symmetric)
	c := &COO{Rows: r, Cols: cols, Symmetric: sym}
	for j := 0; j < cols; j++ {
		start := 0
		if sym {
			start = j
		}
		for i := start; i < r; i++ {
			if v := a.At(i, j); v != 0 {
				c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
			}
		}
	}
	return c, c.Validate()
}

// checkDenseSymmetric returns ErrShape for a non-square a and
// ErrNotSymmetric unless a equals its transpose exactly.
func checkDenseSymmetric(a mat.Matrix) (int, error) {
	if a == nil {
		return 0, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	r, c := a.Dims()
	if r != c {
		return 0, fmt.Errorf("%w: %dx%d matrix is not square", ErrShape, r, c)
	}
	if _, ok := a.(mat.Symmetric); ok {
		return r, nil
	}
	for j := 0; j < r; j++ {
		for i := j + 1; i < r; i++ {
			if a.At(i, j) != a.At(j, i) {
				return 0, fmt.Errorf("%w: A(%d,%d) = %g but A(%d,%d) = %g", ErrNotSymmetric, i+1, j+1, a.At(i, j), j+1, i+1, a.At(j, i))
			}
		}
	}
	return r, nil
}

// CSCFromDense converts a symmetric dense matrix to the thesis CSC layout by
// the thesis's sparse_ms rule: for each column, the diagonal (always), then
// every nonzero below it in increasing row order. a must be exactly
// symmetric.
func CSCFromDense(a mat.Matrix) (*CSC, error) {
	n, err := checkDenseSymmetric(a)
	if err != nil {
		return nil, err
	}
	c := &CSC{N: n, DiagPos: make([]int32, n)}
	for j := 0; j < n; j++ {
		c.DiagPos[j] = int32(len(c.Elements))
		c.Elements = append(c.Elements, a.At(j, j))
		for i := j + 1; i < n; i++ {
			if v := a.At(i, j); v != 0 {
				c.Elements = append(c.Elements, v)
				c.RowIdx = append(c.RowIdx, int32(i))
			}
		}
	}
	return c, nil
}

// SKSFromDense converts a symmetric dense matrix to the thesis skyline layout
// by the thesis's sparse_sks_ms rule: column j runs from the diagonal down to
// its last nonzero, but never stops above the previous column's last row.
// That is the rule of SKSFromCSC (newSKS), so the conversion goes through the
// thesis CSC layout (memory of the nonzeros, beside the dense matrix's n²).
// a must be exactly symmetric.
func SKSFromDense(a mat.Matrix) (*SKS, error) {
	c, err := CSCFromDense(a)
	if err != nil {
		return nil, err
	}
	return SKSFromCSC(c)
}
