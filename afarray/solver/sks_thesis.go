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

// thesisLaunch is thesisLaunch for the skyline kernels, on the factor's
// elements and index and the vector the phases work on (out).
func (f *sksFactor) thesisLaunch(out *kernels.Buffer) (func(step, sstep int) error, error) {
	return thesisLaunch(f.prog, f.ldlt, "chol_sparse_sks", "ldlt_sparse_sks", f.status.buf, f.elm, f.idx, f.nnz, f.n, out)
}

func (f *sksFactor) thesisFactor() error {
	launch, err := f.thesisLaunch(f.elm)
	if err != nil {
		return err
	}
	return thesisFactorSteps(f.dev, f.n, f.ldlt, launch)
}

func (f *sksFactor) thesisSolveLaunch(x *kernels.Buffer) (func(step, sstep int) error, error) {
	return f.thesisLaunch(x)
}
