// Package solver holds the thesis's ten method x format combinations as
// OpenCL kernels on device-resident arrays: Gauss-Jordan on the augmented
// dense matrix; Cholesky and LDLᵀ on dense, CSC and skyline (SKS) storage;
// and conjugate gradient on any of them through its matrix-vector product.
//
// Every combination comes in two variants. Thesis reproduces the thesis's
// parallel structure (per-column phase launches, its fixed 32 x 1024 launch
// geometry, CG built from separate vector operations, x0 = b and an absolute
// tolerance) so its tables can be regenerated; it still runs on cached
// programs and leaks nothing. Fast (the default) is the best this package
// can do within the same storage format; each fast type documents what it
// changes and why. docs/thesis.md says what the thesis sections cited as "§"
// in this package contain.
//
// Beyond the thesis, SupernodalCholesky and SupernodalLDLT (format
// "supernodal", the default of Cholesky and LDLᵀ) order the matrix to
// reduce fill (AMD or METIS nested dissection, sparse.FillOrder), analyze
// it into supernodes on the host, and factor it on the device by the
// multifrontal method, a few batched launches per level of the assembly
// tree (supernodal_factor.go says why multifrontal and how the launches
// are laid out); their solves take several right-hand sides at once.
//
// Factorizations follow gonum's shape: Factorize once, then SolveTo for as
// many right-hand sides as needed. Errors match ErrNotPositiveDefinite,
// ErrZeroPivot, ErrNotConverged, ErrNonFinite and ErrShape with errors.Is
// (and, being of the shared kinds of package kernels/errs, the other
// packages' sentinels of the same kind, afarray.ErrShape included); a solver
// never returns NaN silently.
//
// # The registry
//
// Run executes one entry of a registry: a method (Method) on a storage
// format (Format) in a variant (Variant). Methods, Formats-by-method,
// Variants and Combinations list it; `oclsolve solve` and `oclsolve bench`
// build their flags, defaults and tables from it, and orderings come from
// the sparse package's registry (sparse.RegisterOrdering). Run itself has
// one driver per kind of entry: runDirect for a factor type (factor the
// run's own device copy, solve, read the times from Stats, release),
// runIterative for an operator and an iteration (CG), and a one-shot solve
// (Gauss-Jordan).
//
// # How to add a solver
//
// A new direct factorization (say a supernodal Cholesky on CSC) is one file
// pair and its test, and nothing else edited:
//
//   - supernodal.cl: the kernels. Report failures through the shared status
//     slots (sks_status.cl: sparse_bad_pivot, check_finite) so the host
//     reads one small buffer at the end instead of waiting per launch.
//   - supernodal.go: the factor type with the methods every factor type has
//     (Factorize, FactorizeInPlace where the factor can overwrite its input,
//     SolveTo, Solve, Stats, Release and an accessor for the factor), plus
//     the unexported factorizeOwned(m any, v Variant) error that Run calls
//     with the format's device matrix (*afarray.CSC for csc). It builds its
//     program from its .cl (clSources("sks_status.cl", "supernodal.cl"):
//     sources.go embeds every .cl of the folder) through the device's
//     cache, and registers each variant it implements from init (below).
//   - supernodal_test.go: against gonum (small systems) and the backward
//     error (the real matrices in ../shared/matrices). TestRunAllCombinations,
//     TestRegistryConsistent and the CLI tests then cover the entry through
//     Run.
//
// The registration, in supernodal.go:
//
//	const Supernodal Variant = "supernodal"
//
//	func init() {
//		registerVariant(Supernodal)
//		register(&entry{method: MethodCholesky, format: FormatCSC, variant: Supernodal,
//			newFactor: func() factorization { return &SupernodalCholesky{} }})
//	}
//
// What else the rest of the code needs to know is registry data, declared
// in the same file:
//
//   - the default format: an entry with a priority above its method's
//     other entries (entry.priority) becomes what "" and "auto" mean for
//     the method, in Run, Methods and `oclsolve solve` (the supernodal
//     entries declare 1 and so are Cholesky's and LDLᵀ's default, and the
//     automatic choice's Cholesky);
//   - the report's own figures: a factor type or operator with a
//     reportStats() []Stat method (supernodal_cholesky.go: nnz_l, flops,
//     supernodes, levels) fills Report.Stats, which `oclsolve solve` prints
//     as --json fields and on its text report without knowing the solver.
//
// sell.go is a worked example: CG on sliced ELLPACK storage, a new format
// with its upload, ordering, memory formula, CG entry and report figures,
// added as sell.go, sell.cl and sell_test.go with nothing else edited.
//
// A new storage format is a registerFormat(&formatSpec{...}) in the same
// init (its upload from a COO matrix, what "" and "auto" orderings mean for
// it, its memory formula), a new method a registerMethod(&methodSpec{...}).
// A new ordering goes to package sparse the same way: one file whose init
// calls sparse.RegisterOrdering.
//
// # Several devices
//
// Options.Devices with more than one device sends Run to runMulti, which
// orders the system as for one device and calls the entry's multi-device
// implementation on the host matrix; an entry gains one with
// registerMulti(method, format, variant, fn) from its file's init
// (cg_multi.go registers CGMulti for cg/csc/fast; supernodal_multi.go
// the split supernodal Cholesky and LDLᵀ, SupernodalCholeskyMulti and
// SupernodalLDLTMulti, for cholesky and ldlt on supernodal storage), and
// MultiDevice lists them. Entries without one refuse a device list with
// ErrUnknown. A direct method's multi-device answer is checked like a
// one-device one (InaccurateError above MaxBackwardError).
//
// An iterative method registers a methodSpec with an iterate function and
// an entry with newOperator per format; an operator implements Operator
// (and Diagonaler for Jacobi preconditioning).
package solver
