package petsc

import "os"

// MPIExecFlags returns the mpiexec flags a run on this kind of machine
// needs with OpenMPI: --oversubscribe, to start more ranks than cores (the
// tests run 2 ranks on a 2-core machine shared with other work), and
// --allow-run-as-root when running as root (containers, CI).
func MPIExecFlags() []string {
	f := []string{"--oversubscribe"}
	if os.Geteuid() == 0 {
		f = append(f, "--allow-run-as-root")
	}
	return f
}

// MPIExecEnv returns environment settings (KEY=VALUE) for OpenMPI on one
// host: shared-memory and self transports only (no network probing), no
// cross-memory-attach single copy, which containers forbid (ptrace), and
// yielding the core while waiting: with more ranks than free cores a rank
// that spins in MPI starves the others (the Model tests ran 7 times slower
// spinning on this 2-core machine under load).
func MPIExecEnv() []string {
	return []string{
		"OMPI_MCA_mpi_yield_when_idle=1",
		"OMPI_MCA_btl=self,vader",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none",
		"OMPI_MCA_pml=ob1",
	}
}
