package petsc

import (
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// ownership returns the rows [lo, hi) of rank among size ranks: PETSc's
// default split (PetscSplitOwnership: the first n mod size ranks get one
// more), in units of bs rows so that a node's DOFs stay on one rank.
func ownership(n, bs, rank, size int) (lo, hi int) {
	blocks := n / bs
	q, r := blocks/size, blocks%size
	lo = rank*q + min(rank, r)
	hi = lo + q
	if rank < r {
		hi++
	}
	return lo * bs, hi * bs
}

// nodeDOFs describes each equation's DOF: its component (0, 1, 2) and its
// node's coordinates. It is what the rigid-body modes are built from.
type nodeDOFs struct {
	comp []int32   // per equation
	xyz  []float64 // 3 per equation
}

// dofsOf maps fem-style node data to equations and checks it: every
// equation must be named exactly once, with finite coordinates. It also
// reports whether the equations come in whole nodes (the three DOFs of a
// node numbered consecutively x, y, z), the block structure GAMG and the
// row split can use.
func dofsOf(n int, coords []float64, equation []int32) (*nodeDOFs, bool, error) {
	if len(coords) != len(equation) || len(coords)%3 != 0 {
		return nil, false, fmt.Errorf("%w: %d coordinates for %d DOFs (want 3 per node, one per DOF)", afarray.ErrShape, len(coords), len(equation))
	}
	d := &nodeDOFs{comp: make([]int32, n), xyz: make([]float64, 3*n)}
	for i := range d.comp {
		d.comp[i] = -1
	}
	for k, e := range equation {
		if e < 0 {
			continue
		}
		if int(e) >= n {
			return nil, false, fmt.Errorf("%w: DOF %d maps to equation %d of %d", afarray.ErrShape, k, e, n)
		}
		if d.comp[e] >= 0 {
			return nil, false, fmt.Errorf("%w: equation %d is named by two DOFs", afarray.ErrShape, e)
		}
		node := k / 3
		d.comp[e] = int32(k % 3)
		for c := 0; c < 3; c++ {
			x := coords[3*node+c]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, false, &solver.NonFiniteError{Where: "node coordinates", Index: 3*node + c}
			}
			d.xyz[3*int(e)+c] = x
		}
	}
	blocked := n%3 == 0
	for e := 0; e < n; e++ {
		if d.comp[e] < 0 {
			return nil, false, fmt.Errorf("%w: equation %d belongs to no DOF", afarray.ErrShape, e)
		}
		if blocked && (int(d.comp[e]) != e%3 || d.xyz[3*e] != d.xyz[3*(e-e%3)] || d.xyz[3*e+1] != d.xyz[3*(e-e%3)+1] || d.xyz[3*e+2] != d.xyz[3*(e-e%3)+2]) {
			blocked = false
		}
	}
	return d, blocked, nil
}

// triplets holds the entries one rank hands to PETSc, global indices.
type triplets struct {
	i, j []int32
	v    []float64
}

// localEntries returns the entries of A in rows [lo, hi), both triangles
// (a Symmetric COO is mirrored), checking values as it goes.
func localEntries(a *sparse.COO, lo, hi int) (*triplets, error) {
	count := 0
	for k := range a.V {
		i, j := int(a.I[k]), int(a.J[k])
		if i >= lo && i < hi {
			count++
		}
		if a.Symmetric && i != j && j >= lo && j < hi {
			count++
		}
	}
	t := &triplets{i: make([]int32, 0, count), j: make([]int32, 0, count), v: make([]float64, 0, count)}
	for k, x := range a.V {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, &solver.NonFiniteError{Where: "matrix", Index: k}
		}
		i, j := a.I[k], a.J[k]
		if int(i) >= lo && int(i) < hi {
			t.i, t.j, t.v = append(t.i, i), append(t.j, j), append(t.v, x)
		}
		if a.Symmetric && i != j && int(j) >= lo && int(j) < hi {
			t.i, t.j, t.v = append(t.i, j), append(t.j, i), append(t.v, x)
		}
	}
	return t, nil
}

// checkInput validates A and b of one rank.
func checkInput(a *sparse.COO, b []float64) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if a.Rows != a.Cols {
		return fmt.Errorf("%w: matrix is %dx%d, not square", afarray.ErrShape, a.Rows, a.Cols)
	}
	if len(b) != a.Rows {
		return fmt.Errorf("%w: right-hand side has %d entries, the matrix has order %d", afarray.ErrShape, len(b), a.Rows)
	}
	for i, x := range b {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &solver.NonFiniteError{Where: "right-hand side", Index: i}
		}
	}
	return nil
}
