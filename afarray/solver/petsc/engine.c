//go:build petsc

// The C half of the PETSc engine: each function is one collective phase of a
// solve, written with PETSc's own PetscCall error propagation so that a
// failure anywhere inside returns its code (and the first message, kept by
// ocs_error_handler) to Go instead of aborting the job. Go times the phases
// and turns the codes into typed errors.

#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <petscksp.h>

#include "engine.h"

static char ocs_msg[1024];

// ocs_error_handler keeps the first message of an error (where it was
// raised, not the traceback lines added on the way up) and returns the code,
// so that nothing is printed and nothing aborts.
static PetscErrorCode ocs_error_handler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL) {
    const char *text = NULL;
    PetscErrorMessage(n, &text, NULL);
    snprintf(ocs_msg, sizeof ocs_msg, "%s%s%s (%s, %s:%d)", text ? text : "PETSc error", mess && *mess ? ": " : "", mess ? mess : "", fun ? fun : "?", file ? file : "?", line);
  }
  return n;
}

const char *ocs_last_message(void) { return ocs_msg; }

void ocs_clear_message(void) { ocs_msg[0] = 0; }

int ocs_init(int argc, char **argv)
{
  int            flag = 0, provided = 0;
  PetscErrorCode ierr;

  // Go may run later calls on another OS thread (never two at once: the Go
  // side serializes them), which MPI_THREAD_SERIALIZED allows.
  MPI_Initialized(&flag);
  if (!flag && MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return -1;
  ierr = PetscInitialize(&argc, &argv, NULL, NULL);
  if (ierr) return ierr;
  return PetscPushErrorHandler(ocs_error_handler, NULL);
}

int ocs_finalize(void)
{
  PetscBool      fin = PETSC_FALSE;
  PetscErrorCode ierr;
  int            flag = 0;

  PetscFinalized(&fin);
  if (!fin) {
    ierr = PetscFinalize();
    if (ierr) return ierr;
  }
  MPI_Finalized(&flag);
  if (!flag) MPI_Finalize();
  return 0;
}

int ocs_rank(void)
{
  int r = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &r);
  return r;
}

int ocs_size(void)
{
  int s = 1;
  MPI_Comm_size(PETSC_COMM_WORLD, &s);
  return s;
}

int ocs_insert_options(const char *opts) { return PetscOptionsInsertString(NULL, opts); }

int ocs_allreduce_max(double *v, int n) { return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD) == MPI_SUCCESS ? 0 : -1; }

int ocs_allreduce_sum(double *v, int n) { return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD) == MPI_SUCCESS ? 0 : -1; }

// ocs_agree_flag is MPI_MAX of *flag over the ranks through a nonblocking
// allreduce, so that a rank can stop waiting: with timeout > 0 it polls
// and returns 1 when the others have not come after that many seconds
// (they wait inside a collective call of PETSc that this rank left on an
// error, on PETSc's own communicator, which this one cannot match).
// Every rank must call it (blocking and nonblocking collectives do not
// match); 0 when agreed, -1 when MPI failed.
int ocs_agree_flag(double *flag, double timeout)
{
  MPI_Request req;
  int         done = 0;
  double      end;
  if (MPI_Iallreduce(MPI_IN_PLACE, flag, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD, &req) != MPI_SUCCESS) return -1;
  if (timeout <= 0) return MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
  end = MPI_Wtime() + timeout;
  for (;;) {
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    if (MPI_Wtime() > end) return 1;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
}

// ocs_abort ends every rank of the job with the exit status code.
void ocs_abort(int code) { MPI_Abort(PETSC_COMM_WORLD, code); }

double ocs_peak_rss(void)
{
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u)) return 0;
  return (double)u.ru_maxrss * 1024.0;
}

void ocs_destroy(ocs_system *s)
{
  if (s->ksp) KSPDestroy(&s->ksp);
  if (s->F) MatDestroy(&s->F);
  if (s->A) MatDestroy(&s->A);
  if (s->b) VecDestroy(&s->b);
  if (s->x) VecDestroy(&s->x);
}

