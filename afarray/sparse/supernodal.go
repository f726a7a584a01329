package sparse

import (
	"fmt"
	"slices"
)

// Supernodal is the symbolic analysis behind a supernodal Cholesky or LDLᵀ
// factorization: a fill-reducing ordering followed by the postorder of its
// elimination tree, the supernodes (fundamental ones merged by relaxed
// amalgamation), their row structures, the assembly tree grouped by depth,
// and the maps that place A's entries and children's update matrices in
// their fronts. Everything here is in the new numbering: column k of the
// factor is column Perm[k] of A.
//
// Supernode s covers columns Super[s] .. Super[s+1]-1 (ns of them); its
// front has F = RowPtr[s+1]-RowPtr[s] rows, Rows[RowPtr[s]:RowPtr[s+1]],
// increasing: its own ns columns, then the m = F-ns rows below. Its part of
// L is a dense F x ns column-major block at LPtr[s] (the ns x ns diagonal
// block's upper triangle unused), so L holds LPtr[NS] doubles.
type Supernodal struct {
	N        int
	NS       int      // number of supernodes
	Ordering Ordering // the fill-reducing ordering used (amd, nd, rcm, natural)
	Perm     []int    // Perm[new] = old

	Parent    []int // elimination tree in the new numbering
	ColCounts []int // entries of each column of L, diagonal included

	Super  []int   // first column of each supernode, NS+1 entries
	RowPtr []int64 // NS+1 offsets into Rows and Rel
	Rows   []int32 // front rows of each supernode
	// Rel[RowPtr[s]+ns+k] is the position, in its parent's front, of row
	// k below supernode s (the relative indices of the extend-add).
	Rel     []int32
	SParent []int   // assembly tree: parent supernode, -1 for a root
	Depth   []int   // depth in the assembly tree, 0 for a root
	Levels  [][]int // Levels[d] lists the supernodes of depth d, increasing
	LPtr    []int64 // NS+1 offsets of the supernodes' blocks in L

	NNZL  int64   // nnz(L) without amalgamation zeros, diagonal included
	Flops float64 // Σ_j ColCounts[j]² (the convention of Symbolic.Flops)
}

// Relaxed amalgamation bounds, CHOLMOD's defaults: a merged supernode of at
// most relaxCols[0] columns is always accepted; up to relaxCols[1] columns
// with a fraction of explicit zeros below relaxZeros[0]; up to relaxCols[2]
// below relaxZeros[1]; wider below relaxZeros[2].
var (
	relaxCols  = [3]int{4, 16, 48}
	relaxZeros = [3]float64{0.8, 0.1, 0.05}
)

// AnalyzeSupernodal orders a (see FillOrder for the ordering names) and
// computes its supernodal symbolic factorization.
func AnalyzeSupernodal(a *CSC, ordering Ordering) (*Supernodal, error) {
	perm0, used, _, _, err := FillOrder(a, ordering)
	if err != nil {
		return nil, err
	}
	return analyzeWithOrder(a, perm0, used)
}

// AnalyzeSupernodalPerm is AnalyzeSupernodal with a given permutation
// (perm[new] = old), which is then postordered.
func AnalyzeSupernodalPerm(a *CSC, perm []int) (*Supernodal, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if _, err := checkPerm(perm, a.N); err != nil {
		return nil, err
	}
	return analyzeWithOrder(a, perm, "given")
}

func analyzeWithOrder(a *CSC, perm0 []int, used Ordering) (*Supernodal, error) {
	n := a.N
	inv0, err := checkPerm(perm0, n)
	if err != nil {
		return nil, err
	}
	g := graphOfCSC(a)
	parent0, post, counts0 := graphCounts(g, perm0, inv0)
	ipost := make([]int, n)
	for k, j := range post {
		ipost[j] = k
	}
	s := &Supernodal{N: n, Ordering: used, Perm: make([]int, n), Parent: make([]int, n), ColCounts: make([]int, n)}
	for k, j := range post {
		s.Perm[k] = perm0[j]
		s.ColCounts[k] = counts0[j]
		if p := parent0[j]; p >= 0 {
			s.Parent[k] = ipost[p]
		} else {
			s.Parent[k] = -1
		}
	}
	for _, c := range s.ColCounts {
		s.NNZL += int64(c)
		s.Flops += float64(c) * float64(c)
	}
	inv, err := InversePermutation(s.Perm)
	if err != nil {
		return nil, err
	}
	s.amalgamate()
	s.structure(g, inv)
	return s, nil
}

