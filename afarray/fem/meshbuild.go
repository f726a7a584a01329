package fem

import "math"

// This file holds the pieces Model 2's mesh is made of: plan sections of
// quadrilaterals, and a builder that extrudes them into hexahedra and merges
// coincident nodes, which is what makes separately generated blocks (footing,
// column, cap) share their interface nodes and so conform.

// quad2 is a plan quadrilateral: four (x, y) corners in cyclic order.
type quad2 [4][2]float64

// quad3 is a face of four mesh nodes in cyclic order.
type quad3 [4]int32

// section is a plan mesh of quadrilaterals.
type section []quad2

func (s section) clone() section { return append(section(nil), s...) }

// shift returns s translated by (dx, dy).
func (s section) shift(dx, dy float64) section {
	t := make(section, len(s))
	for i, q := range s {
		for a := 0; a < 4; a++ {
			t[i][a] = [2]float64{q[a][0] + dx, q[a][1] + dy}
		}
	}
	return t
}

// rectangle returns an nx×ny grid over [x0, x1]×[y0, y1].
func rectangle(x0, x1, y0, y1 float64, nx, ny int) section {
	s := make(section, 0, nx*ny)
	pt := func(i, j int) [2]float64 {
		return [2]float64{x0 + (x1-x0)*float64(i)/float64(nx), y0 + (y1-y0)*float64(j)/float64(ny)}
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			s = append(s, quad2{pt(i, j), pt(i+1, j), pt(i+1, j+1), pt(i, j+1)})
		}
	}
	return s
}

// squarePoint returns the point at parameter t ∈ [0, 1] along side s
// (0 east, 1 north, 2 west, 3 south, counter-clockwise) of the square of
// half-width h centred at the origin.
func squarePoint(s int, t, h float64) [2]float64 {
	switch s {
	case 0:
		return [2]float64{h, -h + 2*h*t}
	case 1:
		return [2]float64{h - 2*h*t, h}
	case 2:
		return [2]float64{-h, h - 2*h*t}
	}
	return [2]float64{-h + 2*h*t, -h}
}

// circlePoint returns the point of the circle of radius r that corresponds
// to squarePoint(s, t, ·): the quarter arc centred on side s.
func circlePoint(s int, t, r float64) [2]float64 {
	th := -math.Pi/4 + (float64(s)+t)*math.Pi/2
	return [2]float64{r * math.Cos(th), r * math.Sin(th)}
}

func lerp2(p, q [2]float64, f float64) [2]float64 {
	return [2]float64{p[0] + (q[0]-p[0])*f, p[1] + (q[1]-p[1])*f}
}

// oGrid returns an O-grid mesh of the disk of radius r: an m×m grid on the
// inner square of half-width r/2, and rings layers of quadrilaterals
// between each side of that square and the quarter arc facing it, m along
// the arc. Unlike a square grid mapped onto the disk it has no flattened
// elements at the square's corners.
func oGrid(r float64, m, rings int) section {
	a := r / 2
	s := rectangle(-a, a, -a, a, m, m)
	square := func(side int, t float64) [2]float64 { return squarePoint(side, t, a) }
	circle := func(side int, t float64) [2]float64 { return circlePoint(side, t, r) }
	return append(s, quadLayers(m, rings, square, circle)...)
}

// ringToSquare returns the layers of quadrilaterals between the circle of
// radius r and the square of half-width h around it, m along each quarter,
// matching the outer edge of oGrid(r, m, ·).
func ringToSquare(r, h float64, m, layers int) section {
	circle := func(side int, t float64) [2]float64 { return circlePoint(side, t, r) }
	square := func(side int, t float64) [2]float64 { return squarePoint(side, t, h) }
	return quadLayers(m, layers, circle, square)
}

// quadLayers returns the quadrilaterals between two closed curves, each
// given side by side (side 0..3, t in [0, 1] along it): m along each side,
// layers from inner to outer, their corners interpolated linearly between
// the points of equal side and t.
func quadLayers(m, layers int, inner, outer func(side int, t float64) [2]float64) section {
	var s section
	for side := 0; side < 4; side++ {
		for j := 0; j < m; j++ {
			t0, t1 := float64(j)/float64(m), float64(j+1)/float64(m)
			in0, in1 := inner(side, t0), inner(side, t1)
			out0, out1 := outer(side, t0), outer(side, t1)
			for k := 0; k < layers; k++ {
				f0, f1 := float64(k)/float64(layers), float64(k+1)/float64(layers)
				s = append(s, quad2{lerp2(in0, out0, f0), lerp2(in1, out1, f0), lerp2(in1, out1, f1), lerp2(in0, out0, f1)})
			}
		}
	}
	return s
}

// mergeTolerance is the grid, in metres, on which node coordinates are
// rounded to find coincident nodes.
const mergeTolerance = 1e-6

// meshBuilder accumulates hexahedra, merging nodes at equal coordinates.
type meshBuilder struct {
	coords []float64
	elems  []int32
	index  map[[3]int64]int32
}

func newMeshBuilder() *meshBuilder { return &meshBuilder{index: make(map[[3]int64]int32)} }

// node returns the index of the node at (x, y, z), creating it if new.
func (g *meshBuilder) node(x, y, z float64) int32 {
	k := [3]int64{int64(math.Round(x / mergeTolerance)), int64(math.Round(y / mergeTolerance)), int64(math.Round(z / mergeTolerance))}
	if v, ok := g.index[k]; ok {
		return v
	}
	v := int32(len(g.coords) / 3)
	g.coords = append(g.coords, x, y, z)
	g.index[k] = v
	return v
}

// extrude adds layers of hexahedra over the plan section s: layer k spans
// from level k to level k+1, where level(k) gives z as a function of the
// plan position. It returns the top faces of the last layer. Nodes are
// created level by level, so the natural numbering sweeps each block
// bottom to top.
func (g *meshBuilder) extrude(s section, layers int, level func(k int) func(x, y float64) float64) []quad3 {
	// Orient every quadrilateral counter-clockwise seen from +z, as the
	// hexahedron's local numbering requires.
	s = s.clone()
	for i, q := range s {
		area := 0.0
		for a := 0; a < 4; a++ {
			b := (a + 1) % 4
			area += q[a][0]*q[b][1] - q[b][0]*q[a][1]
		}
		if area < 0 {
			s[i] = quad2{q[0], q[3], q[2], q[1]}
		}
	}
	faces := make([]quad3, len(s))
	zf := level(0)
	for i, q := range s {
		for a := 0; a < 4; a++ {
			faces[i][a] = g.node(q[a][0], q[a][1], zf(q[a][0], q[a][1]))
		}
	}
	for k := 1; k <= layers; k++ {
		zf = level(k)
		for i, q := range s {
			var up quad3
			for a := 0; a < 4; a++ {
				up[a] = g.node(q[a][0], q[a][1], zf(q[a][0], q[a][1]))
			}
			lo := faces[i]
			g.elems = append(g.elems, lo[0], lo[1], lo[2], lo[3], up[0], up[1], up[2], up[3])
			faces[i] = up
		}
	}
	return faces
}

// mesh returns the accumulated mesh with no fixed DOFs and no loads.
func (g *meshBuilder) mesh() *Mesh {
	nn := len(g.coords) / 3
	return &Mesh{Coords: g.coords, Elems: g.elems, Fixed: make([]bool, 3*nn), Loads: make([]float64, 3*nn)}
}
