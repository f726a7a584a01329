package solver

import (
	"fmt"
	"math"

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
	// Fast, ||r|| for Thesis (the recurrence residual, not b - Ax).
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
// end.
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
	return cgFast(a, b, opts)
}

// cgIterate is CG as the iterative driver calls it (names.go registers it
// as the iteration of MethodCG).
func cgIterate(op Operator, b *afarray.Array, o Options, v Variant) (*afarray.Array, *CGResult, error) {
	return CG(op, b, CGOptions{Variant: v, Tol: o.Tol, MaxIter: o.MaxIter, Jacobi: o.Jacobi})
}

// CGDense runs CG on the dense matrix a through a DenseOperator of
// opts.Variant.
func CGDense(a, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	op, err := NewDenseOperator(a, opts.Variant)
	if err != nil {
		return nil, nil, err
	}
	return CG(op, b, opts)
}

// CGCSC runs CG on m through a CSCOperator of opts.Variant.
func CGCSC(m *afarray.CSC, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	op, err := NewCSCOperator(m, opts.Variant)
	if err != nil {
		return nil, nil, err
	}
	defer op.Release()
	return CG(op, b, opts)
}

// CGSKS runs CG on m through an SKSOperator of opts.Variant.
func CGSKS(m *afarray.SKS, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	op, err := NewSKSOperator(m, opts.Variant)
	if err != nil {
		return nil, nil, err
	}
	defer op.Release()
	return CG(op, b, opts)
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

func releaseArrays(arrays ...*afarray.Array) {
	for _, a := range arrays {
		a.Release()
	}
}

func bufferOf(a *afarray.Array) *kernels.Buffer {
	b, _ := a.DeviceBuffer() // the arrays are the solver's own, alive
	return b
}

// cgFast runs the fused preconditioned CG.
func cgFast(op Operator, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	n := op.N()
	dev := b.Device()
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-8
	}
	maxIter := opts.MaxIter
	if maxIter == 0 {
		maxIter = 10 * n
	}
	every := opts.CheckEvery
	if every == 0 {
		every = 10
	}
	start := dev.Launches()

	// Which product: a fused one for this package's fast sparse operators.
	// A dense product reads n² values against the 6n of the vector work,
	// so fusing buys nothing there: DenseOperator takes the generic path
	// with afarray.Gemv.
	var rp *rowProduct
	switch o := op.(type) {
	case *CSCOperator:
		if o.v == Fast {
			rp = &o.p
		}
	case *SKSOperator:
		if o.v == Fast {
			rp = &o.p
		}
	}
	if rp != nil && rp.val == nil {
		return nil, nil, fmt.Errorf("%w: CG: operator", ErrReleased)
	}

	vecs, err := cgVectors(b, n, 6)
	if err != nil {
		return nil, nil, err
	}
	x, r, q, p0, p1, dinvA := vecs[0], vecs[1], vecs[2], vecs[3], vecs[4], vecs[5]
	defer releaseArrays(r, q, p0, p1, dinvA)
	z := r
	fail := func(err error) (*afarray.Array, *CGResult, error) {
		x.Release()
		if z != r {
			z.Release()
		}
		return nil, nil, err
	}
	st, err := newStatus(dev)
	if err != nil {
		return fail(err)
	}
	defer st.release()
	bb := bufferOf(b)
	if err := st.checkFinite(dev, bb, n, statusRHS); err != nil {
		return fail(err)
	}
	jacobi := 0
	if opts.Jacobi {
		d, ok := op.(Diagonaler)
		if !ok {
			return fail(fmt.Errorf("solver: CG: Jacobi preconditioning needs an operator with DiagonalTo (a %T has none)", op))
		}
		if err := d.DiagonalTo(q); err != nil {
			return fail(err)
		}
		k, err := cgProgram.Kernel(dev, "invert_diagonal")
		if err != nil {
			return fail(err)
		}
		if err := k.Launch([]int{groupsFor(n, cgLocal) * cgLocal}, []int{cgLocal}, n, bufferOf(q), bufferOf(dinvA), st.flags); err != nil {
			return fail(err)
		}
		f, err := st.read()
		if err != nil {
			return fail(err)
		}
		if found(f[statusPivot]) {
			return fail(&NotPositiveDefiniteError{Column: int(f[statusPivot]), Pivot: math.NaN()})
		}
		if z, err = afarray.Zeros(n); err != nil {
			z = r
			return fail(err)
		}
		jacobi = 1
	}
	defer func() {
		if z != r {
			z.Release()
		}
	}()

	// Device state: partials of p'q (P1) and of r'z, r'r (2 x P2), the
	// histories and the done flag.
	kInit, err := cgProgram.Kernel(dev, "cg_init")
	if err != nil {
		return fail(err)
	}
	kStep, err := cgProgram.Kernel(dev, "cg_step")
	if err != nil {
		return fail(err)
	}
	kUpd, err := cgProgram.Kernel(dev, "cg_update")
	if err != nil {
		return fail(err)
	}
	kDot, err := cgProgram.Kernel(dev, "cg_dot")
	if err != nil {
		return fail(err)
	}
	local := pow2Below(min(cgLocal, kInit.MaxWorkGroupSize(), kStep.MaxWorkGroupSize(), kUpd.MaxWorkGroupSize(), kDot.MaxWorkGroupSize()))
	P2 := groupsFor(n, local)
	P1 := P2
	team := 1
	if rp != nil {
		team = min(rp.team, local)
		P1 = groupsFor(n, local/team)
	}
	bufs := make([]*kernels.Buffer, 0, 5)
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	alloc := func(bytes int) (*kernels.Buffer, error) {
		b, err := dev.Alloc(int64(bytes))
		if err == nil {
			bufs = append(bufs, b)
		}
		return b, err
	}
	part1, err := alloc(8 * P1)
	if err != nil {
		return fail(err)
	}
	part2, err := alloc(16 * P2)
	if err != nil {
		return fail(err)
	}
	rzh, err := alloc(8 * (maxIter + 1))
	if err != nil {
		return fail(err)
	}
	rrh, err := alloc(8 * (maxIter + 1))
	if err != nil {
		return fail(err)
	}
	done, err := alloc(4)
	if err != nil {
		return fail(err)
	}
	if err := done.Fill([]byte{0xff, 0xff, 0xff, 0xff}, 0, 4); err != nil { // -1
		return fail(err)
	}
	lm := kernels.Local(8 * local)
	xb, rb, zb, qb, db := bufferOf(x), bufferOf(r), bufferOf(z), bufferOf(q), bufferOf(dinvA)
	pb := [2]*kernels.Buffer{bufferOf(p0), bufferOf(p1)}
	if err := kInit.Launch([]int{P2 * local}, []int{local}, n, jacobi, bb, db, xb, rb, zb, part2, lm); err != nil {
		return fail(err)
	}
	tol2 := tol * tol
	fmtArg, le := -1, 0
	var matArgs []any
	if rp != nil {
		fmtArg, le, matArgs = rp.fmt, rp.le, rp.args()
	} else {
		matArgs = []any{xb, done, done, done, done, done} // unused
	}
	step := func(it, checkOnly int) error {
		args := []any{fmtArg, n, le, it, checkOnly, P2, part2, rzh, rrh, done, tol2}
		args = append(args, matArgs...)
		args = append(args, zb, pb[it%2], pb[(it+1)%2], qb, part1, team, lm)
		groups := P1
		if rp == nil {
			groups = P2
		}
		return kStep.Launch([]int{groups * local}, []int{local}, args...)
	}
	readDone := func() (int, error) {
		d := []int32{0}
		err := done.Read(0, d)
		return int(d[0]), err
	}
	stopped := -1
	it := 0
	for ; it < maxIter; it++ {
		if err := step(it, 0); err != nil {
			return fail(err)
		}
		pnew := [2]*afarray.Array{p0, p1}[(it+1)%2]
		if rp == nil {
			if err := op.MulVecTo(q, pnew); err != nil {
				return fail(err)
			}
			if err := kDot.Launch([]int{P1 * local}, []int{local}, n, done, pb[(it+1)%2], qb, part1, lm); err != nil {
				return fail(err)
			}
		}
		if err := kUpd.Launch([]int{P2 * local}, []int{local}, n, it, jacobi, P1, part1, rzh, done, xb, rb, zb, pb[(it+1)%2], qb, db, part2, lm); err != nil {
			return fail(err)
		}
		if (it+1)%every == 0 {
			if stopped, err = readDone(); err != nil {
				return fail(err)
			}
			if stopped >= 0 {
				break
			}
		}
	}
	if stopped < 0 {
		// Test the residual of the last iterate (a launch that only folds
		// the partials and updates the flag and histories).
		if err := step(it, 1); err != nil {
			return fail(err)
		}
		if stopped, err = readDone(); err != nil {
			return fail(err)
		}
	}
	iters := stopped
	if stopped < 0 {
		iters = it
	}
	rr := make([]float64, iters+1)
	if err := rrh.Read(0, rr); err != nil {
		return fail(err)
	}
	if err := st.checkFinite(dev, xb, n, statusOutput); err != nil {
		return fail(err)
	}
	flags, err := st.read()
	if err != nil {
		return fail(err)
	}
	if found(flags[statusRHS]) {
		return fail(&NonFiniteError{Where: "right-hand side", Index: int(flags[statusRHS])})
	}
	res := &CGResult{Iterations: iters, History: make([]float64, len(rr))}
	bnorm := math.Sqrt(rr[0])
	for i, v := range rr {
		if bnorm > 0 {
			res.History[i] = math.Sqrt(v) / bnorm
		} else {
			res.History[i] = math.Sqrt(v)
		}
	}
	res.Residual = res.History[iters]
	res.Launches = dev.Launches() - start
	if math.IsNaN(res.Residual) || math.IsInf(res.Residual, 0) || found(flags[statusOutput]) {
		return fail(&NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: iters})
	}
	res.Converged = stopped >= 0
	if !res.Converged {
		return x, res, &NotConvergedError{Iterations: iters, Residual: res.Residual, Tolerance: tol}
	}
	return x, res, nil
}
