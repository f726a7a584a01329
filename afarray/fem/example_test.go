package fem_test

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/fem"
)

// The thesis's smallest Model 1 system: find the grid for n = 1080, build
// it, and look at its size. sys.WriteFiles(dir, fem.FormatBoth) would then
// write the OpenFEM and Matrix Market files.
func ExampleModel1() {
	nx, ny, nz, exact, err := fem.Model1ForOrder(1080)
	if err != nil {
		fmt.Println(err)
		return
	}
	sys, err := fem.Model1(fem.Model1Options{NX: nx, NY: ny, NZ: nz})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sys.Grid, exact, sys.NumDOF, sys.K.NNZ(), sys.FileName())
	// Output: 24x2x4 true 1080 57330 model1_1080
}

// A Model 2 pier mesh in RCM numbering, of order near 10 449.
func ExampleModel2() {
	a, b, c, exact, err := fem.Model2ForOrder(10449)
	if err != nil {
		fmt.Println(err)
		return
	}
	sys, err := fem.Model2(fem.Model2Options{A: a, B: b, C: c, Numbering: fem.RCM})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sys.Grid, exact, sys.NumDOF, sys.Mesh.NumElems(), sys.FileName())
	// Output: 3x13x8 false 10452 2676 model2_10452_rcm
}
