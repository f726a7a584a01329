package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/solver/petsc"
)

// `oclsolve solve --engine petsc` hands the system to PETSc under MPI
// (afarray/solver/petsc): every rank of `mpiexec -n N oclsolve-petsc solve
// --engine petsc ...` loads or generates the system and keeps its rows;
// rank 0 prints the report and writes x. No OpenCL device is opened.

// Engine names of --engine.
const (
	engineOpenCL = "opencl"
	enginePETSc  = "petsc"
)

// petscReport is the "petsc" object of `oclsolve solve --json` for the
// PETSc engine:
//
//	ranks                  MPI ranks
//	ksp, pc                the Krylov method ("" for direct solves) and preconditioner (mumps for direct solves)
//	block_size             3 when rows are distributed in whole nodes (generated models), else 1
//	near_null_space        rigid-body modes given to the preconditioner (6 or 0)
//	peak_rss_bytes         the largest peak resident memory of any rank
//	factor_entries         MUMPS: entries in the factors (INFOG(29))
//	factor_flops           MUMPS: floating-point operations of the factorization (RINFOG(3))
//	factor_bytes_max, factor_bytes_total  MUMPS: factorization memory of the largest rank and of all (INFOG(21), INFOG(22))
//	negative_pivots        MUMPS: negative pivots (INFOG(12)); LDLᵀ's inertia
//	largest_front          MUMPS: order of the largest frontal matrix (INFOG(11))
//	options                the --petsc-options string
type petscReport struct {
	Ranks            int     `json:"ranks"`
	KSP              string  `json:"ksp"`
	PC               string  `json:"pc"`
	BlockSize        int     `json:"block_size"`
	NearNullSpace    int     `json:"near_null_space"`
	PeakRSSBytes     int64   `json:"peak_rss_bytes"`
	FactorEntries    int64   `json:"factor_entries,omitempty"`
	FactorFlops      float64 `json:"factor_flops,omitempty"`
	FactorBytesMax   int64   `json:"factor_bytes_max,omitempty"`
	FactorBytesTotal int64   `json:"factor_bytes_total,omitempty"`
	NegativePivots   int     `json:"negative_pivots"`
	LargestFront     int     `json:"largest_front,omitempty"`
	Options          string  `json:"options,omitempty"`
}

// petscMethods are the --method values of the PETSc engine.
var petscMethods = []string{petsc.MethodCholesky, petsc.MethodLDLT, petsc.MethodCG}

// checkPETScFlags validates the engine's flags before anything is loaded.
func checkPETScFlags(o *solveOptions) error {
	if !petsc.Available() {
		return petsc.ErrNotBuilt
	}
	if !contains(petscMethods, o.Method) {
		return fmt.Errorf("%w: --engine petsc takes --method %s, not %q", errUsage, strings.Join(petscMethods, "|"), o.Method)
	}
	if o.Format != "" || o.Variant != "" {
		return fmt.Errorf("%w: --format and --variant select OpenCL storage; PETSc stores A as distributed AIJ", errUsage)
	}
	if o.Jacobi {
		return fmt.Errorf("%w: with --engine petsc, use --pc jacobi", errUsage)
	}
	return nil
}