// ocs_assemble builds A from coordinate entries with global indices (the
// rows a rank passes need not be its own: PETSc moves entries of other
// ranks' rows to them, which is how rank 0 scatters a matrix only it holds)
// and b from (index, value) pairs the same way. Duplicates are summed.
int ocs_assemble(ocs_system *s, PetscInt n, PetscInt nlocal, PetscInt bs, int spd, PetscCount ncoo, PetscInt *ci, PetscInt *cj, const PetscScalar *cv, PetscInt nb, const PetscInt *bi, const PetscScalar *bv)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &s->A));
  PetscCall(MatSetSizes(s->A, nlocal, nlocal, n, n));
  PetscCall(MatSetType(s->A, MATAIJ));
  if (bs > 1) PetscCall(MatSetBlockSize(s->A, bs));
  PetscCall(MatSetPreallocationCOO(s->A, ncoo, ci, cj));
  PetscCall(MatSetValuesCOO(s->A, cv, INSERT_VALUES));
  PetscCall(MatSetOption(s->A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(s->A, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  if (spd) PetscCall(MatSetOption(s->A, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(s->A, &s->x, &s->b));
  PetscCall(VecSetValues(s->b, nb, bi, bv, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(s->b));
  PetscCall(VecAssemblyEnd(s->b));
  PetscCall(VecSet(s->x, 0.0));
  PetscFunctionReturn(0);
}

// ocs_rigid_body gives A the six rigid-body modes of 3-D elasticity as its
// near-null space (what GAMG builds its coarse spaces from). Each rank
// passes, for entries of rows (any rows, as in ocs_assemble), the DOF
// component (0 = x, 1 = y, 2 = z) and the node's coordinates. The modes are
// orthonormalized, which MatNullSpaceCreate requires.
int ocs_rigid_body(ocs_system *s, PetscInt m, const PetscInt *rows, const PetscInt *comp, const PetscScalar *xyz)
{
  Vec          c[4], v[6];
  MatNullSpace nsp;
  PetscScalar  cen[3], *a[4], *w[6];
  PetscInt     lo, hi, k, j, i;
  PetscReal    nrm;

  PetscFunctionBeginUser;
  // c[0] holds the component, c[1..3] the coordinates, in A's row layout.
  for (k = 0; k < 4; k++) {
    PetscCall(VecDuplicate(s->b, &c[k]));
    PetscCall(VecSet(c[k], -1.0));
  }
  for (i = 0; i < m; i++) {
    PetscScalar cc = (PetscScalar)comp[i];
    PetscCall(VecSetValues(c[0], 1, &rows[i], &cc, INSERT_VALUES));
    for (k = 0; k < 3; k++) PetscCall(VecSetValues(c[k + 1], 1, &rows[i], &xyz[3 * i + k], INSERT_VALUES));
  }
  for (k = 0; k < 4; k++) {
    PetscCall(VecAssemblyBegin(c[k]));
    PetscCall(VecAssemblyEnd(c[k]));
  }
  // Centre the coordinates: the rotations about the centroid are better
  // conditioned than about the origin (the span is the same).
  for (k = 0; k < 3; k++) {
    PetscInt nn;
    PetscCall(VecSum(c[k + 1], &cen[k]));
    PetscCall(VecGetSize(c[k + 1], &nn));
    cen[k] /= (PetscScalar)nn;
  }
  PetscCall(VecGetOwnershipRange(s->b, &lo, &hi));
  for (j = 0; j < 6; j++) PetscCall(VecDuplicate(s->b, &v[j]));
  for (k = 0; k < 4; k++) PetscCall(VecGetArray(c[k], &a[k]));
  for (j = 0; j < 6; j++) PetscCall(VecGetArray(v[j], &w[j]));
  for (i = 0; i < hi - lo; i++) {
    PetscInt    q = (PetscInt)a[0][i];
    PetscScalar x = a[1][i] - cen[0], y = a[2][i] - cen[1], z = a[3][i] - cen[2];
    PetscScalar rx[3] = {0, -z, y}, ry[3] = {z, 0, -x}, rz[3] = {-y, x, 0};
    PetscCheck(q >= 0 && q <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "row %" PetscInt_FMT " has no DOF component", lo + i);
    for (j = 0; j < 3; j++) w[j][i] = (q == j) ? 1.0 : 0.0;
    w[3][i] = rx[q];
    w[4][i] = ry[q];
    w[5][i] = rz[q];
  }
  for (j = 0; j < 6; j++) PetscCall(VecRestoreArray(v[j], &w[j]));
  for (k = 0; k < 4; k++) PetscCall(VecRestoreArray(c[k], &a[k]));
  for (k = 0; k < 4; k++) PetscCall(VecDestroy(&c[k]));
  // Modified Gram-Schmidt.
  for (j = 0; j < 6; j++) {
    for (k = 0; k < j; k++) {
      PetscScalar d;
      PetscCall(VecDot(v[j], v[k], &d));
      PetscCall(VecAXPY(v[j], -d, v[k]));
    }
    PetscCall(VecNormalize(v[j], &nrm));
    PetscCheck(nrm > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "rigid-body mode %" PetscInt_FMT " vanishes on the free DOFs", j);
  }
  PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 6, v, &nsp));
  PetscCall(MatSetNearNullSpace(s->A, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  for (j = 0; j < 6; j++) PetscCall(VecDestroy(&v[j]));
  PetscFunctionReturn(0);
}

// ocs_mumps_symbolic is MUMPS's analysis (ordering and symbolic
// factorization). spd selects Cholesky (SYM=1) over LDLᵀ (SYM=2); PETSc
// decides that from the MAT_SPD flag set by ocs_assemble. Options such as
// -mat_mumps_icntl_7 are read here, under the prefix "mumps_" and without.
int ocs_mumps_symbolic(ocs_system *s)
{
  MatFactorInfo info;

  PetscFunctionBeginUser;
  PetscCall(MatGetFactor(s->A, MATSOLVERMUMPS, MAT_FACTOR_CHOLESKY, &s->F));
  PetscCall(MatFactorInfoInitialize(&info));
  PetscCall(MatCholeskyFactorSymbolic(s->F, s->A, NULL, &info));
  PetscFunctionReturn(0);
}

// ocs_mumps_numeric factors; *ferr receives MatFactorError (MUMPS failures
// are reported there, not as error codes), info[] MUMPS's INFOG(1), INFOG(2),
// INFOG(12) (negative pivots), INFOG(21), INFOG(22) (MB of the largest and
// all ranks' factorization memory), INFOG(29) (entries in the factors) and
// INFOG(28) (null pivots) and INFOG(11) (order of the largest front).
int ocs_mumps_numeric(ocs_system *s, int *ferr, PetscInt info[8])
{
  MatFactorInfo  info0;
  MatFactorError e;
  PetscInt       idx[8] = {1, 2, 12, 21, 22, 29, 28, 11};
  int            k;

  PetscFunctionBeginUser;
  PetscCall(MatFactorInfoInitialize(&info0));
  PetscCall(MatCholeskyFactorNumeric(s->F, s->A, &info0));
  PetscCall(MatFactorGetError(s->F, &e));
  *ferr = (int)e;
  for (k = 0; k < 8; k++) PetscCall(MatMumpsGetInfog(s->F, idx[k], &info[k]));
  PetscFunctionReturn(0);
}

// ocs_mumps_flops returns RINFOG(3), the floating-point operations of the
// factorization (MUMPS's count, known after the factorization).
int ocs_mumps_flops(ocs_system *s, PetscReal *flops)
{
  PetscFunctionBeginUser;
  PetscCall(MatMumpsGetRinfog(s->F, 3, flops));
  PetscFunctionReturn(0);
}

// ocs_mumps_info returns the same INFOG values after an analysis alone.
int ocs_mumps_info(ocs_system *s, PetscInt info[8])
{
  PetscInt idx[8] = {1, 2, 12, 21, 22, 29, 28, 11};
  int      k;

  PetscFunctionBeginUser;
  for (k = 0; k < 8; k++) PetscCall(MatMumpsGetInfog(s->F, idx[k], &info[k]));
  PetscFunctionReturn(0);
}

int ocs_mumps_solve(ocs_system *s)
{
  PetscFunctionBeginUser;
  PetscCall(MatSolve(s->F, s->b, s->x));
  PetscFunctionReturn(0);
}

// ocs_ksp_setup creates the Krylov solver and sets its preconditioner up
// (GAMG builds its hierarchy here). Options given on the command line or
// through ocs_insert_options override ksptype, pctype and the tolerances.
int ocs_ksp_setup(ocs_system *s, const char *ksptype, const char *pctype, PetscReal rtol, PetscInt maxit, PetscReal *hist, PetscInt nhist)
{
  PC pc;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &s->ksp));
  PetscCall(KSPSetOperators(s->ksp, s->A, s->A));
  PetscCall(KSPSetType(s->ksp, ksptype));
  PetscCall(KSPGetPC(s->ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(s->ksp, rtol, 0.0, PETSC_DEFAULT, maxit));
  PetscCall(KSPSetNormType(s->ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetResidualHistory(s->ksp, hist, nhist, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(s->ksp));
  PetscCall(KSPSetUp(s->ksp));
  PetscFunctionReturn(0);
}

// ocs_ksp_solve solves; out[] receives the iterations, the converged reason,
// the last residual norm KSP tested, the PC's failure reason and the number
// of residual-history entries.
int ocs_ksp_solve(ocs_system *s, PetscInt out[5], PetscReal *rnorm)
{
  PetscInt           its, nh;
  KSPConvergedReason reason;
  PCFailedReason     pcr = PC_NOERROR;
  PC                 pc;
  const PetscReal   *h;

  PetscFunctionBeginUser;
  PetscCall(KSPSolve(s->ksp, s->b, s->x));
  PetscCall(KSPGetIterationNumber(s->ksp, &its));
  PetscCall(KSPGetConvergedReason(s->ksp, &reason));
  PetscCall(KSPGetResidualNorm(s->ksp, rnorm));
  PetscCall(KSPGetPC(s->ksp, &pc));
  if (reason == KSP_DIVERGED_PC_FAILED) PetscCall(PCGetFailedReason(pc, &pcr));
  PetscCall(KSPGetResidualHistory(s->ksp, &h, &nh));
  out[0] = its;
  out[1] = (PetscInt)reason;
  out[2] = (PetscInt)pcr;
  out[3] = nh;
  out[4] = 0;
  PetscFunctionReturn(0);
}

// ocs_ksp_names returns the Krylov method and preconditioner actually used
// (after options), in buffers of length len.
int ocs_ksp_names(ocs_system *s, char *ksp, char *pc, size_t len)
{
  KSPType kt;
  PCType  pt;
  PC      p;

  PetscFunctionBeginUser;
  PetscCall(KSPGetType(s->ksp, &kt));
  PetscCall(KSPGetPC(s->ksp, &p));
  PetscCall(PCGetType(p, &pt));
  snprintf(ksp, len, "%s", kt ? kt : "");
  snprintf(pc, len, "%s", pt ? pt : "");
  PetscFunctionReturn(0);
}

// ocs_measure computes, in parallel, the norms of the accuracy report:
// out[0] ||b - A x||₂, out[1] ||b||₂, out[2] ||b - A x||∞, out[3] ||A||∞,
// out[4] ||x||∞, out[5] ||b||∞, out[6] 1 if x holds NaN or Inf.
int ocs_measure(ocs_system *s, PetscReal out[7])
{
  Vec       r;
  PetscReal nx2;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(s->b, &r));
  PetscCall(MatMult(s->A, s->x, r));
  PetscCall(VecAYPX(r, -1.0, s->b));
  PetscCall(VecNorm(r, NORM_2, &out[0]));
  PetscCall(VecNorm(s->b, NORM_2, &out[1]));
  PetscCall(VecNorm(r, NORM_INFINITY, &out[2]));
  PetscCall(MatNorm(s->A, NORM_INFINITY, &out[3]));
  PetscCall(VecNorm(s->x, NORM_INFINITY, &out[4]));
  PetscCall(VecNorm(s->b, NORM_INFINITY, &out[5]));
  PetscCall(VecNorm(s->x, NORM_2, &nx2));
  out[6] = (PetscIsInfOrNanReal(nx2) || PetscIsInfOrNanReal(out[0])) ? 1 : 0;
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

// ocs_gather copies x, in the original numbering, into dst (length n) on
// rank 0, or on every rank when all is set; other ranks may pass NULL.
int ocs_gather(ocs_system *s, int all, PetscScalar *dst)
{
  VecScatter         sc;
  Vec                seq;
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  if (all) PetscCall(VecScatterCreateToAll(s->x, &sc, &seq));
  else PetscCall(VecScatterCreateToZero(s->x, &sc, &seq));
  PetscCall(VecScatterBegin(sc, s->x, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, s->x, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetLocalSize(seq, &n));
  if (n > 0 && dst) {
    PetscCall(VecGetArrayRead(seq, &a));
    memcpy(dst, a, (size_t)n * sizeof(PetscScalar));
    PetscCall(VecRestoreArrayRead(seq, &a));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&seq));
  PetscFunctionReturn(0);
}

// ocs_bnorm returns ||b||₂ (KSP's residuals are scaled by it in the report).
int ocs_bnorm(ocs_system *s, PetscReal *nrm)
{
  PetscFunctionBeginUser;
  PetscCall(VecNorm(s->b, NORM_2, nrm));
  PetscFunctionReturn(0);
}

// ocs_ksp_history copies up to n entries of the residual history to dst.
int ocs_ksp_history(ocs_system *s, PetscReal *dst, PetscInt n)
{
  const PetscReal *h;
  PetscInt         nh;

  PetscFunctionBeginUser;
  PetscCall(KSPGetResidualHistory(s->ksp, &h, &nh));
  if (nh > n) nh = n;
  if (nh > 0) memcpy(dst, h, (size_t)nh * sizeof(PetscReal));
  PetscFunctionReturn(0);
}

// ocs_ksp_reason_name writes the name of the KSP's converged reason.
int ocs_ksp_reason_name(ocs_system *s, char *dst, size_t len)
{
  KSPConvergedReason r;

  PetscFunctionBeginUser;
  PetscCall(KSPGetConvergedReason(s->ksp, &r));
  snprintf(dst, len, "%s", KSPConvergedReasons[r]);
  PetscFunctionReturn(0);
}
