package sparse

import "slices"

// ReverseCuthillMcKee returns the reverse Cuthill–McKee ordering of the
// square matrix c (general or Symmetric; only its structure, made symmetric,
// counts) as a permutation in this package's convention: perm[i] is the old
// index placed at new position i, so c.Permute(perm) is SciPy's
// A[perm][:, perm].
//
// Each connected component is ordered separately, components in the order of
// their lowest-numbered vertex. A component starts at a pseudo-peripheral
// vertex found by the George–Liu algorithm (repeated breadth-first level
// structures from a minimum-degree vertex, moving to a minimum-degree vertex
// of the last level while the eccentricity grows). Cuthill–McKee then numbers
// the vertices breadth first, the unnumbered neighbours of each vertex in
// increasing degree (ties by index), and the whole order is reversed. It
// runs in O(nnz · number of George–Liu iterations + sorting of neighbour
// lists).
func ReverseCuthillMcKee(c *COO) ([]int, error) {
	g, err := newGraph(c)
	if err != nil {
		return nil, err
	}
	return g.rcm(), nil
}

func (g *graph) rcm() []int {
	n := g.n
	order := make([]int, 0, n)
	numbered := make([]bool, n)
	ls := &levelStructure{mark: make([]int32, n)}
	var comp []int32
	for s := 0; s < n; s++ {
		if numbered[s] {
			continue
		}
		// The vertices of s's component, to find its minimum-degree vertex.
		ls.build(g, int32(s), numbered)
		comp = append(comp[:0], ls.order...)
		start := comp[0]
		for _, v := range comp {
			if g.degree(v) < g.degree(start) {
				start = v
			}
		}
		root := g.pseudoPeripheral(start, numbered, ls)
		// Cuthill–McKee from root.
		head := len(order)
		order = append(order, int(root))
		numbered[root] = true
		var nb []int32
		for q := head; q < len(order); q++ {
			nb = nb[:0]
			for _, w := range g.neighbours(int32(order[q])) {
				if !numbered[w] {
					numbered[w] = true
					nb = append(nb, w)
				}
			}
			slices.SortFunc(nb, func(a, b int32) int {
				if da, db := g.degree(a), g.degree(b); da != db {
					return int(da - db)
				}
				return int(a - b)
			})
			for _, w := range nb {
				order = append(order, int(w))
			}
		}
	}
	slices.Reverse(order)
	return order
}

// levelStructure is a breadth-first level structure rooted at one vertex,
// restricted to vertices not yet numbered.
type levelStructure struct {
	mark   []int32 // mark[v] == stamp when v is in the current structure
	stamp  int32
	order  []int32 // vertices in breadth-first order
	levels []int   // order[levels[k]:levels[k+1]] is level k
}

func (ls *levelStructure) build(g *graph, root int32, numbered []bool) {
	ls.stamp++
	ls.order = append(ls.order[:0], root)
	ls.levels = append(ls.levels[:0], 0)
	ls.mark[root] = ls.stamp
	for lo := 0; lo < len(ls.order); {
		hi := len(ls.order)
		for _, v := range ls.order[lo:hi] {
			for _, w := range g.neighbours(v) {
				if ls.mark[w] != ls.stamp && !numbered[w] {
					ls.mark[w] = ls.stamp
					ls.order = append(ls.order, w)
				}
			}
		}
		ls.levels = append(ls.levels, hi)
		lo = hi
	}
}

// depth returns the number of levels (the eccentricity of the root plus one).
func (ls *levelStructure) depth() int { return len(ls.levels) - 1 }

// pseudoPeripheral implements George and Liu's search for a vertex of
// (nearly) maximal eccentricity in start's component.
func (g *graph) pseudoPeripheral(start int32, numbered []bool, ls *levelStructure) int32 {
	root := start
	ls.build(g, root, numbered)
	depth := ls.depth()
	for {
		last := ls.order[ls.levels[depth-1]:ls.levels[depth]]
		cand := last[0]
		for _, v := range last {
			if g.degree(v) < g.degree(cand) {
				cand = v
			}
		}
		ls.build(g, cand, numbered)
		if d := ls.depth(); d > depth {
			root, depth = cand, d
			continue
		}
		return root
	}
}
