package petsc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/kernels/errs"
)

// Methods of Options.Method.
const (
	// MethodCholesky is MUMPS's multifrontal Cholesky (SYM=1): A must be
	// symmetric positive definite.
	MethodCholesky = "cholesky"
	// MethodLDLT is MUMPS's symmetric indefinite LDLᵀ (SYM=2).
	MethodLDLT = "ldlt"
	// MethodCG is PETSc's conjugate gradient (KSPCG) with the
	// preconditioner of Options.PC.
	MethodCG = "cg"
)

// Preconditioner names with a meaning of their own here; any other name
// is passed to PCSetType as is (jacobi, bjacobi, sor, hypre, none, ...).
const (
	// PCMUMPS is the direct solve (the only PC of cholesky and ldlt).
	PCMUMPS = "mumps"
	// PCGAMG is PETSc's smoothed-aggregation multigrid, CG's default.
	PCGAMG = "gamg"
)

// ErrNotBuilt is returned by every solve of a build without the petsc tag
// (kind errs.ErrUnsupported).
var ErrNotBuilt = errs.New("petsc", errs.ErrUnsupported, "this oclsolve was built without the PETSc engine (build with -tags petsc: make petsc, bin/oclsolve-petsc)")

// ErrPETSc wraps an error PETSc or MPI returned that has no more specific
// kind; the message is PETSc's.
var ErrPETSc = errors.New("petsc: PETSc failed")

// ErrDistribution reports inconsistent input across ranks: A given on some
// ranks but not all and not only on rank 0, or different orders (kind
// errs.ErrShape).
var ErrDistribution = errs.New("petsc", errs.ErrShape, "inconsistent input across ranks")

// Options configures Solve. Every rank must pass the same values (except
// the inputs that may be on rank 0 only, as documented).
type Options struct {
	// Method is cholesky (default), ldlt or cg.
	Method string
	// PC is the preconditioner of cg: gamg (default) or any PETSc PC type.
	// For cholesky and ldlt it must be empty or "mumps".
	PC string
	// Tol is CG's tolerance on ||b - A x||₂ / ||b||₂ (default 1e-8);
	// MaxIter its iteration limit (default 10000).
	Tol     float64
	MaxIter int
	// PETScOptions is a PETSc options string ("-ksp_monitor
	// -pc_gamg_threshold 0.05"), inserted into the global options database
	// before the solve; options there override Method's and PC's settings
	// (for example -ksp_type gmres). Options stay in the database for later
	// solves of the same process.
	PETScOptions string

	// Coords and Equation describe the nodes a 3-D elasticity system was
	// assembled from, as fem.System's Mesh.Coords (x, y, z per node) and
	// Equation (the equation of each node's DOF, -1 where fixed). When
	// given, CG's preconditioner gets the six rigid-body modes as its
	// near-null space and rows are distributed in whole nodes (block size
	// 3). They are needed only where A is (on every rank or on rank 0).
	Coords   []float64
	Equation []int32
	// NoNearNullSpace keeps the node layout (block size 3) but withholds
	// the rigid-body modes, so GAMG falls back to the constant vectors of
	// each component: the comparison the modes are for.
	NoNearNullSpace bool

	// GatherAll returns x on every rank; by default only rank 0 gets it.
	GatherAll bool
}

