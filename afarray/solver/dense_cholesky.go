package solver

import "github.com/oclsolve/oclsolve/afarray"

// DenseCholesky is the Cholesky factorization A = L Lᵀ of a symmetric
// positive definite dense matrix, computed and kept on the device. Only the
// lower triangle of A is read; L overwrites it, as in the thesis, and the
// upper triangle keeps the input. The zero value is ready for Factorize; a
// factorization serves any number of SolveTo calls until Release.
//
// Thesis variant (§4.2 of the design extraction): the right-looking,
// column-by-column, delayed-square-root algorithm with the thesis's fixed
// 32 x 1024 launch geometry: per column a scaling launch and a trailing
// update launch (a group per column), one launch for the square roots; the
// solve makes a forward launch per column, one diagonal launch and a
// backward launch per unknown that runs in a single work-group. 4n+2
// launches in all, as in the thesis.
//
// Fast variant: the dense kernel core's recursive Cholesky (package
// afarray/dense): the first half of the columns is factored, the panel
// below it solved by a recursive TRSM and the second half updated by SYRK,
// down to 64-column blocks factored by one work-group in local memory; the
// products run in the register-blocked GEMM kernel tuned for the device.
// The solves make one launch per 32-row block each (forward, then
// backward spread over all groups instead of the thesis's one).
//
// A pivot that is not positive (or NaN) is detected on the device and
// reported after the factorization as a *NotPositiveDefiniteError naming the
// first such column; the status is read once per Factorize, not per column.
type DenseCholesky struct {
	f denseFactor
}

// Factorize factors a copy of the n x n Float64 matrix a (a is not
// modified) with variant v ("" means Fast). Errors: *NotPositiveDefiniteError,
// *NonFiniteError for NaN or Inf in a, ErrShape for a non-square
// matrix, ErrReleased for a released one. After an error the
// factorization is empty.
func (c *DenseCholesky) Factorize(a *afarray.Array, v Variant) error {
	c.f.ldlt = false
	return c.f.factorize(a, v, false)
}

// FactorizeInPlace factors a in its own storage, like the thesis: L
// replaces a's lower triangle. a must stay alive while the factorization is
// used; Release does not release it.
func (c *DenseCholesky) FactorizeInPlace(a *afarray.Array, v Variant) error {
	c.f.ldlt = false
	return c.f.factorize(a, v, true)
}

// SolveTo solves A x = b into dst (vectors of n; dst may be b). It reports
// NaN or Inf in b or in the solution as a *NonFiniteError, so it waits for
// the device once.
func (c *DenseCholesky) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve returns the solution of A x = b in a new array.
func (c *DenseCholesky) Solve(b *afarray.Array) (*afarray.Array, error) { return solveNew(&c.f, b) }

// Factor returns the device matrix whose lower triangle holds L (nil before
// Factorize). It belongs to the factorization.
func (c *DenseCholesky) Factor() *afarray.Array { return c.f.a }

// Variant returns the variant of the last Factorize.
func (c *DenseCholesky) Variant() Variant { return c.f.variant }

// Order returns n (0 before Factorize).
func (c *DenseCholesky) Order() int { return c.f.n }

// Release frees the factorization's device memory (the factor itself when
// Factorize made the copy). Release is idempotent.
func (c *DenseCholesky) Release() { c.f.release() }

// Stats describes the last factorization and solve.
func (c *DenseCholesky) Stats() FactorStats { return c.f.stats }

// factorizeOwned is FactorizeInPlace for Run (the registry's
// factorization): Run's upload is its own copy, as in the thesis.
func (c *DenseCholesky) factorizeOwned(m any, v Variant) error {
	return c.FactorizeInPlace(m.(*afarray.Array), v)
}

// solveNew solves into a copy of b.
func solveNew(f *denseFactor, b *afarray.Array) (*afarray.Array, error) {
	if _, err := float64Buffer(b, f.name()+" right-hand side"); err != nil {
		return nil, err
	}
	x, err := b.Copy()
	if err != nil {
		return nil, err
	}
	if err := f.solveTo(x, x); err != nil {
		x.Release()
		return nil, err
	}
	return x, nil
}
