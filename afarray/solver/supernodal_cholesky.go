package solver

import (
	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// FormatSupernodal is the supernodal storage of the factor, on a matrix
// uploaded in the thesis CSC layout: the default format of Cholesky and
// LDLᵀ. Its "auto" ordering is sparse.OrderFillAuto (the fewer flops of AMD
// and nested dissection).
const FormatSupernodal Format = "supernodal"

func init() {
	registerFormat(&formatSpec{name: FormatSupernodal, label: "SN",
		defaultOrder: sparse.OrderFillAuto, autoOrder: sparse.OrderFillAuto,
		upload: uploadCSC, thesisMemory: sparse.ThesisMemoryCSC})
	// Priority 1: the default format of Cholesky and LDLᵀ, the fastest;
	// the thesis's formats stay for its tables.
	register(&entry{method: MethodCholesky, format: FormatSupernodal, variant: Fast, priority: 1,
		newFactor: func() factorization { return &SupernodalCholesky{} }})
	register(&entry{method: MethodLDLT, format: FormatSupernodal, variant: Fast, priority: 1,
		newFactor: func() factorization { return &SupernodalLDLT{} }})
}

// reportStats gives Run's report the factor's figures (Report.Stats).
func (f *snFactor) reportStats() []Stat { return f.stats.reportStats() }

// reportStats returns the figures of a supernodal factorization for
// Report.Stats: nnz(L) (diagonal included, without amalgamation zeros),
// the flop count Σ c_j², the number of supernodes and of assembly-tree
// levels.
func (s SupernodalStats) reportStats() []Stat {
	return []Stat{
		{Key: "nnz_l", Value: s.NNZL, Group: "factor", Format: "nnz(L) %d"},
		{Key: "flops", Value: s.Flops, Group: "factor", Format: "%.3g flops"},
		{Key: "supernodes", Value: s.Supernodes, Group: "factor", Format: "%d supernodes"},
		{Key: "levels", Value: s.Levels, Group: "factor", Format: "%d levels"},
	}
}

// SupernodalCholesky is the Cholesky factorization P A Pᵀ = L Lᵀ of a
// symmetric positive definite matrix with a fill-reducing ordering P,
// stored by supernodes (dense column blocks) and computed on the device by
// the multifrontal method, tree level by tree level (see
// supernodal_factor.go). It is the fastest direct solver here; the CSC and
// skyline types keep the thesis's storage.
//
// The ordering and the symbolic analysis run on the host; the numeric
// factorization and the solves run entirely on the device. Factorize once,
// then Solve or SolveTo for as many right-hand sides as needed, one or
// several at a time (the columns of an n x k array). A factor is not safe
// for concurrent use.
type SupernodalCholesky struct {
	supernodalOf[kindCholesky]
}

// L copies the factor to the host: the symbolic analysis (ordering,
// supernodes, rows) and the values of the supernodal blocks, laid out as
// sparse.Supernodal describes.
func (c *SupernodalCholesky) L() (*sparse.Supernodal, []float64, error) { return c.f.factor() }

// SupernodalLDLT is the LDLᵀ factorization P A Pᵀ = L D Lᵀ (unit L, no
// pivoting, as the thesis's LDLᵀ) with the same supernodal storage and
// device schedule as SupernodalCholesky. It factors symmetric indefinite
// matrices whose pivots in the chosen order are non-zero; a zero pivot
// gives a *ZeroPivotError (ErrZeroPivot) naming the column in a's
// numbering. D is stored on the diagonal of L's blocks.
type SupernodalLDLT struct {
	supernodalOf[kindLDLT]
}

// LD copies the factor to the host: L's unit lower blocks with D on their
// diagonals, laid out as sparse.Supernodal describes.
func (c *SupernodalLDLT) LD() (*sparse.Supernodal, []float64, error) { return c.f.factor() }

// supernodalOf holds the methods of SupernodalCholesky and SupernodalLDLT
// (kind K).
type supernodalOf[K factorKind] struct {
	f snFactor
}

// Factorize orders a with the named ordering (amd, nd, rcm, none or auto;
// "" means auto, see sparse.FillOrder), analyzes it and factors it. It
// returns a *NotPositiveDefiniteError (ErrNotPositiveDefinite; Cholesky) or
// a *ZeroPivotError (ErrZeroPivot; LDLT) naming the first failing column in
// a's own numbering, a *NonFiniteError (ErrNonFinite) for NaN or Inf in a,
// and errors matching afarray.ErrShape for a malformed matrix. a is left
// unchanged.
func (c *supernodalOf[K]) Factorize(a *afarray.CSC, ordering sparse.Ordering) error {
	c.f.ldlt = isLDLT[K]()
	return c.f.factorize(a, ordering)
}

// SolveTo solves A X = B into dst (dst may be b): n x k float64 arrays on
// the factor's device, k >= 1 right-hand sides. A NaN or Inf in b or in the
// solution is reported as a *NonFiniteError.
func (c *supernodalOf[K]) SolveTo(dst, b *afarray.Array) error { return c.f.solveTo(dst, b) }

// Solve solves A X = B into a new array shaped like b.
func (c *supernodalOf[K]) Solve(b *afarray.Array) (*afarray.Array, error) { return c.f.solve(b) }

// Stats describes the factorization and the last solve in the terms
// common to every factor type (FactorLen is the stored length of L's
// blocks, Levels the assembly tree's depth, BlockWidth the large fronts'
// block width).
func (c *supernodalOf[K]) Stats() FactorStats { return c.f.factorStats() }

// SupernodalStats gives the details: ordering, nnz(L), flops, supernodes,
// levels, device memory.
func (c *supernodalOf[K]) SupernodalStats() SupernodalStats { return c.f.stats }

// factorizeOwned is Factorize for Run (the registry's factorization): Run
// has already applied the ordering, so only the postorder is added.
func (c *supernodalOf[K]) factorizeOwned(m any, _ Variant) error {
	return c.Factorize(m.(*afarray.CSC), sparse.OrderNatural)
}

// Release frees the factor's device memory.
func (c *supernodalOf[K]) Release() { c.f.release() }

// reportStats gives Run's report the factor's figures (Report.Stats).
func (c *supernodalOf[K]) reportStats() []Stat { return c.f.reportStats() }
