package fem

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// checkCOO verifies the invariants Assemble promises: sorted by column then
// row, no duplicates, indices in range, finite values, and exact symmetry.
func checkCOO(t *testing.T, k *sparse.COO) {
	t.Helper()
	if k.Symmetric || k.Rows != k.Cols {
		t.Fatalf("K is %dx%d, Symmetric=%v; want square full storage", k.Rows, k.Cols, k.Symmetric)
	}
	val := make(map[[2]int32]float64, len(k.V))
	scale := 0.0
	for p := range k.V {
		scale = max(scale, math.Abs(k.V[p]))
	}
	for p := range k.V {
		i, j := k.I[p], k.J[p]
		if i < 0 || j < 0 || int(i) >= k.Rows || int(j) >= k.Cols {
			t.Fatalf("entry %d: index (%d,%d) out of range", p, i, j)
		}
		if math.IsNaN(k.V[p]) || math.IsInf(k.V[p], 0) {
			t.Fatalf("entry %d: non-finite value", p)
		}
		if p > 0 && !(k.J[p-1] < j || (k.J[p-1] == j && k.I[p-1] < i)) {
			t.Fatalf("entry %d (%d,%d) not after (%d,%d) in column-major order", p, i, j, k.I[p-1], k.J[p-1])
		}
		val[[2]int32{i, j}] = k.V[p]
	}
	for key, v := range val {
		w, ok := val[[2]int32{key[1], key[0]}]
		if !ok || math.Abs(v-w) > 1e-14*scale {
			t.Fatalf("K(%d,%d) = %g but K(%d,%d) = %g", key[0], key[1], v, key[1], key[0], w)
		}
	}
}

// dense converts a full COO to a gonum symmetric matrix.
func dense(k *sparse.COO) *mat.SymDense {
	a := mat.NewSymDense(k.Rows, nil)
	for p, v := range k.V {
		if k.I[p] <= k.J[p] {
			a.SetSym(int(k.I[p]), int(k.J[p]), v)
		}
	}
	return a
}

