// Package petsc solves the systems of afarray/sparse with PETSc under MPI:
// distributed multifrontal Cholesky and LDLᵀ through MUMPS, and conjugate
// gradient preconditioned by PETSc's algebraic multigrid (GAMG, given the
// rigid-body modes of 3-D elasticity as near-null space) or any other PETSc
// preconditioner. It is oclsolve's path beyond one device: the matrix is
// distributed by rows over the MPI ranks of `mpiexec -n N oclsolve ...`.
//
// It lives under afarray/solver because it is one more engine for the same
// problem solver.Run solves: it takes the same *sparse.COO and right-hand
// side, returns x in the original numbering, and reports its failures with
// solver's typed errors (solver.ErrNotPositiveDefinite, ErrZeroPivot,
// ErrNotConverged, ErrNonFinite, afarray.ErrOutOfMemory). It is a package of
// its own, not a file of solver, so that the default build of oclsolve
// carries no MPI or PETSc run-time dependency: the engine is compiled only
// with the build tag petsc (`make petsc`, which installs Debian's
// libpetsc-real3.18-dev and builds bin/oclsolve-petsc). Without the tag the
// same API exists and every solve returns ErrNotBuilt.
//
// # Calling it
//
// Solve is collective: every rank of MPI_COMM_WORLD calls it with the same
// options. A may be given on every rank (each rank then keeps only its own
// rows, so A need hold no other: a generated model is assembled by every
// rank in its own rows only, fem.AssembleRows with LocalRows as the
// fem.RowRange) or on rank 0 only (rank 0 then passes all entries to PETSc,
// which moves each row to its owner: how files are read). The rows are
// split in PETSc's contiguous ownership ranges, in whole nodes when the
// system carries node coordinates; LocalRows says which are this rank's.
//
//	x, rep, err := petsc.Solve(a, b, petsc.Options{Method: petsc.MethodCholesky})
//	if petsc.Rank() == 0 { ... x holds the solution, rep the report ... }
//	petsc.Finalize() // before the process exits, on every rank
//
// PETSc and MPI are initialized by the first call that needs them (Init
// does it explicitly); Finalize must be called once at the end, after which
// no call may use PETSc again. PETSc options (-ksp_monitor,
// -mat_mumps_icntl_14 50, -pc_gamg_threshold 0.05, ...) come from
// Options.PETScOptions and from the PETSC_OPTIONS environment variable.
//
// # Failures
//
// Every step of collective calls ends with the ranks agreeing on whether
// any failed, so that all return the same kind of error and none goes on
// into a collective call the others have left. A rank that fails inside
// such a step (out of memory in the middle of the assembly on one rank)
// may have left the others waiting in a collective call it will never
// make; they cannot come to the agreement. The failing rank waits for them
// at most AgreeTimeout (OCLSOLVE_PETSC_AGREE_TIMEOUT, 60 s by default),
// then prints its error and ends the job with MPI_Abort (exit status 1)
// rather than leaving it hanging.
//
// Calls are serialized by a lock and MPI is initialized with
// MPI_THREAD_SERIALIZED, because Go may run successive calls on different
// OS threads. OpenMPI's and PETSc's own signal handlers are disabled (Go's
// runtime needs SIGSEGV and friends); see Init.
package petsc
