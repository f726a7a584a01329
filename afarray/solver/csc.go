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
// needed (cscFactor's methods). A factor is not safe for concurrent use.
type CSCCholesky struct {
	cscOf[kindCholesky]
}

// L returns a device copy of the factor L in the thesis CSC layout.
func (c *CSCCholesky) L() (*afarray.CSC, error) { return c.factor() }

// CSCLDLT is the factorization A = L D Lᵀ (L unit lower triangular, D
// diagonal) of a symmetric matrix in the thesis's CSC layout: L's strict
// lower part and D (on the diagonal) share one CSC array with the structure
// of the Cholesky factor. It needs no positive definiteness but, without
// pivoting, every pivot must be nonzero. The variants and the rules for
// reuse are those of CSCCholesky (thesis: §4.6).
type CSCLDLT struct {
	cscOf[kindLDLT]
}

// LD returns a device copy of the factor: L's strict lower part with D on
// the diagonal, in the thesis CSC layout.
func (c *CSCLDLT) LD() (*afarray.CSC, error) { return c.factor() }

// cscOf holds the methods of CSCCholesky and CSCLDLT (kind K).
type cscOf[K factorKind] struct {
	cscFactor
}

// Factorize runs the symbolic and numeric factorization of a with variant v
// ("" means Fast). It returns a *NotPositiveDefiniteError
// (ErrNotPositiveDefinite; Cholesky) or a *ZeroPivotError (ErrZeroPivot;
// LDLT) naming the first column whose pivot fails, a *NonFiniteError
// (ErrNonFinite) for NaN or Inf in a or in the factor, and errors matching
// ErrShape for a malformed matrix.
func (c *cscOf[K]) Factorize(a *afarray.CSC, v Variant) error { return c.factorize(isLDLT[K](), a, v) }

// factorizeOwned is Factorize for Run (the registry's factorization).
func (c *cscOf[K]) factorizeOwned(m any, v Variant) error { return factorizeAs(c.Factorize, m, v) }
