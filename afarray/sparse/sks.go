package sparse

import "fmt"

// SKS is a symmetric matrix stored as its lower triangle in the thesis's
// skyline layout (docs/thesis.md, §3.4), 0-based:
//
//   - Each column j is stored as the contiguous run of rows j (the diagonal)
//     down to last(j), zeros inside the run included.
//   - Index has length N with no end sentinel: Index[j] is the position of
//     column j's diagonal in Elements, the height of column j is
//     Index[j+1]-Index[j] (1 for the last column), and Elements[Index[j]+k]
//     is row j+k. No row indices are needed.
//   - Monotone last rows: last(j) >= last(j-1) for every j; a column whose
//     true last nonzero is higher is padded with zeros. The profile is then
//     closed under Cholesky and LDLᵀ fill, so the factor fits in place.
type SKS struct {
	N        int
	Elements []float64
	Index    []int32
}

// Rows returns the number of rows, N.
func (s *SKS) Rows() int { return s.N }

// Cols returns the number of columns, N.
func (s *SKS) Cols() int { return s.N }

// Len returns len(Elements), the "le" of the thesis memory formula.
func (s *SKS) Len() int { return len(s.Elements) }

// height returns the number of stored entries of column j.
func (s *SKS) height(j int) int {
	if j == s.N-1 {
		return len(s.Elements) - int(s.Index[j])
	}
	return int(s.Index[j+1] - s.Index[j])
}

// Column returns the stored run of column j, rows j to j+len-1. The slice
// aliases s's storage.
func (s *SKS) Column(j int) []float64 {
	st := int(s.Index[j])
	return s.Elements[st : st+s.height(j)]
}

// Validate checks the layout rules listed on SKS. Errors wrap ErrShape or
// ErrIndex.
func (s *SKS) Validate() error {
	if s == nil || s.N < 0 || s.N > maxOrder {
		return fmt.Errorf("%w: bad SKS order", ErrShape)
	}
	if len(s.Index) != s.N {
		return fmt.Errorf("%w: SKS of order %d has len(Index)=%d", ErrShape, s.N, len(s.Index))
	}
	if s.N == 0 {
		if len(s.Elements) != 0 {
			return fmt.Errorf("%w: empty SKS with elements", ErrShape)
		}
		return nil
	}
	if s.Index[0] != 0 {
		return fmt.Errorf("%w: SKS Index[0]=%d, want 0", ErrIndex, s.Index[0])
	}
	last := -1
	for j := 0; j < s.N; j++ {
		var h int
		if j == s.N-1 {
			h = len(s.Elements) - int(s.Index[j])
		} else {
			h = int(s.Index[j+1]) - int(s.Index[j])
		}
		if h < 1 || j+h > s.N {
			return fmt.Errorf("%w: SKS column %d has height %d", ErrIndex, j, h)
		}
		if j+h-1 < last {
			return fmt.Errorf("%w: SKS column %d ends at row %d above column %d's last row %d (monotone rule)", ErrIndex, j, j+h-1, j-1, last)
		}
		last = j + h - 1
	}
	return nil
}

// At returns element (i, j) of the symmetric matrix (the mirror when i < j),
// or ErrIndex outside it.
func (s *SKS) At(i, j int) (float64, error) {
	i, j, err := lowerEntry(i, j, s.N)
	if err != nil {
		return 0, err
	}
	if i-j < s.height(j) {
		return s.Elements[int(s.Index[j])+i-j], nil
	}
	return 0, nil
}

// SKSFromCOO converts a symmetric matrix to the thesis skyline layout,
// summing duplicates. c may hold one triangle (Symmetric true, either one) or
// both (Symmetric false, checked for symmetry). Every stored entry, even an
// explicit zero, extends its column's run. It works in O(nnz + len) time and
// memory, with no dense intermediate.
func SKSFromCOO(c *COO) (*SKS, error) {
	l, err := c.Lower()
	if err != nil {
		return nil, err
	}
	n := l.Rows
	lastRow := make([]int32, n)
	for j := range lastRow {
		lastRow[j] = int32(j)
	}
	for k := range l.V {
		lastRow[l.J[k]] = max(lastRow[l.J[k]], l.I[k])
	}
	s, err := newSKS(lastRow)
	if err != nil {
		return nil, err
	}
	for k, v := range l.V {
		s.Elements[int(s.Index[l.J[k]])+int(l.I[k]-l.J[k])] = v
	}
	return s, nil
}

// newSKS allocates a zero SKS whose column j reaches at least row
// lastRow[j] (lastRow[j] >= j), applying the monotone rule.
func newSKS(lastRow []int32) (*SKS, error) {
	n := len(lastRow)
	s := &SKS{N: n, Index: make([]int32, n)}
	total, last := int64(0), int32(-1)
	for j := 0; j < n; j++ {
		last = max(last, lastRow[j])
		s.Index[j] = int32(total)
		total += int64(last) - int64(j) + 1
		if total > maxOrder {
			return nil, fmt.Errorf("%w: skyline of %d entries exceeds int32 indexing", ErrShape, total)
		}
	}
	s.Elements = make([]float64, total)
	return s, nil
}

// ToCOO returns the nonzero entries of the lower triangle as a compacted COO
// with Symmetric set. Stored zeros (padding and zeros inside a run) are left
// out: they belong to the layout, not to the matrix.
func (s *SKS) ToCOO() (*COO, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := &COO{Rows: s.N, Cols: s.N, Symmetric: true}
	for j := 0; j < s.N; j++ {
		for k, v := range s.Column(j) {
			if v != 0 {
				c.I, c.J, c.V = append(c.I, int32(j+k)), append(c.J, int32(j)), append(c.V, v)
			}
		}
	}
	return c, nil
}

// SKSFromCSC converts the thesis CSC layout to the skyline layout in
// O(len) time.
func SKSFromCSC(a *CSC) (*SKS, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	lastRow := make([]int32, a.N)
	for j := range lastRow {
		lastRow[j] = int32(j)
		if rows, _ := a.ColRows(j); len(rows) > 0 {
			lastRow[j] = rows[len(rows)-1]
		}
	}
	s, err := newSKS(lastRow)
	if err != nil {
		return nil, err
	}
	for j := 0; j < a.N; j++ {
		col := s.Column(j)
		col[0] = a.Elements[a.DiagPos[j]]
		rows, vals := a.ColRows(j)
		for k, r := range rows {
			col[int(r)-j] = vals[k]
		}
	}
	return s, nil
}

// CSCFromSKS converts the skyline layout to the thesis CSC layout, keeping
// the nonzero off-diagonal entries (and every diagonal, as CSC requires).
func CSCFromSKS(s *SKS) (*CSC, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	nz := 0
	for _, v := range s.Elements {
		if v != 0 {
			nz++
		}
	}
	a := &CSC{N: s.N, DiagPos: make([]int32, s.N), Elements: make([]float64, 0, nz+s.N), RowIdx: make([]int32, 0, nz)}
	for j := 0; j < s.N; j++ {
		a.DiagPos[j] = int32(len(a.Elements))
		col := s.Column(j)
		a.Elements = append(a.Elements, col[0])
		for k := 1; k < len(col); k++ {
			if col[k] != 0 {
				a.Elements = append(a.Elements, col[k])
				a.RowIdx = append(a.RowIdx, int32(j+k))
			}
		}
	}
	return a, nil
}

// ThesisMemory returns the thesis memory figure for this SKS with its
// right-hand side, in bytes: 4(2·le + 3n). See ThesisMemorySKS.
func (s *SKS) ThesisMemory() float64 { return ThesisMemorySKS(s.N, len(s.Elements)) }
