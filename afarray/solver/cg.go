package solver

import (
	"fmt"
	"math"
	"slices"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// CGOptions configures CG. The zero value is the fast variant with its
// defaults.
type CGOptions struct {
	// Variant selects the algorithm (see CG); "" means Fast.
	Variant Variant
	// Tol is the stopping tolerance: on ||r||₂/||b||₂ for Fast, on the
	// absolute ||r||₂ for Thesis, as the thesis did. Zero means 1e-8 (Fast)
	// or 1e-6 (Thesis, the value of the thesis repository's test client).
	Tol float64
	// MaxIter bounds the iterations. Zero means n (Thesis, as in the
	// thesis) or 10n (Fast).
	MaxIter int
	// Jacobi turns on diagonal preconditioning (Fast only; the operator
	// must implement Diagonaler).
	Jacobi bool
	// CheckEvery is how often (in iterations) Fast reads the convergence
	// flag back from the device. Zero means 10. The iteration stops at the
	// exact iteration that converged whatever CheckEvery is; a larger value
	// only queues a few no-op launches more.
	CheckEvery int
}

// CGResult describes a CG run.
type CGResult struct {
	// Iterations is the number of iterations done (search directions
	// used).
	Iterations int
	// Residual is the final residual the variant tests: ||r||/||b|| for
	// Fast (the recurrence residual; b - A x is checked at the end and,
	// when a run cannot meet 10 Tol with it, the *NotConvergedError and
	// Residual carry the true one: cg_check.go), ||r|| for Thesis (the
	// recurrence residual; Run checks b - A x after it).
	Residual float64
	// History holds that residual for iterations 0..Iterations (Fast: from
	// the device histories, read once at the end; Thesis: the norm it reads
	// every iteration).
	History []float64
	// Converged reports Residual <= Tol.
	Converged bool
	// Launches counts the kernel launches of the run.
	Launches int64
}

// CG solves A x = b for a symmetric positive definite operator A by
// conjugate gradients and returns x and the run's description. When the
// iteration limit is reached first it returns x, the result and a
// *NotConvergedError (errors.Is ErrNotConverged). A NaN or Inf in b, or a
// breakdown that makes the residual NaN (for example an indefinite A), is a
// *NonFiniteError.
//
// Thesis variant (§4.4, §4.7, §4.10): the thesis's recurrence exactly,
// x0 = b, a = (rᵀp)/(pᵀz), β = -(rᵀz)/(pᵀz), stop when ||r||₂ <= Tol
// (absolute), at most n iterations, built from separate vector operations
// as the thesis's ArrayFire calls were: about 15 launches per iteration plus
// the operator's product (the thesis variant of an operator from this
// package), with the residual norm read by the host every iteration.
//
// Fast variant: x0 = 0, relative tolerance, optional Jacobi
// preconditioning, two fused launches per iteration for CSCOperator and
// SKSOperator made with Fast (the product and the next search direction in
// one kernel, the vector updates in the other; see cg.cl), and three plus
// the operator's product for any other operator (DenseOperator included:
// there the n² product dominates and fusing gains nothing). Dot
// products and scalars never leave the device; the host reads a 4-byte
// flag every CheckEvery iterations and the residual history once at the
// end. When ||b||∞ lies outside [2^-32, 2^32] it iterates on b scaled by
// a power of two near 1/||b||∞ (exact; a b of 1e-160 or 1e160 would
// underflow or overflow r'r), and on
// convergence checks the true residual b - A x, restarting from it when it
// exceeds 10 Tol (cg_check.go).
func CG(a Operator, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	v, err := normVariant(opts.Variant)
	if err != nil {
		return nil, nil, err
	}
	if a == nil {
		return nil, nil, fmt.Errorf("%w: CG: nil operator", ErrReleased)
	}
	n := a.N()
	if _, err := checkVector(b, b, n, "CG right-hand side"); err != nil {
		return nil, nil, err
	}
	if opts.Tol < 0 || math.IsNaN(opts.Tol) || opts.MaxIter < 0 || opts.CheckEvery < 0 {
		return nil, nil, fmt.Errorf("solver: CG: bad options %+v", opts)
	}
	if v == Thesis {
		if opts.Jacobi {
			return nil, nil, fmt.Errorf("solver: CG: the thesis variant has no preconditioner (Jacobi is a fast-variant option)")
		}
		return cgThesis(a, b, opts)
	}
	return cgFastChecked(a, b, opts)
}

// cgIterate is CG as the iterative driver calls it (names.go registers it
// as the iteration of MethodCG).
func cgIterate(op Operator, b *afarray.Array, o Options, v Variant) (*afarray.Array, *CGResult, error) {
	return CG(op, b, CGOptions{Variant: v, Tol: o.Tol, MaxIter: o.MaxIter, Jacobi: o.Jacobi})
}

// CGDense runs CG on the dense matrix a through a DenseOperator of
// opts.Variant.
func CGDense(a, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	return cgWith(NewDenseOperator(a, opts.Variant))(b, opts)
}

// CGCSC runs CG on m through a CSCOperator of opts.Variant.
func CGCSC(m *afarray.CSC, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	return cgWith(NewCSCOperator(m, opts.Variant))(b, opts)
}

// CGSKS runs CG on m through an SKSOperator of opts.Variant.
func CGSKS(m *afarray.SKS, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	return cgWith(NewSKSOperator(m, opts.Variant))(b, opts)
}

// cgWith runs CG with a new operator and releases it afterwards.
func cgWith(op Operator, err error) func(*afarray.Array, CGOptions) (*afarray.Array, *CGResult, error) {
	return func(b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
		if err != nil {
			return nil, nil, err
		}
		if r, ok := op.(interface{ Release() }); ok {
			defer r.Release()
		}
		return CG(op, b, opts)
	}
}

// cgLocal is the work-group size of the CG kernels.
const cgLocal = 256

// cgVectors allocates count Float64 vectors of n on b's device.
func cgVectors(b *afarray.Array, n, count int) ([]*afarray.Array, error) {
	out := make([]*afarray.Array, 0, count)
	for i := 0; i < count; i++ {
		v, err := afarray.Zeros(n)
		if err == nil && v.Device() != b.Device() {
			v.Release()
			err = fmt.Errorf("%w: CG: the current device is not the right-hand side's", ErrDevice)
		}
		if err != nil {
			for _, v := range out {
				v.Release()
			}
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func bufferOf(a *afarray.Array) *kernels.Buffer {
	b, _ := a.DeviceBuffer() // the arrays are the solver's own, alive
	return b
}

// cgLimits returns the tolerance and iteration limit of a run: opts' own,
// or the variant's defaults.
func cgLimits(opts CGOptions, defTol float64, defMax int) (tol float64, maxIter int) {
	tol, maxIter = opts.Tol, opts.MaxIter
	if tol == 0 {
		tol = defTol
	}
	if maxIter == 0 {
		maxIter = defMax
	}
	return tol, maxIter
}

// cgFastRun is one fused CG solve: its device state and the first error met.
// After an error every phase is a no-op (the way afarray's conversions keep
// theirs), so cgFast reads as its phases in order and checks once.
type cgFastRun struct {
	op             Operator
	rp             *rowProduct // the fused product, nil for the generic path
	n              int
	dev            *kernels.Device
	tol            float64
	maxIter, every int
	jacobi         int

	b, x, r, q, dinvA, z *afarray.Array
	p                    [2]*afarray.Array
	st                   *status
	bufs                 []*kernels.Buffer
	part1, part2         *kernels.Buffer // partial sums of p'q, and of r'z and r'r
	rzh, rrh, done       *kernels.Buffer // histories and the done flag
	kInit, kStep         *kernels.Kernel
	kUpd, kDot           *kernels.Kernel
	local, p1, p2, team  int
	keepX                bool
	err                  error
}

// cgFast runs the fused preconditioned CG.
func cgFast(op Operator, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	c := &cgFastRun{op: op, n: op.N(), dev: b.Device(), b: b, every: opts.CheckEvery}
	c.tol, c.maxIter = cgLimits(opts, 1e-8, 10*c.n)
	if c.every == 0 {
		c.every = 10
	}
	start := c.dev.Launches()
	// Which product: a fused one for this package's fast sparse operators.
	// A dense product reads n² values against the 6n of the vector work,
	// so fusing buys nothing there: DenseOperator takes the generic path
	// with afarray.Gemv.
	if f, ok := op.(interface{ fused() *rowProduct }); ok {
		c.rp = f.fused()
	}
	if c.rp != nil && c.rp.val == nil {
		return nil, nil, fmt.Errorf("%w: CG: operator", ErrReleased)
	}
	defer c.release()
	c.vectors()
	c.precondition(opts.Jacobi)
	c.kernels()
	c.buffers()
	c.init()
	stopped, it := c.iterate()
	res := c.result(stopped, it)
	if c.err != nil {
		return nil, nil, c.err
	}
	trackerOf(c.dev).residual(res.Iterations, c.maxIter, res.Residual, 1, c.tol)
	res.Launches = c.dev.Launches() - start
	c.keepX = true
	if !res.Converged {
		return c.x, res, &NotConvergedError{Iterations: res.Iterations, Residual: res.Residual, Tolerance: c.tol}
	}
	return c.x, res, nil
}

// vectors allocates the iteration's vectors and the status, and checks b.
func (c *cgFastRun) vectors() {
	vecs, err := cgVectors(c.b, c.n, 6)
	if err != nil {
		c.err = err
		return
	}
	c.x, c.r, c.q, c.p[0], c.p[1], c.dinvA = vecs[0], vecs[1], vecs[2], vecs[3], vecs[4], vecs[5]
	c.z = c.r
	if c.st, c.err = newStatus(c.dev); c.err == nil {
		c.err = c.st.checkFinite(c.dev, bufferOf(c.b), c.n, statusRHS)
	}
}

// precondition sets up Jacobi preconditioning: dinvA = 1/diag(A) and a
// separate z. A non-positive diagonal entry is reported at once.
func (c *cgFastRun) precondition(jacobi bool) {
	if c.err != nil || !jacobi {
		return
	}
	d, ok := c.op.(Diagonaler)
	if !ok {
		c.err = fmt.Errorf("solver: CG: Jacobi preconditioning needs an operator with DiagonalTo (a %T has none)", c.op)
		return
	}
	if c.err = d.DiagonalTo(c.q); c.err != nil {
		return
	}
	k, err := cgProgram.Kernel(c.dev, "invert_diagonal")
	if err == nil {
		err = k.Launch([]int{groupsFor(c.n, cgLocal) * cgLocal}, []int{cgLocal}, c.n, bufferOf(c.q), bufferOf(c.dinvA), c.st.flags)
	}
	var f [statusSlots]int32
	if err == nil {
		f, err = c.st.read()
	}
	if err == nil && found(f[statusPivot]) {
		err = &NotPositiveDefiniteError{Column: int(f[statusPivot]), Pivot: math.NaN()}
	}
	if err == nil {
		var z *afarray.Array
		if z, err = afarray.Zeros(c.n); err == nil {
			c.z, c.jacobi = z, 1
		}
	}
	c.err = err
}

// kernels finds the four CG kernels and the launch shape: local items per
// group, P2 groups for the vector work, P1 for the product (teams of items
// per row for the fused sparse products).
func (c *cgFastRun) kernels() {
	for _, k := range []struct {
		dst  **kernels.Kernel
		name string
	}{{&c.kInit, "cg_init"}, {&c.kStep, "cg_step"}, {&c.kUpd, "cg_update"}, {&c.kDot, "cg_dot"}} {
		if c.err == nil {
			*k.dst, c.err = cgProgram.Kernel(c.dev, k.name)
		}
	}
	if c.err != nil {
		return
	}
	c.local = pow2Below(min(cgLocal, c.kInit.MaxWorkGroupSize(), c.kStep.MaxWorkGroupSize(), c.kUpd.MaxWorkGroupSize(), c.kDot.MaxWorkGroupSize()))
	c.p2, c.p1, c.team = groupsFor(c.n, c.local), groupsFor(c.n, c.local), 1
	if c.rp != nil {
		c.team = min(c.rp.team, c.local)
		c.p1 = groupsFor(c.n, c.local/c.team)
	}
}

// alloc allocates a device buffer the run releases at the end.
func (c *cgFastRun) alloc(bytes int) *kernels.Buffer {
	if c.err != nil {
		return nil
	}
	b, err := c.dev.Alloc(int64(bytes))
	if err != nil {
		c.err = err
		return nil
	}
	c.bufs = append(c.bufs, b)
	return b
}

// buffers allocates the device state: partials of p'q (P1) and of r'z, r'r
// (2 x P2), the histories and the done flag (-1: not done).
func (c *cgFastRun) buffers() {
	c.part1, c.part2 = c.alloc(8*c.p1), c.alloc(16*c.p2)
	c.rzh, c.rrh = c.alloc(8*(c.maxIter+1)), c.alloc(8*(c.maxIter+1))
	c.done = c.alloc(4)
	if c.err == nil {
		c.err = c.done.Fill([]byte{0xff, 0xff, 0xff, 0xff}, 0, 4)
	}
}

// launch enqueues k over groups groups unless an error came first.
func (c *cgFastRun) launch(k *kernels.Kernel, groups int, args ...any) {
	if c.err == nil {
		c.err = k.Launch([]int{groups * c.local}, []int{c.local}, args...)
	}
}

// init sets x = 0, r = b, z = M⁻¹b and the first partials.
func (c *cgFastRun) init() {
	if c.err == nil {
		c.launch(c.kInit, c.p2, c.n, c.jacobi, bufferOf(c.b), bufferOf(c.dinvA), bufferOf(c.x), bufferOf(c.r), bufferOf(c.z), c.part2, kernels.Local(8*c.local))
	}
}

// step enqueues cg_step for iteration it: fold the partials, test
// convergence, form the next direction and (fused) its product.
func (c *cgFastRun) step(it, checkOnly int) {
	if c.err != nil {
		return
	}
	fmtArg, le, groups := -1, 0, c.p2
	matArgs := []any{bufferOf(c.x), c.done, c.done, c.done, c.done, c.done} // unused by the generic path
	if c.rp != nil {
		fmtArg, le, matArgs, groups = c.rp.fmt, c.rp.le, c.rp.args(), c.p1
	}
	args := slices.Concat([]any{fmtArg, c.n, le, it, checkOnly, c.p2, c.part2, c.rzh, c.rrh, c.done, c.tol * c.tol}, matArgs,
		[]any{bufferOf(c.z), bufferOf(c.p[it%2]), bufferOf(c.p[(it+1)%2]), bufferOf(c.q), c.part1, c.team, kernels.Local(8 * c.local)})
	c.launch(c.kStep, groups, args...)
}

// readDone waits for the device and returns the iteration at which the
// kernels stopped, or -1.
func (c *cgFastRun) readDone() int {
	d := []int32{-1}
	if c.err == nil {
		c.err = c.done.Read(0, d)
	}
	return int(d[0])
}

// iterate runs the iterations, reading the done flag every c.every, and
// returns where the kernels stopped (-1: at the limit) and the iterations
// enqueued.
func (c *cgFastRun) iterate() (stopped, it int) {
	stopped = -1
	prog := cgProgress{tr: trackerOf(c.dev)}
	for ; it < c.maxIter && c.err == nil; it++ {
		c.step(it, 0)
		next := c.p[(it+1)%2]
		if c.rp == nil && c.err == nil {
			c.err = c.op.MulVecTo(c.q, next)
			c.launch(c.kDot, c.p1, c.n, c.done, bufferOf(next), bufferOf(c.q), c.part1, kernels.Local(8*c.local))
		}
		c.launch(c.kUpd, c.p2, c.n, it, c.jacobi, c.p1, c.part1, c.rzh, c.done, bufferOf(c.x), bufferOf(c.r), bufferOf(c.z),
			bufferOf(next), bufferOf(c.q), bufferOf(c.dinvA), c.part2, kernels.Local(8*c.local))
		if (it+1)%c.every == 0 {
			if stopped = c.readDone(); stopped >= 0 {
				return stopped, it
			}
			prog.at(c, it)
		}
	}
	// Test the residual of the last iterate (a launch that only folds the
	// partials and updates the flag and histories).
	c.step(it, 1)
	return c.readDone(), it
}

// result reads the residual history and the status once and describes the
// run; a NaN or Inf in b, x or the residual is an error.
func (c *cgFastRun) result(stopped, it int) *CGResult {
	iters := stopped
	if stopped < 0 {
		iters = it
	}
	rr := make([]float64, iters+1)
	if c.err == nil {
		c.err = c.rrh.Read(0, rr)
	}
	if c.err == nil {
		c.err = c.st.checkFinite(c.dev, bufferOf(c.x), c.n, statusOutput)
	}
	var flags [statusSlots]int32
	if c.err == nil {
		flags, c.err = c.st.read()
	}
	if c.err != nil {
		return nil
	}
	if found(flags[statusRHS]) {
		c.err = &NonFiniteError{Where: "right-hand side", Index: int(flags[statusRHS])}
		return nil
	}
	res := &CGResult{Iterations: iters, History: make([]float64, len(rr)), Converged: stopped >= 0}
	bnorm := math.Sqrt(rr[0])
	for i, v := range rr {
		res.History[i] = math.Sqrt(v)
		if bnorm > 0 {
			res.History[i] /= bnorm
		}
	}
	res.Residual = res.History[iters]
	if math.IsNaN(res.Residual) || math.IsInf(res.Residual, 0) || found(flags[statusOutput]) {
		c.err = &NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: iters}
	}
	return res
}

// release frees the run's device memory, x too unless it is the answer.
func (c *cgFastRun) release() {
	for _, b := range c.bufs {
		b.Release()
	}
	if c.z != c.r && c.z != nil {
		c.z.Release()
	}
	for _, a := range []*afarray.Array{c.r, c.q, c.p[0], c.p[1], c.dinvA} {
		if a != nil {
			a.Release()
		}
	}
	if !c.keepX && c.x != nil {
		c.x.Release()
	}
	c.st.release()
}
