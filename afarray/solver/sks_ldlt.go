package solver

import "github.com/oclsolve/oclsolve/afarray"

// SKSLDLT is the factorization A = L D Lᵀ (L unit lower triangular, D
// diagonal) of a symmetric matrix in the thesis's skyline layout, computed in
// place: L's strict lower part and D (on the diagonal) overwrite A's
// elements. It needs no positive definiteness but, without pivoting, every
// pivot must be nonzero.
//
// The variants, the block width and the rules for reuse are those of
// SKSCholesky (the thesis variant is §4.9: 2n-1 launches to factor, one more
// than the thesis because it also checks the last pivot, and 2n to solve).
type SKSLDLT struct {
	// BlockWidth is the fast variant's block width B: 32 or 64; zero
	// means DefaultSKSBlockWidth. Set it before Factorize.
	BlockWidth int

	f sksFactor
}

// FactorizeInPlace computes the factor of a in place with variant v ("" means
// Fast): a's elements are overwritten by L and D, as in the thesis. It
// returns a
// *ZeroPivotError (ErrZeroPivot) naming the first column whose pivot is zero,
// a *NonFiniteError (ErrNonFinite) for NaN or Inf in a or in the factor, and
// errors matching ErrShape for a malformed matrix.
func (c *SKSLDLT) FactorizeInPlace(a *afarray.SKS, v Variant) error {
	c.f.ldlt = true
	return c.f.factorize(a, v, c.BlockWidth, false)
}

// Factorize is FactorizeInPlace on a device copy of a's elements, which the
// factor owns: a is left unchanged.
func (c *SKSLDLT) Factorize(a *afarray.SKS, v Variant) error {
	c.f.ldlt = true
	return c.f.factorize(a, v, c.BlockWidth, true)
}

// SolveTo solves A x = b into dst (dst may be b); see SKSCholesky.SolveTo.
func (c *SKSLDLT) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve solves A x = b into a new vector.
func (c *SKSLDLT) Solve(b *afarray.Array) (*afarray.Array, error) { return c.f.solve(b) }

// Stats describes the last factorization and solve.
func (c *SKSLDLT) Stats() FactorStats { return c.f.stats }

// Release frees the factor's own device memory; the matrix belongs to the
// caller.
func (c *SKSLDLT) Release() { c.f.release() }

// factorizeOwned is FactorizeInPlace for Run (the registry's
// factorization): Run's upload is its own copy, as in the thesis.
func (c *SKSLDLT) factorizeOwned(m any, v Variant) error {
	return c.FactorizeInPlace(m.(*afarray.SKS), v)
}
