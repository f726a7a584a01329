package sparse

import (
	"fmt"
	"sort"
)

// CSR is a general sparse matrix in compressed sparse row form, 0-based, in
// the layout SciPy calls csr_matrix: the column indices and values of row i
// are ColIdx[RowPtr[i]:RowPtr[i+1]] and Values[RowPtr[i]:RowPtr[i+1]], columns
// increasing within a row. RowPtr has Rows+1 entries. A CSR always stores the
// whole matrix; a symmetric matrix has both triangles.
type CSR struct {
	Rows, Cols int
	RowPtr     []int32
	ColIdx     []int32
	Values     []float64
}

// N returns the order of a square matrix, that is Rows.
func (a *CSR) N() int { return a.Rows }

// NNZ returns the number of stored entries.
func (a *CSR) NNZ() int { return len(a.Values) }

// CSRFromCOO converts c to CSR, summing duplicates. A Symmetric c is expanded
// to both triangles. It runs in O(nnz + Rows + Cols).
func CSRFromCOO(c *COO) (*CSR, error) {
	f, err := c.Full()
	if err != nil {
		return nil, err
	}
	a := &CSR{Rows: f.Rows, Cols: f.Cols, RowPtr: make([]int32, f.Rows+1),
		ColIdx: make([]int32, len(f.V)), Values: make([]float64, len(f.V))}
	for _, i := range f.I {
		a.RowPtr[i+1]++
	}
	for i := 0; i < f.Rows; i++ {
		a.RowPtr[i+1] += a.RowPtr[i]
	}
	// f is sorted by column, so a stable scatter by row leaves each row's
	// columns increasing.
	next := append([]int32(nil), a.RowPtr[:f.Rows]...)
	for k, v := range f.V {
		p := next[f.I[k]]
		next[f.I[k]]++
		a.ColIdx[p], a.Values[p] = f.J[k], v
	}
	return a, nil
}

// Validate checks the layout: RowPtr of length Rows+1, starting at 0,
// non-decreasing and ending at NNZ, columns in range and increasing in each
// row. Errors wrap ErrShape or ErrIndex.
func (a *CSR) Validate() error {
	if a == nil || a.Rows < 0 || a.Cols < 0 || a.Rows > maxOrder || a.Cols > maxOrder {
		return fmt.Errorf("%w: bad CSR shape", ErrShape)
	}
	if len(a.RowPtr) != a.Rows+1 || len(a.ColIdx) != len(a.Values) {
		return fmt.Errorf("%w: CSR RowPtr has length %d for %d rows, ColIdx %d, Values %d", ErrShape, len(a.RowPtr), a.Rows, len(a.ColIdx), len(a.Values))
	}
	if a.RowPtr[0] != 0 || int(a.RowPtr[a.Rows]) != len(a.Values) {
		return fmt.Errorf("%w: CSR RowPtr must run from 0 to %d", ErrIndex, len(a.Values))
	}
	for i := 0; i < a.Rows; i++ {
		if a.RowPtr[i+1] < a.RowPtr[i] {
			return fmt.Errorf("%w: CSR RowPtr decreases at row %d", ErrIndex, i)
		}
	}
	for i := 0; i < a.Rows; i++ {
		lo, hi := a.RowPtr[i], a.RowPtr[i+1]
		for p := lo; p < hi; p++ {
			j := a.ColIdx[p]
			if j < 0 || int(j) >= a.Cols || (p > lo && j <= a.ColIdx[p-1]) {
				return fmt.Errorf("%w: CSR row %d has column %d out of range or out of order", ErrIndex, i, j)
			}
		}
	}
	return nil
}

// At returns element (i, j), or ErrIndex outside the matrix. It uses a
// binary search in row i.
func (a *CSR) At(i, j int) (float64, error) {
	if i < 0 || i >= a.Rows || j < 0 || j >= a.Cols {
		return 0, fmt.Errorf("%w: (%d,%d) outside %dx%d", ErrIndex, i, j, a.Rows, a.Cols)
	}
	lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
	p := lo + sort.Search(hi-lo, func(k int) bool { return int(a.ColIdx[lo+k]) >= j })
	if p < hi && int(a.ColIdx[p]) == j {
		return a.Values[p], nil
	}
	return 0, nil
}

// ToCOO returns the entries as a general COO (Symmetric false), in row-major
// order.
func (a *CSR) ToCOO() *COO {
	c := &COO{Rows: a.Rows, Cols: a.Cols, I: make([]int32, len(a.Values)),
		J: append([]int32(nil), a.ColIdx...), V: append([]float64(nil), a.Values...)}
	for i := 0; i < a.Rows; i++ {
		for p := a.RowPtr[i]; p < a.RowPtr[i+1]; p++ {
			c.I[p] = int32(i)
		}
	}
	return c
}
