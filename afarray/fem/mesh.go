package fem

import (
	"fmt"
	"math"
)

// Mesh is an unstructured mesh of 8-node hexahedra with boundary conditions
// and consistent nodal loads.
type Mesh struct {
	// Coords holds the node coordinates, 3 per node (x, y, z), in metres.
	Coords []float64
	// Elems holds the node indices of each hexahedron, 8 per element, in
	// the local order of Hex8Stiffness.
	Elems []int32
	// Fixed marks the fixed (eliminated) degrees of freedom, 3 per node.
	Fixed []bool
	// Loads holds the nodal forces, 3 per node, in newtons.
	Loads []float64
}

// NumNodes returns the number of nodes.
func (m *Mesh) NumNodes() int { return len(m.Coords) / 3 }

// NumElems returns the number of elements.
func (m *Mesh) NumElems() int { return len(m.Elems) / 8 }

// Validate checks the array lengths, that every element refers to eight
// distinct existing nodes, and that coordinates are finite.
func (m *Mesh) Validate() error {
	nn := m.NumNodes()
	if len(m.Coords) != 3*nn || len(m.Fixed) != 3*nn || len(m.Loads) != 3*nn {
		return fmt.Errorf("%w: %d coordinates, %d fixity flags and %d loads do not describe %d nodes",
			ErrMesh, len(m.Coords), len(m.Fixed), len(m.Loads), nn)
	}
	if len(m.Elems)%8 != 0 {
		return fmt.Errorf("%w: %d element node indices is not a multiple of 8", ErrMesh, len(m.Elems))
	}
	for i, v := range m.Elems {
		if v < 0 || int(v) >= nn {
			return fmt.Errorf("%w: element %d refers to node %d of %d", ErrMesh, i/8, v, nn)
		}
		for _, w := range m.Elems[i-i%8 : i] {
			if w == v {
				return fmt.Errorf("%w: element %d lists node %d twice", ErrMesh, i/8, v)
			}
		}
	}
	for i, v := range m.Coords {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: node %d has a non-finite coordinate", ErrMesh, i/3)
		}
	}
	return nil
}

// addPressure adds the consistent nodal forces of a uniform traction q
// (N/m², acting in the -z direction) on the bilinear quadrilateral face with
// corner nodes quad (in cyclic order), integrated with 2×2 Gauss points:
// f_a = ∫ N_a t dA. The face may be warped or sloped; dA is its true area.
func (m *Mesh) addPressure(quad [4]int32, q float64) {
	xi := [4]float64{-1, 1, 1, -1}
	eta := [4]float64{-1, -1, 1, 1}
	for _, s := range gauss2 {
		for _, t := range gauss2 {
			var dxs, dxt [3]float64
			var n [4]float64
			for a := 0; a < 4; a++ {
				n[a] = (1 + s*xi[a]) * (1 + t*eta[a]) / 4
				ds := xi[a] * (1 + t*eta[a]) / 4
				dt := eta[a] * (1 + s*xi[a]) / 4
				for c := 0; c < 3; c++ {
					x := m.Coords[3*int(quad[a])+c]
					dxs[c] += ds * x
					dxt[c] += dt * x
				}
			}
			cx := dxs[1]*dxt[2] - dxs[2]*dxt[1]
			cy := dxs[2]*dxt[0] - dxs[0]*dxt[2]
			cz := dxs[0]*dxt[1] - dxs[1]*dxt[0]
			dA := math.Sqrt(cx*cx + cy*cy + cz*cz)
			for a := 0; a < 4; a++ {
				m.Loads[3*int(quad[a])+2] -= q * n[a] * dA
			}
		}
	}
}
