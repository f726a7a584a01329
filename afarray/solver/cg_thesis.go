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
	c := &cgThesisRun{op: op, n: op.N(), dev: b.Device()}
	tol, maxIter := cgLimits(opts, 1e-6, c.n)
	start := c.dev.Launches()
	defer c.release()
	c.setup(b)
	// r = b - A x0 ; p = r ; z = A p ; a = (r'p)/(p'z) ; x = x0 + a p
	c.mul(c.tmp, c.x)
	c.add(c.r, b, c.tmp, -1)
	if c.err == nil {
		c.err = c.p.CopyFrom(c.r)
	}
	c.mul(c.z, c.p)
	c.xUpdate()
	res := c.iterate(tol, maxIter)
	c.finish(res)
	if c.err != nil {
		return nil, nil, c.err
	}
	res.Launches = c.dev.Launches() - start
	c.keepX = true
	if !res.Converged {
		return c.x, res, &NotConvergedError{Iterations: res.Iterations, Residual: res.Residual, Tolerance: tol}
	}
	return c.x, res, nil
}

// cgThesisRun is one thesis CG solve: its kernels, vectors and scalars, and
// the first error met, after which every operation is a no-op.
type cgThesisRun struct {
	op                 Operator
	n                  int
	dev                *kernels.Device
	g, l               []int
	kDiv, kScale, kAdd *kernels.Kernel
	st                 *status
	x, r, p, z, tmp    *afarray.Array
	alpha, beta        *afarray.Array
	keepX              bool
	err                error
}

// setup finds the kernels, checks b, and allocates x = b (x0 = b, as the
// thesis), r, p, z, a temporary and the two device scalars.
func (c *cgThesisRun) setup(b *afarray.Array) {
	for _, k := range []struct {
		dst  **kernels.Kernel
		name string
	}{{&c.kDiv, "thesis_div"}, {&c.kScale, "thesis_scale"}, {&c.kAdd, "thesis_add"}} {
		if c.err == nil {
			*k.dst, c.err = cgProgram.Kernel(c.dev, k.name)
		}
	}
	if c.err != nil {
		return
	}
	local := min(cgLocal, c.kScale.MaxWorkGroupSize(), c.kAdd.MaxWorkGroupSize())
	c.g, c.l = []int{kernels.RoundUp(c.n, local)}, []int{local}
	if c.st, c.err = newStatus(c.dev); c.err != nil {
		return
	}
	if c.err = c.st.checkFinite(c.dev, bufferOf(b), c.n, statusRHS); c.err != nil {
		return
	}
	if c.x, c.err = b.Copy(); c.err != nil {
		return
	}
	vecs, err := cgVectors(b, c.n, 4)
	if c.err = err; err != nil {
		return
	}
	c.r, c.p, c.z, c.tmp = vecs[0], vecs[1], vecs[2], vecs[3]
	if c.alpha, c.err = afarray.Zeros(1); c.err == nil {
		c.beta, c.err = afarray.Zeros(1)
	}
}

// add sets out = x + sign*y.
func (c *cgThesisRun) add(out, x, y *afarray.Array, sign int) {
	if c.err == nil {
		c.err = c.kAdd.Launch(c.g, c.l, c.n, bufferOf(out), bufferOf(x), bufferOf(y), sign)
	}
}

// scale sets out = s * x (s a device scalar).
func (c *cgThesisRun) scale(out, s, x *afarray.Array) {
	if c.err == nil {
		c.err = c.kScale.Launch(c.g, c.l, c.n, bufferOf(out), bufferOf(s), bufferOf(x))
	}
}

// mul sets dst = A x.
func (c *cgThesisRun) mul(dst, x *afarray.Array) {
	if c.err == nil {
		c.err = c.op.MulVecTo(dst, x)
	}
}

// ratio sets out = ±(u'v)/(w'y), all on the device.
func (c *cgThesisRun) ratio(out, u, v, w, y *afarray.Array, neg int) {
	if c.err != nil {
		return
	}
	num, err := afarray.DotArray(u, v)
	if err != nil {
		c.err = err
		return
	}
	defer num.Release()
	den, err := afarray.DotArray(w, y)
	if err != nil {
		c.err = err
		return
	}
	defer den.Release()
	c.err = c.kDiv.Launch([]int{1}, []int{1}, bufferOf(num), bufferOf(den), bufferOf(out), neg)
}

// xUpdate sets α = (r'p)/(p'z) and x = x + α p.
func (c *cgThesisRun) xUpdate() {
	c.ratio(c.alpha, c.r, c.p, c.p, c.z, 0)
	c.scale(c.tmp, c.alpha, c.p)
	c.add(c.x, c.x, c.tmp, 1)
}

// iterate runs the thesis's loop: the residual update, its norm read by the
// host (the thesis's sync every iteration), then the next direction.
func (c *cgThesisRun) iterate(tol float64, maxIter int) *CGResult {
	res := &CGResult{}
	tr := trackerOf(c.dev)
	for i := 0; i < maxIter && c.err == nil; i++ {
		// r = r - a z
		c.scale(c.tmp, c.alpha, c.z)
		c.add(c.r, c.r, c.tmp, -1)
		if c.err != nil {
			break
		}
		nr, err := afarray.Norm2(c.r)
		if err != nil {
			c.err = err
			break
		}
		res.History = append(res.History, nr)
		res.Iterations, res.Residual = i+1, nr
		tr.residual(i+1, maxIter, nr, res.History[0], tol)
		if math.IsNaN(nr) || math.IsInf(nr, 0) {
			break
		}
		if nr <= tol {
			res.Converged = true
			break
		}
		// β = -(r'z)/(p'z) ; p = r + β p ; z = A p ; x = x + a p
		c.ratio(c.beta, c.r, c.z, c.p, c.z, 1)
		c.scale(c.tmp, c.beta, c.p)
		c.add(c.p, c.r, c.tmp, 1)
		c.mul(c.z, c.p)
		c.xUpdate()
	}
	return res
}

// finish checks x for NaN and Inf and reads the status once; a NaN or Inf in
// b, x or the residual is an error.
func (c *cgThesisRun) finish(res *CGResult) {
	if c.err == nil {
		c.err = c.st.checkFinite(c.dev, bufferOf(c.x), c.n, statusOutput)
	}
	if c.err != nil {
		return
	}
	flags, err := c.st.read()
	switch {
	case err != nil:
		c.err = err
	case found(flags[statusRHS]):
		c.err = &NonFiniteError{Where: "right-hand side", Index: int(flags[statusRHS])}
	case math.IsNaN(res.Residual) || math.IsInf(res.Residual, 0) || found(flags[statusOutput]):
		c.err = &NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: res.Iterations}
	}
}

// release frees the run's device memory, x too unless it is the answer.
func (c *cgThesisRun) release() {
	for _, a := range []*afarray.Array{c.r, c.p, c.z, c.tmp, c.alpha, c.beta} {
		if a != nil {
			a.Release()
		}
	}
	if !c.keepX && c.x != nil {
		c.x.Release()
	}
	c.st.release()
}
