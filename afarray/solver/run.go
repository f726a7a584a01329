package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// Options selects what Run does. Names are case-insensitive.
type Options struct {
	// Method is a registered method (Methods): gj, cholesky, ldlt or cg.
	Method Method
	// Format is a registered format the method works on; "" or "auto"
	// means the method's default (supernodal for the factorizations, csc
	// for cg, dense for gj).
	Format Format
	// Variant is Fast (default), Thesis, or another registered variant.
	Variant Variant
	// Order is the symmetric reordering: a registered ordering
	// (sparse.Orderings: "natural", "rcm", ...), "none" (natural), or "auto",
	// the better of natural and RCM for the format's storage (SKS length for
	// sks, the classic profile otherwise). "" means auto by SKS length for
	// sks and csc, natural for dense.
	Order sparse.Ordering
	// Tol, MaxIter and Jacobi configure CG (see CGOptions).
	Tol     float64
	MaxIter int
	Jacobi  bool
	// Device is where to solve; nil means afarray.CurrentDevice().
	Device *kernels.Device
	// Devices, when it holds more than one device, spreads the solve over
	// them (kernels.SelectDevices reads a list such as "all" or "0,1");
	// only the entries MultiDevice lists can (cg on csc: CGMulti; cholesky
	// and ldlt on supernodal). A nil or repeated device is ErrDevice. The
	// automatic choice (empty Method) keeps to those and runs dense LU on
	// the first device. One device is the same as Device.
	Devices []*kernels.Device
	// Build says where the storage format is built. BuildAuto (the
	// default) builds it on the device when the device is a GPU, so that
	// only the COO's entries cross the bus (afarray.COO.ToCSC, ToSKS), and
	// on the host for a CPU device, where there is no bus to spare and the
	// host's sequential build is faster than the device's. BuildHost and
	// BuildDevice force either (tests, comparisons).
	Build Build
	// Progress, when set, is called on Run's goroutine as the solve moves:
	// at each phase and whenever its work moves by a whole percent (see
	// Progress; Current polls the same from another goroutine). It must
	// return quickly: the solve waits for it.
	Progress func(Progress)
	// Prepared is Prepare's result for the same matrix, right-hand side
	// and options: Run skips the checks and the ordering it did. One made
	// for anything else is ignored.
	Prepared *Prepared
}

// Build says where Run builds the storage format.
type Build int

const (
	BuildAuto   Build = iota // device on GPUs, host on CPU devices
	BuildHost                // host-built and uploaded, the thesis's way
	BuildDevice              // entries uploaded, format built on the device
)

// Report describes one Run: what ran, where the time went, memory, and CG's
// iterations.
type Report struct {
	Method   Method
	Format   Format
	Variant  Variant
	Ordering sparse.Ordering // the ordering actually used: natural or rcm
	// N is the order of A; NNZ its entries in the lower triangle, diagonal
	// included, and NNZFull in the whole matrix, the same counts for every
	// input kind (a symmetric file stores one triangle, an OpenFEM set
	// both).
	N, NNZ, NNZFull int
	// Choice says, when Options.Method was empty, which method the matrix
	// got and why.
	Choice string

	// The time split, whose parts add up to TotalTime, the wall time of
	// Run: Ordering (choosing and applying the permutation on the host),
	// Upload (the COO's entries and b crossing the bus; with HostBuild, also
	// building the format on the host), Convert (building the format on the
	// device), Compile (programs built or loaded from the disk cache on
	// their first use, taken out of the phase that needed them), Symbolic
	// (the CSC symbolic factorization, which the thesis left out of its
	// timings), Factorize, Solve (the triangular solves, or all of CG),
	// Download (x back to the host) and Other (validation and bookkeeping).
	UploadTime, OrderingTime, SymbolicTime, FactorizeTime, SolveTime, TotalTime time.Duration
	ConvertTime, CompileTime, DownloadTime, OtherTime                           time.Duration

	// DeviceBytes is the peak device memory during the run, measured by
	// the device's account; ThesisMemory is the thesis's formula for the
	// format in bytes (dense 8n(n+1), CSC 4(3le+2n) with le the length of L
	// for the factorizations and of A for CG, SKS 4(2le+3n)).
	DeviceBytes  int64
	ThesisMemory float64

	// BackwardError is the normwise backward error of the returned x,
	// ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞), measured on the host.
	BackwardError float64

	Iterations int       // CG only
	Residual   float64   // CG only: the residual it tested
	History    []float64 // CG only
	Launches   int64     // kernels enqueued

	// Shares describes each device's part of a multi-device run (nil on
	// one device); DeviceBytes is then the sum of their peaks.
	Shares []DeviceShare
	// Stats are the figures the entry that ran adds beyond the common ones,
	// in its order (the supernodal factorizations: nnz_l, flops,
	// supernodes, levels); Stat finds one by key.
	Stats []Stat
}

