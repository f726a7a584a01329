package sparse

import (
	"fmt"
	"sort"
)

// CSC is a symmetric matrix stored as its lower triangle in the thesis's
// compressed-sparse-column layout (docs/thesis.md, §3.2), 0-based:
//
//   - Elements holds the lower triangle column by column. Each column starts
//     with its diagonal, which is always stored, even when it is zero; the
//     off-diagonal entries follow in increasing row order.
//   - DiagPos (the thesis's colIdx, renamed for what it holds) has length N
//     with no end sentinel: DiagPos[j] is the position of column j's
//     diagonal in Elements. Column j has DiagPos[j+1]-DiagPos[j]
//     entries, and the last column has only its diagonal.
//   - RowIdx holds the rows of the off-diagonal entries only, so
//     len(RowIdx) == len(Elements)-N. The off-diagonal rows of column j start
//     at RowIdx[DiagPos[j]-j], and RowIdx[DiagPos[j]-j+k] is the row of
//     Elements[DiagPos[j]+1+k].
//
// This is the layout the CSC kernels read, and also the layout of the
// Cholesky factor L that SymbolicCholesky produces.
type CSC struct {
	N        int
	Elements []float64
	DiagPos  []int32
	RowIdx   []int32
}

// Rows returns the number of rows, N.
func (a *CSC) Rows() int { return a.N }

// Cols returns the number of columns, N.
func (a *CSC) Cols() int { return a.N }

// Len returns len(Elements), the "le" of the thesis memory formula.
func (a *CSC) Len() int { return len(a.Elements) }

// NNZ returns the number of stored entries of the lower triangle, diagonal
// included (equal to Len).
func (a *CSC) NNZ() int { return len(a.Elements) }

// colEnd returns the end (exclusive) of column j in Elements.
func (a *CSC) colEnd(j int) int {
	if j == a.N-1 {
		return len(a.Elements)
	}
	return int(a.DiagPos[j+1])
}

// ColRows returns the rows of column j's off-diagonal entries and their
// values. The slices alias a's storage.
func (a *CSC) ColRows(j int) (rows []int32, vals []float64) {
	s, e := int(a.DiagPos[j]), a.colEnd(j)
	return a.RowIdx[s-j : e-j-1], a.Elements[s+1 : e]
}

// Validate checks the layout rules listed on CSC. Errors wrap ErrShape or
// ErrIndex.
func (a *CSC) Validate() error {
	if a == nil || a.N < 0 || a.N > maxOrder {
		return fmt.Errorf("%w: bad CSC order", ErrShape)
	}
	n := a.N
	if len(a.DiagPos) != n || len(a.RowIdx) != len(a.Elements)-n {
		return fmt.Errorf("%w: CSC of order %d has len(DiagPos)=%d len(Elements)=%d len(RowIdx)=%d", ErrShape, n, len(a.DiagPos), len(a.Elements), len(a.RowIdx))
	}
	if n == 0 {
		if len(a.Elements) != 0 {
			return fmt.Errorf("%w: empty CSC with elements", ErrShape)
		}
		return nil
	}
	if a.DiagPos[0] != 0 {
		return fmt.Errorf("%w: CSC DiagPos[0]=%d, want 0", ErrIndex, a.DiagPos[0])
	}
	for j := 0; j < n; j++ {
		s, e := int(a.DiagPos[j]), 0
		if j == n-1 {
			e = len(a.Elements)
			if e-s != 1 {
				return fmt.Errorf("%w: CSC last column has %d entries, want only its diagonal", ErrIndex, e-s)
			}
		} else {
			e = int(a.DiagPos[j+1])
		}
		if e <= s || e > len(a.Elements)-(n-1-j) {
			return fmt.Errorf("%w: CSC column %d spans [%d,%d)", ErrIndex, j, s, e)
		}
		prev := int32(j)
		for _, r := range a.RowIdx[s-j : e-j-1] {
			if r <= prev || int(r) >= n {
				return fmt.Errorf("%w: CSC column %d has row %d out of range or out of order", ErrIndex, j, r)
			}
			prev = r
		}
	}
	return nil
}

