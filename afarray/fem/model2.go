package fem

import (
	"fmt"
	"math"
)

// Model 2 (thesis §6.3): a bridge pier of two circular columns on square
// footings carrying a variable-depth cap beam. x runs along the cap beam,
// y across it and z upwards; the column axes are at x = ±5.02, y = 0, the
// footing tops at z = 0.
const (
	Model2ColumnDiameter = 1.0      // m
	Model2ColumnHeight   = 10.0     // m, footing top to cap soffit over the column
	Model2ColumnSpacing  = 10.04    // m, axis to axis
	Model2FootingSide    = 3.0      // m (assumed; the thesis gives no size)
	Model2FootingDepth   = 1.0      // m (assumed)
	Model2CapWidth       = 1.04     // m
	Model2CapLength      = 15.08    // m
	Model2CapDepthEnds   = 1.0      // m, at midspan and at the wing tips
	Model2CapDepthColumn = 1.5      // m, over the columns
	Model2Fc             = 280      // kgf/cm²
	Model2Load           = 490332.5 // N/m along the cap beam (50 tf/m)
)

// Model2Orders are the system orders of the thesis's Tables 12 and 15.
var Model2Orders = []int{1572, 3534, 5409, 8331, 10449, 15129, 21987, 28773, 39051, 51156,
	64836, 72570, 89733, 102630, 117390, 142422}

// Model2Options describes a Model 2 mesh and material.
//
// The mesh description "AxBxC" means:
//
//   - A (≥ 1), the plan resolution: the number of element divisions along
//     each side of the column's inner square, along each quarter of the
//     column's circumference, and across the cap's width. Every other plan
//     division follows from the element size h = 1.04 m / A: the column's
//     O-grid has max(1, round(0.2/h)) rings between the inner square and the
//     circle, the footing max(1, round(1.25/h)) rings from the circle out to
//     its square edge, the cap's wings round(2.0/h) and its middle part
//     round(9.0/h) divisions along x.
//   - B (≥ 1), the number of element layers along each column's height.
//   - C (≥ 1), the number of element layers through the cap's depth; the
//     footing gets max(1, round(C/1.5)) layers.
type Model2Options struct {
	A, B, C int
	// Fc is the concrete strength in kgf/cm²; 0 selects 280.
	Fc float64
	// Nu is Poisson's ratio; 0 selects 0.2.
	Nu float64
	// Numbering is the node numbering; the thesis used RCM for Model 2.
	Numbering Numbering
	// Rows, when set, keeps only the rows of K it chooses (AssembleRows):
	// what a rank of a distributed solve assembles.
	Rows RowRange
}

// Model2 builds and assembles Model 2 on the mesh of opts.
func Model2(opts Model2Options) (*System, error) {
	dofs, err := Model2DOFs(opts.A, opts.B, opts.C)
	if err != nil {
		return nil, err
	}
	if err := checkAssemblyMemory("Model 2", FormatGrid(opts.A, opts.B, opts.C), dofs); err != nil {
		return nil, err
	}
	mesh, err := Model2Mesh(opts.A, opts.B, opts.C)
	if err != nil {
		return nil, err
	}
	return assembleModel("model2", FormatGrid(opts.A, opts.B, opts.C), mesh, opts.Fc, Model2Fc, opts.Nu, opts.Numbering, opts.Rows)
}

// model2Plan holds the derived plan divisions of a Model 2 mesh.
type model2Plan struct {
	m, rings, footRings, wing, mid, layersCol, layersCap, layersFoot int
}

func model2Divisions(a, b, c int) (model2Plan, error) {
	if a < 1 || b < 1 || c < 1 || a > 400 || b > 4000 || c > 400 {
		return model2Plan{}, fmt.Errorf("%w: Model 2 mesh %dx%dx%d out of range", ErrMesh, a, b, c)
	}
	h := Model2CapWidth / float64(a)
	r := func(x float64) int { return max(1, int(math.Round(x))) }
	return model2Plan{
		m:          a,
		rings:      r(0.2 / h),
		footRings:  r(1.25 / h),
		wing:       r(2.0 / h),
		mid:        r(9.0 / h),
		layersCol:  b,
		layersCap:  c,
		layersFoot: r(float64(c) / 1.5),
	}, nil
}

// Model2DOFs returns the order of the Model 2 system on mesh a×b×c without
// building it, or an error for an invalid mesh.
func Model2DOFs(a, b, c int) (int, error) {
	p, err := model2Divisions(a, b, c)
	if err != nil {
		return 0, err
	}
	m := p.m
	disk := (m+1)*(m+1) + 4*m*p.rings // nodes of a column cross-section
	foot := disk + 4*m*p.footRings    // footing cross-section
	capCol := disk + 4*m              // cap section over a column
	// The cap plan: two column blocks and three rectangles, whose four
	// shared edges of m+1 nodes are counted once.
	capPlan := 2*capCol + (2*(p.wing+1)+p.mid+1)*(m+1) - 4*(m+1)
	// Footing levels above the fixed base (the top one holds the column
	// base), column levels strictly between footing and cap, cap levels.
	nodes := 2*foot*p.layersFoot + 2*disk*(p.layersCol-1) + capPlan*(p.layersCap+1)
	return 3 * nodes, nil
}

