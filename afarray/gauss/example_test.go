package gauss_test

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/gauss"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

func ExampleSolve() {
	dev, err := kernels.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	// The leading entry is zero: elimination needs a row exchange.
	a := mat.NewDense(3, 3, []float64{
		0, 2, 1,
		1, 1, 1,
		2, 1, 3,
	})
	b := []float64{5, 4, 7} // x = (1, 2, 1)
	for _, v := range gauss.Variants() {
		x, _, err := gauss.Solve(dev, a, b, gauss.Options{Variant: v, Pivot: true})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-7s x = [%.4f %.4f %.4f]\n", v, x[0], x[1], x[2])
	}
	_, _, err = gauss.Solve(dev, a, b, gauss.Options{Variant: gauss.VariantBuffer})
	var se *gauss.SingularError
	fmt.Println(errors.Is(err, gauss.ErrSingular), errors.As(err, &se) && se.Pivot == 0)
	// Output:
	// buffer  x = [1.0000 2.0000 1.0000]
	// vec4    x = [1.0000 2.0000 1.0000]
	// image   x = [1.0000 2.0000 1.0000]
	// blocked x = [1.0000 2.0000 1.0000]
	// true true
}

func ExampleLU() {
	dev, err := kernels.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	a := mat.NewDense(2, 2, []float64{4, 3, 6, 3})
	var lu gauss.LU
	if err := lu.Factorize(dev, a); err != nil {
		fmt.Println(err)
		return
	}
	defer lu.Release()
	// Two right-hand sides, one factorization.
	b := mat.NewDense(2, 2, []float64{10, 7, 12, 9})
	var x mat.Dense
	x.ReuseAs(2, 2)
	if err := lu.SolveTo(&x, b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", mat.Formatted(&x))
	fmt.Println("pivots", lu.Pivots())
	// Output:
	// ⎡1.0000  1.0000⎤
	// ⎣2.0000  1.0000⎦
	// pivots [1 1]
}
