package sparse

import (
	"fmt"
	"runtime"
	"slices"
)

// Permutation convention. Throughout this package a permutation perm of
// length n lists, for each new position i, the old index placed there:
// perm[i] = old index at new position i. The symmetric permutation of A is
// then B = P A Pᵀ with B[i][j] = A[perm[i]][perm[j]], which is SciPy's
// A[perm][:, perm] for perm = reverse_cuthill_mckee(A). To solve A x = b with
// the reordered matrix: b' = PermuteVec(b, perm), solve B x' = b', then
// x = InversePermuteVec(x', perm).

// InversePermutation checks that perm is a permutation of 0..len(perm)-1
// and returns its inverse inv, with inv[perm[i]] = i (inv[old] = new). It
// returns ErrPermutation otherwise.
func InversePermutation(perm []int) ([]int, error) {
	n := len(perm)
	inv := make([]int, n)
	for i := range inv {
		inv[i] = -1
	}
	for i, p := range perm {
		if p < 0 || p >= n || inv[p] >= 0 {
			return nil, fmt.Errorf("%w: perm[%d]=%d is out of range or repeated (n=%d)", ErrPermutation, i, p, n)
		}
		inv[p] = i
	}
	return inv, nil
}

// checkPerm returns the inverse of perm after checking that it has length n.
func checkPerm(perm []int, n int) ([]int, error) {
	if len(perm) != n {
		return nil, fmt.Errorf("%w: permutation of length %d for order %d", ErrPermutation, len(perm), n)
	}
	return InversePermutation(perm)
}

// squarePerm is checkPerm for a matrix stored with both dimensions (COO,
// CSR) that must be valid and square. It reads m's dimensions only after
// m.Validate passed, so a nil matrix gives Validate's error, not a panic.
func squarePerm(m interface{ Validate() error }, perm []int) ([]int, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var rows, cols int
	switch m := m.(type) {
	case *COO:
		rows, cols = m.Rows, m.Cols
	case *CSR:
		rows, cols = m.Rows, m.Cols
	}
	if rows != cols {
		return nil, errNotSquare(rows, cols)
	}
	return checkPerm(perm, rows)
}

// PermuteVec returns y with y[i] = x[perm[i]]: the right-hand side of the
// permuted system.
func PermuteVec(x []float64, perm []int) ([]float64, error) {
	if _, err := checkPerm(perm, len(x)); err != nil {
		return nil, err
	}
	return gather(x, perm), nil
}

// InversePermuteVec undoes PermuteVec: it returns x with x[perm[i]] = y[i],
// the solution of the original system from that of the permuted one. That
// is x[j] = y[inv[j]], PermuteVec by the inverse that checkPerm returns.
func InversePermuteVec(y []float64, perm []int) ([]float64, error) {
	inv, err := checkPerm(perm, len(y))
	if err != nil {
		return nil, err
	}
	return gather(y, inv), nil
}

// gather returns y with y[i] = x[idx[i]].
func gather(x []float64, idx []int) []float64 {
	y := make([]float64, len(idx))
	for i, k := range idx {
		y[i] = x[k]
	}
	return y
}

// Permute returns P c Pᵀ (see the permutation convention above) for a square
// c. The entries keep their order; a Symmetric c stays Symmetric with its
// entries moved to the lower triangle.
func (c *COO) Permute(perm []int) (*COO, error) {
	inv, err := squarePerm(c, perm)
	if err != nil {
		return nil, err
	}
	m := len(c.V)
	b := &COO{Rows: c.Rows, Cols: c.Cols, Symmetric: c.Symmetric,
		I: make([]int32, m), J: make([]int32, m), V: make([]float64, m)}
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<16)))
	run(workers, workers, func(w int) {
		lo, hi := m*w/workers, m*(w+1)/workers
		copy(b.V[lo:hi], c.V[lo:hi])
		for k := lo; k < hi; k++ {
			i, j := int32(inv[c.I[k]]), int32(inv[c.J[k]])
			if c.Symmetric && i < j {
				i, j = j, i
			}
			b.I[k], b.J[k] = i, j
		}
	})
	return b, nil
}

