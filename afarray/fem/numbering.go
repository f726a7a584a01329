package fem

import (
	"fmt"
	"slices"
	"strings"
)

// Numbering selects the order in which nodes, and so equations, are numbered.
type Numbering int

const (
	// Natural keeps the mesh generator's node order.
	Natural Numbering = iota
	// RCM renumbers the nodes by reverse Cuthill–McKee on the node graph,
	// which narrows the profile (skyline) of K. Ordering nodes rather than
	// equations is cheaper by a factor of 3 in graph size and keeps each
	// node's three DOFs together, giving the same block structure.
	RCM
)

// String returns "natural" or "rcm".
func (n Numbering) String() string {
	switch n {
	case Natural:
		return "natural"
	case RCM:
		return "rcm"
	}
	return fmt.Sprintf("Numbering(%d)", int(n))
}

// ParseNumbering parses "natural" or "rcm" (case-insensitive).
func ParseNumbering(s string) (Numbering, error) {
	switch strings.ToLower(s) {
	case "natural", "":
		return Natural, nil
	case "rcm":
		return RCM, nil
	}
	return 0, fmt.Errorf("%w: unknown numbering %q (want natural or rcm)", ErrMesh, s)
}

// rcmOrder returns a reverse Cuthill–McKee order of the graph given in CSR
// form (ptr, adj; self-loops allowed): order[k] is the vertex placed k-th.
// Each connected component starts from a pseudo-peripheral vertex found by
// repeated breadth-first searches (the George–Liu heuristic), and
// neighbours are visited in order of increasing degree.
func rcmOrder(ptr, adj []int32) []int32 {
	n := len(ptr) - 1
	deg := make([]int32, n)
	for v := 0; v < n; v++ {
		deg[v] = ptr[v+1] - ptr[v]
	}
	visited := make([]bool, n)
	order := make([]int32, 0, n)
	level := make([]int32, n) // BFS scratch for the peripheral search
	var nbrs []int32
	for s := 0; s < n; s++ {
		if visited[s] {
			continue
		}
		start := peripheral(int32(s), ptr, adj, deg, level)
		head := len(order)
		order = append(order, start)
		visited[start] = true
		for head < len(order) {
			v := order[head]
			head++
			nbrs = nbrs[:0]
			for _, w := range adj[ptr[v]:ptr[v+1]] {
				if !visited[w] {
					visited[w] = true
					nbrs = append(nbrs, w)
				}
			}
			slices.SortFunc(nbrs, func(a, b int32) int {
				if deg[a] != deg[b] {
					return int(deg[a] - deg[b])
				}
				return int(a - b)
			})
			order = append(order, nbrs...)
		}
	}
	slices.Reverse(order)
	return order
}

// peripheral returns a pseudo-peripheral vertex of s's component: it
// repeats a breadth-first search from the lowest-degree vertex of the last
// level while the eccentricity grows. stamp is scratch of length n holding
// the search number that last reached each vertex.
func peripheral(s int32, ptr, adj, deg, stamp []int32) int32 {
	ecc := int32(-1)
	var queue, next []int32
	for iter := int32(1); iter <= 8; iter++ {
		// Stamps are negative so they never collide with the zero value;
		// each call uses fresh ones because components are disjoint.
		mark := -(s*8 + iter)
		queue = append(queue[:0], s)
		stamp[s] = mark
		last := []int32{s}
		depth := int32(0)
		for len(queue) > 0 {
			next = next[:0]
			for _, v := range queue {
				for _, w := range adj[ptr[v]:ptr[v+1]] {
					if stamp[w] != mark {
						stamp[w] = mark
						next = append(next, w)
					}
				}
			}
			if len(next) == 0 {
				break
			}
			depth++
			last = append(last[:0], next...)
			queue, next = next, queue
		}
		if depth <= ecc {
			return s
		}
		ecc = depth
		best := last[0]
		for _, v := range last {
			if deg[v] < deg[best] {
				best = v
			}
		}
		if best == s {
			return s
		}
		s = best
	}
	return s
}
