package solver

import "github.com/oclsolve/oclsolve/afarray"

// CSCLDLT is the factorization A = L D Lᵀ (L unit lower triangular, D
// diagonal) of a symmetric matrix in the thesis's CSC layout: L's strict
// lower part and D (on the diagonal) share one CSC array with the structure
// of the Cholesky factor. It needs no positive definiteness but, without
// pivoting, every pivot must be nonzero. The variants and the rules for
// reuse are those of CSCCholesky (thesis: §4.6).
type CSCLDLT struct {
	f cscFactor
}

// Factorize runs the symbolic and numeric factorization of a with variant v
// ("" means Fast). It returns a *ZeroPivotError (ErrZeroPivot) naming the
// first column whose pivot is zero, a *NonFiniteError (ErrNonFinite) for NaN
// or Inf in a or in the factor, and errors matching ErrShape for a
// malformed matrix.
func (c *CSCLDLT) Factorize(a *afarray.CSC, v Variant) error {
	c.f.ldlt = true
	return c.f.factorize(a, v)
}

// SolveTo solves A x = b into dst (dst may be b); see CSCCholesky.SolveTo.
func (c *CSCLDLT) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve solves A x = b into a new vector.
func (c *CSCLDLT) Solve(b *afarray.Array) (*afarray.Array, error) { return c.f.solve(b) }

// LD returns a device copy of the factor: L's strict lower part with D on
// the diagonal, in the thesis CSC layout.
func (c *CSCLDLT) LD() (*afarray.CSC, error) { return c.f.factor() }

// Stats describes the last factorization and solve.
func (c *CSCLDLT) Stats() FactorStats { return c.f.stats }

// Release frees the factor's device memory.
func (c *CSCLDLT) Release() { c.f.release() }

// factorizeOwned is Factorize for Run (the registry's factorization).
func (c *CSCLDLT) factorizeOwned(m any, v Variant) error { return c.Factorize(m.(*afarray.CSC), v) }
