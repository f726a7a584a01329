package fem

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// System is an assembled linear system K u = F of a model.
type System struct {
	Name      string    // model name, e.g. "model1"
	Grid      string    // mesh description "AxBxC" (see Model1Options, Model2Options)
	Numbering Numbering // node numbering used for the equations
	Material  Material

	// K is the full symmetric stiffness matrix (both triangles stored,
	// Symmetric false), 0-based, duplicates summed, sorted by column and
	// then by row.
	K *sparse.COO
	// F is the load vector, one entry per equation, in newtons.
	F []float64
	// NumDOF is the number of equations (free degrees of freedom), the order
	// of K.
	NumDOF int

	// Mesh is the mesh the system was assembled from.
	Mesh *Mesh
	// Equation maps degree of freedom 3·node+component to its equation
	// (row of K), or -1 where the DOF is fixed.
	Equation []int32

	// RowLo and RowHi are the rows K holds: 0 and NumDOF, unless the
	// assembly kept only some (AssembleRows). NNZ counts the entries of the
	// whole K either way.
	RowLo, RowHi int
	NNZ          int64

	// AssemblyTime is the wall time of Assemble: numbering, sparsity
	// pattern, element matrices and summation (mesh generation excluded).
	AssemblyTime time.Duration
}

// RowRange chooses, once the equations are numbered, the rows of K that an
// assembly keeps: given the order n, the node coordinates (as Mesh.Coords)
// and the equation of every DOF (as System.Equation), it returns [lo, hi).
// A rank of a distributed solve assembles only its own rows with it
// (petsc.LocalRows is one).
type RowRange func(n int, coords []float64, equation []int32) (lo, hi int, err error)

// Displacement returns component c (0 = x, 1 = y, 2 = z) of node's
// displacement in the solution vector u of the system; fixed DOFs are 0.
func (s *System) Displacement(u []float64, node, c int) float64 {
	e := s.Equation[3*node+c]
	if e < 0 {
		return 0
	}
	return u[e]
}

// Assemble numbers the free DOFs of mesh in the given node numbering and
// assembles the global stiffness matrix and load vector for material mat.
//
// The sparsity pattern is built first, node by node, from the node graph
// (nodes sharing an element are coupled): the rows of every column are known
// before any value is summed, so no triplet list or dense intermediate is
// formed and each element contribution is added in place. Element matrices
// are computed once per distinct element shape (equal up to translation),
// which for structured meshes leaves few to compute. Both passes run in
// parallel over nodes; each worker owns the columns of its nodes, so no
// locking is needed.
func Assemble(mesh *Mesh, mat Material, num Numbering) (*System, error) {
	return AssembleRows(mesh, mat, num, nil)
}

// AssembleRows is Assemble keeping only the rows [lo, hi) that rows chooses
// (all of them when rows is nil): K then holds every entry of those rows
// and no other, sorted by row and then by column (K being symmetric, they
// are its columns lo to hi-1 transposed), only the columns of those
// equations are summed, and the memory of K shrinks to their share; the
// mesh, the numbering and F stay whole. The entries are those of Assemble's
// K, bit for bit.
func AssembleRows(mesh *Mesh, mat Material, num Numbering, rows RowRange) (*System, error) {
	start := time.Now()
	if err := mesh.Validate(); err != nil {
		return nil, err
	}
	if err := mat.Validate(); err != nil {
		return nil, err
	}
	if num != Natural && num != RCM {
		return nil, fmt.Errorf("%w: unknown numbering %d", ErrMesh, int(num))
	}
	as := &assembly{mesh: mesh, nn: mesh.NumNodes(), workers: runtime.GOMAXPROCS(0)}
	if err := as.incidence(); err != nil {
		return nil, err
	}
	// Node adjacency (including the node itself), sorted, original numbering.
	as.adjPtr, as.adj = nodeGraph(mesh.Elems, as.nePtr, as.neIdx, as.nn, as.workers)
	if err := as.number(num); err != nil {
		return nil, err
	}
	if err := as.equations(); err != nil {
		return nil, err
	}
	as.lo, as.hi = 0, as.n
	if rows != nil {
		lo, hi, err := rows(as.n, mesh.Coords, as.eq)
		if err != nil {
			return nil, err
		}
		if lo < 0 || hi > as.n || lo > hi {
			return nil, fmt.Errorf("%w: rows [%d, %d) of a system of order %d", ErrMesh, lo, hi, as.n)
		}
		as.lo, as.hi = lo, hi
	}
	as.neighbours()
	if err := as.columns(); err != nil {
		return nil, err
	}
	if err := as.elementMatrices(mat); err != nil {
		return nil, err
	}
	as.fill()
	k := &sparse.COO{Rows: as.n, Cols: as.n, I: as.I, J: as.J, V: as.V}
	if as.lo != 0 || as.hi != as.n {
		// Columns lo..hi-1, sorted by column then row, are by symmetry
		// rows lo..hi-1 sorted by row then column.
		k.I, k.J = k.J, k.I
	}
	return &System{
		Numbering:    num,
		Material:     mat,
		K:            k,
		RowLo:        as.lo,
		RowHi:        as.hi,
		NNZ:          as.colPtr[as.n],
		F:            as.loads(),
		NumDOF:       as.n,
		Mesh:         mesh,
		Equation:     as.eq,
		AssemblyTime: time.Since(start),
	}, nil
}

