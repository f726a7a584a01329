package solver

import (
	"math"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// cgThesis is the thesis's SEL_gc recurrence (§4.4) with every vector
// operation its own launch, like the ArrayFire calls it was made of: dot
// products as afarray.DotArray (1x1 device results, two launches each),
// af_div, af_mul and af_add/af_sub as single small kernels, and the
// residual norm read by the host every iteration.
func cgThesis(op Operator, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	n := op.N()
	dev := b.Device()
	tol, maxIter := cgLimits(opts, 1e-6, n)
	start := dev.Launches()
	kDiv, err := cgProgram.Kernel(dev, "thesis_div")
	if err != nil {
		return nil, nil, err
	}
	kScale, err := cgProgram.Kernel(dev, "thesis_scale")
	if err != nil {
		return nil, nil, err
	}
	kAdd, err := cgProgram.Kernel(dev, "thesis_add")
	if err != nil {
		return nil, nil, err
	}
	local := min(cgLocal, kScale.MaxWorkGroupSize(), kAdd.MaxWorkGroupSize())
	g := []int{kernels.RoundUp(n, local)}
	l := []int{local}

	st, err := newStatus(dev)
	if err != nil {
		return nil, nil, err
	}
	defer st.release()
	if err := st.checkFinite(dev, bufferOf(b), n, statusRHS); err != nil {
		return nil, nil, err
	}
	x, err := b.Copy() // x0 = b
	if err != nil {
		return nil, nil, err
	}
	vecs, err := cgVectors(b, n, 4)
	if err != nil {
		x.Release()
		return nil, nil, err
	}
	r, p, z, tmp := vecs[0], vecs[1], vecs[2], vecs[3]
	defer releaseArrays(r, p, z, tmp)
	alpha, err := afarray.Zeros(1)
	if err != nil {
		x.Release()
		return nil, nil, err
	}
	defer alpha.Release()
	beta, err := afarray.Zeros(1)
	if err != nil {
		x.Release()
		return nil, nil, err
	}
	defer beta.Release()
	fail := func(err error) (*afarray.Array, *CGResult, error) {
		x.Release()
		return nil, nil, err
	}
	buf := bufferOf
	// out = x + sign*y
	add := func(out, x, y *afarray.Array, sign int) error {
		return kAdd.Launch(g, l, n, buf(out), buf(x), buf(y), sign)
	}
	// out = s * x
	scale := func(out, s, x *afarray.Array) error {
		return kScale.Launch(g, l, n, buf(out), buf(s), buf(x))
	}
	// out = ±(u'v)/(w'y)
	ratio := func(out, u, v, w, y *afarray.Array, neg int) error {
		num, err := afarray.DotArray(u, v)
		if err != nil {
			return err
		}
		defer num.Release()
		den, err := afarray.DotArray(w, y)
		if err != nil {
			return err
		}
		defer den.Release()
		return kDiv.Launch([]int{1}, []int{1}, buf(num), buf(den), buf(out), neg)
	}
	// x = x + a p
	xUpdate := func() error {
		if err := ratio(alpha, r, p, p, z, 0); err != nil {
			return err
		}
		if err := scale(tmp, alpha, p); err != nil {
			return err
		}
		return add(x, x, tmp, 1)
	}
	// r = b - A x0 ; p = r ; z = A p ; a = (r'p)/(p'z) ; x = x0 + a p
	if err := op.MulVecTo(tmp, x); err != nil {
		return fail(err)
	}
	if err := add(r, b, tmp, -1); err != nil {
		return fail(err)
	}
	if err := p.CopyFrom(r); err != nil {
		return fail(err)
	}
	if err := op.MulVecTo(z, p); err != nil {
		return fail(err)
	}
	if err := xUpdate(); err != nil {
		return fail(err)
	}
	res := &CGResult{}
	for i := 0; i < maxIter; i++ {
		// r = r - a z
		if err := scale(tmp, alpha, z); err != nil {
			return fail(err)
		}
		if err := add(r, r, tmp, -1); err != nil {
			return fail(err)
		}
		nr, err := afarray.Norm2(r) // the thesis's host sync, every iteration
		if err != nil {
			return fail(err)
		}
		res.History = append(res.History, nr)
		res.Iterations, res.Residual = i+1, nr
		if math.IsNaN(nr) || math.IsInf(nr, 0) {
			break
		}
		if nr <= tol {
			res.Converged = true
			break
		}
		// β = -(r'z)/(p'z) ; p = r + β p ; z = A p ; x = x + a p
		if err := ratio(beta, r, z, p, z, 1); err != nil {
			return fail(err)
		}
		if err := scale(tmp, beta, p); err != nil {
			return fail(err)
		}
		if err := add(p, r, tmp, 1); err != nil {
			return fail(err)
		}
		if err := op.MulVecTo(z, p); err != nil {
			return fail(err)
		}
		if err := xUpdate(); err != nil {
			return fail(err)
		}
	}
	if err := st.checkFinite(dev, bufferOf(x), n, statusOutput); err != nil {
		return fail(err)
	}
	flags, err := st.read()
	if err != nil {
		return fail(err)
	}
	res.Launches = dev.Launches() - start
	if found(flags[statusRHS]) {
		return fail(&NonFiniteError{Where: "right-hand side", Index: int(flags[statusRHS])})
	}
	if math.IsNaN(res.Residual) || math.IsInf(res.Residual, 0) || found(flags[statusOutput]) {
		return fail(&NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: res.Iterations})
	}
	if !res.Converged {
		return x, res, &NotConvergedError{Iterations: res.Iterations, Residual: res.Residual, Tolerance: tol}
	}
	return x, res, nil
}
