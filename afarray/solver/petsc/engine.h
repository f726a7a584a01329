// Declarations shared by engine.c and the cgo preamble of engine.go (built
// only with the petsc tag).
#ifndef OCLSOLVE_PETSC_ENGINE_H
#define OCLSOLVE_PETSC_ENGINE_H

#include <petscksp.h>

// ocs_system is one distributed system: A, b, x and the solver objects
// made for it. Zero-initialized by Go; ocs_destroy frees what was made.
typedef struct {
  Mat A, F;
  Vec b, x;
  KSP ksp;
} ocs_system;

int         ocs_init(int argc, char **argv);
int         ocs_finalize(void);
int         ocs_rank(void);
int         ocs_size(void);
int         ocs_insert_options(const char *opts);
int         ocs_allreduce_max(double *v, int n);
int         ocs_allreduce_sum(double *v, int n);
int         ocs_agree_flag(double *flag, double timeout);
void        ocs_abort(int code);
double      ocs_peak_rss(void);
const char *ocs_last_message(void);
void        ocs_clear_message(void);
void        ocs_destroy(ocs_system *s);
int         ocs_assemble(ocs_system *s, PetscInt n, PetscInt nlocal, PetscInt bs, int spd, PetscCount ncoo, PetscInt *ci, PetscInt *cj, const PetscScalar *cv, PetscInt nb, const PetscInt *bi, const PetscScalar *bv);
int         ocs_rigid_body(ocs_system *s, PetscInt m, const PetscInt *rows, const PetscInt *comp, const PetscScalar *xyz);
int         ocs_mumps_symbolic(ocs_system *s);
int         ocs_mumps_numeric(ocs_system *s, int *ferr, PetscInt info[8]);
int         ocs_mumps_flops(ocs_system *s, PetscReal *flops);
int         ocs_mumps_info(ocs_system *s, PetscInt info[8]);
int         ocs_mumps_solve(ocs_system *s);
int         ocs_ksp_setup(ocs_system *s, const char *ksptype, const char *pctype, PetscReal rtol, PetscInt maxit, PetscReal *hist, PetscInt nhist);
int         ocs_ksp_solve(ocs_system *s, PetscInt out[5], PetscReal *rnorm);
int         ocs_ksp_names(ocs_system *s, char *ksp, char *pc, size_t len);
int         ocs_measure(ocs_system *s, PetscReal out[7]);
int         ocs_gather(ocs_system *s, int all, PetscScalar *dst);
int         ocs_bnorm(ocs_system *s, PetscReal *nrm);
int         ocs_ksp_history(ocs_system *s, PetscReal *dst, PetscInt n);
int         ocs_ksp_reason_name(ocs_system *s, char *dst, size_t len);

#endif
