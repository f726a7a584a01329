package fem

import (
	"errors"
	"testing"
)

// AssembleRows keeps exactly the rows it is given, with Assemble's entries
// bit for bit, sorted by row then column; split into pieces that cover the
// order, the pieces hold every entry once.
func TestAssembleRows(t *testing.T) {
	for _, c := range []struct {
		name string
		mesh func() (*Mesh, error)
		num  Numbering
	}{
		{"model1 2x2x3 natural", func() (*Mesh, error) { return Model1Mesh(2, 2, 3) }, Natural},
		{"model2 1x1x1 rcm", func() (*Mesh, error) { return Model2Mesh(1, 1, 1) }, RCM},
	} {
		mesh, err := c.mesh()
		if err != nil {
			t.Fatal(err)
		}
		mat := Material{E: 2.5e10, Nu: 0.2}
		whole, err := Assemble(mesh, mat, c.num)
		if err != nil {
			t.Fatal(err)
		}
		n := whole.NumDOF
		want := map[[2]int32]float64{}
		for k, v := range whole.K.V {
			want[[2]int32{whole.K.I[k], whole.K.J[k]}] = v
		}
		if whole.RowLo != 0 || whole.RowHi != n || whole.NNZ != int64(whole.K.NNZ()) {
			t.Errorf("%s: whole assembly: rows [%d, %d), NNZ %d, want [0, %d), %d", c.name, whole.RowLo, whole.RowHi, whole.NNZ, n, whole.K.NNZ())
		}
		// Three pieces, the middle one starting inside a node's DOFs.
		cuts := []int{0, n/3 + 1, 2 * n / 3, n}
		seen := 0
		for p := 0; p+1 < len(cuts); p++ {
			lo, hi := cuts[p], cuts[p+1]
			var gotN int
			var gotEq []int32
			part, err := AssembleRows(mesh, mat, c.num, func(n int, coords []float64, eq []int32) (int, int, error) {
				gotN, gotEq = n, eq
				if len(coords) != 3*mesh.NumNodes() {
					t.Errorf("%s: RowRange got %d coordinates for %d nodes", c.name, len(coords), mesh.NumNodes())
				}
				return lo, hi, nil
			})
			if err != nil {
				t.Fatalf("%s [%d, %d): %v", c.name, lo, hi, err)
			}
			if gotN != n || len(gotEq) != len(whole.Equation) || part.RowLo != lo || part.RowHi != hi || part.NNZ != whole.NNZ {
				t.Errorf("%s [%d, %d): RowRange saw n %d, System rows [%d, %d), NNZ %d", c.name, lo, hi, gotN, part.RowLo, part.RowHi, part.NNZ)
			}
			k := part.K
			if k.Rows != n || k.Cols != n || k.Symmetric {
				t.Errorf("%s [%d, %d): K is %dx%d, Symmetric %v", c.name, lo, hi, k.Rows, k.Cols, k.Symmetric)
			}
			for e, v := range k.V {
				i, j := k.I[e], k.J[e]
				if int(i) < lo || int(i) >= hi {
					t.Fatalf("%s [%d, %d): entry (%d, %d) outside the rows", c.name, lo, hi, i, j)
				}
				if e > 0 && (k.I[e-1] > i || k.I[e-1] == i && k.J[e-1] >= j) {
					t.Fatalf("%s [%d, %d): entry %d (%d, %d) out of row-then-column order", c.name, lo, hi, e, i, j)
				}
				if w, ok := want[[2]int32{i, j}]; !ok || w != v {
					t.Fatalf("%s [%d, %d): K(%d, %d) = %v, Assemble's %v (present %v)", c.name, lo, hi, i, j, v, w, ok)
				}
			}
			seen += len(k.V)
			for i := range part.F {
				if part.F[i] != whole.F[i] {
					t.Fatalf("%s [%d, %d): F differs at %d", c.name, lo, hi, i)
				}
			}
		}
		if seen != len(want) {
			t.Errorf("%s: the pieces hold %d entries, the whole K %d", c.name, seen, len(want))
		}
		// An empty range, and a bad one.
		if s, err := AssembleRows(mesh, mat, c.num, func(int, []float64, []int32) (int, int, error) { return 5, 5, nil }); err != nil || s.K.NNZ() != 0 {
			t.Errorf("%s: empty range: %v", c.name, err)
		}
		if _, err := AssembleRows(mesh, mat, c.num, func(n int, _ []float64, _ []int32) (int, int, error) { return 0, n + 1, nil }); !errors.Is(err, ErrMesh) {
			t.Errorf("%s: rows past the order: %v, want ErrMesh", c.name, err)
		}
		boom := errors.New("boom")
		if _, err := AssembleRows(mesh, mat, c.num, func(int, []float64, []int32) (int, int, error) { return 0, 0, boom }); !errors.Is(err, boom) {
			t.Errorf("%s: RowRange's error: %v", c.name, err)
		}
	}
}
