package solver

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// Method and format names accepted by Run.
const (
	MethodGaussJordan = "gj"
	MethodCholesky    = "cholesky"
	MethodLDLT        = "ldlt"
	MethodCG          = "cg"

	FormatDense = "dense"
	FormatCSC   = "csc"
	FormatSKS   = "sks"
)

// Options selects what Run does. Names are case-insensitive.
type Options struct {
	Method  string  // gj, cholesky, ldlt or cg
	Format  string  // dense, csc or sks (gj takes dense only)
	Variant Variant // Fast (default) or Thesis
	// Order is the symmetric reordering: "natural" (or "none"), "rcm", or
	// "auto", the better of the two for the format's storage (SKS length
	// for sks, the classic profile otherwise). "" means auto for sks and
	// csc, natural for dense.
	Order string
	// Tol, MaxIter and Jacobi configure CG (see CGOptions).
	Tol     float64
	MaxIter int
	Jacobi  bool
	// Device is where to solve; nil means afarray.CurrentDevice().
	Device *kernels.Device
}

// Report describes one Run: what ran, where the time went, memory, and CG's
// iterations.
type Report struct {
	Method, Format string
	Variant        Variant
	Ordering       string // the ordering actually used: natural or rcm
	N, NNZ         int    // order and stored entries of A as given

	// The time split. Upload includes building the storage format on the
	// host; Symbolic is the CSC symbolic factorization (the thesis left it
	// out of its timings); Solve is the triangular solves, or all of CG.
	// Total is the wall time of Run.
	UploadTime, OrderingTime, SymbolicTime, FactorizeTime, SolveTime, TotalTime time.Duration

	// DeviceBytes is the peak device memory during the run, measured by
	// the device's account; ThesisMemory is the thesis's formula for the
	// format in bytes (dense 8n(n+1), CSC 4(3le+2n) with le the length of L
	// for the factorizations and of A for CG, SKS 4(2le+3n)).
	DeviceBytes  int64
	ThesisMemory float64

	Iterations int       // CG only
	Residual   float64   // CG only: the residual it tested
	History    []float64 // CG only
	Launches   int64     // kernels enqueued
}

