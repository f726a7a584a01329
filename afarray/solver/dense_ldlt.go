package solver

import "github.com/oclsolve/oclsolve/afarray"

// DenseLDLT is the factorization A = L D Lᵀ of a symmetric dense matrix with
// L unit lower triangular, computed and kept on the device. It needs no
// positive definiteness, but it does not pivot, so every pivot must be
// nonzero: a zero (or non-finite) pivot is reported as a *ZeroPivotError
// naming its column. L's strict lower triangle and D (on the diagonal)
// overwrite A's lower triangle, as in the thesis.
//
// Thesis variant (§4.3): the Cholesky skeleton of the thesis with L unit:
// per column a scaling and a trailing-update launch, then a forward launch
// per column, one D launch and a single-group backward launch per unknown:
// 4n+1 launches.
//
// Fast variant: the blocked algorithm of DenseCholesky's fast variant with
// L21 = A21 L11⁻ᵀ D1⁻¹ in the panel and the update A22 -= L21 D1 L21ᵀ
// (D1 applied while the tile is staged); the D solve is fused into the
// forward launches.
type DenseLDLT struct {
	f denseFactor
}

// Factorize factors a copy of a (see DenseCholesky.Factorize). Errors:
// *ZeroPivotError, *NonFiniteError, ErrShape, ErrReleased.
func (c *DenseLDLT) Factorize(a *afarray.Array, v Variant) error {
	c.f.ldlt = true
	return c.f.factorize(a, v, false)
}

// FactorizeInPlace factors a in its own storage (see
// DenseCholesky.FactorizeInPlace).
func (c *DenseLDLT) FactorizeInPlace(a *afarray.Array, v Variant) error {
	c.f.ldlt = true
	return c.f.factorize(a, v, true)
}

// SolveTo solves A x = b into dst (see DenseCholesky.SolveTo).
func (c *DenseLDLT) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve returns the solution of A x = b in a new array.
func (c *DenseLDLT) Solve(b *afarray.Array) (*afarray.Array, error) { return solveNew(&c.f, b) }

// Factor returns the device matrix whose lower triangle holds L (unit
// diagonal not stored) and D on the diagonal.
func (c *DenseLDLT) Factor() *afarray.Array { return c.f.a }

// Variant returns the variant of the last Factorize.
func (c *DenseLDLT) Variant() Variant { return c.f.variant }

// Order returns n (0 before Factorize).
func (c *DenseLDLT) Order() int { return c.f.n }

// Release frees the factorization's device memory. Release is idempotent.
func (c *DenseLDLT) Release() { c.f.release() }

// Stats describes the last factorization and solve.
func (c *DenseLDLT) Stats() FactorStats { return c.f.stats }

// factorizeOwned is FactorizeInPlace for Run (the registry's
// factorization): Run's upload is its own copy, as in the thesis.
func (c *DenseLDLT) factorizeOwned(m any, v Variant) error {
	return c.FactorizeInPlace(m.(*afarray.Array), v)
}