// Model2Mesh returns the Model 2 mesh a×b×c (see Model2Options): hexahedra
// on footings, O-grid circular columns and the haunched cap beam, merged
// into one conforming mesh by coincident nodes; every DOF on the footing
// bases fixed; and the 490 332.5 N/m line load applied as a uniform
// pressure (load / cap width) on the cap's top face through consistent
// nodal forces.
func Model2Mesh(a, b, c int) (*Mesh, error) {
	p, err := model2Divisions(a, b, c)
	if err != nil {
		return nil, err
	}
	g := newMeshBuilder()
	R := Model2ColumnDiameter / 2
	half := Model2ColumnSpacing / 2
	capTop := Model2ColumnHeight + Model2CapDepthColumn
	hw := Model2CapWidth / 2
	tip := Model2CapLength / 2
	disk := oGrid(R, p.m, p.rings)
	foot := append(disk.clone(), ringToSquare(R, Model2FootingSide/2, p.m, p.footRings)...)
	capCol := append(disk.clone(), ringToSquare(R, hw, p.m, 1)...)

	// soffit returns the cap's bottom z at x: flat over the column block,
	// linear to the shallower depth at midspan and at the tips.
	soffit := func(x float64) float64 {
		ax := math.Abs(x)
		deep := Model2ColumnHeight
		shallow := capTop - Model2CapDepthEnds
		switch {
		case ax >= half-hw && ax <= half+hw:
			return deep
		case ax < half-hw:
			return deep + (shallow-deep)*(half-hw-ax)/(half-hw)
		default:
			return deep + (shallow-deep)*(ax-half-hw)/(tip-half-hw)
		}
	}
	capZ := func(k int) func(x, y float64) float64 {
		return func(x, y float64) float64 {
			s := soffit(x)
			return s + (capTop-s)*float64(k)/float64(p.layersCap)
		}
	}
	flat := func(z float64) func(x, y float64) float64 { return func(x, y float64) float64 { return z } }

	var top []quad3 // cap top faces, for the load
	column := func(xc float64) {
		g.extrude(foot.shift(xc, 0), p.layersFoot, func(k int) func(x, y float64) float64 {
			return flat(-Model2FootingDepth + Model2FootingDepth*float64(k)/float64(p.layersFoot))
		})
		g.extrude(disk.shift(xc, 0), p.layersCol, func(k int) func(x, y float64) float64 {
			return flat(Model2ColumnHeight * float64(k) / float64(p.layersCol))
		})
	}
	capBlock := func(s section) {
		top = append(top, g.extrude(s, p.layersCap, capZ)...)
	}
	column(-half)
	capBlock(rectangle(-tip, -half-hw, -hw, hw, p.wing, p.m))
	capBlock(capCol.shift(-half, 0))
	capBlock(rectangle(-half+hw, half-hw, -hw, hw, p.mid, p.m))
	capBlock(capCol.shift(half, 0))
	capBlock(rectangle(half+hw, tip, -hw, hw, p.wing, p.m))
	column(half)

	m := g.mesh()
	for v := 0; v < m.NumNodes(); v++ {
		if m.Coords[3*v+2] < -Model2FootingDepth+1e-9 {
			m.Fixed[3*v], m.Fixed[3*v+1], m.Fixed[3*v+2] = true, true, true
		}
	}
	q := Model2Load / Model2CapWidth
	for _, f := range top {
		m.addPressure(f, q)
	}
	return m, nil
}

// Model2ForOrder returns the mesh a×b×c whose Model 2 system has order n,
// with exact = true, when one exists with reasonable element shapes;
// otherwise the mesh of nearest order, with exact = false. Reasonable means
// that, with h = 1.04/a the plan element size, the column layer height
// 10/b lies within [h, 6h] and the cap layer height 1.5/c within
// [h/2, 2h]; among equally near meshes the most nearly cubic one wins.
func Model2ForOrder(n int) (a, b, c int, exact bool, err error) {
	if n < 3 || n > 1<<30 {
		return 0, 0, 0, false, fmt.Errorf("%w: order %d out of range", ErrOrder, n)
	}
	best := newNearestMesh()
	for ca := 1; ca <= 400; ca++ {
		h := Model2CapWidth / float64(ca)
		n1, _ := Model2DOFs(ca, 1, 1)
		if n1 > 2*n && best.found() {
			break
		}
		for cc := 1; cc <= 400; cc++ {
			hc := Model2CapDepthColumn / float64(cc)
			if hc < h/2 {
				break
			}
			if hc > 2*h {
				continue
			}
			base, _ := Model2DOFs(ca, 1, cc)
			next, _ := Model2DOFs(ca, 2, cc)
			slope := next - base
			guess := 1 + (n-base)/slope
			for cb := guess - 1; cb <= guess+1; cb++ {
				if cb < 1 || cb > 4000 {
					continue
				}
				hb := Model2ColumnHeight / float64(cb)
				if hb < h || hb > 6*h {
					continue
				}
				got, _ := Model2DOFs(ca, cb, cc)
				best.consider(abs(got-n), math.Abs(math.Log(hb/h))+math.Abs(math.Log(hc/h)), ca, cb, cc)
			}
		}
	}
	return best.result("Model 2 mesh", n)
}