// Report describes one Solve. Times are the maximum over ranks.
type Report struct {
	Method string // cholesky, ldlt or cg
	KSP    string // the Krylov method actually run (cg, or another from the options); "" for direct solves
	PC     string // mumps, or the preconditioner actually run
	Ranks  int    // MPI ranks
	N, NNZ int    // order and stored entries of A as given (to this rank)

	// BlockSize is 3 when rows are distributed in whole nodes, else 1;
	// NearNullSpace is the number of near-null-space vectors given to the
	// preconditioner (6 rigid-body modes, or 0).
	BlockSize, NearNullSpace int

	// The time split, as solver.Report's: Upload is distributing and
	// assembling A and b (PETSc's COO assembly); Symbolic is MUMPS's
	// analysis (its ordering included: Ordering stays 0) or nothing for
	// CG; Factorize is MUMPS's numerical factorization, or the
	// preconditioner's setup for CG (GAMG's hierarchy); Solve is the
	// triangular solves or the Krylov iteration; Total is the wall time of
	// Solve, gathering x (GatherTime) and the accuracy norms included.
	UploadTime, OrderingTime, SymbolicTime, FactorizeTime, SolveTime, TotalTime time.Duration
	// GatherTime is gathering x on rank 0 (or every rank): the engine's
	// counterpart of a device solver's download.
	GatherTime time.Duration

	Iterations int       // cg only
	Residual   float64   // cg only: the last ||r||₂ KSP tested
	History    []float64 // cg only: ||r||₂ at each iteration

	// RelativeResidual is ||b - A x||₂ / ||b||₂ and BackwardError the
	// normwise backward error ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞), both
	// computed in parallel on the distributed A, x and b.
	RelativeResidual, BackwardError float64

	// PeakRSS is the largest peak resident memory of any rank, in bytes
	// (the whole process: the Go heap, PETSc and MUMPS).
	PeakRSS int64
	// MUMPS's own figures (direct solves): entries in the factors
	// (INFOG(29)), the largest and the total factorization memory over the
	// ranks in bytes (INFOG(21), INFOG(22); MUMPS counts in MB = 1e6 B),
	// and the number of negative pivots (INFOG(12), LDLᵀ's inertia).
	FactorEntries int64
	// FactorFlops is MUMPS's count of the factorization's floating-point
	// operations (RINFOG(3)).
	FactorFlops                    float64
	FactorBytesMax, FactorBytesAll int64
	NegativePivots                 int
	// LargestFront is the order of MUMPS's largest frontal matrix
	// (INFOG(11)): the dense block at the top of the assembly tree, whose
	// size governs the communication of the factorization.
	LargestFront int
}

// normalize checks the names of o and fills in the defaults.
func (o *Options) normalize() error {
	o.Method = strings.ToLower(o.Method)
	o.PC = strings.ToLower(o.PC)
	switch o.Method {
	case "":
		o.Method = MethodCholesky
		fallthrough
	case MethodCholesky, MethodLDLT:
		if o.PC == "" {
			o.PC = PCMUMPS
		}
		if o.PC != PCMUMPS {
			return fmt.Errorf("%w: method %s runs through MUMPS; --pc %q needs --method cg", solver.ErrUnknown, o.Method, o.PC)
		}
	case MethodCG:
		if o.PC == "" {
			o.PC = PCGAMG
		}
		if o.PC == PCMUMPS {
			return fmt.Errorf("%w: --pc mumps is the direct solve: use --method cholesky or ldlt", solver.ErrUnknown)
		}
	default:
		return fmt.Errorf("%w: PETSc method %q (want cholesky, ldlt or cg)", solver.ErrUnknown, o.Method)
	}
	// PETSc ignores words before the first option; here they are a
	// mistake (a missing dash), not silently nothing.
	if f := strings.Fields(o.PETScOptions); len(f) > 0 && !strings.HasPrefix(f[0], "-") {
		return fmt.Errorf("%w: PETSc options start with an option (-name [value] ...), not %q", solver.ErrUnknown, f[0])
	}
	if o.Tol < 0 || o.Tol >= 1 {
		return fmt.Errorf("%w: tolerance %g outside [0, 1)", solver.ErrUnknown, o.Tol)
	}
	if o.Tol == 0 {
		o.Tol = 1e-8
	}
	if o.MaxIter < 0 {
		return fmt.Errorf("%w: negative iteration limit %d", solver.ErrUnknown, o.MaxIter)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 10000
	}
	return nil
}
