package petsc

import (
	"errors"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestOwnership: the ranges tile [0, n), differ by at most one block, and
// start on block boundaries.
func TestOwnership(t *testing.T) {
	for _, c := range []struct{ n, bs, size int }{{10, 1, 3}, {9, 3, 2}, {3000, 3, 7}, {2, 1, 4}, {0, 1, 2}} {
		next, sizes := 0, map[int]bool{}
		for r := 0; r < c.size; r++ {
			lo, hi := ownership(c.n, c.bs, r, c.size)
			if lo != next || lo%c.bs != 0 || hi < lo {
				t.Errorf("%+v rank %d: [%d, %d) after %d", c, r, lo, hi, next)
			}
			sizes[(hi-lo)/c.bs] = true
			next = hi
		}
		if next != c.n || len(sizes) > 2 {
			t.Errorf("%+v: ranges end at %d, sizes %v", c, next, sizes)
		}
	}
}

// TestDOFs checks the node data of a generated model: every equation has
// its component and node, and Model 1's equations come in whole nodes.
func TestDOFs(t *testing.T) {
	sys, err := fem.Model1(fem.Model1Options{NX: 4, NY: 1, NZ: 2})
	if err != nil {
		t.Fatal(err)
	}
	d, blocked, err := dofsOf(sys.NumDOF, sys.Mesh.Coords, sys.Equation)
	if err != nil || !blocked {
		t.Fatalf("dofsOf: blocked %v, %v", blocked, err)
	}
	for node := 0; node < sys.Mesh.NumNodes(); node++ {
		for c := 0; c < 3; c++ {
			e := sys.Equation[3*node+c]
			if e < 0 {
				continue
			}
			if d.comp[e] != int32(c) || d.xyz[3*e+1] != sys.Mesh.Coords[3*node+1] {
				t.Fatalf("equation %d: component %d, y %g; want %d, %g", e, d.comp[e], d.xyz[3*e+1], c, sys.Mesh.Coords[3*node+1])
			}
		}
	}
	// A node with one DOF fixed breaks the blocks but not the modes.
	eq := append([]int32(nil), sys.Equation...)
	k := 0
	for ; eq[k] < 0; k++ {
	}
	eq[k] = -1
	for j := range eq {
		if eq[j] > 0 {
			eq[j]--
		}
	}
	if _, blocked, err := dofsOf(sys.NumDOF-1, sys.Mesh.Coords, eq); err != nil || blocked {
		t.Errorf("one fixed DOF: blocked %v, %v", blocked, err)
	}
	if _, _, err := dofsOf(sys.NumDOF, sys.Mesh.Coords[:3], sys.Equation); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("short coordinates: %v", err)
	}
	if _, _, err := dofsOf(sys.NumDOF+1, sys.Mesh.Coords, sys.Equation); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("equation without DOF: %v", err)
	}
}

// TestLocalEntries: a symmetric triangle is mirrored into the rows asked for.
func TestLocalEntries(t *testing.T) {
	a := &sparse.COO{Rows: 3, Cols: 3, Symmetric: true,
		I: []int32{0, 1, 2, 2}, J: []int32{0, 0, 1, 2}, V: []float64{4, 1, 2, 5}}
	e, err := localEntries(a, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := map[[2]int32]float64{}
	for k := range e.v {
		got[[2]int32{e.i[k], e.j[k]}] = e.v[k]
	}
	want := map[[2]int32]float64{{1, 0}: 1, {1, 2}: 2}
	if len(got) != len(want) || got[[2]int32{1, 0}] != 1 || got[[2]int32{1, 2}] != 2 {
		t.Errorf("row 1: %v, want %v", got, want)
	}
	a.V[3] = 1 / zero
	if _, err := localEntries(a, 0, 3); !errors.Is(err, solver.ErrNonFinite) {
		t.Errorf("Inf entry: %v", err)
	}
}

var zero float64
