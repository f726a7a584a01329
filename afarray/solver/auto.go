package solver

import (
	"errors"
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/gauss"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// The short path, as a SciPy user would write it:
//
//	a, err := sparse.ReadFile("K.mtx")
//	x, rep, err := solver.Solve(a, nil) // b = ones; the best method for a
//	rep                                 // what ran, where the time went, accuracy
//
// An empty Options.Method means the best method for the matrix: the
// fastest Cholesky for a symmetric positive definite one, LDLᵀ when
// Cholesky meets a non-positive pivot (symmetric indefinite), and dense LU
// with partial pivoting (package gauss) for a matrix that is not symmetric
// or when LDLᵀ meets a zero pivot. Report.Choice says what was chosen and
// why; for a matrix of one triangle not marked Symmetric it says that the
// triangular matrix is solved and how to mark it symmetric instead. With several Options.Devices the Cholesky and LDLᵀ are the
// supernodal ones spread over them, and dense LU, which runs on one
// device, runs on the first (Choice says so).

// MethodLU is the method name reports give for a dense LU solve with
// partial pivoting, which the automatic choice uses for general matrices.
const MethodLU Method = "lu"

// Ones returns n ones: the right-hand side of a load test, and what Run
// uses when b is nil.
func Ones(n int) []float64 {
	b := make([]float64, max(n, 0))
	for i := range b {
		b[i] = 1
	}
	return b
}

// Solve solves A x = b with the best method for A; b nil means ones. It is
// Run with empty Options.
func Solve(a *sparse.COO, b []float64) ([]float64, *Report, error) {
	return Run(a, b, Options{})
}

// autoCholesky is the Cholesky entry the automatic choice prefers: the
// fast variant of Cholesky's default format when an entry raised its
// priority above the thesis's (the supernodal one, the fastest on large FE
// matrices), else the fast skyline one.
func autoCholesky() *entry {
	if e, err := lookup(MethodCholesky, FormatAuto, Fast); err == nil && e.priority > 0 {
		return e
	}
	e, _ := lookup(MethodCholesky, FormatSKS, Fast)
	return e
}

// runAuto is Run for an empty Options.Method.
func runAuto(a *sparse.COO, b []float64, opts Options) ([]float64, *Report, error) {
	if err := checkSystem(a, b); err != nil {
		return nil, nil, err
	}
	symmetric := a.Symmetric
	if !symmetric {
		_, err := a.Lower()
		switch {
		case err == nil:
			symmetric = true
		case !errors.Is(err, sparse.ErrNotSymmetric):
			return nil, nil, err
		}
	}
	if len(opts.Devices) > 1 {
		if err := checkDevices("Run", opts.Devices); err != nil {
			return nil, nil, err
		}
	}
	if !symmetric {
		why := "not symmetric"
		if tri := a.OneTriangle(); tri != "" {
			// What a Python user gets from scipy.sparse.tril, or a general
			// Matrix Market file of one triangle: say what it is taken for.
			why = fmt.Sprintf("not symmetric (it stores only the %s triangle and is not marked symmetric, so it is solved as the triangular matrix it stores; for one triangle of a symmetric matrix set COO.Symmetric)", tri)
		}
		return runLU(a, b, opts, why+": dense LU with partial pivoting")
	}
	ch := autoCholesky()
	o := opts
	o.Method, o.Format, o.Variant = ch.method, ch.format, ch.variant
	x, rep, err := Run(a, b, o)
	if rep != nil {
		rep.Choice = fmt.Sprintf("symmetric positive definite: %s on %s, %s", ch.method, ch.format, ch.variant)
	}
	if !errors.Is(err, ErrNotPositiveDefinite) {
		return x, rep, err
	}
	why := err.Error()
	// LDLᵀ on sks runs on one device; on several, the supernodal LDLᵀ
	// (the multi-device one) takes its place.
	o.Method, o.Format, o.Variant = MethodLDLT, FormatSKS, Fast
	if len(opts.Devices) > 1 {
		o.Format = FormatSupernodal
	}
	x, rep, err = Run(a, b, o)
	if rep != nil {
		rep.Choice = fmt.Sprintf("symmetric indefinite (Cholesky: %s): ldlt on %s, fast", why, o.Format)
	}
	if !errors.Is(err, ErrZeroPivot) {
		return x, rep, err
	}
	return runLU(a, b, opts, "LDLᵀ met a zero pivot ("+err.Error()+"): dense LU with partial pivoting")
}

// runLU solves with package gauss's blocked LU with partial pivoting on a
// dense copy of A, reporting as Run does.
func runLU(a *sparse.COO, b []float64, opts Options, why string) ([]float64, *Report, error) {
	start := time.Now()
	n := a.Rows
	const denseLimit = 46340 // n² entries within int32 indexing
	if n > denseLimit {
		return nil, nil, fmt.Errorf("%w: A is %s and of order %d; dense LU, the method for such matrices, holds n² entries and stops at order %d",
			ErrUnknown, why, n, denseLimit)
	}
	dev := opts.Device
	if dev == nil && len(opts.Devices) > 0 {
		// Dense LU runs on one device: the first of the list.
		dev = opts.Devices[0]
		if len(opts.Devices) > 1 {
			why += fmt.Sprintf(" on the first device (%s) of %d: LU runs on one", dev.Label(), len(opts.Devices))
		}
	}
	if dev == nil {
		var err error
		if dev, err = afarray.CurrentDevice(); err != nil {
			return nil, nil, err
		}
	}
	d := mat.NewDense(n, n, nil)
	for k, v := range a.V {
		i, j := int(a.I[k]), int(a.J[k])
		d.Set(i, j, d.At(i, j)+v)
		if a.Symmetric && i != j {
			d.Set(j, i, d.At(j, i)+v)
		}
	}
	rep := &Report{Method: MethodLU, Format: FormatDense, Variant: Variant(gauss.VariantBlocked), Ordering: sparse.OrderNatural,
		N: n, NNZ: a.NNZLower(), NNZFull: a.NNZFull(), Choice: why}
	tr, untrack := startTracking(dev, opts.Progress)
	defer untrack()
	tr.phase("factorize")
	compile0 := dev.CompileTime()
	dev.ResetPeak()
	base := dev.MemoryStats().Live
	x, gr, err := gauss.Solve(dev, d, b, gauss.Options{Pivot: true, Variant: gauss.VariantBlocked})
	rep.DeviceBytes = dev.MemoryStats().Peak - base
	rep.ThesisMemory = sparse.ThesisMemoryDense(n)
	if gr != nil {
		rep.UploadTime, rep.FactorizeTime, rep.SolveTime, rep.Launches = gr.Upload, gr.Eliminate, gr.BackSubstitution, gr.Launches
	}
	rep.CompileTime = dev.CompileTime() - compile0
	rep.UploadTime = max(rep.UploadTime-rep.CompileTime, 0) // gauss builds its programs during its upload phase
	rep.TotalTime = time.Since(start)
	rep.OtherTime = rep.TotalTime - rep.UploadTime - rep.CompileTime - rep.FactorizeTime - rep.SolveTime
	if x != nil {
		rep.BackwardError = BackwardError(a, x, b)
		// As Run does for every direct method: a wrong answer is an error.
		if err == nil && !(rep.BackwardError <= MaxBackwardError) {
			err = &InaccurateError{Method: MethodLU, BackwardError: rep.BackwardError}
		}
	}
	recordTotals(rep)
	return x, rep, err
}
