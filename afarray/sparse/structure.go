package sparse

import (
	"errors"
	"fmt"
)

// Structural checks: O(nnz) time, and memory proportional to what the input
// actually holds, so that they can run before anything of the declared
// order n is allocated. A header may declare an order of two billion with
// one entry; such a matrix has empty rows, is singular, and is refused
// here before a solver or an ordering allocates n of anything.

// StructureError names the first row or column at fault, 0-based in the
// matrix's own (file) numbering; Error prints it 1-based, as files number
// rows.
type StructureError struct {
	Index   int     // 0-based row (or column) of the matrix as stored
	Column  bool    // the index is a column
	Count   int     // how many rows or columns share the fault
	Value   float64 // the diagonal value, for a non-positive diagonal
	Missing bool    // the diagonal entry is absent
	Detail  string  // what else is known, or ""
	Err     error   // ErrSingular or ErrNotPositiveDefinite
}

func (e *StructureError) Error() string {
	what := "row"
	if e.Column {
		what = "column"
	}
	others := ""
	if e.Count > 1 {
		others = fmt.Sprintf(" (and %d more)", e.Count-1)
	}
	var msg string
	switch {
	case errors.Is(e.Err, ErrSingular):
		msg = fmt.Sprintf("%s %d%s holds no entry: the matrix is singular", what, e.Index+1, others)
	case e.Missing:
		msg = fmt.Sprintf("diagonal entry (%d,%d)%s is missing: a positive definite matrix has every diagonal entry positive", e.Index+1, e.Index+1, others)
	default:
		msg = fmt.Sprintf("diagonal entry (%d,%d) is %g%s: a positive definite matrix has every diagonal entry positive", e.Index+1, e.Index+1, e.Value, others)
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *StructureError) Unwrap() error { return e.Err }

// CheckStructure checks that the square matrix c can be nonsingular: its
// order is at most what its entries can cover (nnz for a general matrix,
// 2 nnz when each stored entry also stands for its mirror), and every row
// and column holds an entry. The first test needs no memory at all, so an
// absurd declared order is refused before anything of that size exists.
func (c *COO) CheckStructure() error {
	if err := c.checkSquare(); err != nil {
		return err
	}
	n, nnz := c.Rows, c.NNZ()
	cover := nnz
	if c.Symmetric {
		cover = 2 * nnz
	}
	if n > cover {
		return &StructureError{Index: firstUncovered(c), Count: n - cover, Err: ErrSingular,
			Detail: fmt.Sprintf("order %d with only %d stored entries: is the size in the header right?", n, nnz)}
	}
	// Each worker marks the rows and columns of its slice of the entries
	// in its own array; the arrays are merged vertex range by vertex
	// range. A symmetric c marks rows only (each entry covers its mirror).
	// Workers are bounded so that their arrays together stay within a few
	// bytes per stored entry.
	marks := make([][]bool, max(1, min(scanWorkers(nnz), 2*nnz/max(n, 1))))
	scanEntriesOn(len(marks), nnz, func(w, lo, hi int) {
		mk := make([]bool, 2*n)
		rows, cols := mk[:n], mk[n:]
		if c.Symmetric {
			cols = rows
		}
		for k := lo; k < hi; k++ {
			rows[c.I[k]] = true
			cols[c.J[k]] = true
		}
		marks[w] = mk
	})
	all := marks[0]
	if len(marks) > 1 {
		scanVertices(2*n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				for _, mk := range marks[1:] {
					all[i] = all[i] || mk[i]
				}
			}
		})
	}
	rows, cols := all[:n], all[n:]
	if c.Symmetric {
		cols = rows
	}
	if err := firstEmpty(rows, false); err != nil {
		return err
	}
	return firstEmpty(cols, true)
}

// CheckDiagonal checks what Cholesky needs of the diagonal: every entry
// present and positive (duplicates summed). Call CheckStructure first: it
// bounds the order by the entries.
func (c *COO) CheckDiagonal() error {
	if err := c.checkSquare(); err != nil {
		return err
	}
	n := c.Rows
	if n > 2*c.NNZ() {
		return c.CheckStructure()
	}
	// The diagonal entries are found on every core, then summed in the
	// order they are stored (the same sums, bit for bit, as one pass).
	diag := make([][]int, scanWorkers(len(c.V)))
	scanEntriesOn(len(diag), len(c.V), func(w, lo, hi int) {
		var ks []int
		for k := lo; k < hi; k++ {
			if c.I[k] == c.J[k] {
				ks = append(ks, k)
			}
		}
		diag[w] = ks
	})
	d := make([]float64, n)
	seen := make([]bool, n)
	for _, ks := range diag {
		for _, k := range ks {
			i := c.I[k]
			d[i] += c.V[k]
			seen[i] = true
		}
	}
	var first *StructureError
	for i := range d {
		if seen[i] && d[i] > 0 {
			continue
		}
		if first == nil {
			first = &StructureError{Index: i, Value: d[i], Missing: !seen[i], Err: ErrNotPositiveDefinite}
		}
		if first.Missing == !seen[i] {
			first.Count++
		}
	}
	if first != nil {
		return first
	}
	return nil
}

func (c *COO) checkSquare() error {
	if c == nil {
		return fmt.Errorf("%w: nil COO", ErrShape)
	}
	if c.Rows != c.Cols {
		return fmt.Errorf("%w: the matrix is %dx%d, not square", ErrShape, c.Rows, c.Cols)
	}
	if len(c.I) != len(c.V) || len(c.J) != len(c.V) {
		return fmt.Errorf("%w: COO slices have lengths I=%d J=%d V=%d", ErrShape, len(c.I), len(c.J), len(c.V))
	}
	bad := make([]int, scanWorkers(len(c.V)))
	scanEntriesOn(len(bad), len(c.V), func(w, lo, hi int) {
		bad[w] = -1
		rows, cols := int32(c.Rows), int32(c.Cols)
		for k := lo; k < hi; k++ {
			if i, j := c.I[k], c.J[k]; i < 0 || i >= rows || j < 0 || j >= cols {
				bad[w] = k
				return
			}
		}
	})
	for _, k := range bad {
		if k >= 0 {
			return fmt.Errorf("%w: entry %d at (%d,%d) outside %dx%d", ErrIndex, k, c.I[k]+1, c.J[k]+1, c.Rows, c.Cols)
		}
	}
	return nil
}

// firstUncovered returns the smallest row index with no entry, found
// without allocating: the entries are few (fewer than the order), so
// sorting is not needed; the smallest index not among them is at most
// nnz.
func firstUncovered(c *COO) int {
	for i := 0; i <= c.NNZ(); i++ {
		used := false
		for k := range c.V {
			if int(c.I[k]) == i || c.Symmetric && int(c.J[k]) == i {
				used = true
				break
			}
		}
		if !used {
			return i
		}
		if i > 64 { // quadratic beyond this; the count says the rest
			break
		}
	}
	return c.Rows - 1
}

func firstEmpty(has []bool, column bool) error {
	var first *StructureError
	for i, ok := range has {
		if ok {
			continue
		}
		if first == nil {
			first = &StructureError{Index: i, Column: column, Err: ErrSingular}
		}
		first.Count++
	}
	if first != nil {
		return first
	}
	return nil
}