// amalgamate finds the fundamental supernodes and merges each into its
// parent while the relaxed bounds allow, setting Super.
func (s *Supernodal) amalgamate() {
	n := s.N
	if n == 0 {
		s.Super = []int{0}
		return
	}
	nchild := make([]int, n)
	for _, p := range s.Parent {
		if p >= 0 {
			nchild[p]++
		}
	}
	// Fundamental supernodes: j continues j-1's when j is j-1's parent,
	// its only child, and L(:,j-1) = {j-1} ∪ L(:,j).
	var first []int
	for j := 0; j < n; j++ {
		if j == 0 || s.Parent[j-1] != j || nchild[j] != 1 || s.ColCounts[j-1] != s.ColCounts[j]+1 {
			first = append(first, j)
		}
	}
	nf := len(first)
	first = append(first, n)
	colSuper := make([]int, n)
	for f := 0; f < nf; f++ {
		for j := first[f]; j < first[f+1]; j++ {
			colSuper[j] = f
		}
	}
	ns, F := make([]int, nf), make([]int, nf)
	zeros := make([]float64, nf)
	sparent := make([]int, nf)
	for f := 0; f < nf; f++ {
		ns[f], F[f] = first[f+1]-first[f], s.ColCounts[first[f]]
		sparent[f] = -1
		if p := s.Parent[first[f+1]-1]; p >= 0 {
			sparent[f] = colSuper[p]
		}
	}
	entries := func(ns, F int) float64 { return float64(ns)*float64(F) - float64(ns)*float64(ns-1)/2 }
	into := make([]int, nf) // union-find: the supernode f was merged into
	for f := range into {
		into[f] = f
	}
	find := func(f int) int {
		r := f
		for into[r] != r {
			r = into[r]
		}
		for into[f] != r {
			f, into[f] = into[f], r
		}
		return r
	}
	start := slices.Clone(first[:nf]) // first column of each representative
	for f := nf - 2; f >= 0; f-- {
		if sparent[f] < 0 {
			continue
		}
		p := find(sparent[f])
		// Only the child whose columns end just before its parent's can
		// merge and keep the supernode a contiguous range.
		if start[p] != first[f+1] {
			continue
		}
		nsM, FM := ns[f]+ns[p], ns[f]+F[p]
		z := zeros[f] + zeros[p] + entries(nsM, FM) - entries(ns[f], F[f]) - entries(ns[p], F[p])
		frac := z / entries(nsM, FM)
		ok := nsM <= relaxCols[0] ||
			(nsM <= relaxCols[1] && frac < relaxZeros[0]) ||
			(nsM <= relaxCols[2] && frac < relaxZeros[1]) ||
			frac < relaxZeros[2]
		if !ok {
			continue
		}
		into[f] = p
		start[p] = start[f]
		ns[p], F[p], zeros[p] = nsM, FM, z
	}
	s.Super = s.Super[:0]
	for f := 0; f < nf; f++ {
		if find(f) == f {
			s.Super = append(s.Super, start[f])
		}
	}
	slices.Sort(s.Super)
	s.NS = len(s.Super)
	s.Super = append(s.Super, n)
}

