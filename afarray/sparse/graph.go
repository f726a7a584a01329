package sparse

// graph is the adjacency structure of a symmetric sparse matrix: the
// neighbours of vertex v are adj[ptr[v]:ptr[v+1]], sorted, without v itself.
// For a matrix that is not symmetric it is the structure of A + Aᵀ. Values
// play no part: an explicitly stored zero is an edge.
type graph struct {
	n   int
	ptr []int32
	adj []int32
}

// newGraph builds the graph of the square matrix c in O(nnz + n).
func newGraph(c *COO) (*graph, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Rows != c.Cols {
		return nil, errNotSquare(c.Rows, c.Cols)
	}
	n := c.Rows
	var I, J []int32
	for k := range c.V {
		if i, j := c.I[k], c.J[k]; i != j {
			I, J = append(I, i, j), append(J, j, i)
		}
	}
	I, J, _ = sortColMajor(n, n, I, J, make([]float64, len(I)))
	g := &graph{n: n, ptr: make([]int32, n+1), adj: make([]int32, 0, len(I))}
	for k := range I {
		if k > 0 && I[k] == I[k-1] && J[k] == J[k-1] {
			continue
		}
		g.adj = append(g.adj, I[k])
		g.ptr[J[k]+1]++
	}
	for v := 0; v < n; v++ {
		g.ptr[v+1] += g.ptr[v]
	}
	return g, nil
}

func (g *graph) neighbours(v int32) []int32 { return g.adj[g.ptr[v]:g.ptr[v+1]] }

func (g *graph) degree(v int32) int32 { return g.ptr[v+1] - g.ptr[v] }