// Permute returns P a Pᵀ for a square a: new row i is old row perm[i], with
// its columns renumbered and sorted.
func (a *CSR) Permute(perm []int) (*CSR, error) {
	inv, err := squarePerm(a, perm)
	if err != nil {
		return nil, err
	}
	b := &CSR{Rows: a.Rows, Cols: a.Cols, RowPtr: make([]int32, a.Rows+1),
		ColIdx: make([]int32, 0, len(a.ColIdx)), Values: make([]float64, 0, len(a.Values))}
	type entry struct {
		j int32
		v float64
	}
	var row []entry
	for i, p := range perm {
		row = row[:0]
		for q := a.RowPtr[p]; q < a.RowPtr[p+1]; q++ {
			row = append(row, entry{int32(inv[a.ColIdx[q]]), a.Values[q]})
		}
		slices.SortFunc(row, func(x, y entry) int { return int(x.j - y.j) })
		for _, e := range row {
			b.ColIdx, b.Values = append(b.ColIdx, e.j), append(b.Values, e.v)
		}
		b.RowPtr[i+1] = int32(len(b.Values))
	}
	return b, nil
}

// Permute returns P a Pᵀ in the CSC layout in O(nnz + n), without
// comparisons: the entries are bucketed by their new row, then the rows
// are walked in increasing order and each entry appended to its new
// column, whose rows so come out sorted.
func (a *CSC) Permute(perm []int) (*CSC, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	inv, err := checkPerm(perm, a.N)
	if err != nil {
		return nil, err
	}
	n, nz := a.N, len(a.RowIdx)
	rowStart, colCnt := make([]int32, n+1), make([]int32, n+1)
	for j := 0; j < n; j++ {
		rows, _ := a.ColRows(j)
		nj := inv[j]
		for _, r := range rows {
			nr := inv[r]
			rowStart[max(nj, nr)+1]++
			colCnt[min(nj, nr)+1]++
		}
	}
	for i := 0; i < n; i++ {
		rowStart[i+1] += rowStart[i]
	}
	byRowCol, byRowVal := make([]int32, nz), make([]float64, nz)
	next := append([]int32(nil), rowStart[:n]...)
	for j := 0; j < n; j++ {
		rows, vals := a.ColRows(j)
		nj := inv[j]
		for q, r := range rows {
			nr := inv[r]
			hi, lo := max(nj, nr), min(nj, nr)
			k := next[hi]
			next[hi]++
			byRowCol[k], byRowVal[k] = int32(lo), vals[q]
		}
	}
	b := &CSC{N: n, Elements: make([]float64, len(a.Elements)), DiagPos: make([]int32, n), RowIdx: make([]int32, nz)}
	// Column c's off-diagonal rows start at start[c] in RowIdx; its
	// diagonal sits at start[c]+c in Elements.
	start := make([]int32, n)
	for c := 0; c < n; c++ {
		if c > 0 {
			start[c] = start[c-1] + colCnt[c]
		}
		b.DiagPos[c] = start[c] + int32(c)
	}
	for j := 0; j < n; j++ {
		b.Elements[b.DiagPos[inv[j]]] = a.Elements[a.DiagPos[j]]
	}
	for r := 0; r < n; r++ {
		for k := rowStart[r]; k < rowStart[r+1]; k++ {
			c := byRowCol[k]
			q := start[c]
			start[c]++
			b.RowIdx[q] = int32(r)
			b.Elements[int(q)+int(c)+1] = byRowVal[k]
		}
	}
	return b, nil
}

// Permute returns P s Pᵀ in the skyline layout. The new skyline is built for
// the new order, so its length generally differs from s's.
func (s *SKS) Permute(perm []int) (*SKS, error) {
	c, err := s.ToCOO()
	if err != nil {
		return nil, err
	}
	p, err := c.Permute(perm)
	if err != nil {
		return nil, err
	}
	return SKSFromCOO(p)
}