// structure computes the supernodes' rows, the assembly tree, its levels,
// the relative indices and the block offsets of L, from the graph g of the
// matrix in its own numbering and inv, the inverse of Perm: the rows of
// column j of the permuted matrix below the diagonal are the neighbours u
// of vertex Perm[j] with inv[u] > j, so no permuted copy of the matrix
// (values and all) is built.
func (s *Supernodal) structure(g *graph, inv []int) {
	n, NS := s.N, s.NS
	colSuper := make([]int32, n)
	for k := 0; k < NS; k++ {
		for j := s.Super[k]; j < s.Super[k+1]; j++ {
			colSuper[j] = int32(k)
		}
	}
	s.SParent = make([]int, NS)
	s.RowPtr = make([]int64, NS+1)
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	childHead, childNext := make([]int, NS), make([]int, NS)
	for k := range childHead {
		childHead[k] = -1
	}
	var rows []int32
	var below []int32
	for k := 0; k < NS; k++ {
		f0, f1 := s.Super[k], s.Super[k+1]
		below = below[:0]
		add := func(r int32) {
			if int(r) >= f1 && mark[r] != k {
				mark[r] = k
				below = append(below, r)
			}
		}
		for j := f0; j < f1; j++ {
			v := s.Perm[j]
			for _, u := range g.adj[g.ptr[v]:g.ptr[v+1]] {
				add(int32(inv[u]))
			}
		}
		for c := childHead[k]; c >= 0; c = childNext[c] {
			nsC := s.Super[c+1] - s.Super[c]
			for _, r := range rows[s.RowPtr[c]+int64(nsC) : s.RowPtr[c+1]] {
				add(r)
			}
		}
		slices.Sort(below)
		for j := f0; j < f1; j++ {
			rows = append(rows, int32(j))
		}
		rows = append(rows, below...)
		s.RowPtr[k+1] = int64(len(rows))
		s.SParent[k] = -1
		if len(below) > 0 {
			p := int(colSuper[below[0]])
			s.SParent[k] = p
			childNext[k], childHead[p] = childHead[p], k
		}
	}
	s.Rows = rows
	// Depths, from the roots down (parents come after their children).
	s.Depth = make([]int, NS)
	maxDepth := 0
	for k := NS - 1; k >= 0; k-- {
		if p := s.SParent[k]; p >= 0 {
			s.Depth[k] = s.Depth[p] + 1
			maxDepth = max(maxDepth, s.Depth[k])
		}
	}
	if NS > 0 {
		s.Levels = make([][]int, maxDepth+1)
	}
	for k := 0; k < NS; k++ {
		s.Levels[s.Depth[k]] = append(s.Levels[s.Depth[k]], k)
	}
	// Relative indices: each child's rows below it, located in its
	// parent's front.
	s.Rel = make([]int32, len(rows))
	pos := make([]int32, n)
	for p := 0; p < NS; p++ {
		for q, r := range rows[s.RowPtr[p]:s.RowPtr[p+1]] {
			pos[r] = int32(q)
		}
		for c := childHead[p]; c >= 0; c = childNext[c] {
			nsC := int64(s.Super[c+1] - s.Super[c])
			for q := s.RowPtr[c] + nsC; q < s.RowPtr[c+1]; q++ {
				s.Rel[q] = pos[rows[q]]
			}
		}
	}
	s.LPtr = make([]int64, NS+1)
	for k := 0; k < NS; k++ {
		F, ns := s.RowPtr[k+1]-s.RowPtr[k], int64(s.Super[k+1]-s.Super[k])
		s.LPtr[k+1] = s.LPtr[k] + F*ns
	}
}

// Front returns supernode k's first column, its number of columns and its
// front's order.
func (s *Supernodal) Front(k int) (first, ns, F int) {
	return s.Super[k], s.Super[k+1] - s.Super[k], int(s.RowPtr[k+1] - s.RowPtr[k])
}

// MapEntries returns, for each stored element of a (thesis CSC layout, the
// matrix that was analyzed), its position in L's storage: where the
// numeric factorization places A's values in the fronts.
func (s *Supernodal) MapEntries(a *CSC) ([]int64, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if a.N != s.N {
		return nil, fmt.Errorf("%w: matrix of order %d for an analysis of order %d", ErrShape, a.N, s.N)
	}
	inv, err := InversePermutation(s.Perm)
	if err != nil {
		return nil, err
	}
	colSuper := make([]int32, s.N)
	for k := 0; k < s.NS; k++ {
		for j := s.Super[k]; j < s.Super[k+1]; j++ {
			colSuper[j] = int32(k)
		}
	}
	place := func(i, j int) (int64, error) {
		r, c := inv[i], inv[j]
		if r < c {
			r, c = c, r
		}
		k := int(colSuper[c])
		front := s.Rows[s.RowPtr[k]:s.RowPtr[k+1]]
		q, ok := slices.BinarySearch(front, int32(r))
		if !ok {
			return 0, fmt.Errorf("%w: entry (%d,%d) outside the analyzed structure", ErrIndex, i, j)
		}
		return s.LPtr[k] + int64(c-s.Super[k])*int64(len(front)) + int64(q), nil
	}
	m := make([]int64, len(a.Elements))
	for j := 0; j < a.N; j++ {
		d := int(a.DiagPos[j])
		var err error
		if m[d], err = place(j, j); err != nil {
			return nil, err
		}
		rows, _ := a.ColRows(j)
		for q, r := range rows {
			if m[d+1+q], err = place(int(r), j); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}