// TestPatch is the constant-strain patch test on a 3×3×3 patch of distorted
// hexahedra: with the boundary nodes given a linear displacement field, the
// interior nodes must take the same field exactly, and the full stiffness
// applied to the field must give no force at interior nodes.
func TestPatch(t *testing.T) {
	mesh, err := Model1Mesh(3, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	nn := mesh.NumNodes()
	interior := make([]bool, nn)
	for v := 0; v < nn; v++ {
		x, y, z := mesh.Coords[3*v], mesh.Coords[3*v+1], mesh.Coords[3*v+2]
		in := x > 1e-9 && x < Model1Length-1e-9 && y > 1e-9 && y < Model1Width-1e-9 && z > 1e-9 && z < Model1Depth-1e-9
		interior[v] = in
		if in {
			mesh.Coords[3*v] += 0.25 * (2*rng.Float64() - 1)
			mesh.Coords[3*v+1] += 0.025 * (2*rng.Float64() - 1)
			mesh.Coords[3*v+2] += 0.04 * (2*rng.Float64() - 1)
		}
	}
	for i := range mesh.Fixed {
		mesh.Fixed[i] = false
		mesh.Loads[i] = 0
	}
	field := func(x, y, z float64) [3]float64 {
		return [3]float64{1e-3 + 2e-3*x - 1e-3*y + 3e-3*z, -2e-3 + 0.5e-3*x + 4e-3*y - 1e-3*z, 0.7e-3 - 1e-3*x + 2e-3*y + 1.5e-3*z}
	}
	u := make([]float64, 3*nn)
	for v := 0; v < nn; v++ {
		d := field(mesh.Coords[3*v], mesh.Coords[3*v+1], mesh.Coords[3*v+2])
		copy(u[3*v:], d[:])
	}
	m := Material{E: 2e10, Nu: 0.2}
	full, err := Assemble(mesh, m, Natural)
	if err != nil {
		t.Fatal(err)
	}
	checkCOO(t, full.K)
	// Interior equilibrium of the exact field.
	ue := make([]float64, full.NumDOF)
	for d, e := range full.Equation {
		ue[e] = u[d]
	}
	f := mulVec(full.K, ue)
	for v := 0; v < nn; v++ {
		if !interior[v] {
			continue
		}
		for c := 0; c < 3; c++ {
			if r := math.Abs(f[full.Equation[3*v+c]]); r > 1e-6*m.E*1e-3 {
				t.Errorf("node %d comp %d: residual force %g", v, c, r)
			}
		}
	}
	// Solve for the interior with the boundary prescribed.
	for v := 0; v < nn; v++ {
		if !interior[v] {
			mesh.Fixed[3*v], mesh.Fixed[3*v+1], mesh.Fixed[3*v+2] = true, true, true
		}
	}
	inner, err := Assemble(mesh, m, RCM)
	if err != nil {
		t.Fatal(err)
	}
	rhs := make([]float64, inner.NumDOF)
	for p, v := range full.K.V {
		i, j := full.K.I[p], full.K.J[p]
		// Row i interior, column j boundary: move K_IB u_B to the right.
		di, dj := dofOf(full.Equation, i), dofOf(full.Equation, j)
		if ei := inner.Equation[di]; ei >= 0 && inner.Equation[dj] < 0 {
			rhs[ei] -= v * u[dj]
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(dense(inner.K)) {
		t.Fatal("interior stiffness not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(len(rhs), rhs)); err != nil {
		t.Fatal(err)
	}
	for d, e := range inner.Equation {
		if e >= 0 {
			if diff := math.Abs(x.AtVec(int(e)) - u[d]); diff > 1e-12 {
				t.Errorf("DOF %d: patch solution %g, exact %g", d, x.AtVec(int(e)), u[d])
			}
		}
	}
}

// dofOf inverts an equation map (test use only; linear search).
func dofOf(eq []int32, e int32) int {
	for d, v := range eq {
		if v == e {
			return d
		}
	}
	return -1
}

// TestModel1Timoshenko compares the mean tip deflection with Timoshenko
// beam theory, δ = wL⁴/(8EI) + wL²/(2kGA) with k = 5/6, on three meshes:
// the error must fall as the mesh refines and end within a few percent.
func TestModel1Timoshenko(t *testing.T) {
	mat, _ := Concrete(Model1Fc, 0)
	_, g := mat.Lame()
	I := Model1Width * math.Pow(Model1Depth, 3) / 12
	A := Model1Width * Model1Depth
	w, L := Model1Load, Model1Length
	want := w*math.Pow(L, 4)/(8*mat.E*I) + w*L*L/(2*5.0/6*g*A)
	prev := math.Inf(1)
	grids := [][3]int{{12, 2, 4}, {24, 4, 8}, {36, 6, 12}}
	if testing.Short() {
		grids = grids[:2]
	}
	for _, gr := range grids {
		sys, err := Model1(Model1Options{NX: gr[0], NY: gr[1], NZ: gr[2], Numbering: RCM})
		if err != nil {
			t.Fatal(err)
		}
		u, err := bandSolve(sys.K, sys.F)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		var cnt int
		for v := 0; v < sys.Mesh.NumNodes(); v++ {
			if math.Abs(sys.Mesh.Coords[3*v]-L) < 1e-9 {
				sum += sys.Displacement(u, v, 2)
				cnt++
			}
		}
		tip := -sum / float64(cnt)
		rel := math.Abs(tip-want) / want
		t.Logf("grid %s n=%d: tip %.4f mm, Timoshenko %.4f mm, error %.2f%%", sys.Grid, sys.NumDOF, tip*1e3, want*1e3, 100*rel)
		if rel >= prev {
			t.Errorf("grid %s: error %.3g did not fall (previous %.3g)", sys.Grid, rel, prev)
		}
		prev = rel
	}
	if prev > 0.05 {
		t.Errorf("finest mesh error %.2f%%, want below 5%%", 100*prev)
	}
}

// TestModel1SPD checks symmetry and positive definiteness with gonum's
// dense Cholesky, and the load total, on a small mesh in both numberings.
func TestModel1SPD(t *testing.T) {
	for _, num := range []Numbering{Natural, RCM} {
		sys, err := Model1(Model1Options{NX: 8, NY: 2, NZ: 3, Numbering: num})
		if err != nil {
			t.Fatal(err)
		}
		if sys.NumDOF != Model1DOFs(8, 2, 3) {
			t.Fatalf("n = %d, want %d", sys.NumDOF, Model1DOFs(8, 2, 3))
		}
		checkCOO(t, sys.K)
		var ch mat.Cholesky
		if !ch.Factorize(dense(sys.K)) {
			t.Errorf("%v: K is not positive definite", num)
		}
		var total float64
		for _, f := range sys.F {
			total += f
		}
		// The load on the clamped edge's nodes goes to the support, so the
		// free DOFs carry the span minus half an element's share.
		want := -Model1Load * (Model1Length - Model1Length/8/2)
		if math.Abs(total-want) > 1e-9*math.Abs(want) {
			t.Errorf("%v: total load %g N, want %g", num, total, want)
		}
	}
}

// TestModel1Orders checks that every thesis order has an exact grid and
// that assembly produces exactly that many equations.
func TestModel1Orders(t *testing.T) {
	for _, n := range Model1Orders {
		nx, ny, nz, exact, err := Model1ForOrder(n)
		if err != nil || !exact || Model1DOFs(nx, ny, nz) != n {
			t.Fatalf("order %d: grid %dx%dx%d exact=%v err=%v", n, nx, ny, nz, exact, err)
		}
	}
	sys, err := Model1(Model1Options{NX: 31, NY: 8, NZ: 11})
	if err != nil {
		t.Fatal(err)
	}
	if sys.NumDOF != 10044 || sys.K.Rows != 10044 || len(sys.F) != 10044 {
		t.Errorf("grid 31x8x11: n = %d", sys.NumDOF)
	}
	// A non-thesis order found by search, and one that has no exact grid.
	for _, n := range []int{3 * 20 * 4 * 6, 1000003} {
		nx, ny, nz, exact, err := Model1ForOrder(n)
		if err != nil {
			t.Fatal(err)
		}
		got := Model1DOFs(nx, ny, nz)
		if exact != (got == n) {
			t.Errorf("order %d: grid %dx%dx%d gives %d but exact=%v", n, nx, ny, nz, got, exact)
		}
		if math.Abs(float64(got-n)) > 0.01*float64(n) {
			t.Errorf("order %d: nearest grid %dx%dx%d gives %d", n, nx, ny, nz, got)
		}
	}
	if _, _, _, _, err := Model1ForOrder(0); !errors.Is(err, ErrOrder) {
		t.Errorf("order 0: %v", err)
	}
	if _, err := Model1(Model1Options{NX: 0, NY: 1, NZ: 1}); !errors.Is(err, ErrMesh) {
		t.Errorf("empty grid: %v", err)
	}
	for _, s := range []string{"3x2", "ax2x3", "0x1x1", "1x2x3x4", ""} {
		if _, _, _, err := ParseGrid(s); !errors.Is(err, ErrMesh) {
			t.Errorf("ParseGrid(%q): %v", s, err)
		}
	}
	if a, b, c, err := ParseGrid("30x2x3"); err != nil || a != 30 || b != 2 || c != 3 {
		t.Errorf("ParseGrid(30x2x3) = %d %d %d %v", a, b, c, err)
	}
}