// assembly is the state of one Assemble, built phase by phase.
type assembly struct {
	mesh        *Mesh
	nn, workers int
	n           int // equations
	lo, hi      int // the columns kept, [lo, hi)

	nePtr, neIdx       []int32 // node → element incidence, CSR
	adjPtr, adj        []int32 // node adjacency, CSR, original numbering
	order, newOf       []int32 // node order and its inverse
	eq, firstEq, nfree []int32 // equation of each DOF (-1 fixed), first equation and free DOFs of each node
	nbr, offs          []int32 // per adjacency entry: new index, row offset within the owner's columns
	height             []int64 // rows per column of each node
	colPtr             []int64 // column pointers in equation order
	kind               []int32 // element → its shape
	kes                [][576]float64
	I, J               []int32
	V                  []float64
}

// incidence builds the node → element incidence and rejects a free DOF on a
// node of no element (it would give K an empty column).
func (as *assembly) incidence() error {
	nn, mesh := as.nn, as.mesh
	as.nePtr = make([]int32, nn+1)
	for _, v := range mesh.Elems {
		as.nePtr[v+1]++
	}
	for i := 0; i < nn; i++ {
		as.nePtr[i+1] += as.nePtr[i]
	}
	as.neIdx = make([]int32, len(mesh.Elems))
	fill := slices.Clone(as.nePtr[:nn])
	for k, v := range mesh.Elems {
		as.neIdx[fill[v]] = int32(k / 8)
		fill[v]++
	}
	for v := 0; v < nn; v++ {
		if as.nePtr[v+1] == as.nePtr[v] && !(mesh.Fixed[3*v] && mesh.Fixed[3*v+1] && mesh.Fixed[3*v+2]) {
			return fmt.Errorf("%w: node %d belongs to no element but has free DOFs", ErrMesh, v)
		}
	}
	return nil
}

// number computes the node order (natural or RCM) and its inverse.
func (as *assembly) number(num Numbering) error {
	if num == RCM {
		var err error
		if as.order, err = rcmOrder(as.adjPtr, as.adj); err != nil {
			return err
		}
	} else {
		as.order = make([]int32, as.nn)
		for i := range as.order {
			as.order[i] = int32(i)
		}
	}
	as.newOf = make([]int32, as.nn)
	for k, v := range as.order {
		as.newOf[v] = int32(k)
	}
	return nil
}

// equations numbers the equations node-major in the new order, fixed DOFs
// skipped. The DOFs of one node get consecutive numbers, so a row range in a
// column is a run of whole nodes.
func (as *assembly) equations() error {
	nn, fixed := as.nn, as.mesh.Fixed
	as.eq, as.firstEq, as.nfree = make([]int32, 3*nn), make([]int32, nn), make([]int32, nn)
	n := 0
	for _, v := range as.order {
		as.firstEq[v] = int32(n)
		for c := 0; c < 3; c++ {
			if fixed[3*v+int32(c)] {
				as.eq[3*v+int32(c)] = -1
				continue
			}
			as.eq[3*v+int32(c)] = int32(n)
			n++
		}
		as.nfree[v] = int32(n) - as.firstEq[v]
	}
	if n == 0 {
		return fmt.Errorf("%w: every degree of freedom is fixed", ErrMesh)
	}
	as.n = n
	return nil
}

