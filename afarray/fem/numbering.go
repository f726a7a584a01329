package fem

import (
	"fmt"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Numbering selects the order in which nodes, and so equations, are numbered.
type Numbering int

const (
	// Natural keeps the mesh generator's node order.
	Natural Numbering = iota
	// RCM renumbers the nodes by reverse Cuthill–McKee (sparse's) on the
	// node graph, which narrows the profile (skyline) of K. Ordering nodes
	// rather than equations is cheaper (the node graph has a ninth of the
	// DOF graph's edges) and keeps each node's DOFs together, so K keeps
	// its 3×3 block structure.
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

// rcmOrder returns a reverse Cuthill–McKee order of the node graph given
// in CSR form (ptr, adj; self-loops allowed): order[k] is the node placed
// k-th. It hands the graph, as a pattern matrix, to sparse's RCM.
func rcmOrder(ptr, adj []int32) ([]int32, error) {
	n := len(ptr) - 1
	g := &sparse.COO{Rows: n, Cols: n, I: make([]int32, len(adj)), J: adj, V: make([]float64, len(adj))}
	for v := 0; v < n; v++ {
		for p := ptr[v]; p < ptr[v+1]; p++ {
			g.I[p] = int32(v)
			g.V[p] = 1
		}
	}
	perm, err := sparse.ReverseCuthillMcKee(g)
	if err != nil {
		return nil, fmt.Errorf("fem: node ordering: %w", err)
	}
	order := make([]int32, n)
	for k, v := range perm {
		order[k] = int32(v)
	}
	return order, nil
}
