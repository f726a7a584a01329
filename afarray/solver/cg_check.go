package solver

import (
	"math"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Two guards around CG's fast iteration (one device: cgFastChecked; several:
// CGMulti), both exact and both cheap next to the iterations:
//
// Scaling. CG's convergence test and its scalars work with squared
// quantities (r'r, r'z, p'Ap). A valid but badly scaled b (||b||∞ near
// 1e-160 or 1e160) makes them underflow to zero or overflow to Inf: the
// test then passes at once with a wrong x, or the run breaks down with a
// bogus "not positive definite". The solve therefore iterates on
// b·2^-e, with 2^e the power of two at or below ||b||∞, and multiplies
// x by 2^e at the end: a power of two scales every floating-point value
// exactly, so this changes nothing else. (One device skips it for
// 2^-32 <= ||b||∞ <= 2^32, where nothing can underflow or overflow on b's
// account, to save the device copy of b.)
//
// True residual. The iteration tests the recurrence residual, which drifts
// from b - A x as rounding accumulates (bcsstk15 with Jacobi at tol 1e-13
// "converged" with a true ||b-Ax||/||b|| of 8.6e-11). On convergence the
// true residual is computed (one product and a reduction); when it exceeds
// cgTrueFactor·tol, CG restarts from r = b - A x (a new solve of
// A d = r, x += d, which is iterative refinement with CG as the inner
// solver) while iterations remain and each restart at least halves the
// true residual; otherwise the run is a *NotConvergedError carrying the
// true residual (CGResult.Residual is then that true relative residual; on
// success it stays the recurrence residual the history ends with).

// cgTrueFactor is how far above Tol the true relative residual may lie at
// convergence before CG restarts: the recurrence and b - A x computed in
// floating point differ by rounding of order the unit roundoff times
// cond(A), so demanding Tol exactly of both would restart on noise.
const cgTrueFactor = 10

// cgScaleExp returns e such that v·2^-e lies in [1, 2) (0 for 0, NaN or
// Inf, which the solvers report themselves).
func cgScaleExp(v float64) int {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	_, e := math.Frexp(v)
	return e - 1
}

// cgScaleFree is the largest |e| for which one-device CG iterates on b as
// given: within [2^-32, 2^32] r'r cannot underflow or overflow on b's
// account, and the copy of b that scaling needs on the device is saved
// (CGMulti scales on the host, always).
const cgScaleFree = 32

// cgFastChecked is the fast variant with both guards (see above) on one
// device.
func cgFastChecked(op Operator, b *afarray.Array, opts CGOptions) (*afarray.Array, *CGResult, error) {
	n := op.N()
	bInf, err := afarray.MaxAbs(b)
	if err != nil {
		return nil, nil, err
	}
	e := cgScaleExp(bInf)
	if e >= -cgScaleFree && e <= cgScaleFree {
		e = 0
	}
	bs := b
	if e != 0 {
		if bs, err = b.Copy(); err != nil {
			return nil, nil, err
		}
		defer bs.Release()
		if err = bs.Scale(math.Ldexp(1, -e)); err != nil {
			return nil, nil, err
		}
	}
	tol, maxIter := cgLimits(opts, 1e-8, 10*n)
	x, res, err := cgFast(op, bs, opts)
	if err == nil {
		err = cgRefine(op, bs, x, res, opts, tol, maxIter)
	}
	if x != nil && e != 0 {
		if serr := x.Scale(math.Ldexp(1, e)); serr != nil {
			x.Release()
			return nil, nil, serr
		}
	}
	return x, res, err
}

// cgRefine checks the true residual of a converged fast CG run and
// restarts from it while needed and possible, updating x and res.
func cgRefine(op Operator, b, x *afarray.Array, res *CGResult, opts CGOptions, tol float64, maxIter int) error {
	nb, err := afarray.Norm2(b)
	if err != nil || nb == 0 {
		return err
	}
	vecs, err := cgVectors(b, op.N(), 1)
	if err != nil {
		return err
	}
	ax := vecs[0]
	defer ax.Release()
	prev := math.Inf(1)
	for {
		if err := op.MulVecTo(ax, x); err != nil {
			return err
		}
		r, err := afarray.Sub(b, ax)
		if err != nil {
			return err
		}
		nr, err := afarray.Norm2(r)
		if err != nil {
			r.Release()
			return err
		}
		rel := nr / nb
		left := maxIter - res.Iterations
		if rel <= cgTrueFactor*tol || math.IsNaN(rel) || left <= 0 || !(rel <= prev/2) {
			r.Release()
			if rel <= cgTrueFactor*tol {
				return nil
			}
			res.Converged, res.Residual = false, rel
			if math.IsNaN(rel) || math.IsInf(rel, 0) {
				return &NonFiniteError{Where: "CG true residual", Index: res.Iterations}
			}
			return &NotConvergedError{Iterations: res.Iterations, Residual: rel, Tolerance: tol}
		}
		prev = rel
		o := opts
		o.Tol, o.MaxIter = tol/rel, left
		d, dres, derr := cgFast(op, r, o)
		r.Release()
		if d == nil {
			return derr
		}
		aerr := x.Axpy(1, d)
		d.Release()
		if aerr != nil {
			return aerr
		}
		res.addRestart(dres, rel)
		if derr != nil {
			// The restart stopped at the limit: report where x stands.
			res.Converged = false
			if nr, err := cgTrueResidual(op, b, x, ax); err == nil {
				res.Residual = nr / nb
			}
			return &NotConvergedError{Iterations: res.Iterations, Residual: res.Residual, Tolerance: tol}
		}
	}
}

// cgTrueResidual returns ||b - A x|| (ax is scratch).
func cgTrueResidual(op Operator, b, x, ax *afarray.Array) (float64, error) {
	if err := op.MulVecTo(ax, x); err != nil {
		return 0, err
	}
	r, err := afarray.Sub(b, ax)
	if err != nil {
		return 0, err
	}
	defer r.Release()
	return afarray.Norm2(r)
}

// runCheckTrue is Run's check of a CG variant that does not check its own
// true residual (the thesis's, kept faithful: it stops on the recurrence
// residual, absolute): ||b - A x|| above cgTrueFactor times the tolerance
// it was run with is a *NotConvergedError, never a silent wrong answer.
// a is the caller's matrix, one triangle (Symmetric) or both.
func runCheckTrue(a *sparse.COO, x, b []float64, v Variant, opts Options, iterations int) error {
	if v == Fast {
		return nil
	}
	tol, _ := cgLimits(CGOptions{Tol: opts.Tol, MaxIter: opts.MaxIter}, 1e-6, a.Rows)
	r := append([]float64(nil), b...)
	for k, val := range a.V {
		i, j := a.I[k], a.J[k]
		r[i] -= val * x[j]
		if a.Symmetric && i != j {
			r[j] -= val * x[i]
		}
	}
	nr := 0.0
	for _, v := range r {
		nr += v * v
	}
	nr = math.Sqrt(nr)
	if nr <= cgTrueFactor*tol {
		return nil
	}
	return &NotConvergedError{Iterations: iterations, Residual: nr, Tolerance: tol}
}

// addRestart adds a restart's iterations and launches to r, and its
// residual history, relative to the restart's own start, scaled by rel
// (that start relative to the first), after r's.
func (r *CGResult) addRestart(d *CGResult, rel float64) {
	r.Iterations += d.Iterations
	r.Launches += d.Launches
	for _, h := range d.History[1:] {
		r.History = append(r.History, h*rel)
	}
}