// neighbours sorts each adjacency list by new index; nbr holds the new
// indices for binary search, offs the row offset of each neighbour within a
// column of the owning node, height the rows per column of each node.
func (as *assembly) neighbours() {
	as.nbr, as.offs, as.height = make([]int32, len(as.adj)), make([]int32, len(as.adj)), make([]int64, as.nn)
	parallelRange(as.nn, as.workers, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			l := as.adj[as.adjPtr[b]:as.adjPtr[b+1]]
			slices.SortFunc(l, func(x, y int32) int { return int(as.newOf[x] - as.newOf[y]) })
			h := int64(0)
			for t, a := range l {
				as.nbr[int(as.adjPtr[b])+t] = as.newOf[a]
				as.offs[int(as.adjPtr[b])+t] = int32(h)
				h += int64(as.nfree[a])
			}
			as.height[b] = h
		}
	})
}

// columns sets the column pointers in equation order (of the whole
// matrix) and allocates the triplets of the columns kept.
func (as *assembly) columns() error {
	as.colPtr = make([]int64, as.n+1)
	for _, v := range as.order {
		for c := 0; c < 3; c++ {
			if e := as.eq[3*v+int32(c)]; e >= 0 {
				as.colPtr[e+1] = as.colPtr[e] + as.height[v]
			}
		}
	}
	nnz := as.colPtr[as.hi] - as.colPtr[as.lo]
	if nnz > math.MaxInt32 {
		return fmt.Errorf("%w: %d nonzeros exceed the int32 index range", ErrMesh, nnz)
	}
	as.I, as.J, as.V = make([]int32, nnz), make([]int32, nnz), make([]float64, nnz)
	return nil
}

// kept reports whether column col is one of the columns kept.
func (as *assembly) kept(col int32) bool { return int(col) >= as.lo && int(col) < as.hi }

// elementMatrices computes one element matrix per distinct shape, in
// parallel, keeping the first error.
func (as *assembly) elementMatrices(mat Material) error {
	kind, shapes := elementShapes(as.mesh)
	lambda, mu := mat.Lame()
	as.kind, as.kes = kind, make([][576]float64, len(shapes))
	var errMu sync.Mutex
	var firstErr error
	parallelRange(len(shapes), as.workers, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			if err := hex8Stiffness(&shapes[s].xyz, lambda, mu, &as.kes[s]); err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("element %d: %w", shapes[s].elem, err)
				}
				errMu.Unlock()
			}
		}
	})
	return firstErr
}

// fill writes the pattern and sums the values, column by column; a worker
// owns nodes [lo, hi), so no two write the same column.
func (as *assembly) fill() {
	parallelRange(as.nn, as.workers, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			if f := int(as.firstEq[b]); f >= as.hi || f+int(as.nfree[b]) <= as.lo {
				continue // none of its columns is kept
			}
			as.pattern(b)
			as.values(b)
		}
	})
}

// pattern writes the rows and columns of node b's columns.
func (as *assembly) pattern(b int) {
	for cb := 0; cb < 3; cb++ {
		col := as.eq[3*b+cb]
		if col < 0 || !as.kept(col) {
			continue
		}
		p := as.colPtr[col] - as.colPtr[as.lo]
		for _, a := range as.adj[as.adjPtr[b]:as.adjPtr[b+1]] {
			for ca := int32(0); ca < 3; ca++ {
				if r := as.eq[3*a+ca]; r >= 0 {
					as.I[p], as.J[p] = r, col
					p++
				}
			}
		}
	}
}

// values adds the element matrices of node b's elements into its columns.
func (as *assembly) values(b int) {
	nb := as.nbr[as.adjPtr[b]:as.adjPtr[b+1]]
	ob := as.offs[as.adjPtr[b]:as.adjPtr[b+1]]
	for _, e := range as.neIdx[as.nePtr[b]:as.nePtr[b+1]] {
		nodes := as.mesh.Elems[8*e : 8*e+8]
		jb := 0
		for nodes[jb] != int32(b) {
			jb++
		}
		ke := &as.kes[as.kind[e]]
		for ia, a := range nodes {
			t, _ := slices.BinarySearch(nb, as.newOf[a])
			rowBase := int64(ob[t]) - int64(as.firstEq[a])
			for cb := 0; cb < 3; cb++ {
				col := as.eq[3*b+cb]
				if col < 0 || !as.kept(col) {
					continue
				}
				base := as.colPtr[col] - as.colPtr[as.lo] + rowBase
				for ca := 0; ca < 3; ca++ {
					if r := as.eq[3*int(a)+ca]; r >= 0 {
						as.V[base+int64(r)] += ke[(3*ia+ca)*24+3*jb+cb]
					}
				}
			}
		}
	}
}

