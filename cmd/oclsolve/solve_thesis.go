package main

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/solver"
)

// The thesis's methods: Gauss-Jordan (dense), Cholesky and LDLᵀ (dense, CSC,
// SKS) and CG (dense, CSC, SKS), each fast or thesis, through solver.Run.
func init() {
	variants := []string{"fast", "thesis"}
	registerSolveMethod(&solveMethod{name: "gj", formats: []string{"dense"}, variants: variants, run: runThesisMethod})
	registerSolveMethod(&solveMethod{name: "cholesky", formats: []string{"sks", "csc", "dense"}, variants: variants, run: runThesisMethod})
	registerSolveMethod(&solveMethod{name: "ldlt", formats: []string{"sks", "csc", "dense"}, variants: variants, run: runThesisMethod})
	registerSolveMethod(&solveMethod{name: "cg", formats: []string{"csc", "sks", "dense"}, variants: variants, run: runThesisMethod})
}

func runThesisMethod(p *solveProblem, o *solveOptions) (*solveOutcome, error) {
	if p.A == nil {
		return nil, fmt.Errorf("%w: method %s needs an assembled matrix, not %s", errUsage, o.Method, p.Source)
	}
	x, rep, err := solver.Run(p.A, p.B, solver.Options{
		Method: o.Method, Format: o.Format, Variant: solver.Variant(o.Variant), Order: o.Order,
		Tol: o.Tol, MaxIter: o.MaxIt, Jacobi: o.Jacobi, Device: o.Device,
	})
	var nc *solver.NotConvergedError
	if err != nil && !(errors.As(err, &nc) && x != nil) {
		return nil, err
	}
	out := &solveOutcome{
		X: x, Ordering: rep.Ordering,
		Times: timeSplit{
			Upload: rep.UploadTime.Seconds(), Ordering: rep.OrderingTime.Seconds(), Symbolic: rep.SymbolicTime.Seconds(),
			Factorize: rep.FactorizeTime.Seconds(), Solve: rep.SolveTime.Seconds(), Total: rep.TotalTime.Seconds(),
		},
		DeviceBytes: rep.DeviceBytes, ThesisMemory: rep.ThesisMemory,
		Iterations: rep.Iterations, ResidualHistory: rep.History,
	}
	if nc != nil {
		out.Notes = append(out.Notes, nc.Error())
	}
	return out, nil
}
