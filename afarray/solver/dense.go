package solver

import "github.com/oclsolve/oclsolve/afarray"

// DenseCholesky is the Cholesky factorization A = L Lᵀ of a symmetric
// positive definite dense matrix, computed and kept on the device. Only the
// lower triangle of A is read; L overwrites it, as in the thesis, and the
// upper triangle keeps the input. The zero value is ready for Factorize; a
// factorization serves any number of SolveTo calls until Release.
//
// Thesis variant (docs/thesis.md, §4.2): the right-looking,
// column-by-column, delayed-square-root algorithm with the thesis's fixed
// 32 x 1024 launch geometry: per column a scaling launch and a trailing
// update launch (a group per column), one launch for the square roots; the
// solve makes a forward launch per column, one diagonal launch and a
// backward launch per unknown that runs in a single work-group. 4n+2
// launches in all, as in the thesis.
//
// Fast variant: blocked right-looking Cholesky with 32-column block
// columns. Per block column one launch factors the diagonal block in local
// memory and solves for the panel below it (a row per work-item, coalesced
// loads), and one launch applies the rank-32 update to the lower trailing
// matrix with the dense kernel core's SYRK (package afarray/dense: the
// register-blocked GEMM tuned for the device; tiles above the diagonal
// exit at once). The solves make one launch per 32-row block each, and the
// backward solve spreads over all groups instead of the thesis's one. That
// is 2n/32 launches to factor and 2n/32 to solve instead of 4n.
//
// A pivot that is not positive (or NaN) is detected on the device and
// reported after the factorization as a *NotPositiveDefiniteError naming the
// first such column; the status is read once per Factorize, not per column.
type DenseCholesky struct {
	denseOf[kindCholesky]
}

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
	denseOf[kindLDLT]
}

// denseOf holds the methods of DenseCholesky and DenseLDLT (kind K).
type denseOf[K factorKind] struct {
	denseFactor
}

// Factorize factors a copy of the n x n Float64 matrix a (a is not
// modified) with variant v ("" means Fast). Errors: *NotPositiveDefiniteError
// (Cholesky) or *ZeroPivotError (LDLT), *NonFiniteError for NaN or Inf in a,
// ErrShape for a non-square matrix, ErrReleased for a released one. After an
// error the factorization is empty.
func (c *denseOf[K]) Factorize(a *afarray.Array, v Variant) error {
	return c.as(isLDLT[K]()).factorize(a, v, false)
}

// FactorizeInPlace factors a in its own storage, like the thesis: the
// factor replaces a's lower triangle. a must stay alive while the
// factorization is used; Release does not release it.
func (c *denseOf[K]) FactorizeInPlace(a *afarray.Array, v Variant) error {
	return c.as(isLDLT[K]()).factorize(a, v, true)
}

// Factor returns the device matrix whose lower triangle holds the factor
// (nil before Factorize): L for Cholesky; for LDLT, L's strict lower
// triangle (unit diagonal not stored) and D on the diagonal. It belongs to
// the factorization.
func (c *denseOf[K]) Factor() *afarray.Array { return c.a }

// factorizeOwned is FactorizeInPlace for Run (the registry's
// factorization): Run's upload is its own copy, as in the thesis.
func (c *denseOf[K]) factorizeOwned(m any, v Variant) error {
	return factorizeAs(c.FactorizeInPlace, m, v)
}
