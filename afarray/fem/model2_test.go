package fem

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestModel2DOFs checks the closed-form order against built meshes, and
// that the mesh is conforming: the free DOF count from the built mesh
// equals the formula only if interfaces merged.
func TestModel2DOFs(t *testing.T) {
	for _, g := range [][3]int{{1, 1, 1}, {2, 3, 2}, {4, 6, 3}, {6, 10, 4}} {
		m, err := Model2Mesh(g[0], g[1], g[2])
		if err != nil {
			t.Fatal(err)
		}
		free := 0
		for _, f := range m.Fixed {
			if !f {
				free++
			}
		}
		want, err := Model2DOFs(g[0], g[1], g[2])
		if err != nil {
			t.Fatal(err)
		}
		if free != want {
			t.Errorf("mesh %v: %d free DOFs, formula %d", g, free, want)
		}
		var load float64
		for _, f := range m.Loads {
			load += f
		}
		if want := -Model2Load * Model2CapLength; math.Abs(load-want) > 1e-9*math.Abs(want) {
			t.Errorf("mesh %v: total load %g, want %g", g, load, want)
		}
	}
}

// TestModel2SPD assembles small pier meshes in both numberings, checks the
// COO invariants and positive definiteness (gonum dense Cholesky), and
// solves one: the structure and load are symmetric about x = 0 and y = 0,
// so the vertical displacement must be too, and the cap must sag at
// midspan relative to the column tops.
func TestModel2SPD(t *testing.T) {
	for _, tc := range []struct {
		a, b, c int
		num     Numbering
	}{{1, 2, 1, Natural}, {2, 3, 2, RCM}} {
		sys, err := Model2(Model2Options{A: tc.a, B: tc.b, C: tc.c, Numbering: tc.num})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Model2DOFs(tc.a, tc.b, tc.c)
		if sys.NumDOF != want {
			t.Fatalf("%s: n = %d, want %d", sys.Grid, sys.NumDOF, want)
		}
		checkCOO(t, sys.K)
		var ch mat.Cholesky
		if !ch.Factorize(dense(sys.K)) {
			t.Fatalf("%s %v: K is not positive definite", sys.Grid, tc.num)
		}
		var u mat.VecDense
		if err := ch.SolveVecTo(&u, mat.NewVecDense(len(sys.F), sys.F)); err != nil {
			t.Fatal(err)
		}
		uv := u.RawVector().Data
		m := sys.Mesh
		index := make(map[[3]int64]int)
		key := func(x, y, z float64) [3]int64 {
			return [3]int64{int64(math.Round(x * 1e6)), int64(math.Round(y * 1e6)), int64(math.Round(z * 1e6))}
		}
		for v := 0; v < m.NumNodes(); v++ {
			index[key(m.Coords[3*v], m.Coords[3*v+1], m.Coords[3*v+2])] = v
		}
		maxUz := 0.0
		for v := 0; v < m.NumNodes(); v++ {
			maxUz = math.Max(maxUz, math.Abs(sys.Displacement(uv, v, 2)))
		}
		for v := 0; v < m.NumNodes(); v++ {
			x, y, z := m.Coords[3*v], m.Coords[3*v+1], m.Coords[3*v+2]
			for _, mirror := range [][2]float64{{-x, y}, {x, -y}} {
				w, ok := index[key(mirror[0], mirror[1], z)]
				if !ok {
					t.Fatalf("%s: node %d (%g,%g,%g) has no mirror image", sys.Grid, v, x, y, z)
				}
				if d := math.Abs(sys.Displacement(uv, v, 2) - sys.Displacement(uv, w, 2)); d > 1e-8*maxUz {
					t.Errorf("%s: u_z at node %d and its mirror differ by %g", sys.Grid, v, d)
				}
			}
		}
		// Top-face nodes nearest to midspan and to a column axis.
		nearest := func(x0 float64) int {
			best, bd := -1, math.Inf(1)
			for v := 0; v < m.NumNodes(); v++ {
				if math.Abs(m.Coords[3*v+2]-(Model2ColumnHeight+Model2CapDepthColumn)) < 1e-9 {
					if d := math.Abs(m.Coords[3*v] - x0); d < bd {
						best, bd = v, d
					}
				}
			}
			return best
		}
		mid, col := nearest(0), nearest(Model2ColumnSpacing/2)
		if !(sys.Displacement(uv, mid, 2) < sys.Displacement(uv, col, 2) && sys.Displacement(uv, col, 2) < 0) {
			t.Errorf("%s: u_z midspan %g, over column %g; want sag below a compressed column", sys.Grid,
				sys.Displacement(uv, mid, 2), sys.Displacement(uv, col, 2))
		}
	}
}

func TestModel2ForOrder(t *testing.T) {
	for _, n := range []int{1572, 10449, 51156, 142422} {
		a, b, c, exact, err := Model2ForOrder(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Model2DOFs(a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		if exact != (got == n) || math.Abs(float64(got-n)) > 0.02*float64(n) {
			t.Errorf("order %d: mesh %dx%dx%d gives %d, exact=%v", n, a, b, c, got, exact)
		}
	}
	if _, _, _, _, err := Model2ForOrder(-5); !errors.Is(err, ErrOrder) {
		t.Errorf("order -5: %v", err)
	}
	if _, err := Model2(Model2Options{A: 0, B: 1, C: 1}); !errors.Is(err, ErrMesh) {
		t.Errorf("A = 0: %v", err)
	}
}