// Run solves A x = b with the method, format, variant and ordering named
// in opts, timing each phase, and returns x in the original numbering. A is
// a square COO matrix, one triangle (Symmetric) or both. Errors are typed:
// *NotPositiveDefiniteError and *ZeroPivotError (their Column 0-based in
// A's own numbering, whatever the ordering), *NotConvergedError and
// *InaccurateError (x and the report are still returned: CG stopped at its
// limit, or a direct method's backward error exceeds MaxBackwardError),
// *NonFiniteError, *sparse.StructureError (an empty row or column; for
// Cholesky a missing or non-positive diagonal entry, refused before any
// work), an error matching sparse.ErrNotSymmetric for a non-symmetric A
// given to Cholesky, LDLᵀ or CG (in any format), ErrShape, ErrUnknown.
//
// A nil b means ones (Ones). An empty opts.Method means the best method for
// A (see Solve); Format and Variant are then ignored.
func Run(a *sparse.COO, b []float64, opts Options) ([]float64, *Report, error) {
	start := time.Now()
	if a == nil {
		return nil, nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	var e *entry
	var err error
	var pre *Prepared
	if opts.Prepared != nil && opts.Method != "" {
		if e, err = lookup(opts.Method, opts.Format, opts.Variant); err == nil {
			pre = preparedFor(opts, a, b, e)
		}
	}
	if pre != nil {
		// The checks and the ordering were done ahead (Prepare): their
		// time counts in this Run's total.
		start = start.Add(-pre.took)
		b = pre.b
	} else {
		// O(nnz), before anything of the order is allocated (ones included).
		if err := a.CheckStructure(); err != nil {
			return nil, nil, err
		}
		if b == nil {
			b = Ones(a.Rows)
		}
		if opts.Method == "" {
			return runAuto(a, b, opts)
		}
		if e, err = lookup(opts.Method, opts.Format, opts.Variant); err != nil {
			return nil, nil, err
		}
		if err := checkSystem(a, b); err != nil {
			return nil, nil, err
		}
		if err := checkMethodInput(a, e.method); err != nil {
			return nil, nil, err
		}
	}
	if len(opts.Devices) > 1 {
		x, rep, err := runMulti(a, b, e, opts, start)
		recordTotals(rep)
		return x, rep, err
	}
	dev := opts.Device
	if dev == nil && len(opts.Devices) == 1 {
		dev = opts.Devices[0]
	}
	if dev == nil {
		if dev, err = afarray.CurrentDevice(); err != nil {
			return nil, nil, err
		}
	}
	prev, _ := afarray.CurrentDevice()
	afarray.SetDevice(dev)
	defer afarray.SetDevice(prev)

	rep := &Report{Method: e.method, Format: e.format, Variant: e.variant, N: a.Rows}
	if pre != nil {
		rep.NNZ, rep.NNZFull = pre.nnz[0], pre.nnz[1]
	} else {
		rep.NNZ, rep.NNZFull = a.NNZLower(), a.NNZFull()
	}
	launches := dev.Launches()
	dev.ResetPeak()
	basePeak := dev.MemoryStats().Live

	tr, untrack := startTracking(dev, opts.Progress)
	defer untrack()
	clk := &phaseClock{dev: dev, rep: rep, tr: tr}
	var perm []int
	var pa *sparse.COO
	var pb []float64
	if pre != nil {
		perm, pa, pb, rep.Ordering, rep.OrderingTime = pre.perm, pre.pa, pre.pb, pre.used, pre.order0
	} else {
		tr.phase("ordering")
		clk.start()
		if perm, pa, pb, err = reorder(a, b, opts.Order, formatSpecOf(e.format), rep); err != nil {
			return nil, nil, err
		}
		clk.stop(&rep.OrderingTime)
	}

	x, err := runEntry(rep, clk, e, pa, pb, opts)
	rep.Launches = dev.Launches() - launches
	rep.DeviceBytes = dev.MemoryStats().Peak - basePeak
	if x != nil && perm != nil {
		clk.start()
		y, perr := sparse.InversePermuteVec(x, perm)
		clk.stop(&rep.OrderingTime)
		if perr != nil {
			x, err = nil, perr
		} else {
			x = y
		}
	}
	originalColumn(err, perm)
	if x != nil {
		tr.phase("check")
		rep.BackwardError = BackwardError(a, x, b)
		if err == nil && methodSpecOf(e.method).iterate == nil && !(rep.BackwardError <= MaxBackwardError) {
			// A direct method's answer is checked, never returned silently
			// wrong (LDLᵀ without pivoting on a nearly singular matrix).
			err = &InaccurateError{Method: e.method, BackwardError: rep.BackwardError}
		}
		if err == nil && methodSpecOf(e.method).iterate != nil {
			err = runCheckTrue(a, x, b, e.variant, opts, rep.Iterations)
		}
	}
	rep.TotalTime = time.Since(start)
	rep.OtherTime = rep.TotalTime - rep.OrderingTime - rep.UploadTime - rep.ConvertTime - rep.CompileTime -
		rep.SymbolicTime - rep.FactorizeTime - rep.SolveTime - rep.DownloadTime
	recordTotals(rep)
	if x == nil {
		return nil, rep, err
	}
	return x, rep, err
}

// originalColumn maps the column of a pivot failure (or of a NaN or Inf met
// in the factor) from the reordered system back to the caller's numbering.
func originalColumn(err error, perm []int) {
	if err == nil || perm == nil {
		return
	}
	var npd *NotPositiveDefiniteError
	var zp *ZeroPivotError
	var nf *NonFiniteError
	switch {
	case errors.As(err, &npd) && npd.Column >= 0 && npd.Column < len(perm):
		npd.Column = perm[npd.Column]
	case errors.As(err, &zp) && zp.Column >= 0 && zp.Column < len(perm):
		zp.Column = perm[zp.Column]
	case errors.As(err, &nf) && nf.Where == "factor" && nf.Index >= 0 && nf.Index < len(perm):
		// A factorization's NaN or Inf names the column it appeared in.
		nf.Index = perm[nf.Index]
	}
}

// checkMethodInput refuses, in O(nnz) before anything of the matrix's
// order is allocated, what the method cannot solve: a matrix with an empty
// row or column (a header declaring an order of billions with a handful of
// entries is one), a non-symmetric matrix for the symmetric methods in any
// format (the dense ones would otherwise read one triangle and answer a
// different system), a missing or non-positive diagonal for Cholesky.
func checkMethodInput(a *sparse.COO, m Method) error {
	// Run has checked the structure (CheckStructure) before calling this.
	switch m {
	case MethodCholesky, MethodLDLT, MethodCG:
		if !a.Symmetric {
			if _, err := a.Lower(); err != nil {
				return fmt.Errorf("solver: %s needs a symmetric matrix: %w", m, err)
			}
		}
	}
	if m == MethodCholesky {
		return a.CheckDiagonal()
	}
	return nil
}

// BackwardError returns the normwise backward error of x as a solution of
// A x = b, ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞), computed on the host in
// O(nnz). A may store one triangle (Symmetric) or the whole matrix.
func BackwardError(a *sparse.COO, x, b []float64) float64 {
	n := a.Rows
	if a.Cols != n || len(x) != n || len(b) != n || len(a.I) != len(a.V) || len(a.J) != len(a.V) {
		return math.Inf(1)
	}
	// The entries are split among the cores, each with its own residual
	// and row sums (a symmetric entry updates two rows), added up after,
	// range by range on every core. Each worker checks its indices before
	// using them: a panic in one of them could not be recovered by the
	// caller.
	m := len(a.V)
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<17), 16))
	rs, sums := make([][]float64, workers), make([][]float64, workers)
	bad := make([]bool, workers)
	forEachBlock(workers, func(w int) {
		lo, hi := m*w/workers, m*(w+1)/workers
		for k := lo; k < hi; k++ {
			if i, j := a.I[k], a.J[k]; i < 0 || int(i) >= n || j < 0 || int(j) >= n {
				bad[w] = true
				return
			}
		}
		r, rowAbs := make([]float64, n), make([]float64, n)
		for k := lo; k < hi; k++ {
			i, j, v := a.I[k], a.J[k], a.V[k]
			r[i] -= v * x[j]
			rowAbs[i] += math.Abs(v)
			if a.Symmetric && i != j {
				r[j] -= v * x[i]
				rowAbs[j] += math.Abs(v)
			}
		}
		rs[w], sums[w] = r, rowAbs
	})
	for _, b := range bad {
		if b {
			return math.Inf(1)
		}
	}
	ranges := max(1, min(runtime.GOMAXPROCS(0)*4, n/4096))
	norms := make([][4]float64, ranges) // ||r||∞, ||A||∞, ||x||∞, ||b||∞ of each range
	forEachBlock(ranges, func(r int) {
		var nr [4]float64
		for i := n * r / ranges; i < n*(r+1)/ranges; i++ {
			ri, ai := b[i], 0.0
			for w := range rs {
				ri += rs[w][i]
				ai += sums[w][i]
			}
			nr[0] = math.Max(nr[0], math.Abs(ri))
			nr[1] = math.Max(nr[1], ai)
			nr[2] = math.Max(nr[2], math.Abs(x[i]))
			nr[3] = math.Max(nr[3], math.Abs(b[i]))
		}
		norms[r] = nr
	})
	var rInf, aInf, xInf, bInf float64
	for _, nr := range norms {
		rInf, aInf = math.Max(rInf, nr[0]), math.Max(aInf, nr[1])
		xInf, bInf = math.Max(xInf, nr[2]), math.Max(bInf, nr[3])
	}
	d := aInf*xInf + bInf
	if d == 0 {
		return 0
	}
	return rInf / d
}