// runPETSc solves p with the PETSc engine. It returns the report on rank 0
// and nil on the other ranks, which print nothing.
func runPETSc(p *solveProblem, o *solveOptions) (*solveReport, []float64, error) {
	if p.A == nil {
		return nil, nil, fmt.Errorf("%w: --engine petsc needs an assembled matrix, not %s", errUsage, p.Source)
	}
	opts := petsc.Options{
		Method: o.Method, PC: o.PC, Tol: o.Tol, MaxIter: o.MaxIt, PETScOptions: o.PETScOptions,
	}
	if p.Model != nil {
		opts.Coords, opts.Equation = p.Model.Mesh.Coords, p.Model.Equation
	}
	x, r, err := petsc.Solve(p.A, p.B, opts)
	var nc *solver.NotConvergedError
	if err != nil && !errors.As(err, &nc) {
		return nil, nil, err
	}
	if petsc.Rank() != 0 {
		return nil, nil, err
	}
	rep := &solveReport{
		Source: p.Source, N: p.N, NNZ: p.NNZ, Method: r.Method, Format: "aij", Variant: enginePETSc, Ordering: "mumps",
		Device: fmt.Sprintf("PETSc, %d MPI rank(s)", r.Ranks),
		Times: timeSplit{
			Upload: r.UploadTime.Seconds(), Ordering: r.OrderingTime.Seconds(), Symbolic: r.SymbolicTime.Seconds(),
			Factorize: r.FactorizeTime.Seconds(), Solve: r.SolveTime.Seconds(), Total: r.TotalTime.Seconds(),
		},
		Iterations: r.Iterations, ResidualHistory: r.History,
		RelativeResidual: r.RelativeResidual, BackwardError: r.BackwardError,
		PETSc: &petscReport{
			Ranks: r.Ranks, KSP: r.KSP, PC: r.PC, BlockSize: r.BlockSize, NearNullSpace: r.NearNullSpace,
			PeakRSSBytes: r.PeakRSS, FactorEntries: r.FactorEntries, FactorFlops: r.FactorFlops, FactorBytesMax: r.FactorBytesMax,
			FactorBytesTotal: r.FactorBytesAll, NegativePivots: r.NegativePivots, LargestFront: r.LargestFront, Options: o.PETScOptions,
		},
	}
	if r.Method == petsc.MethodCG {
		rep.Ordering = "natural"
		rep.Method = r.KSP
	}
	if note, ok := p.Spec.(string); ok && note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	if p.Ref != nil {
		var mx, s float64
		for i, v := range x {
			d := math.Abs(v - p.Ref[i])
			mx = math.Max(mx, d)
			s += d * d
		}
		s = math.Sqrt(s)
		rep.RefMaxAbsDiff, rep.RefNorm2Diff = &mx, &s
	}
	return rep, x, err
}

// otherRankError is the error of a rank other than 0: main does not print
// it (rank 0 prints the same), but exits with its status.
type otherRankError struct{ err error }

func (e otherRankError) Error() string { return e.err.Error() }
func (e otherRankError) Unwrap() error { return e.err }
func (e otherRankError) Silent() bool  { return true }

// printPETScReport prints the engine's own lines of the text report.
func printPETScReport(r *solveReport) {
	p := r.PETSc
	solver := "MUMPS"
	if p.KSP != "" {
		solver = p.KSP + " + " + p.PC
	}
	fmt.Fprintf(os.Stdout, "petsc         %s on %d rank(s), block size %d, near-null space %d, peak RSS/rank %.1f MB\n",
		solver, p.Ranks, p.BlockSize, p.NearNullSpace, float64(p.PeakRSSBytes)/1e6)
	if p.FactorEntries > 0 {
		fmt.Fprintf(os.Stdout, "factor        nnz(L) = %d, %.3g flops, largest front %d, MUMPS memory %.1f MB largest rank, %.1f MB total, %d negative pivots\n",
			p.FactorEntries, p.FactorFlops, p.LargestFront, float64(p.FactorBytesMax)/1e6, float64(p.FactorBytesTotal)/1e6, p.NegativePivots)
	}
}

// solvePETSc is runSolve for --engine petsc after the problem is loaded.
// As for the device solvers, the report is printed even when the answer
// fails a check, and the exit status says which check: 3 for CG stopped
// before its tolerance, 4 for a direct solve whose backward error exceeds
// solver.MaxBackwardError.
func solvePETSc(p *solveProblem, o *solveOptions, asJSON bool) error {
	rep, _, err := runPETSc(p, o)
	if rep == nil {
		var nc *solver.NotConvergedError
		if errors.As(err, &nc) {
			err = &exitError{exitNotConverged, err}
		}
		if err != nil && petsc.Size() > 1 && petsc.Rank() != 0 {
			// Every rank fails alike (the engine agrees on errors); rank 0
			// says why.
			err = otherRankError{err}
		}
		return err
	}
	var failure error
	if rep.Method != petsc.MethodCholesky && rep.Method != petsc.MethodLDLT {
		converged := err == nil
		rep.Converged = &converged
		if err != nil {
			failure = &exitError{exitNotConverged, err}
		}
	} else if !(rep.BackwardError <= solver.MaxBackwardError) {
		failure = &exitError{exitInaccurate, inaccurate(rep.Method, enginePETSc, rep.BackwardError, solver.MaxBackwardError)}
	}
	if failure != nil {
		rep.Error = failure.Error()
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(rep); e != nil {
			return e
		}
	} else {
		printReport(os.Stdout, rep)
		printPETScReport(rep)
	}
	return failure
}
