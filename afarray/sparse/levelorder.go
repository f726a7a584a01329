package sparse

import "runtime"

// Recognizing a numbering that is already a (reverse) Cuthill–McKee one, in
// O(nnz) and without building the graph, so that the automatic orderings
// skip RCM on a file written in RCM order (by this package, SciPy or any
// other tool): RCM would cost several times what reading the file did and
// rebuild the same kind of order.
//
// In RCM numbering (read backwards, v = n−1−j, it is Cuthill–McKee) every
// vertex but the root n−1 has a neighbour numbered after it, and the last
// one, lastRow[j] (the last row of column j of the lower triangle), is the
// vertex that reached it in the breadth-first sweep: its parent. Following
// parents gives each vertex a level, lev[j] = lev[lastRow[j]] + 1. When
// every entry joins vertices whose levels differ by at most one, these are
// exactly the breadth-first levels from n−1 (the parent chain is a path of
// that length, and no edge skips a level), whatever the numbering within a
// level. Cuthill–McKee numbers the children of each level in the order of
// their parents, so a vertex of level k+1 lies about w_k + w_{k+1} over two
// positions after its parent (w_k the width of level k), and its storage
// is close to
//
//	cmEstimate = n + Σ_k w_{k+1} (w_k + w_{k+1}) / 2
//
// (within 4-5 % below what RCM gives on the thesis's models); a numbering of
// the same levels in any other order inside them stores about twice that.
// A numbering that stores no more than levelSlack times the estimate is
// therefore a Cuthill–McKee numbering of its own levels. What the test
// cannot see is whether its root is the pseudo-peripheral vertex RCM would
// start from (that takes breadth-first searches over the graph): a root of
// more than the average degree is taken as a poor one (George and Liu start
// their search at a vertex of least degree; in a mesh those are corners),
// and RCM runs.

// levelSlack is how far above cmEstimate a numbering's storage may be for it
// to count as a Cuthill–McKee numbering of its own levels: RCM's own orders
// of the shared matrices and of grids store 1.00-1.17 times the estimate,
// orders of the same levels shuffled within each level 1.28-1.49 times.
const levelSlack = 1.20

// cuthillMcKeeEstimate returns cmEstimate for the numbering of c whose
// column last rows are lastRow, and whether that numbering is a breadth-first
// level order, each connected component's from its last vertex (its root),
// with roots of at most average degree. ok false means nothing can be said
// (RCM must run).
func cuthillMcKeeEstimate(c *COO, lastRow []int32) (est int64, ok bool) {
	n := len(lastRow)
	if n < 2 {
		return 0, false
	}
	// Levels and roots, from the last vertex down (a parent comes after
	// its children).
	// depth[r] is the deepest level of the component of root r.
	lev, root, depth := make([]int32, n), make([]int32, n), make([]int32, n)
	var roots []int32
	for j := n - 1; j >= 0; j-- {
		p := lastRow[j]
		if p == int32(j) {
			lev[j], root[j] = 0, int32(j)
			roots = append(roots, int32(j))
			continue
		}
		lev[j], root[j] = lev[p]+1, root[p]
		depth[root[j]] = max(depth[root[j]], lev[j])
	}
	// Every entry within one level of its partner (and so within its
	// component), and the degrees of the roots of components of more than
	// one vertex.
	m := len(c.V)
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<16), 64))
	skip := make([]bool, workers)
	rootDeg, offDiag := make([]int64, workers), make([]int64, workers)
	run(workers, workers, func(w int) {
		var rd, od int64
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			i, j := c.I[k], c.J[k]
			if i == j {
				continue
			}
			od++
			if root[i] == i || root[j] == j {
				rd++
			}
			if d := lev[i] - lev[j]; d > 1 || d < -1 || root[i] != root[j] {
				skip[w] = true
				return
			}
		}
		rootDeg[w], offDiag[w] = rd, od
	})
	var rd, od int64
	for w := range skip {
		if skip[w] {
			return 0, false
		}
		rd, od = rd+rootDeg[w], od+offDiag[w]
	}
	// The roots' mean degree against the graph's (a general c stores each
	// edge twice, a symmetric one once: the ratio is the same). Roots of
	// single vertices have degree 0 and are not counted.
	nontrivial := int64(0)
	for _, r := range roots {
		if depth[r] > 0 {
			nontrivial++
		}
	}
	if nontrivial == 0 || rd*int64(n) > 2*od*nontrivial {
		return 0, false
	}
	// Widths of each component's levels, laid out one component after
	// another (base, indexed by root).
	base, at := make([]int32, n), int32(0)
	for _, r := range roots {
		base[r] = at
		at += depth[r] + 1
	}
	width := make([]int64, at)
	for j, l := range lev {
		width[base[root[j]]+l]++
	}
	est = int64(n)
	for _, r := range roots {
		for k := base[r]; k < base[r]+depth[r]; k++ {
			est += width[k+1] * (width[k] + width[k+1]) / 2
		}
	}
	return est, true
}