// phaseClock times the phases of a Run and moves the time spent building
// programs (their first use on the device) out of each phase into
// Report.CompileTime, so that every part of the split is what it says.
type phaseClock struct {
	dev   *kernels.Device
	rep   *Report
	tr    *tracker // the Run's progress (nil-safe)
	t     time.Time
	build time.Duration
}

func (c *phaseClock) start() { c.t, c.build = time.Now(), c.dev.CompileTime() }

// stop adds the time since start, less compilation, to *phase, and
// returns what it added.
func (c *phaseClock) stop(phase *time.Duration) time.Duration {
	el, bt := time.Since(c.t), c.dev.CompileTime()-c.build
	c.rep.CompileTime += bt
	*phase += el - bt
	return el - bt
}

// checkSystem validates A and b before anything is uploaded.
func checkSystem(a *sparse.COO, b []float64) error {
	if err := a.Validate(); err != nil {
		return err
	}
	n := a.Rows
	if a.Cols != n {
		return fmt.Errorf("%w: matrix is %dx%d, not square", ErrShape, a.Rows, a.Cols)
	}
	if len(b) != n {
		return fmt.Errorf("%w: right-hand side has %d entries, the matrix has order %d", ErrShape, len(b), n)
	}
	// Validate has refused NaN and Inf in A.
	if i := firstNonFinite(b); i >= 0 {
		return &NonFiniteError{Where: "right-hand side", Index: i}
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or Inf in v, or -1.
func firstNonFinite(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

// reorder resolves the ordering for the format ("" and "auto" mean what
// the format's spec says), records the one used in rep, and returns the
// permutation (nil for the natural order) and the permuted system.
func reorder(a *sparse.COO, b []float64, order sparse.Ordering, f *formatSpec, rep *Report) ([]int, *sparse.COO, []float64, error) {
	if f.orderFree {
		// Dense storage holds all n² entries whatever the numbering: an
		// ordering would cost time (RCM over a dense graph) and save none.
		if _, err := sparse.ParseOrdering(string(order)); order != "" && err != nil {
			return nil, nil, nil, err
		}
		rep.Ordering = sparse.OrderNatural
		return nil, a, b, nil
	}
	if order == "" {
		order = f.defaultOrder
	} else {
		var err error
		if order, err = sparse.ParseOrdering(string(order)); err != nil {
			return nil, nil, nil, err
		}
		if order == sparse.OrderAuto {
			order = f.autoOrder
		}
	}
	perm, used, err := sparse.Order(a, order)
	if err != nil {
		return nil, nil, nil, err
	}
	rep.Ordering = used
	if used == sparse.OrderNatural {
		return nil, a, b, nil
	}
	pa, err := a.Permute(perm)
	if err != nil {
		return nil, nil, nil, err
	}
	pb, err := sparse.PermuteVec(b, perm)
	if err != nil {
		return nil, nil, nil, err
	}
	return perm, pa, pb, nil
}

// runEntry builds the format on the device, runs the entry's driver and
// downloads x, checked for NaN and Inf.
func runEntry(rep *Report, clk *phaseClock, e *entry, a *sparse.COO, b []float64, opts Options) ([]float64, error) {
	f := formatSpecOf(e.format)
	clk.tr.phase("upload")
	clk.start()
	bd, err := afarray.FromFloat64s(b)
	if err != nil {
		return nil, err
	}
	defer bd.Release()
	var m any
	var le int
	var release func()
	onDevice := opts.Build == BuildDevice || (opts.Build == BuildAuto && strings.Contains(strings.ToUpper(clk.dev.Info().Type), "GPU"))
	if f.convert != nil && onDevice {
		// Only the entries cross the bus; the format is built where it
		// is used.
		da, err := afarray.UploadCOO(a)
		if err != nil {
			return nil, err
		}
		if err = clk.dev.Finish(); err != nil {
			da.Release()
			return nil, err
		}
		clk.stop(&rep.UploadTime)
		clk.tr.phase("convert")
		clk.start()
		m, le, release, err = f.convert(da)
		da.Release()
		if err != nil {
			return nil, err
		}
		if err = clk.dev.Finish(); err != nil {
			release()
			return nil, err
		}
		clk.stop(&rep.ConvertTime)
	} else {
		if m, le, release, err = f.upload(a); err != nil {
			return nil, err
		}
		if err = clk.dev.Finish(); err != nil {
			release()
			return nil, err
		}
		clk.stop(&rep.UploadTime)
	}
	defer release()
	var x *afarray.Array
	switch {
	case e.newFactor != nil:
		x, le, err = runDirect(rep, clk, e, m, le, bd)
	case e.newOperator != nil:
		x, err = runIterative(rep, clk, e, m, bd, opts)
	default:
		clk.tr.phase("factorize")
		clk.start()
		x, err = e.solveOnce(m, bd, e.variant)
		if err == nil {
			err = x.Sync()
		}
		clk.stop(&rep.FactorizeTime)
	}
	rep.ThesisMemory = f.thesisMemory(a.Rows, le)
	if x == nil {
		return nil, err
	}
	defer x.Release()
	clk.tr.phase("download")
	clk.start()
	xs, rerr := x.Float64s()
	clk.stop(&rep.DownloadTime)
	if rerr != nil {
		return nil, rerr
	}
	if i := firstNonFinite(xs); i >= 0 {
		return nil, &NonFiniteError{Where: "solution", Index: i}
	}
	return xs, err
}

// runDirect is the one driver of the direct factorizations: factor the
// run's own device matrix, solve once, record the phases' times (the
// symbolic phase from the factor's Stats, the rest of the factorization
// call as Factorize), release. It returns the factor's stored length.
func runDirect(rep *Report, clk *phaseClock, e *entry, m any, le int, b *afarray.Array) (*afarray.Array, int, error) {
	f := e.newFactor()
	defer f.Release()
	clk.tr.phase("factorize")
	clk.start()
	err := f.factorizeOwned(m, e.variant)
	st := f.Stats()
	var fac time.Duration
	clk.stop(&fac)
	rep.SymbolicTime = min(st.SymbolicTime, fac)
	rep.FactorizeTime = fac - rep.SymbolicTime
	rep.Stats = statsOf(f)
	if st.FactorLen > 0 {
		le = st.FactorLen
	}
	if err != nil {
		return nil, le, err
	}
	clk.tr.phase("solve")
	clk.start()
	x, err := f.Solve(b)
	if err == nil {
		err = x.Sync()
	}
	clk.stop(&rep.SolveTime)
	return x, le, err
}

// runIterative is the one driver of the iterative methods: wrap the device
// matrix as the entry's operator and run the method's iteration.
func runIterative(rep *Report, clk *phaseClock, e *entry, m any, b *afarray.Array, opts Options) (*afarray.Array, error) {
	clk.tr.phase("solve")
	clk.start()
	op, err := e.newOperator(m, e.variant)
	if err != nil {
		return nil, err
	}
	if r, ok := op.(interface{ Release() }); ok {
		defer r.Release()
	}
	rep.Stats = statsOf(op)
	x, res, err := methodSpecOf(e.method).iterate(op, b, opts, e.variant)
	if err == nil && x != nil {
		err = x.Sync()
	}
	clk.stop(&rep.SolveTime)
	if res != nil {
		rep.Iterations, rep.Residual, rep.History = res.Iterations, res.Residual, res.History
	}
	return x, err
}
