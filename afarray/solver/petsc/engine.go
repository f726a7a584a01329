//go:build petsc

package petsc

/*
#cgo pkg-config: PETSc ompi-c
#include <stdlib.h>
#include "engine.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The Go slices handed to PETSc are int32 and float64; PETSc must have been
// built with 32-bit indices and real double scalars (Debian's
// libpetsc-real3.18 is).
var _ = [1]struct{}{}[unsafe.Sizeof(C.PetscInt(0))-4]
var _ = [1]struct{}{}[unsafe.Sizeof(C.PetscScalar(0))-8]

// Available reports whether this build has the PETSc engine (a function,
// not a constant, so that the REPL's one binding serves both builds).
func Available() bool { return true }

var (
	mu    sync.Mutex // serializes every call into PETSc and MPI
	state int        // 0 before Init, 1 initialized, 2 finalized
)

// errFinalized is returned by calls after Finalize.
var errFinalized = fmt.Errorf("%w: PETSc was finalized", ErrPETSc)

// Init initializes MPI (MPI_THREAD_SERIALIZED) and PETSc once; later calls
// do nothing. PETSc reads PETSC_OPTIONS from the environment. OpenMPI's
// signal interception (OMPI_MCA_opal_signal) and PETSc's signal handler are
// turned off because Go's runtime owns SIGSEGV, SIGBUS and SIGFPE.
func Init() error {
	mu.Lock()
	defer mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return initLocked()
}

func initLocked() error {
	switch state {
	case 1:
		return nil
	case 2:
		return errFinalized
	}
	if _, set := os.LookupEnv("OMPI_MCA_opal_signal"); !set {
		os.Setenv("OMPI_MCA_opal_signal", "")
	}
	args := []string{"oclsolve", "-no_signal_handler"}
	argv := make([]*C.char, len(args)+1)
	for k, a := range args {
		argv[k] = C.CString(a)
	}
	cargv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	copy(unsafe.Slice(cargv, len(argv)), argv)
	// PETSc keeps argv (PetscGetArgs), so neither it nor the strings are freed.
	if code := C.ocs_init(C.int(len(args)), cargv); code != 0 {
		return fmt.Errorf("%w: initializing MPI and PETSc failed (code %d): %s", ErrPETSc, int(code), C.GoString(C.ocs_last_message()))
	}
	state = 1
	return nil
}

// Finalize finalizes PETSc and MPI if Init ran; it must be called once on
// every rank before the process exits (mpiexec reports a rank that exits
// without it). Afterwards every call fails.
func Finalize() error {
	mu.Lock()
	defer mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if state != 1 {
		state = 2
		return nil
	}
	state = 2
	if code := C.ocs_finalize(); code != 0 {
		return fmt.Errorf("%w: PetscFinalize failed (code %d): %s", ErrPETSc, int(code), C.GoString(C.ocs_last_message()))
	}
	return nil
}

// Rank returns this process's rank in MPI_COMM_WORLD, initializing PETSc if
// needed (0 if that fails).
func Rank() int { return worldQuery(0, func() C.int { return C.ocs_rank() }) }

// Size returns the number of ranks (1 if initialization fails).
func Size() int { return worldQuery(1, func() C.int { return C.ocs_size() }) }

// worldQuery is Rank and Size: get's answer once PETSc is initialized
// (under the engine's lock), or what a lone process would answer, alone,
// when initialization fails.
func worldQuery(alone int, get func() C.int) int {
	mu.Lock()
	defer mu.Unlock()
	if initLocked() != nil {
		return alone
	}
	return int(get())
}

// LocalRows returns the rows [lo, hi) this rank holds in a Solve of order n
// whose Options carry these node coordinates and equations (nil, nil for a
// system without them): whole nodes when the equations come in whole nodes,
// as Solve splits them. It is the fem.RowRange with which every rank
// assembles only its own rows (A given on every rank needs only those; the
// others are dropped). The ranks must agree on the node data, as they must
// for Solve.
func LocalRows(n int, coords []float64, equation []int32) (lo, hi int, err error) {
	if n < 0 {
		return 0, 0, fmt.Errorf("%w: order %d", afarray.ErrShape, n)
	}
	bs := 1
	if coords != nil || equation != nil {
		_, blocked, err := dofsOf(n, coords, equation)
		if err != nil {
			return 0, 0, err
		}
		if blocked {
			bs = 3
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if err := initLocked(); err != nil {
		return 0, 0, err
	}
	lo, hi = ownership(n, bs, int(C.ocs_rank()), int(C.ocs_size()))
	return lo, hi, nil
}

// PETSc error codes (petscerror.h) with a typed meaning.
const (
	codeMem           = 55
	codeLUZeroPivot   = 71
	codeCholZeroPivot = 81
	codeUnknownType   = 86
)

// codeErr turns a PETSc error code into an error carrying PETSc's message.
func codeErr(code C.int, what string) error {
	if code == 0 {
		return nil
	}
	msg := C.GoString(C.ocs_last_message())
	C.ocs_clear_message()
	if msg == "" {
		msg = fmt.Sprintf("error code %d", int(code))
	}
	switch code {
	case codeMem:
		return fmt.Errorf("%w: PETSc %s: %s", afarray.ErrOutOfMemory, what, msg)
	case codeCholZeroPivot:
		return fmt.Errorf("%w: PETSc %s: %s", solver.ErrNotPositiveDefinite, what, msg)
	case codeLUZeroPivot:
		return fmt.Errorf("%w: PETSc %s: %s", solver.ErrZeroPivot, what, msg)
	case codeUnknownType:
		return fmt.Errorf("%w: PETSc %s: %s", solver.ErrUnknown, what, msg)
	}
	return fmt.Errorf("%w: %s: %s", ErrPETSc, what, msg)
}

// errElsewhere is what a rank returns when another rank failed.
var errElsewhere = fmt.Errorf("%w: the solve failed on another rank", ErrPETSc)

// agree makes every rank return an error when any rank has one, so that no
// rank goes on into a collective call the others have left.
//
// A rank whose error came out of a step of collective calls (assembly,
// factorization, ...) may have left it where the others are still inside
// one, waiting for it: they would never come to the agreement, and nothing
// but ending the job frees them. So a failing rank waits for the others at
// most AgreeTimeout, then prints its error and aborts every rank
// (MPI_Abort, exit status 1) instead of hanging.
func agree(err error) error {
	flag := []C.double{0}
	timeout := 0.0
	if err != nil {
		flag[0] = 1
		timeout = math.Max(AgreeTimeout.Seconds(), 1e-3)
	}
	switch C.ocs_agree_flag(&flag[0], C.double(timeout)) {
	case 0:
	case 1:
		fmt.Fprintf(os.Stderr, "oclsolve petsc: rank %d of %d: %v\noclsolve petsc: the other ranks did not come to agree on it within %v (they wait in a collective call this rank left): aborting every rank\n",
			int(C.ocs_rank()), int(C.ocs_size()), err, AgreeTimeout)
		C.ocs_abort(1)
	default:
		return fmt.Errorf("%w: MPI_Iallreduce failed", ErrPETSc)
	}
	if flag[0] != 0 && err == nil {
		return errElsewhere
	}
	return err
}

// Agree is collective: it returns err, or, where err is nil but another
// rank passed an error, an error saying so, so that every rank stops
// before a collective call that some would not reach (rank 0 failing to
// read a file the others wait for).
func Agree(err error) error {
	mu.Lock()
	defer mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if e := initLocked(); e != nil {
		return errors.Join(err, e)
	}
	return agree(err)
}

// Solve solves A x = b with the PETSc engine and returns x (on rank 0, or
// on every rank with Options.GatherAll; nil elsewhere) in the original
// numbering and the report (on every rank). It is collective: every rank
// calls it. A and b are given either on every rank, or on rank 0 only (nil
// elsewhere); A may be one triangle (Symmetric) or both. Given on every
// rank, a full (not Symmetric) A needs only the rank's own rows
// (LocalRows): the entries of other rows are ignored. Errors are
// solver's and afarray's typed errors (see the package documentation); a
// *solver.NotConvergedError comes with x and the report.
func Solve(a *sparse.COO, b []float64, opts Options) ([]float64, *Report, error) {
	start := time.Now()
	mu.Lock()
	defer mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := initLocked(); err != nil {
		return nil, nil, err
	}
	lay, err := agreeLayout(a, b, &opts)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Method: opts.Method, PC: opts.PC, Ranks: lay.size, N: lay.n, BlockSize: lay.bs}
	if a != nil {
		rep.NNZ = a.NNZ()
	}
	sys := (*C.ocs_system)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ocs_system{}))))
	defer func() {
		C.ocs_destroy(sys)
		C.free(unsafe.Pointer(sys))
	}()
	if err := upload(sys, a, b, opts, lay, rep); err != nil {
		return nil, nil, err
	}
	var solveErr error
	if opts.Method == MethodCG {
		solveErr = solveKSP(sys, opts, rep)
	} else {
		solveErr = solveMUMPS(sys, opts, rep)
	}
	var nc *solver.NotConvergedError
	if solveErr != nil && !errors.As(solveErr, &nc) {
		return nil, nil, solveErr
	}
	// Accuracy, in parallel, then x gathered.
	if err := measure(sys, rep); err != nil {
		return nil, nil, err
	}
	x, err := gather(sys, opts, lay, rep)
	if err != nil {
		return nil, nil, err
	}
	rep.TotalTime = time.Since(start)
	reduceTimes(rep)
	return x, rep, solveErr
}

// layout is how the ranks agreed to hold the system: its order and block
// size, this rank's rows [lo, hi), whether rank 0 alone holds A, and the
// node coordinates' degrees of freedom where given.
type layout struct {
	rank, size, n, bs, lo, hi int
	rootOnly                  bool
	xyzHolders                int
	dofs                      *nodeDOFs
}

// agreeLayout checks the input on every rank and agrees on where it is
// (every rank, or rank 0 only) and whether it is valid: collective, so
// that every rank returns the same kind of answer.
func agreeLayout(a *sparse.COO, b []float64, opts *Options) (*layout, error) {
	rank, size := int(C.ocs_rank()), int(C.ocs_size())
	var localErr error
	if err := opts.normalize(); err != nil {
		localErr = err
	} else if a != nil {
		localErr = checkInput(a, b)
	}
	has, hasXYZ, n := 0.0, 0.0, -1
	if a != nil {
		has, n = 1, a.Rows
		if opts.Coords != nil || opts.Equation != nil {
			hasXYZ = 1
		}
	}
	var dofs *nodeDOFs
	blocked := false
	if localErr == nil && hasXYZ == 1 {
		dofs, blocked, localErr = dofsOf(n, opts.Coords, opts.Equation)
	}
	bad := 0.0
	if localErr != nil {
		bad = 1
	}
	notBlocked := 0.0
	if hasXYZ == 1 && !blocked {
		notBlocked = 1
	}
	v := []C.double{C.double(bad), C.double(n), C.double(-n), C.double(notBlocked), C.double(hasXYZ)}
	sums := []C.double{C.double(has), C.double(hasXYZ)}
	if C.ocs_allreduce_max(&v[0], C.int(len(v))) != 0 || C.ocs_allreduce_sum(&sums[0], C.int(len(sums))) != 0 {
		return nil, fmt.Errorf("%w: MPI_Allreduce failed", ErrPETSc)
	}
	if v[0] != 0 {
		if localErr == nil {
			localErr = fmt.Errorf("%w: the input was rejected on another rank", ErrDistribution)
		}
		return nil, localErr
	}
	holders, xyzHolders := int(sums[0]), int(sums[1])
	rootOnly := holders == 1 && a != nil && rank == 0
	if holders == 1 && size > 1 {
		// Tell the others whether rank 0 is the holder.
		r := []C.double{0}
		if rootOnly {
			r[0] = 1
		}
		C.ocs_allreduce_max(&r[0], 1)
		rootOnly = r[0] == 1
	}
	switch {
	case holders == size && size > 1 && int(v[1]) != -int(v[2]):
		return nil, fmt.Errorf("%w: the ranks pass matrices of different orders (%d to %d)", ErrDistribution, -int(v[2]), int(v[1]))
	case holders == size:
		rootOnly = false
	case !rootOnly:
		return nil, fmt.Errorf("%w: A is given on %d of %d ranks (want all, or rank 0 only)", ErrDistribution, holders, size)
	}
	if xyzHolders != 0 && xyzHolders != holders {
		return nil, fmt.Errorf("%w: node coordinates are given on %d ranks, A on %d", ErrDistribution, xyzHolders, holders)
	}
	n = int(v[1])
	bs := 1
	if xyzHolders > 0 && v[3] == 0 {
		bs = 3
	}
	lo, hi := ownership(n, bs, rank, size)
	return &layout{rank: rank, size: size, n: n, bs: bs, lo: lo, hi: hi, rootOnly: rootOnly, xyzHolders: xyzHolders, dofs: dofs}, nil
}

// upload hands PETSc each rank's entries and right-hand side, and the
// rigid-body near-null space for CG where node coordinates are given.
func upload(sys *C.ocs_system, a *sparse.COO, b []float64, opts Options, lay *layout, rep *Report) error {
	t := time.Now()
	n, lo, hi := lay.n, lay.lo, lay.hi
	var ent *triplets
	var bi []int32
	var bv []float64
	var err error
	switch {
	case lay.rootOnly && lay.rank == 0:
		ent, err = localEntries(a, 0, n)
		bi, bv = iota32(0, n), b
	case lay.rootOnly:
		ent = &triplets{}
	default:
		ent, err = localEntries(a, lo, hi)
		bi, bv = iota32(lo, hi), b[lo:hi]
	}
	if err = agree(err); err != nil {
		return err
	}
	spd := C.int(0)
	if opts.Method == MethodCholesky || opts.Method == MethodCG {
		spd = 1
	}
	if err = injectedFault("assembly", lay.rank); err == nil {
		code := C.ocs_assemble(sys, C.PetscInt(n), C.PetscInt(hi-lo), C.PetscInt(lay.bs), spd,
			C.PetscCount(len(ent.v)), intPtr(ent.i), intPtr(ent.j), scalarPtr(ent.v),
			C.PetscInt(len(bi)), intPtr(bi), scalarPtr(bv))
		err = codeErr(code, "assembly")
	}
	ent = nil
	if err = agree(err); err != nil {
		return err
	}
	if lay.xyzHolders > 0 && !opts.NoNearNullSpace && opts.Method == MethodCG {
		var rows, comp []int32
		var xyz []float64
		if dofs := lay.dofs; dofs != nil {
			from, to := lo, hi
			if lay.rootOnly {
				from, to = 0, n
			}
			rows, comp, xyz = iota32(from, to), dofs.comp[from:to], dofs.xyz[3*from:3*to]
		}
		code := C.ocs_rigid_body(sys, C.PetscInt(len(rows)), intPtr(rows), intPtr(comp), scalarPtr(xyz))
		if err = agree(codeErr(code, "near-null space")); err != nil {
			return err
		}
		rep.NearNullSpace = 6
	}
	rep.UploadTime = time.Since(t)
	return nil
}

// measure computes the relative residual and the backward error in
// parallel and refuses a solution with NaN or Inf.
func measure(sys *C.ocs_system, rep *Report) error {
	var m [7]C.PetscReal
	if err := agree(codeErr(C.ocs_measure(sys, &m[0]), "residual")); err != nil {
		return err
	}
	if m[6] != 0 {
		return &solver.NonFiniteError{Where: "solution", Index: -1}
	}
	if m[1] > 0 {
		rep.RelativeResidual = float64(m[0] / m[1])
	} else {
		rep.RelativeResidual = float64(m[0])
	}
	if den := float64(m[3]*m[4] + m[5]); den > 0 {
		rep.BackwardError = float64(m[2]) / den
	}
	return nil
}

// gather collects x on rank 0, or on every rank with GatherAll (nil
// elsewhere).
func gather(sys *C.ocs_system, opts Options, lay *layout, rep *Report) ([]float64, error) {
	var x []float64
	all := C.int(0)
	if opts.GatherAll {
		all = 1
	}
	if opts.GatherAll || lay.rank == 0 {
		x = make([]float64, lay.n)
	}
	t := time.Now()
	if err := agree(codeErr(C.ocs_gather(sys, all, scalarPtr(x)), "gathering x")); err != nil {
		return nil, err
	}
	rep.GatherTime = time.Since(t)
	return x, nil
}

// reduceTimes makes the report's times and memory the largest over the
// ranks.
func reduceTimes(rep *Report) {
	red := []C.double{
		C.double(rep.UploadTime.Seconds()), C.double(rep.SymbolicTime.Seconds()), C.double(rep.FactorizeTime.Seconds()),
		C.double(rep.SolveTime.Seconds()), C.double(rep.TotalTime.Seconds()), C.ocs_peak_rss(),
		C.double(rep.GatherTime.Seconds()),
	}
	C.ocs_allreduce_max(&red[0], C.int(len(red)))
	sec := func(s C.double) time.Duration { return time.Duration(float64(s) * float64(time.Second)) }
	rep.UploadTime, rep.SymbolicTime, rep.FactorizeTime = sec(red[0]), sec(red[1]), sec(red[2])
	rep.SolveTime, rep.TotalTime, rep.PeakRSS = sec(red[3]), sec(red[4]), int64(red[5])
	rep.GatherTime = sec(red[6])
}

// solveMUMPS runs MUMPS's analysis, factorization and solve.
func solveMUMPS(sys *C.ocs_system, opts Options, rep *Report) error {
	if opts.PETScOptions != "" {
		if err := insertOptions(opts.PETScOptions); err != nil {
			return err
		}
	}
	var info [8]C.PetscInt
	t := time.Now()
	err := agree(codeErr(C.ocs_mumps_symbolic(sys), "MUMPS analysis"))
	if err == nil {
		err = agree(codeErr(C.ocs_mumps_info(sys, &info[0]), "MUMPS analysis"))
	}
	if err == nil {
		err = mumpsErr(opts.Method, "analysis", info, 0)
	}
	rep.SymbolicTime = time.Since(t)
	if err != nil {
		return err
	}

	t = time.Now()
	var ferr C.int
	if err = agree(codeErr(C.ocs_mumps_numeric(sys, &ferr, &info[0]), "MUMPS factorization")); err != nil {
		return err
	}
	rep.FactorizeTime = time.Since(t)
	// MUMPS gives INFOG(29) in millions, negated, when it exceeds 32 bits.
	rep.FactorEntries = int64(info[5])
	if info[5] < 0 {
		rep.FactorEntries = -int64(info[5]) * 1e6
	}
	rep.LargestFront = int(info[7])
	rep.FactorBytesMax, rep.FactorBytesAll = int64(info[3])*1e6, int64(info[4])*1e6
	rep.NegativePivots = int(info[2])
	var flops C.PetscReal
	if err = agree(codeErr(C.ocs_mumps_flops(sys, &flops), "MUMPS factorization")); err != nil {
		return err
	}
	rep.FactorFlops = float64(flops)
	if err = mumpsErr(opts.Method, "factorization", info, ferr); err != nil {
		return err
	}
	t = time.Now()
	err = agree(codeErr(C.ocs_mumps_solve(sys), "MUMPS solve"))
	rep.SolveTime = time.Since(t)
	return err
}

// mumpsErr interprets MUMPS's INFOG(1) (info[0], INFOG(2) in info[1]) and
// PETSc's MatFactorError after a phase. MUMPS's Cholesky (SYM=1) does not
// pivot; it reports a non-positive pivot as numerical singularity
// (INFOG(1) = -10) or, depending on the pivot's size, as a negative pivot
// counted in INFOG(12): both mean A is not positive definite.
func mumpsErr(method, phase string, info [8]C.PetscInt, ferr C.int) error {
	g1, g2 := int(info[0]), int(info[1])
	switch {
	case g1 == -10 || ferr == C.MAT_FACTOR_NUMERIC_ZEROPIVOT || ferr == C.MAT_FACTOR_STRUCT_ZEROPIVOT:
		if method == MethodCholesky {
			return fmt.Errorf("%w: MUMPS Cholesky met a zero or negative pivot (INFOG(1) = %d)", solver.ErrNotPositiveDefinite, g1)
		}
		return fmt.Errorf("%w: MUMPS %s: the matrix is numerically singular (INFOG(1) = %d)", solver.ErrZeroPivot, phase, g1)
	case g1 == -8 || g1 == -9 || g1 == -11 || g1 == -13 || g1 == -14 || g1 == -15 || g1 == -17 || g1 == -19 || g1 == -20 || ferr == C.MAT_FACTOR_OUTMEMORY:
		return fmt.Errorf("%w: MUMPS %s could not allocate its workspace (INFOG(1) = %d, INFOG(2) = %d)", afarray.ErrOutOfMemory, phase, g1, g2)
	case g1 < 0 || ferr != 0:
		return fmt.Errorf("%w: MUMPS %s failed: INFOG(1) = %d, INFOG(2) = %d", ErrPETSc, phase, g1, g2)
	case method == MethodCholesky && phase == "factorization" && info[2] > 0:
		return fmt.Errorf("%w: MUMPS Cholesky met %d negative pivots", solver.ErrNotPositiveDefinite, int(info[2]))
	}
	return nil
}

// KSPConvergedReason values (petscksp.h) with a typed meaning.
const (
	kspDivergedIts            = -3
	kspDivergedIndefinitePC   = -8
	kspDivergedNaNOrInf       = -9
	kspDivergedIndefiniteMat  = -10
	kspDivergedPCFailed       = -11
	pcFactorStructZeroPivot   = 1
	pcFactorNumericZeroPivot  = 2
	pcFactorOutOfMemory       = 3
	historyLength             = 10000
	kspNameLength             = 64
	kspReasonConvergedMinimum = 1
)

// solveKSP runs CG (or the Krylov method the options name) with the
// preconditioner of opts.
func solveKSP(sys *C.ocs_system, opts Options, rep *Report) error {
	if opts.PETScOptions != "" {
		if err := insertOptions(opts.PETScOptions); err != nil {
			return err
		}
	}
	ksp, pc := C.CString("cg"), C.CString(opts.PC)
	defer C.free(unsafe.Pointer(ksp))
	defer C.free(unsafe.Pointer(pc))
	t := time.Now()
	err := agree(codeErr(C.ocs_ksp_setup(sys, ksp, pc, C.PetscReal(opts.Tol), C.PetscInt(opts.MaxIter), nil, historyLength), "KSP setup"))
	rep.FactorizeTime = time.Since(t)
	if err != nil {
		return err
	}
	var names [2][kspNameLength]C.char
	if err = agree(codeErr(C.ocs_ksp_names(sys, &names[0][0], &names[1][0], kspNameLength), "KSP setup")); err != nil {
		return err
	}
	rep.KSP, rep.PC = C.GoString(&names[0][0]), C.GoString(&names[1][0])
	t = time.Now()
	var out [5]C.PetscInt
	var rnorm C.PetscReal
	err = agree(codeErr(C.ocs_ksp_solve(sys, &out[0], &rnorm), "KSP solve"))
	rep.SolveTime = time.Since(t)
	if err != nil {
		return err
	}
	var bnorm C.PetscReal
	if err = agree(codeErr(C.ocs_bnorm(sys, &bnorm), "KSP solve")); err != nil {
		return err
	}
	scale := 1.0
	if bnorm > 0 {
		scale = 1 / float64(bnorm)
	}
	rep.Iterations = int(out[0])
	rep.Residual = float64(rnorm) * scale
	if nh := int(out[3]); nh > 0 {
		h := make([]float64, nh)
		C.ocs_ksp_history(sys, scalarPtr(h), C.PetscInt(nh))
		for k := range h {
			h[k] *= scale
		}
		rep.History = h
	}
	reason, pcr := int(out[1]), int(out[2])
	switch {
	case reason >= kspReasonConvergedMinimum:
		return nil
	case reason == kspDivergedIts:
		return &solver.NotConvergedError{Iterations: rep.Iterations, Residual: rep.Residual, Tolerance: opts.Tol}
	case reason == kspDivergedIndefinitePC || reason == kspDivergedIndefiniteMat:
		return fmt.Errorf("%w: PETSc %s+%s: %s", solver.ErrNotPositiveDefinite, rep.KSP, rep.PC, kspReason(sys))
	case reason == kspDivergedNaNOrInf:
		return &solver.NonFiniteError{Where: "residual", Index: rep.Iterations}
	case reason == kspDivergedPCFailed && pcr == pcFactorOutOfMemory:
		return fmt.Errorf("%w: PETSc preconditioner %s ran out of memory", afarray.ErrOutOfMemory, rep.PC)
	case reason == kspDivergedPCFailed && (pcr == pcFactorStructZeroPivot || pcr == pcFactorNumericZeroPivot):
		return fmt.Errorf("%w: PETSc preconditioner %s met a zero pivot", solver.ErrZeroPivot, rep.PC)
	}
	return fmt.Errorf("%w: PETSc %s+%s stopped after %d iterations: %s (residual %g)", solver.ErrNotConverged, rep.KSP, rep.PC, rep.Iterations, kspReason(sys), rep.Residual)
}

// kspReason names the converged reason of the solver.
func kspReason(sys *C.ocs_system) string {
	var buf [kspNameLength]C.char
	C.ocs_ksp_reason_name(sys, &buf[0], kspNameLength)
	return C.GoString(&buf[0])
}

// insertOptions adds a PETSc options string to the options database.
func insertOptions(s string) error {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return agree(codeErr(C.ocs_insert_options(cs), "options"))
}

func iota32(lo, hi int) []int32 {
	s := make([]int32, hi-lo)
	for k := range s {
		s[k] = int32(lo + k)
	}
	return s
}

// intPtr and scalarPtr pass a Go slice to C for the duration of a call
// (PETSc copies what it keeps); nil for an empty slice.
func intPtr(s []int32) *C.PetscInt {
	if len(s) == 0 {
		return nil
	}
	return (*C.PetscInt)(unsafe.Pointer(&s[0]))
}

func scalarPtr(s []float64) *C.PetscScalar {
	if len(s) == 0 {
		return nil
	}
	return (*C.PetscScalar)(unsafe.Pointer(&s[0]))
}
