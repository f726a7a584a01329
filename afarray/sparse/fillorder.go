package sparse

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Fill-reducing orderings for sparse Cholesky and LDLᵀ (supernodal storage).
const (
	// OrderAMD is SuiteSparse's approximate minimum degree (libamd).
	OrderAMD Ordering = "amd"
	// OrderND is METIS's nested dissection (METIS_NodeND) on the compressed
	// graph (see CompressGraph).
	OrderND Ordering = "nd"
	// OrderNone is an alias of OrderNatural.
	OrderNone Ordering = "none"
	// OrderFillAuto computes AMD, then, when AMD leaves much fill (the
	// rule of CHOLMOD, see fillRatioND), nested dissection too, and keeps
	// the one whose factor needs fewer flops (predicted exactly from column
	// counts), the smaller nnz(L) on a tie. It is what "auto" means for supernodal
	// storage; FillOrder also takes "auto" and "" for it.
	OrderFillAuto Ordering = "fill"
)

// FillOrder's automatic choice tries nested dissection after AMD only when
// AMD's nnz(L) is at least fillRatioND times nnz(A) and its flops at least
// flopsPerEntryND per entry of L (CHOLMOD's default rule, from its user
// guide), as on 3-D FE models; small and 2-D-like matrices keep AMD.
const (
	fillRatioND     = 5
	flopsPerEntryND = 500
	// ndParallelOrder is the order from which nested dissection runs
	// speculatively beside AMD (it costs more than AMD and, on 3-D FE
	// models that large, the rule nearly always keeps it).
	ndParallelOrder = 20000
)

// The fill-reducing orderings join Order's registry, so that solver.Run
// and `oclsolve solve --order amd|nd|fill` reach them.
func init() {
	for _, o := range []Ordering{OrderAMD, OrderND, OrderFillAuto} {
		registerChoice(o, func(c *COO) ([]int, Ordering, error) {
			if c.Symmetric {
				// One stored triangle: its graph, built on every core
				// from the indices alone, is the graph of the CSC
				// (same sorted lists), without sorting and copying the
				// values into a CSC that only the graph would read.
				g, err := newGraph(c)
				if err != nil {
					return nil, "", err
				}
				p, used, _, _, err := g.fillOrder(len(g.adj)/2+g.n, o)
				return p, used, err
			}
			a, err := CSCFromCOO(c)
			if err != nil {
				return nil, "", err
			}
			p, used, _, _, err := FillOrder(a, o)
			return p, used, err
		})
	}
}

// FillOrder returns the permutation for a fill-reducing ordering of the
// symmetric matrix a (amd, nd, rcm, natural/none, or fill, also spelled
// auto or ""),
// the ordering actually used, and the predicted nnz(L) and flops of the
// factor in that order. The permutation follows this package's convention
// (perm[new] = old).
func FillOrder(a *CSC, method Ordering) (perm []int, used Ordering, nnzL int64, flops float64, err error) {
	if err := a.Validate(); err != nil {
		return nil, "", 0, 0, err
	}
	return graphOfCSC(a).fillOrder(a.Len(), method)
}

// fillOrder is FillOrder on the graph of a symmetric matrix that stores
// lenA entries in the CSC layout (the lower triangle's off-diagonal entries
// plus the n diagonal ones).
func (g *graph) fillOrder(lenA int, method Ordering) (perm []int, used Ordering, nnzL int64, flops float64, err error) {
	var cands []Ordering
	auto := false
	switch method {
	case OrderFillAuto, OrderAuto, "":
		auto = true
	case OrderAMD, OrderND, OrderRCM:
		cands = []Ordering{method}
	case OrderNatural, OrderNone:
		cands = []Ordering{OrderNatural}
	default:
		return nil, "", 0, 0, fmt.Errorf("%w: unknown ordering %q (want amd, nd, rcm, none or fill)", ErrUnsupported, method)
	}
	type result struct {
		p     []int
		nz    int64
		fl    float64
		err   error
		order Ordering
	}
	run := func(m Ordering) (r result) {
		r.order = m
		switch m {
		case OrderAMD:
			r.p, r.err = amdOrder(g)
		case OrderND:
			r.p, r.err = g.nestedDissection()
		case OrderRCM:
			r.p = g.rcm()
		case OrderNatural:
			r.p = identity(g.n)
		}
		if r.err == nil {
			r.nz, r.fl, r.err = g.predict(r.p)
		}
		return r
	}
	var results []result
	if auto {
		// CHOLMOD's rule: nested dissection is worth it only when AMD
		// leaves much fill and much work per entry of L. Without METIS (libmetis.so.5 absent) AMD alone decides. On
		// large matrices nested dissection runs beside AMD, on another
		// core, and is kept only if the rule asks for it; on small ones
		// it runs after AMD, and only then.
		wantND := func(r result) bool {
			return r.err == nil && float64(r.nz) >= fillRatioND*float64(lenA) && r.fl >= flopsPerEntryND*float64(r.nz)
		}
		withND := MetisAvailable()
		if withND && g.n >= ndParallelOrder {
			nd := make(chan result, 1)
			go func() { nd <- run(OrderND) }()
			r := run(OrderAMD)
			results = append(results, r)
			// A failed nested dissection leaves AMD's ordering standing.
			if rn := <-nd; wantND(r) && rn.err == nil {
				results = append(results, rn)
			}
		} else {
			r := run(OrderAMD)
			results = append(results, r)
			if withND && wantND(r) {
				if rn := run(OrderND); rn.err == nil {
					results = append(results, rn)
				}
			}
		}
	} else {
		results = append(results, run(cands[0]))
	}
	for _, r := range results {
		if r.err != nil {
			return nil, "", 0, 0, r.err
		}
		if perm == nil || r.fl < flops || (r.fl == flops && r.nz < nnzL) {
			perm, used, nnzL, flops = r.p, r.order, r.nz, r.fl
		}
	}
	return perm, used, nnzL, flops, nil
}

