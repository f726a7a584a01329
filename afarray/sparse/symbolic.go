package sparse

import "fmt"

// Symbolic is the symbolic Cholesky (and LDLᵀ) factorization of a symmetric
// matrix in the thesis CSC layout: the structure of L, computed without
// looking at values and assuming no numerical cancellation.
type Symbolic struct {
	// Parent is the elimination tree: Parent[j] is the row of the first
	// off-diagonal entry of column j of L, or -1 for a root.
	Parent []int
	// ColCounts[j] is the number of entries of column j of L, diagonal
	// included.
	ColCounts []int
	// L is the structure of the factor in the thesis CSC layout, with every
	// element zero, ready for a numerical factorization to fill in.
	L *CSC
	// NNZ is the number of entries of L, diagonal included: len(L.Elements).
	NNZ int64
	// Flops is the operation count of the factorization, Σ_j ColCounts[j]²
	// (the convention of CSparse's cs_chol statistics): column j costs one
	// square root, ColCounts[j]-1 divisions and about ColCounts[j]²/2
	// multiply-adds in updating later columns, so Σ c² counts two flops
	// per multiply-add plus lower-order terms.
	Flops float64
}

// EliminationTree returns the elimination tree of the symmetric matrix a:
// parent[j] is the parent of column j, -1 for a root. It is Liu's algorithm
// with path compression, nearly O(nnz).
func EliminationTree(a *CSC) ([]int, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	rp, cols := a.rowStructure()
	return etree(a.N, rp, cols), nil
}

// rowStructure returns the strictly lower triangle by rows: row i's columns
// (all < i, increasing) are cols[rp[i]:rp[i+1]].
func (a *CSC) rowStructure() (rp []int, cols []int32) {
	n := a.N
	rp = make([]int, n+1)
	for _, r := range a.RowIdx {
		rp[r+1]++
	}
	for i := 0; i < n; i++ {
		rp[i+1] += rp[i]
	}
	next := append([]int(nil), rp[:n]...)
	cols = make([]int32, len(a.RowIdx))
	for j := 0; j < n; j++ {
		rows, _ := a.ColRows(j)
		for _, r := range rows {
			cols[next[r]] = int32(j)
			next[r]++
		}
	}
	return rp, cols
}

func etree(n int, rp []int, cols []int32) []int {
	return etreeOf(n, func(i int, visit func(k int)) {
		for _, k := range cols[rp[i]:rp[i+1]] {
			visit(int(k))
		}
	})
}

// etreeOf is the elimination tree of an order-n symmetric matrix whose
// strictly lower entries of row i, (i, k) with k < i, below(i, visit)
// visits in any order; parent[root] = -1. It is Liu's algorithm, shared by
// the CSC analysis (etree) and the graph one (graphCounts).
func etreeOf(n int, below func(i int, visit func(k int))) []int {
	parent := make([]int, n)
	ancestor := make([]int, n)
	for i := 0; i < n; i++ {
		parent[i], ancestor[i] = -1, -1
		below(i, func(k int) {
			// Climb from k to the root of its current subtree, pointing
			// every visited vertex at i (path compression).
			r := k
			for ancestor[r] != -1 && ancestor[r] != i {
				next := ancestor[r]
				ancestor[r] = i
				r = next
			}
			if ancestor[r] == -1 {
				ancestor[r] = i
				parent[r] = i
			}
		})
	}
	return parent
}

// SymbolicCholesky computes the structure of the Cholesky factor L of the
// symmetric matrix a (the same structure serves LDLᵀ). Row i of L is the
// union of the elimination-tree paths from each column k with a(i,k) ≠ 0 up
// to i (the row subtree); walking those paths with a marker visits each entry
// of L once, so the whole analysis runs in O(nnz(L)) time after the
// elimination tree. Columns of L come out in the thesis CSC layout with
// increasing rows, identical to ThesisSymbolicCholesky's.
func SymbolicCholesky(a *CSC) (*Symbolic, error) { return symbolic(a, true) }

// SymbolicCounts is SymbolicCholesky without building L: it returns the
// elimination tree, the column counts, NNZ and Flops, with L nil, in
// O(nnz(L)) time but only O(n) extra memory. Use it for statistics.
func SymbolicCounts(a *CSC) (*Symbolic, error) { return symbolic(a, false) }

func symbolic(a *CSC, buildL bool) (*Symbolic, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	n := a.N
	rp, cols := a.rowStructure()
	parent := etree(n, rp, cols)
	mark := make([]int, n)
	// Pass 1 counts the entries of each column; pass 2 places the rows.
	counts := make([]int, n)
	walk := func(visit func(i, k int)) {
		for i := range mark {
			mark[i] = -1
		}
		for i := 0; i < n; i++ {
			mark[i] = i
			for _, k0 := range cols[rp[i]:rp[i+1]] {
				for k := int(k0); mark[k] != i; k = parent[k] {
					mark[k] = i
					visit(i, k)
				}
			}
		}
	}
	walk(func(_, k int) { counts[k]++ })
	var total int64
	for j := range counts {
		counts[j]++ // the diagonal
		total += int64(counts[j])
	}
	if !buildL {
		flops := 0.0
		for _, c := range counts {
			flops += float64(c) * float64(c)
		}
		return &Symbolic{Parent: parent, ColCounts: counts, NNZ: total, Flops: flops}, nil
	}
	if total > maxOrder {
		return nil, fmt.Errorf("%w: factor has %d entries, beyond int32 indexing", ErrShape, total)
	}
	L := &CSC{N: n, Elements: make([]float64, total), DiagPos: make([]int32, n), RowIdx: make([]int32, total-int64(n))}
	next := make([]int, n) // next free position in RowIdx for each column
	pos := 0
	flops := 0.0
	for j := 0; j < n; j++ {
		L.DiagPos[j] = int32(pos)
		next[j] = pos - j
		pos += counts[j]
		flops += float64(counts[j]) * float64(counts[j])
	}
	walk(func(i, k int) {
		L.RowIdx[next[k]] = int32(i)
		next[k]++
	})
	return &Symbolic{Parent: parent, ColCounts: counts, L: L, NNZ: total, Flops: flops}, nil
}
