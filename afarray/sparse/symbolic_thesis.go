package sparse

import "fmt"

// ThesisSymbolicCholesky is the thesis's own symbolic factorization
// (symbolic_chol_fac, docs/thesis.md, §3.3), kept as a reference
// and for comparison with SymbolicCholesky. Going through the columns from
// left to right, every row k of column j's structure receives all of j's
// later rows: rows[k] = rows[k] ∪ rows[j][after k]. It pushes fill into every
// column that column j touches, not only to the elimination-tree parent, so
// its cost is about Σ_j |L_j|² set-union steps instead of O(nnz(L)). The
// result has the final DiagPos and RowIdx of L and zero Elements.
func ThesisSymbolicCholesky(a *CSC) (*CSC, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	n := a.N
	rows := make([][]int32, n)
	for j := 0; j < n; j++ {
		r, _ := a.ColRows(j)
		rows[j] = append([]int32(nil), r...)
	}
	var merged []int32
	for j := 0; j < n; j++ {
		r := rows[j]
		for p := 0; p+1 < len(r); p++ {
			k := r[p]
			merged = unionSorted(merged[:0], rows[k], r[p+1:])
			rows[k] = append(rows[k][:0], merged...)
		}
	}
	var total int64 = int64(n)
	for _, r := range rows {
		total += int64(len(r))
	}
	if total > maxOrder {
		return nil, fmt.Errorf("%w: factor has %d entries, beyond int32 indexing", ErrShape, total)
	}
	L := &CSC{N: n, Elements: make([]float64, total), DiagPos: make([]int32, n), RowIdx: make([]int32, 0, total-int64(n))}
	pos := 0
	for j := 0; j < n; j++ {
		L.DiagPos[j] = int32(pos)
		pos += len(rows[j]) + 1
		L.RowIdx = append(L.RowIdx, rows[j]...)
	}
	return L, nil
}

// unionSorted appends the sorted union of the sorted sets a and b to dst.
func unionSorted(dst, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			dst = append(dst, a[i])
			i++
		case a[i] > b[j]:
			dst = append(dst, b[j])
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}