// PredictFactor returns nnz(L) (diagonal included) and the flop count
// Σ_j c_j² of the Cholesky factor of P a Pᵀ, from the elimination tree and
// the Gilbert–Ng–Peyton column counts, in nearly O(nnz(a)) time.
func PredictFactor(a *CSC, perm []int) (nnzL int64, flops float64, err error) {
	if err := a.Validate(); err != nil {
		return 0, 0, err
	}
	return graphOfCSC(a).predict(perm)
}

func (g *graph) predict(perm []int) (nnzL int64, flops float64, err error) {
	inv, err := checkPerm(perm, g.n)
	if err != nil {
		return 0, 0, err
	}
	_, _, counts := graphCounts(g, perm, inv)
	for _, c := range counts {
		nnzL += int64(c)
		flops += float64(c) * float64(c)
	}
	return nnzL, flops, nil
}

// nestedDissection runs METIS_NodeND on the compressed graph and expands its
// order back to g's vertices, each group's members kept together.
func (g *graph) nestedDissection() ([]int, error) {
	cg, groups := g.compress()
	var w []int32
	if cg.n < g.n {
		w = make([]int32, cg.n)
		for v := range w {
			w[v] = groups.ptr[v+1] - groups.ptr[v]
		}
	}
	cp, err := metisNodeND(cg, w)
	if err != nil {
		return nil, err
	}
	perm := make([]int, 0, g.n)
	for _, v := range cp {
		for _, u := range groups.neighbours(int32(v)) {
			perm = append(perm, int(u))
		}
	}
	return perm, nil
}

// CompressGraph returns the number of vertices of the graph of c after
// merging vertices with identical closed neighbourhoods (the unknowns of
// one finite-element node), the graph that nested dissection sees.
func CompressGraph(c *COO) (int, error) {
	g, err := newGraph(c)
	if err != nil {
		return 0, err
	}
	cg, _ := g.compress()
	return cg.n, nil
}

// compress merges vertices whose closed neighbourhoods adj(v) ∪ {v} are
// identical: such vertices are indistinguishable to every elimination
// ordering, so ordering the quotient graph, with each group's size as its
// weight, loses nothing and runs on a graph ~9x smaller for 3-D elasticity.
// groups lists the members of each compressed vertex (a graph used as CSR).
func (g *graph) compress() (cg *graph, groups *graph) {
	n := g.n
	// The hash only buckets candidates (same decides), so the groups do
	// not depend on it; a seeded 64-bit mix costs a third of maphash per
	// adjacency entry, and this loop reads every one.
	seed := rand.Uint64()
	mix := func(x int32) uint64 {
		z := uint64(x) ^ seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	hash := make([]uint64, n)
	for v := 0; v < n; v++ {
		// A hash of the closed neighbourhood: order-independent sum of
		// the members' hashes, v included.
		h := mix(int32(v))
		for _, u := range g.neighbours(int32(v)) {
			h += mix(u)
		}
		hash[v] = h
	}
	same := func(u, v int32) bool {
		// Closed neighbourhoods are equal iff u ∈ adj(v) and the sorted
		// open ones are equal after swapping u and v.
		nu, nv := g.neighbours(u), g.neighbours(v)
		if len(nu) != len(nv) {
			return false
		}
		if _, ok := slices.BinarySearch(nu, v); !ok {
			return false
		}
		i, j := 0, 0
		for i < len(nu) || j < len(nv) {
			if i < len(nu) && nu[i] == v {
				i++
				continue
			}
			if j < len(nv) && nv[j] == u {
				j++
				continue
			}
			if i >= len(nu) || j >= len(nv) || nu[i] != nv[j] {
				return false
			}
			i, j = i+1, j+1
		}
		return true
	}
	rep := make([]int32, n) // compressed vertex of each vertex
	for v := range rep {
		rep[v] = -1
	}
	byHash := make(map[uint64][]int32, n)
	nc := int32(0)
	leader := make([]int32, 0, n) // a member of each compressed vertex
	for v := int32(0); v < int32(n); v++ {
		for _, u := range byHash[hash[v]] {
			if same(leader[rep[u]], v) {
				rep[v] = rep[u]
				break
			}
		}
		if rep[v] < 0 {
			rep[v] = nc
			leader = append(leader, v)
			nc++
			byHash[hash[v]] = append(byHash[hash[v]], v)
		}
	}
	groups = &graph{n: int(nc), ptr: make([]int32, nc+1), adj: make([]int32, n)}
	for _, r := range rep {
		groups.ptr[r+1]++
	}
	for i := int32(0); i < nc; i++ {
		groups.ptr[i+1] += groups.ptr[i]
	}
	fill := slices.Clone(groups.ptr[:nc])
	for v, r := range rep {
		groups.adj[fill[r]] = int32(v)
		fill[r]++
	}
	if int(nc) == n {
		return g, groups
	}
	// The quotient graph: the leader's neighbours, renumbered, without
	// its own group.
	cg = &graph{n: int(nc), ptr: make([]int32, nc+1)}
	mark := make([]int32, nc)
	for i := range mark {
		mark[i] = -1
	}
	for c := int32(0); c < nc; c++ {
		mark[c] = c
		start := len(cg.adj)
		for _, u := range g.neighbours(leader[c]) {
			if r := rep[u]; mark[r] != c {
				mark[r] = c
				cg.adj = append(cg.adj, r)
			}
		}
		slices.Sort(cg.adj[start:])
		cg.ptr[c+1] = int32(len(cg.adj))
	}
	return cg, groups
}