// loads returns the load vector in equation order.
func (as *assembly) loads() []float64 {
	f := make([]float64, as.n)
	for d, e := range as.eq {
		if e >= 0 {
			f[e] = as.mesh.Loads[d]
		}
	}
	return f
}

// nodeGraph returns the node adjacency in CSR form: for each node, the
// sorted set of nodes that share an element with it, itself included.
func nodeGraph(elems, nePtr, neIdx []int32, nn, workers int) (ptr, adj []int32) {
	type part struct {
		deg  []int32
		list []int32
	}
	chunks := chunkBounds(nn, workers)
	parts := make([]part, len(chunks)-1)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			lo, hi := chunks[w], chunks[w+1]
			p := part{deg: make([]int32, hi-lo), list: make([]int32, 0, 27*(hi-lo))}
			var buf []int32
			for v := lo; v < hi; v++ {
				buf = buf[:0]
				for _, e := range neIdx[nePtr[v]:nePtr[v+1]] {
					buf = append(buf, elems[8*e:8*e+8]...)
				}
				slices.Sort(buf)
				buf = slices.Compact(buf)
				p.deg[v-lo] = int32(len(buf))
				p.list = append(p.list, buf...)
			}
			parts[w] = p
		}(w)
	}
	wg.Wait()
	ptr = make([]int32, nn+1)
	total := 0
	for _, p := range parts {
		total += len(p.list)
	}
	adj = make([]int32, 0, total)
	v := 0
	for _, p := range parts {
		for _, d := range p.deg {
			ptr[v+1] = ptr[v] + d
			v++
		}
		adj = append(adj, p.list...)
	}
	return ptr, adj
}

// chunkBounds splits [0, n) into at most workers contiguous ranges.
func chunkBounds(n, workers int) []int {
	if workers < 1 {
		workers = 1
	}
	if workers > n {
		workers = max(n, 1)
	}
	b := make([]int, workers+1)
	for w := 0; w <= workers; w++ {
		b[w] = n * w / workers
	}
	return b
}

// parallelRange runs body over contiguous ranges of [0, n) on up to workers
// goroutines and waits for them.
func parallelRange(n, workers int, body func(lo, hi int)) {
	b := chunkBounds(n, workers)
	var wg sync.WaitGroup
	for w := 0; w+1 < len(b); w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(b[w], b[w+1])
	}
	wg.Wait()
}

// elemShape is a distinct element geometry: coordinates relative to the
// element's first node, and an element that has it (for error messages).
type elemShape struct {
	xyz  [24]float64
	elem int
}

// shapeTolerance is the length, in metres, below which two element
// geometries count as the same shape when caching element matrices. It is
// far below any mesh size used here but above the rounding noise that
// translating coordinates introduces.
const shapeTolerance = 1e-9

// elementShapes groups the elements by geometry up to translation: kind[e]
// indexes shapes. Structured meshes of the two models repeat few shapes.
func elementShapes(mesh *Mesh) (kind []int32, shapes []elemShape) {
	ne := mesh.NumElems()
	kind = make([]int32, ne)
	seen := make(map[[24]int64]int32)
	var key [24]int64
	var rel [24]float64
	for e := 0; e < ne; e++ {
		nodes := mesh.Elems[8*e : 8*e+8]
		o := 3 * int(nodes[0])
		for a, v := range nodes {
			for c := 0; c < 3; c++ {
				d := mesh.Coords[3*int(v)+c] - mesh.Coords[o+c]
				rel[3*a+c] = d
				key[3*a+c] = int64(math.Round(d / shapeTolerance))
			}
		}
		k, ok := seen[key]
		if !ok {
			k = int32(len(shapes))
			seen[key] = k
			shapes = append(shapes, elemShape{xyz: rel, elem: e})
		}
		kind[e] = k
	}
	return kind, shapes
}
