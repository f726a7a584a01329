package solver

import (
	"github.com/oclsolve/oclsolve/kernels"
)

// The thesis variant of the skyline factorizations (sks_thesis.cl): the
// thesis's multiplexed kernel launched column by column with its fixed
// geometry, 4n-1 launches for Cholesky (2n-1 to factor, 2n to solve) and
// 4n-2 for LDLT.

func init() {
	registerFactors(FormatSKS, Thesis, func() factorization { return &SKSCholesky{} }, func() factorization { return &SKSLDLT{} })
}

func (f *sksFactor) thesisKernel() (*kernels.Kernel, int, int, error) {
	return thesisKernel(f.prog, f.ldlt, "chol_sparse_sks", "ldlt_sparse_sks")
}

func (f *sksFactor) thesisFactor() error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		return k.Launch([]int{global}, []int{local}, f.elm, f.idx, f.nnz, f.n, f.elm, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	return thesisFactorSteps(f.dev, f.n, f.ldlt, launch)
}

func (f *sksFactor) thesisSolve(x *kernels.Buffer) error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		return k.Launch([]int{global}, []int{local}, f.elm, f.idx, f.nnz, f.n, x, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	return thesisSolveSteps(f.dev, f.n, launch)
}