// Run solves A x = b with the method, format, variant and ordering named
// in opts, timing each phase, and returns x in the original numbering. A is
// a square COO matrix, one triangle (Symmetric) or both. Errors are typed:
// *NotPositiveDefiniteError, *ZeroPivotError, *NotConvergedError (x and the
// report are still returned), *NonFiniteError, ErrShape, ErrUnknown.
func Run(a *sparse.COO, b []float64, opts Options) ([]float64, *Report, error) {
	start := time.Now()
	method, format := strings.ToLower(opts.Method), strings.ToLower(opts.Format)
	v, err := ParseVariant(string(opts.Variant))
	if err != nil {
		return nil, nil, err
	}
	switch method {
	case MethodGaussJordan:
		if format == "" {
			format = FormatDense
		}
		if format != FormatDense {
			return nil, nil, fmt.Errorf("%w: Gauss-Jordan works on dense storage only, not %q", ErrUnknown, opts.Format)
		}
	case MethodCholesky, MethodLDLT, MethodCG:
		if format == "" {
			format = FormatSKS
		}
		if format != FormatDense && format != FormatCSC && format != FormatSKS {
			return nil, nil, fmt.Errorf("%w: format %q (want dense, csc or sks)", ErrUnknown, opts.Format)
		}
	default:
		return nil, nil, fmt.Errorf("%w: method %q (want gj, cholesky, ldlt or cg)", ErrUnknown, opts.Method)
	}
	if err := a.Validate(); err != nil {
		return nil, nil, err
	}
	n := a.Rows
	if a.Cols != n {
		return nil, nil, fmt.Errorf("%w: matrix is %dx%d, not square", ErrShape, a.Rows, a.Cols)
	}
	if len(b) != n {
		return nil, nil, fmt.Errorf("%w: right-hand side has %d entries, the matrix has order %d", ErrShape, len(b), n)
	}
	for k, x := range a.V {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, &NonFiniteError{Where: "matrix", Index: k}
		}
	}
	for i, x := range b {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, &NonFiniteError{Where: "right-hand side", Index: i}
		}
	}
	dev := opts.Device
	if dev == nil {
		if dev, err = afarray.CurrentDevice(); err != nil {
			return nil, nil, err
		}
	}
	prev, _ := afarray.CurrentDevice()
	afarray.SetDevice(dev)
	defer afarray.SetDevice(prev)

	rep := &Report{Method: method, Format: format, Variant: v, N: n, NNZ: a.NNZ()}
	launches := dev.Launches()
	dev.ResetPeak()
	basePeak := dev.MemoryStats().Live

	// Ordering.
	t := time.Now()
	order := strings.ToLower(opts.Order)
	switch order {
	case "":
		order = sparse.OrderNatural
		if format != FormatDense {
			order = sparse.OrderAuto
		}
	case "none":
		order = sparse.OrderNatural
	case "auto":
		if format != FormatSKS {
			order = sparse.OrderAutoProfile
		}
	}
	perm, used, err := sparse.Order(a, order)
	if err != nil {
		return nil, nil, err
	}
	rep.Ordering = used
	pa, pb := a, b
	if used != sparse.OrderNatural {
		if pa, err = a.Permute(perm); err != nil {
			return nil, nil, err
		}
		if pb, err = sparse.PermuteVec(b, perm); err != nil {
			return nil, nil, err
		}
	}
	rep.OrderingTime = time.Since(t)

	x, err := runFormat(rep, pa, pb, opts, v)
	rep.Launches = dev.Launches() - launches
	rep.DeviceBytes = dev.MemoryStats().Peak - basePeak
	rep.TotalTime = time.Since(start)
	if x == nil {
		return nil, rep, err
	}
	if used != sparse.OrderNatural {
		y, perr := sparse.InversePermuteVec(x, perm)
		if perr != nil {
			return nil, rep, perr
		}
		x = y
	}
	return x, rep, err
}

