package fem

import (
	"errors"
	"testing"
)

func TestAssembleErrors(t *testing.T) {
	good := func() *Mesh {
		m, err := Model1Mesh(2, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	mat := Material{E: 1e9, Nu: 0.2}
	cases := map[string]struct {
		mesh *Mesh
		mat  Material
		num  Numbering
		want error
	}{
		"bad numbering": {good(), mat, Numbering(7), ErrMesh},
		"bad material":  {good(), Material{E: -1, Nu: 0.2}, Natural, ErrMaterial},
		"node out of range": {func() *Mesh {
			m := good()
			m.Elems[3] = int32(m.NumNodes())
			return m
		}(), mat, Natural, ErrMesh},
		"repeated node": {func() *Mesh {
			m := good()
			m.Elems[1] = m.Elems[0]
			return m
		}(), mat, Natural, ErrMesh},
		"isolated node": {func() *Mesh {
			m := good()
			m.Coords = append(m.Coords, 9, 9, 9)
			m.Fixed = append(m.Fixed, false, false, false)
			m.Loads = append(m.Loads, 0, 0, 0)
			return m
		}(), mat, Natural, ErrMesh},
		"short fixity": {func() *Mesh {
			m := good()
			m.Fixed = m.Fixed[:len(m.Fixed)-1]
			return m
		}(), mat, Natural, ErrMesh},
		"all fixed": {func() *Mesh {
			m := good()
			for i := range m.Fixed {
				m.Fixed[i] = true
			}
			return m
		}(), mat, Natural, ErrMesh},
		"inverted element": {func() *Mesh {
			m := good()
			e := m.Elems[:8]
			e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7] = e[4], e[5], e[6], e[7], e[0], e[1], e[2], e[3]
			return m
		}(), mat, RCM, ErrDegenerate},
	}
	for name, tc := range cases {
		if _, err := Assemble(tc.mesh, tc.mat, tc.num); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", name, err, tc.want)
		}
	}
}
