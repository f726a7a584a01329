package afarray_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray"
)

// Upload a gonum matrix, multiply on the device, read the result back once,
// and look at the transfer counters.
func Example() {
	a, _ := afarray.FromDense(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}))
	x, _ := afarray.FromFloat64s([]float64{1, 1, 1})
	y, _ := afarray.Zeros(2)
	defer afarray.ReleaseAll(a, x, y)
	_ = afarray.Gemv(false, 1, a, x, 0, y) // y = A x, enqueued on the device
	d, _ := afarray.Dot(y, y)              // 6² + 15² = 261
	v, _ := y.Float64s()                   // first read: one download
	v, _ = y.Float64s()                    // cached: no transfer
	fmt.Println(v, d, y.Transfers())
	// Output: [6 15] 261 0 up (0 B), 1 down (16 B)
}