func runFormat(rep *Report, a *sparse.COO, b []float64, opts Options, v Variant) ([]float64, error) {
	n := a.Rows
	t := time.Now()
	bd, err := afarray.FromFloat64s(b)
	if err != nil {
		return nil, err
	}
	defer bd.Release()
	var x *afarray.Array
	switch rep.Format {
	case FormatDense:
		d, cerr := a.ToDense()
		if cerr != nil {
			return nil, cerr
		}
		ad, cerr := afarray.FromDense(d)
		if cerr != nil {
			return nil, cerr
		}
		defer ad.Release()
		rep.ThesisMemory = sparse.ThesisMemoryDense(n)
		rep.UploadTime = time.Since(t)
		t = time.Now()
		switch rep.Method {
		case MethodGaussJordan:
			x, err = GaussJordan(ad, bd, v)
			rep.FactorizeTime = time.Since(t)
		case MethodCholesky, MethodLDLT:
			var f interface {
				FactorizeInPlace(*afarray.Array, Variant) error
				Solve(*afarray.Array) (*afarray.Array, error)
				Release()
			}
			if rep.Method == MethodCholesky {
				f = &DenseCholesky{}
			} else {
				f = &DenseLDLT{}
			}
			defer f.Release()
			if err = f.FactorizeInPlace(ad, v); err != nil {
				return nil, err
			}
			if err = ad.Sync(); err != nil {
				return nil, err
			}
			rep.FactorizeTime = time.Since(t)
			t = time.Now()
			x, err = f.Solve(bd)
			if err == nil {
				err = x.Sync()
			}
			rep.SolveTime = time.Since(t)
		case MethodCG:
			var op *DenseOperator
			if op, err = NewDenseOperator(ad, v); err != nil {
				return nil, err
			}
			x, err = runCG(rep, op, bd, opts, v)
		}
	case FormatCSC:
		h, cerr := sparse.CSCFromCOO(a)
		if cerr != nil {
			return nil, cerr
		}
		m, cerr := afarray.UploadCSC(h)
		if cerr != nil {
			return nil, cerr
		}
		defer m.Release()
		rep.UploadTime = time.Since(t)
		t = time.Now()
		switch rep.Method {
		case MethodCholesky, MethodLDLT:
			var f sparseFactorization
			var factorize func() error
			if rep.Method == MethodCholesky {
				c := &CSCCholesky{}
				f, factorize = c, func() error { return c.Factorize(m, v) }
			} else {
				c := &CSCLDLT{}
				f, factorize = c, func() error { return c.Factorize(m, v) }
			}
			var stats SparseStats
			x, stats, err = factorAndSolve(rep, f, factorize, bd)
			if x == nil {
				return nil, err
			}
			rep.SymbolicTime = stats.SymbolicTime
			rep.ThesisMemory = sparse.ThesisMemoryCSC(n, stats.FactorLen)
		case MethodCG:
			rep.ThesisMemory = sparse.ThesisMemoryCSC(n, h.Len())
			var op *CSCOperator
			if op, err = NewCSCOperator(m, v); err != nil {
				return nil, err
			}
			defer op.Release()
			x, err = runCG(rep, op, bd, opts, v)
		}
	case FormatSKS:
		h, cerr := sparse.SKSFromCOO(a)
		if cerr != nil {
			return nil, cerr
		}
		m, cerr := afarray.UploadSKS(h)
		if cerr != nil {
			return nil, cerr
		}
		defer m.Release()
		rep.UploadTime = time.Since(t)
		rep.ThesisMemory = sparse.ThesisMemorySKS(n, h.Len())
		t = time.Now()
		switch rep.Method {
		case MethodCholesky, MethodLDLT:
			// In place, as the thesis: the upload above is the run's own copy.
			var f sparseFactorization
			var factorize func() error
			if rep.Method == MethodCholesky {
				c := &SKSCholesky{}
				f, factorize = c, func() error { return c.FactorizeInPlace(m, v) }
			} else {
				c := &SKSLDLT{}
				f, factorize = c, func() error { return c.FactorizeInPlace(m, v) }
			}
			x, _, err = factorAndSolve(rep, f, factorize, bd)
			if x == nil {
				return nil, err
			}
		case MethodCG:
			var op *SKSOperator
			if op, err = NewSKSOperator(m, v); err != nil {
				return nil, err
			}
			defer op.Release()
			x, err = runCG(rep, op, bd, opts, v)
		}
	}
	if x == nil {
		return nil, err
	}
	defer x.Release()
	xs, rerr := x.Float64s()
	if rerr != nil {
		return nil, rerr
	}
	for i, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &NonFiniteError{Where: "solution", Index: i}
		}
	}
	return xs, err
}

// sparseFactorization is what Run needs of the CSC and SKS factorization
// types once they are factored.
type sparseFactorization interface {
	Solve(b *afarray.Array) (*afarray.Array, error)
	Stats() SparseStats
	Release()
}

// factorAndSolve runs factorize, then one solve with f, recording the
// factorization and solve times in rep. The factor is released on return.
func factorAndSolve(rep *Report, f sparseFactorization, factorize func() error, b *afarray.Array) (*afarray.Array, SparseStats, error) {
	defer f.Release()
	if err := factorize(); err != nil {
		return nil, f.Stats(), err
	}
	stats := f.Stats()
	rep.FactorizeTime = stats.FactorTime
	t := time.Now()
	x, err := f.Solve(b)
	if err == nil {
		err = x.Sync()
	}
	rep.SolveTime = time.Since(t)
	return x, stats, err
}

func runCG(rep *Report, op Operator, b *afarray.Array, opts Options, v Variant) (*afarray.Array, error) {
	t := time.Now()
	x, res, err := CG(op, b, CGOptions{Variant: v, Tol: opts.Tol, MaxIter: opts.MaxIter, Jacobi: opts.Jacobi})
	rep.SolveTime = time.Since(t)
	if res != nil {
		rep.Iterations, rep.Residual, rep.History = res.Iterations, res.Residual, res.History
	}
	return x, err
}
