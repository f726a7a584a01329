package sparse

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

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
// of the last level while the eccentricity grows; ties go to the lower
// index). Cuthill–McKee then numbers the vertices breadth first, the
// unnumbered neighbours of each vertex in increasing degree (ties by index),
// and the whole order is reversed.
//
// Everything but the Cuthill–McKee sweep itself runs on every core: the
// graph is built in parallel (newGraph), every adjacency list is sorted once
// by (degree, index) so that the sweep needs no sorting, and the level
// structures of the George–Liu search are built level-synchronously in
// parallel. The result does not depend on the number of cores.
func ReverseCuthillMcKee(c *COO) ([]int, error) {
	g, err := newGraph(c)
	if err != nil {
		return nil, err
	}
	return g.rcm(), nil
}

func (g *graph) rcm() []int {
	n := g.n
	deg := make([]int32, n)
	for v := range deg {
		deg[v] = g.degree(int32(v))
	}
	byDegree := func(a, b int32) int {
		if c := cmp.Compare(deg[a], deg[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	// Lists in (degree, index) order, for the sweep. The graph is private
	// to this call.
	workers := runtime.GOMAXPROCS(0)
	ranges := max(1, min(workers*4, n/4096))
	// Each list is sorted as packed (degree, index) keys: an ordered sort of
	// uint64, several times faster than a sort with a comparison function.
	run(ranges, workers, func(r int) {
		var keys []uint64
		for v := n * r / ranges; v < n*(r+1)/ranges; v++ {
			l := g.adj[g.ptr[v]:g.ptr[v+1]]
			keys = keys[:0]
			for _, w := range l {
				keys = append(keys, uint64(deg[w])<<32|uint64(uint32(w)))
			}
			slices.Sort(keys)
			for i, k := range keys {
				l[i] = int32(uint32(k))
			}
		}
	})
	minVertex := func(vs []int32) int32 {
		best := vs[0]
		for _, v := range vs[1:] {
			if byDegree(v, best) < 0 {
				best = v
			}
		}
		return best
	}
	order := make([]int32, 0, n)
	numbered := make([]bool, n)
	ls := newLevels(n, workers)
	first := true
	for s := 0; s < n; s++ {
		if numbered[s] {
			continue
		}
		// The component of s, to find its minimum-degree vertex. For the
		// first component, try the graph's minimum-degree vertex: when it
		// lies in s's component (always, for a connected graph) its level
		// structure is both the component and the first structure of the
		// George–Liu search, which saves two breadth-first passes.
		var start int32
		reuse := false
		if first && n > 0 {
			first = false
			g0 := int32(0)
			for v := int32(1); v < int32(n); v++ {
				if byDegree(v, g0) < 0 {
					g0 = v
				}
			}
			ls.build(g, g0)
			if ls.mark[s] == ls.stamp {
				start, reuse = g0, true
			}
		}
		if !reuse {
			ls.build(g, int32(s))
			start = minVertex(ls.order)
		}
		root := g.pseudoPeripheral(start, ls, minVertex, reuse)
		// Cuthill–McKee from root: neighbours are already in degree order.
		head := len(order)
		order = append(order, root)
		numbered[root] = true
		for q := head; q < len(order); q++ {
			for _, w := range g.neighbours(order[q]) {
				if !numbered[w] {
					numbered[w] = true
					order = append(order, w)
				}
			}
		}
	}
	perm := make([]int, n)
	for i, v := range order {
		perm[n-1-i] = int(v)
	}
	return perm
}

// levels is a breadth-first level structure rooted at one vertex. A
// component is either wholly numbered or not at all, so no filter is needed.
type levels struct {
	mark    []int32 // mark[v] == stamp when v is in the current structure
	stamp   int32
	order   []int32 // vertices level by level
	lv      []int   // order[lv[k]:lv[k+1]] is level k
	workers int
	local   [][]int32
}

func newLevels(n, workers int) *levels {
	return &levels{mark: make([]int32, n), workers: workers, local: make([][]int32, workers)}
}

// levelParallel is the number of edges of a level above which it is
// expanded by all workers.
const levelParallel = 1 << 15

// build computes the level structure from root. Large levels are expanded
// by all workers, each claiming vertices with a compare-and-swap on their
// mark; the set of each level is the same however the race goes (only the
// order within a level varies, and nothing depends on it).
func (ls *levels) build(g *graph, root int32) {
	ls.stamp++
	st := ls.stamp
	ls.order = append(ls.order[:0], root)
	ls.lv = append(ls.lv[:0], 0)
	ls.mark[root] = st
	for lo := 0; lo < len(ls.order); {
		hi := len(ls.order)
		front := ls.order[lo:hi]
		// Estimate the level's edges from a sample of its vertices.
		edges := 0
		for _, v := range front[:min(len(front), 64)] {
			edges += int(g.degree(v))
		}
		edges = edges * len(front) / min(len(front), 64)
		if edges < levelParallel || ls.workers == 1 {
			for _, v := range front {
				for _, w := range g.neighbours(v) {
					if ls.mark[w] != st {
						ls.mark[w] = st
						ls.order = append(ls.order, w)
					}
				}
			}
		} else {
			var wg sync.WaitGroup
			for w := 0; w < ls.workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					loc := ls.local[w][:0]
					for _, v := range front[len(front)*w/ls.workers : len(front)*(w+1)/ls.workers] {
						for _, u := range g.neighbours(v) {
							if old := atomic.LoadInt32(&ls.mark[u]); old != st && atomic.CompareAndSwapInt32(&ls.mark[u], old, st) {
								loc = append(loc, u)
							}
						}
					}
					ls.local[w] = loc
				}()
			}
			wg.Wait()
			for w := range ls.local {
				ls.order = append(ls.order, ls.local[w]...)
			}
		}
		ls.lv = append(ls.lv, hi)
		lo = hi
	}
}

// depth returns the number of levels (the eccentricity of the root plus one).
func (ls *levels) depth() int { return len(ls.lv) - 1 }

// pseudoPeripheral implements George and Liu's search for a vertex of
// (nearly) maximal eccentricity in start's component.
// built says that ls already holds start's level structure.
func (g *graph) pseudoPeripheral(start int32, ls *levels, minVertex func([]int32) int32, built bool) int32 {
	root := start
	if !built {
		ls.build(g, root)
	}
	depth := ls.depth()
	for {
		cand := minVertex(ls.order[ls.lv[depth-1]:ls.lv[depth]])
		ls.build(g, cand)
		if d := ls.depth(); d > depth {
			root, depth = cand, d
			continue
		}
		return root
	}
}
