package solver

import "github.com/oclsolve/oclsolve/afarray"

// SKSCholesky is the Cholesky factorization A = L Lᵀ of a symmetric positive
// definite matrix in the thesis's skyline layout. The monotone last-row rule
// makes the skyline closed under fill, so L takes exactly A's storage
// (diagonal included) and no symbolic phase is needed: FactorizeInPlace
// overwrites A's elements with L, as the thesis did; Factorize works on a
// device copy of the elements that the factor owns and leaves A unchanged.
//
// Factorize once, then Solve or SolveTo for as many right-hand sides as
// needed (sksFactor's methods). After FactorizeInPlace the factor refers to
// the matrix's device storage: keep the matrix alive, and unchanged, while
// the factor is in use. A factor is not safe for concurrent use.
//
// The Thesis variant reproduces the thesis's kernel (§4.8): 2n-1 launches to
// factor and 2n to solve, each with 32 groups of 1024 items. The Fast
// variant (the default) is a right-looking block-column method: for each
// block of BlockWidth columns, one launch factors the diagonal block in local
// memory and solves the panel below it, and one launch applies the rank-B
// trailing update as a tiled, coalesced dense update (the monotone rule
// makes that region dense); the solves take one launch per block each way.
// That is about 4n/B launches instead of 4n, and each trailing entry is read
// and written once per block rather than once per column.
//
// B is the BlockWidth of the embedded SKSOptions: set c.BlockWidth before
// Factorize.
type SKSCholesky struct {
	sksOf[kindCholesky]
}

// SKSLDLT is the factorization A = L D Lᵀ (L unit lower triangular, D
// diagonal) of a symmetric matrix in the thesis's skyline layout: L's strict
// lower part and D (on the diagonal) take A's storage. It needs no positive
// definiteness but, without pivoting, every pivot must be nonzero.
//
// The variants, the block width, in place and copying factorization, and
// the rules for reuse are those of SKSCholesky (the thesis variant is §4.9:
// 2n-1 launches to factor, one more than the thesis because it also checks
// the last pivot, and 2n to solve).
type SKSLDLT struct {
	sksOf[kindLDLT]
}

// SKSOptions are the settings SKSCholesky and SKSLDLT share; both embed
// them, so c.BlockWidth = 64 sets the block width of a factor c.
type SKSOptions struct {
	// BlockWidth is the fast variant's block width B: 32 or 64; zero
	// means DefaultSKSBlockWidth. Set it before Factorize.
	BlockWidth int
}

// sksOf holds the options and methods of SKSCholesky and SKSLDLT (kind K)
// beyond sksFactor's.
type sksOf[K factorKind] struct {
	SKSOptions
	sksFactor
}

// FactorizeInPlace computes the factor of a in place with variant v ("" means
// Fast): a's elements are overwritten by the factor, as in the thesis (L for
// Cholesky; L's strict lower part and D for LDLT), so no second copy of the
// skyline is needed on the device. It returns a *NotPositiveDefiniteError
// (ErrNotPositiveDefinite; Cholesky) naming the first column whose pivot is
// not positive or a *ZeroPivotError (ErrZeroPivot; LDLT) naming the first
// column whose pivot is zero, a *NonFiniteError (ErrNonFinite) for NaN or
// Inf in a or in the factor, and errors matching ErrShape for a malformed
// matrix.
func (c *sksOf[K]) FactorizeInPlace(a *afarray.SKS, v Variant) error {
	return c.factorize(isLDLT[K](), a, v, c.BlockWidth, false)
}

// Factorize is FactorizeInPlace on a device copy of a's elements, which the
// factor owns: a is left unchanged (gonum's convention, and that of
// DenseCholesky.Factorize), at the cost of a second copy of the elements on
// the device.
func (c *sksOf[K]) Factorize(a *afarray.SKS, v Variant) error {
	return c.factorize(isLDLT[K](), a, v, c.BlockWidth, true)
}

// factorizeOwned is FactorizeInPlace for Run (the registry's
// factorization), with the default block width: Run's upload is its own
// copy, as in the thesis.
func (c *sksOf[K]) factorizeOwned(m any, v Variant) error {
	return c.factorize(isLDLT[K](), m.(*afarray.SKS), v, 0, false)
}