// lowerEntry checks (i, j) against an n x n symmetric matrix and returns
// the position of its stored copy in the lower triangle (i >= j).
func lowerEntry(i, j, n int) (int, int, error) {
	if i < 0 || i >= n || j < 0 || j >= n {
		return 0, 0, fmt.Errorf("%w: (%d,%d) outside %dx%d", ErrIndex, i, j, n, n)
	}
	if i < j {
		i, j = j, i
	}
	return i, j, nil
}

// At returns element (i, j) of the symmetric matrix (the mirror when i < j),
// or ErrIndex outside it.
func (a *CSC) At(i, j int) (float64, error) {
	i, j, err := lowerEntry(i, j, a.N)
	if err != nil {
		return 0, err
	}
	if i == j {
		return a.Elements[a.DiagPos[j]], nil
	}
	rows, vals := a.ColRows(j)
	k := sort.Search(len(rows), func(k int) bool { return int(rows[k]) >= i })
	if k < len(rows) && int(rows[k]) == i {
		return vals[k], nil
	}
	return 0, nil
}

// CSCFromCOO converts a symmetric matrix to the thesis CSC layout, summing
// duplicates. c may hold one triangle (Symmetric true, either one) or both
// (Symmetric false, checked for symmetry). It works in O(nnz + n) time and
// memory, with no dense intermediate.
func CSCFromCOO(c *COO) (*CSC, error) {
	l, err := c.Lower()
	if err != nil {
		return nil, err
	}
	return cscFromLower(l), nil
}

// cscFromLower builds a CSC from a compacted lower-triangle COO.
func cscFromLower(l *COO) *CSC {
	n := l.Rows
	nd := 0 // stored diagonal entries
	for k := range l.V {
		if l.I[k] == l.J[k] {
			nd++
		}
	}
	le := len(l.V) - nd + n
	a := &CSC{N: n, Elements: make([]float64, 0, le), DiagPos: make([]int32, n), RowIdx: make([]int32, 0, le-n)}
	k := 0
	for j := 0; j < n; j++ {
		a.DiagPos[j] = int32(len(a.Elements))
		d := 0.0
		if k < len(l.V) && int(l.J[k]) == j && int(l.I[k]) == j {
			d = l.V[k]
			k++
		}
		a.Elements = append(a.Elements, d)
		for ; k < len(l.V) && int(l.J[k]) == j; k++ {
			a.Elements = append(a.Elements, l.V[k])
			a.RowIdx = append(a.RowIdx, l.I[k])
		}
	}
	return a
}

// ToCOO returns the lower triangle as a compacted COO with Symmetric set. It
// keeps every stored off-diagonal entry (so the structure of a symbolic
// factor survives even though its values are zero) and the diagonal entries
// that are not zero (the layout forces zero diagonals to be stored; they are
// not part of the matrix's structure).
func (a *CSC) ToCOO() (*COO, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	c := &COO{Rows: a.N, Cols: a.N, Symmetric: true,
		I: make([]int32, 0, len(a.Elements)), J: make([]int32, 0, len(a.Elements)), V: make([]float64, 0, len(a.Elements))}
	for j := 0; j < a.N; j++ {
		if d := a.Elements[a.DiagPos[j]]; d != 0 {
			c.I, c.J, c.V = append(c.I, int32(j)), append(c.J, int32(j)), append(c.V, d)
		}
		rows, vals := a.ColRows(j)
		for k, r := range rows {
			c.I, c.J, c.V = append(c.I, r), append(c.J, int32(j)), append(c.V, vals[k])
		}
	}
	return c, nil
}

// ThesisMemory returns the thesis memory figure for this CSC with its
// right-hand side, in bytes: 4(3·le + 2n). See ThesisMemoryCSC.
func (a *CSC) ThesisMemory() float64 { return ThesisMemoryCSC(a.N, len(a.Elements)) }
