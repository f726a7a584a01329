package cyclic_test

import (
	"fmt"
	"log"

	"github.com/oclsolve/oclsolve/afarray/cyclic"
	"github.com/oclsolve/oclsolve/kernels"
)

// Solve a batch of 1-D Poisson systems by the CR-PCR hybrid and check the
// answer by its backward error.
func ExampleSolve() {
	dev, err := kernels.Default()
	if err != nil {
		log.Fatal(err)
	}
	sys, err := cyclic.Poisson1DBatch(1000, 4)
	if err != nil {
		log.Fatal(err)
	}
	x, rep, err := cyclic.Solve(dev, sys, cyclic.Options{Method: "crpcr", LocalSize: 32})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(x), rep.BackwardError < 1e-15)
	// Output: 4000 true
}

// Solve -Δu = f on a 63 x 40 grid by Buneman's block cyclic reduction.
func ExamplePoisson2D() {
	dev, err := kernels.Default()
	if err != nil {
		log.Fatal(err)
	}
	g, err := cyclic.Poisson2DManufactured(63, 40)
	if err != nil {
		log.Fatal(err)
	}
	u, rep, err := cyclic.Poisson2D(dev, g, cyclic.Options{LocalSize: 32})
	if err != nil {
		log.Fatal(err)
	}
	maxErr := 0.0
	for i := range u {
		maxErr = max(maxErr, abs(u[i]-g.Exact[i]))
	}
	fmt.Println(rep.BackwardError < 1e-14, maxErr < 5e-3)
	// Output: true true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
