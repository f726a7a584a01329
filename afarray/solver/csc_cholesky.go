package solver

import "github.com/oclsolve/oclsolve/afarray"

// CSCCholesky is the Cholesky factorization A = L Lᵀ of a symmetric positive
// definite matrix in the thesis's CSC layout (lower triangle, diagonal
// first). L has fill, so it is a new CSC array owned by the factor, whose
// structure Factorize computes on the host (the symbolic phase, reported
// apart in Stats as the thesis excludes it from its timings). A itself is
// left unchanged.
//
// The Thesis variant reproduces §3.3 and §4.5: the quadratic symbolic
// factorization, then a fill launch with linear searches, two launches per
// column (scale, then update with a linear search for every target slot),
// and 2n launches per solve, with 32 groups of 1024 items. The Fast variant
// (the default) uses the elimination-tree symbolic analysis, a precomputed
// fill map and a right-looking supernodal method: two launches per
// supernode to factor and one each way to solve (see csc_fast.go).
//
// Factorize once, then Solve or SolveTo for as many right-hand sides as
// needed. A factor is not safe for concurrent use.
type CSCCholesky struct {
	f cscFactor
}

// Factorize runs the symbolic and numeric factorization of a with variant v
// ("" means Fast). It returns a *NotPositiveDefiniteError
// (ErrNotPositiveDefinite) naming the first column whose pivot is not
// positive, a *NonFiniteError (ErrNonFinite) for NaN or Inf in a, and errors
// matching ErrShape for a malformed matrix.
func (c *CSCCholesky) Factorize(a *afarray.CSC, v Variant) error {
	c.f.ldlt = false
	return c.f.factorize(a, v)
}

// SolveTo solves A x = b into dst (dst may be b). Both must be float64
// vectors of length n on the factor's device. A NaN or Inf in b or in the
// solution is reported as a *NonFiniteError.
func (c *CSCCholesky) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve solves A x = b into a new vector.
func (c *CSCCholesky) Solve(b *afarray.Array) (*afarray.Array, error) { return c.f.solve(b) }

// L returns a device copy of the factor L in the thesis CSC layout.
func (c *CSCCholesky) L() (*afarray.CSC, error) { return c.f.factor() }

// Stats describes the last factorization and solve.
func (c *CSCCholesky) Stats() FactorStats { return c.f.stats }

// Release frees the factor's device memory.
func (c *CSCCholesky) Release() { c.f.release() }

// factorizeOwned is Factorize for Run (the registry's factorization).
func (c *CSCCholesky) factorizeOwned(m any, v Variant) error { return c.Factorize(m.(*afarray.CSC), v) }
