package sparse

import (
	"fmt"
	"runtime"
	"slices"
)

// graph is the adjacency structure of a symmetric sparse matrix: the
// neighbours of vertex v are adj[ptr[v]:ptr[v+1]], sorted, without v itself.
// For a matrix that is not symmetric it is the structure of A + Aᵀ. Values
// play no part: an explicitly stored zero is an edge.
type graph struct {
	n   int
	ptr []int32
	adj []int32
}

// newGraph builds the graph of the square matrix c in O(nnz + n) work, on
// every core: the entries are cut into one slice per worker, each counts
// and then scatters its own edges into positions fixed by a prefix sum over
// (vertex, worker), so the result is the same whatever the schedule; the
// lists are then sorted and freed of duplicates vertex range by vertex range.
func newGraph(c *COO) (*graph, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Rows != c.Cols {
		return nil, errNotSquare(c.Rows, c.Cols)
	}
	n, m := c.Rows, len(c.V)
	if 2*int64(m) > 1<<31-1 {
		return nil, fmt.Errorf("%w: a graph of %d entries needs more than 2^31 adjacency slots", ErrTooLarge, m)
	}
	// Few entries: one worker, no per-worker count arrays of the order's size.
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<16), 64))
	cnt := make([][]int32, workers)
	run(workers, workers, func(w int) {
		cw := make([]int32, n)
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			if i, j := c.I[k], c.J[k]; i != j {
				cw[i]++
				cw[j]++
			}
		}
		cnt[w] = cw
	})
	ptr := make([]int32, n+1)
	vranges := max(1, min(runtime.GOMAXPROCS(0)*4, n/4096))
	run(vranges, runtime.GOMAXPROCS(0), func(r int) {
		for v := n * r / vranges; v < n*(r+1)/vranges; v++ {
			var d int32
			for w := range cnt {
				d += cnt[w][v]
			}
			ptr[v+1] = d
		}
	})
	for v := 0; v < n; v++ {
		ptr[v+1] += ptr[v]
	}
	// cnt[w][v] becomes where worker w writes its next edge of v.
	run(vranges, runtime.GOMAXPROCS(0), func(r int) {
		for v := n * r / vranges; v < n*(r+1)/vranges; v++ {
			at := ptr[v]
			for w := range cnt {
				at, cnt[w][v] = at+cnt[w][v], at
			}
		}
	})
	adj := make([]int32, ptr[n])
	run(workers, workers, func(w int) {
		cw := cnt[w]
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			if i, j := c.I[k], c.J[k]; i != j {
				adj[cw[i]] = j
				cw[i]++
				adj[cw[j]] = i
				cw[j]++
			}
		}
	})
	cnt = nil
	// Sort each list and drop duplicates; then close the gaps.
	deg := make([]int32, n)
	run(vranges, runtime.GOMAXPROCS(0), func(r int) {
		for v := n * r / vranges; v < n*(r+1)/vranges; v++ {
			l := adj[ptr[v]:ptr[v+1]]
			slices.Sort(l)
			deg[v] = int32(len(slices.Compact(l)))
		}
	})
	if total := sum32(deg); total != int64(len(adj)) {
		out := make([]int32, total)
		np := make([]int32, n+1)
		for v := 0; v < n; v++ {
			np[v+1] = np[v] + deg[v]
		}
		run(vranges, runtime.GOMAXPROCS(0), func(r int) {
			for v := n * r / vranges; v < n*(r+1)/vranges; v++ {
				copy(out[np[v]:np[v+1]], adj[ptr[v]:ptr[v]+deg[v]])
			}
		})
		ptr, adj = np, out
	}
	return &graph{n: n, ptr: ptr, adj: adj}, nil
}

func sum32(x []int32) int64 {
	var s int64
	for _, v := range x {
		s += int64(v)
	}
	return s
}

func (g *graph) neighbours(v int32) []int32 { return g.adj[g.ptr[v]:g.ptr[v+1]] }

func (g *graph) degree(v int32) int32 { return g.ptr[v+1] - g.ptr[v] }

// graphOfCSC builds the graph of a symmetric matrix in the CSC layout in
// O(nnz + n), without sorting: a vertex's neighbours below it come from
// the columns before it, in increasing order, then its own rows.
func graphOfCSC(a *CSC) *graph {
	n := a.N
	g := &graph{n: n, ptr: make([]int32, n+1), adj: make([]int32, 2*len(a.RowIdx))}
	for j := 0; j < n; j++ {
		rows, _ := a.ColRows(j)
		g.ptr[j+1] += int32(len(rows))
		for _, r := range rows {
			g.ptr[r+1]++
		}
	}
	for v := 0; v < n; v++ {
		g.ptr[v+1] += g.ptr[v]
	}
	next := append([]int32(nil), g.ptr[:n]...)
	for j := 0; j < n; j++ {
		rows, _ := a.ColRows(j)
		for _, r := range rows {
			g.adj[next[r]] = int32(j)
			next[r]++
		}
	}
	for j := 0; j < n; j++ {
		rows, _ := a.ColRows(j)
		next[j] += int32(copy(g.adj[next[j]:], rows))
	}
	return g
}
