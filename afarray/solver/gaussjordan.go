package solver

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
)

// Gauss-Jordan implements both variants here (gaussJordanThesis and
// gaussJordanBlocked).
func init() {
	for _, v := range []Variant{Fast, Thesis} {
		register(&entry{method: MethodGaussJordan, format: FormatDense, variant: v, solveOnce: func(m any, b *afarray.Array, v Variant) (*afarray.Array, error) {
			return GaussJordan(m.(*afarray.Array), b, v)
		}})
	}
}

// GaussJordan solves A X = B by Gauss-Jordan elimination of the augmented
// matrix [A | B] on the device, without pivoting, and returns X (a vector
// when B is one). A is n x n; B is n x m. Neither is modified: the
// augmented matrix is a device copy, as the thesis built it with af_join.
//
// Thesis variant (§4.1): one launch per pivot with the fixed 32 x 1024
// geometry, rows across the items of a group and columns across the
// groups; the pivot column is never updated and keeps supplying the
// multipliers; at the end X = B' ./ diag. n launches.
//
// Fast variant: 32 pivots per step. One launch normalizes the 32 pivot rows
// (each work-group inverts the 32 x 32 pivot block in local memory for its
// 32-column tile), then two rank-32 products of the dense kernel core's
// tuned GEMM (package afarray/dense) eliminate them from the rows above and
// below. That is about 3n/32 launches and GEMM-speed updates instead of n
// launches that each stream the whole matrix. The pivot rows end
// normalized, so X is read off directly.
//
// A zero pivot gives a *ZeroPivotError with its column; NaN or Inf in A or B
// a *NonFiniteError; the solution is checked too. The status is read once.
func GaussJordan(a, b *afarray.Array, v Variant) (*afarray.Array, error) {
	v, ab, n, err := denseOperand(v, a, "GaussJordan matrix")
	if err != nil {
		return nil, err
	}
	bb, err := float64Buffer(b, "GaussJordan right-hand side")
	if err != nil {
		return nil, err
	}
	if err := sameDevice(a, b); err != nil {
		return nil, err
	}
	br, m := b.Dims()
	if br != n || m == 0 {
		return nil, fmt.Errorf("%w: GaussJordan: right-hand side is %dx%d for a %dx%d matrix", ErrShape, br, m, n, n)
	}
	dev := a.Device()
	wA := n + m
	aug, err := dev.Alloc(8 * int64(n) * int64(wA))
	if err != nil {
		return nil, err
	}
	defer aug.Release() // OpenCL keeps it until the queued kernels are done
	out, err := dev.Alloc(8 * int64(n) * int64(m))
	if err != nil {
		return nil, err
	}
	st, err := newStatus(dev)
	if err != nil {
		out.Release()
		return nil, err
	}
	defer st.release()
	fail := func(err error) (*afarray.Array, error) {
		out.Release()
		return nil, err
	}
	if err := st.checkFinite(dev, ab, n*n, statusInput); err != nil {
		return fail(err)
	}
	if err := st.checkFinite(dev, bb, n*m, statusRHS); err != nil {
		return fail(err)
	}
	cp, err := denseProgram.Kernel(dev, "copy_cols")
	if err != nil {
		return fail(err)
	}
	copyCols := func(rows, cols int, src *kernels.Buffer, lds, c0 int, dst *kernels.Buffer, ldd, d0 int) error {
		return cp.Launch([]int{groupsFor(rows*cols, denseLocal) * denseLocal}, []int{denseLocal}, rows, cols, src, lds, c0, dst, ldd, d0)
	}
	if err := copyCols(n, n, ab, n, 0, aug, n, 0); err != nil {
		return fail(err)
	}
	if err := copyCols(n, m, bb, n, 0, aug, n, n); err != nil {
		return fail(err)
	}
	if v == Thesis {
		err = gaussJordanThesis(dev, aug, n, m, out, st)
	} else {
		err = gaussJordanBlocked(dev, aug, n, m, st)
		if err == nil {
			err = copyCols(n, m, aug, n, n, out, n, 0)
		}
	}
	if err != nil {
		return fail(err)
	}
	if err := st.checkFinite(dev, out, n*m, statusOutput); err != nil {
		return fail(err)
	}
	flags, err := st.read()
	if err != nil {
		return fail(err)
	}
	switch {
	case found(flags[statusInput]):
		return fail(&NonFiniteError{Where: "matrix", Index: int(flags[statusInput])})
	case found(flags[statusRHS]):
		return fail(&NonFiniteError{Where: "right-hand side", Index: int(flags[statusRHS])})
	case found(flags[statusPivot]):
		p, err := st.pivotValue()
		if err != nil {
			return fail(err)
		}
		return fail(&ZeroPivotError{Column: int(flags[statusPivot]), Pivot: p})
	case found(flags[statusOutput]):
		return fail(&NonFiniteError{Where: "solution", Index: int(flags[statusOutput])})
	}
	x, err := afarray.FromBuffer(out, afarray.Float64, n, m)
	if err != nil {
		return fail(err)
	}
	return x, nil
}

// gaussJordanThesis makes the thesis's n launches and the final division by
// the diagonal.
func gaussJordanThesis(dev *kernels.Device, aug *kernels.Buffer, n, m int, out *kernels.Buffer, st *status) error {
	k, err := denseProgram.Kernel(dev, "gauss_jordan_thesis")
	if err != nil {
		return err
	}
	g, l := thesisGeometry(k)
	tr := trackerOf(dev)
	for step := 0; step < n; step++ {
		tr.step("columns", step, n, -1)
		if err := k.Launch(g, l, aug, n, n+m, step, st.flags, st.pivot); err != nil {
			return err
		}
	}
	ex, err := denseProgram.Kernel(dev, "gauss_jordan_thesis_extract")
	if err != nil {
		return err
	}
	g, l = thesisGeometry(ex)
	return ex.Launch(g, l, aug, n, m, out)
}

// gaussJordanBlocked makes per 32 pivots one launch that normalizes the
// pivot rows and two GEMM launches of the dense kernel core (afarray/dense,
// tuned for the device) that eliminate the pivot columns from the rows
// above and below the pivot rows: X(i, k+nb:) -= X(i, k:k+nb) X(k:k+nb, k+nb:).
func gaussJordanBlocked(dev *kernels.Device, aug *kernels.Buffer, n, m int, st *status) error {
	rows, err := denseProgram.Kernel(dev, "gauss_jordan_rows")
	if err != nil {
		return err
	}
	eng, err := dense.For(dev, dense.Float64)
	if err != nil {
		return err
	}
	wA := n + m
	x := dense.Mat{Buf: aug, Rows: n, Cols: wA, LD: n}
	tr := trackerOf(dev)
	for k := 0; k < n; k += denseNB {
		tr.step("columns", k, n, -1)
		nb := min(denseNB, n-k)
		cols := wA - k - nb // columns right of the pivot block (at least m)
		tiles := (cols + denseTile - 1) / denseTile
		if err := rows.Launch([]int{tiles * denseLocal}, []int{denseLocal}, n, wA, k, aug, st.flags, st.pivot); err != nil {
			return err
		}
		pivots := x.Sub(k, k+nb, nb, cols)
		for _, r := range [][2]int{{0, k}, {k + nb, n}} { // rows above, rows below
			if r[1] <= r[0] {
				continue
			}
			h := r[1] - r[0]
			if err := eng.Gemm(false, false, -1, x.Sub(r[0], k, h, nb), pivots, 1, x.Sub(r[0], k+nb, h, cols)); err != nil {
				return err
			}
		}
	}
	return nil
}
