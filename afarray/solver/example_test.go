package solver_test

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Run solves a system from its COO matrix with a registered method, format
// and variant; the factor types factor once and solve many right-hand
// sides on the device.
func Example() {
	// A = tridiag(-1, 2, -1) of order 4, one triangle stored; b = A (1, 2, 3, 4).
	a := &sparse.COO{Rows: 4, Cols: 4, Symmetric: true,
		I: []int32{0, 1, 1, 2, 2, 3, 3}, J: []int32{0, 0, 1, 1, 2, 2, 3}, V: []float64{2, -1, 2, -1, 2, -1, 2}}
	b := []float64{0, 0, 0, 5}
	x, rep, err := solver.Run(a, b, solver.Options{Method: solver.MethodCholesky, Format: solver.FormatSKS})
	if err != nil {
		fmt.Println(err)
		return
	}
	be, _ := sparse.BackwardErrorOf(a, x, b)
	fmt.Printf("%s/%s/%s: x = %.6f, backward error below 1e-15: %v\n", rep.Method, rep.Format, rep.Variant, x, be < 1e-15)

	// The same with a factor kept on the device, and a second right-hand side.
	h, _ := sparse.SKSFromCOO(a)
	m, _ := afarray.UploadSKS(h)
	defer m.Release()
	var f solver.SKSCholesky
	if err := f.Factorize(m, solver.Fast); err != nil {
		fmt.Println(err)
		return
	}
	defer f.Release()
	for _, rhs := range [][]float64{b, {1, 0, 0, 1}} {
		bd, _ := afarray.FromFloat64s(rhs)
		xd, err := f.Solve(bd)
		if err != nil {
			fmt.Println(err)
			return
		}
		v, _ := xd.Float64s()
		fmt.Printf("x = %.6f\n", v)
		afarray.ReleaseAll(bd, xd)
	}
	fmt.Println("solves:", f.Stats().Solves)
	// Output:
	// cholesky/sks/fast: x = [1.000000 2.000000 3.000000 4.000000], backward error below 1e-15: true
	// x = [1.000000 2.000000 3.000000 4.000000]
	// x = [1.000000 1.000000 1.000000 1.000000]
	// solves: 2
}
