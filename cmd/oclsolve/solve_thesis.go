package main

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The solver package's methods (the thesis's Gauss-Jordan, Cholesky, LDLᵀ
// and CG on dense, CSC and SKS, and whatever else its registry holds), each
// with the formats and variants it registered, through solver.Run.
func init() {
	for _, m := range solver.Methods() {
		sm := &solveMethod{name: string(m.Name), run: runThesisMethod, prepare: prepareThesisMethod}
		for _, f := range m.Formats {
			sm.formats = append(sm.formats, string(f))
		}
		for _, v := range m.Variants {
			sm.variants = append(sm.variants, string(v))
		}
		sm.has = func(format, variant string) bool {
			for _, c := range solver.Combinations() {
				if c.Method == m.Name && string(c.Format) == format && string(c.Variant) == variant {
					return true
				}
			}
			return false
		}
		registerSolveMethod(sm)
	}
}

func runThesisMethod(p *solveProblem, o *solveOptions) (*solveOutcome, error) {
	if p.A == nil {
		return nil, fmt.Errorf("%w: method %s needs an assembled matrix, not %s", errUsage, o.Method, p.Source)
	}
	opts, err := thesisOptions(o)
	if err != nil {
		return nil, err
	}
	opts.Prepared = p.prepared
	x, rep, err := solver.Run(p.A, p.B, opts)
	// CG that stopped at its limit and a direct solve that failed its
	// accuracy check still return x: the report is printed, and runSolve
	// exits with the status that says the answer must not be trusted.
	var nc *solver.NotConvergedError
	var inacc *solver.InaccurateError
	if err != nil && !((errors.As(err, &nc) || errors.As(err, &inacc)) && x != nil) {
		return nil, err
	}
	out := &solveOutcome{
		X: x, Ordering: string(rep.Ordering),
		Times: timeSplit{
			Upload: rep.UploadTime.Seconds(), Ordering: rep.OrderingTime.Seconds(), Convert: rep.ConvertTime.Seconds(),
			Compile: rep.CompileTime.Seconds(), Symbolic: rep.SymbolicTime.Seconds(), Factorize: rep.FactorizeTime.Seconds(),
			Solve: rep.SolveTime.Seconds(), Download: rep.DownloadTime.Seconds(), Total: rep.TotalTime.Seconds(),
		},
		DeviceBytes: rep.DeviceBytes, ThesisMemory: rep.ThesisMemory,
		Iterations: rep.Iterations, ResidualHistory: rep.History, Shares: rep.Shares,
		Stats: rep.Stats,
	}
	if solver.Method(o.Method) == solver.MethodCG {
		converged := nc == nil
		out.Converged = &converged
		if nc != nil {
			out.Failure = nc
		}
	}
	return out, nil
}

// thesisOptions are solver.Run's options for the flags.
func thesisOptions(o *solveOptions) (solver.Options, error) {
	build := map[string]solver.Build{"auto": solver.BuildAuto, "host": solver.BuildHost, "device": solver.BuildDevice}
	bd, ok := build[o.Build]
	if !ok && o.Build != "" {
		return solver.Options{}, fmt.Errorf("%w: --build auto|host|device, not %q", errUsage, o.Build)
	}
	return solver.Options{
		Method: solver.Method(o.Method), Format: solver.Format(o.Format), Variant: solver.Variant(o.Variant),
		Order: sparse.Ordering(o.Order), Tol: o.Tol, MaxIter: o.MaxIt, Jacobi: o.Jacobi, Device: o.Device, Devices: o.Devices, Build: bd,
	}, nil
}

// prepareThesisMethod does solver.Run's host work (checks, ordering) while
// the device is still being created (solver.Prepare); runThesisMethod hands
// the result to Run.
func prepareThesisMethod(p *solveProblem, o *solveOptions) error {
	if p.A == nil {
		return nil
	}
	opts, err := thesisOptions(o)
	if err != nil {
		return err
	}
	p.prepared, err = solver.Prepare(p.A, p.B, opts)
	return err
}
