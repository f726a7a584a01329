package solver

import (
	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// The thesis variant of the CSC factorizations (csc_thesis.cl): the thesis's
// quadratic symbolic factorization on the host, then its multiplexed kernel
// launched column by column with the fixed geometry: one fill launch,
// 2(n-1) column launches and one square-root launch to factor (LDLT: a last
// pivot check instead), and 2n launches per solve; 4n in all.

func init() {
	registerFactors(FormatCSC, Thesis, func() factorization { return &CSCCholesky{} }, func() factorization { return &CSCLDLT{} })
}

func (f *cscFactor) thesisKernel() (*kernels.Kernel, int, int, error) {
	return thesisKernel(f.prog, f.ldlt, "Cholesky_sparse_c", "ldlt_sparse_c")
}

func (f *cscFactor) thesisFactor(a *afarray.CSC) error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	elmA, colA, rowA, err := a.DeviceBuffers()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		return k.Launch([]int{global}, []int{local}, elmA, colA, rowA, f.elmL, f.colL, f.rowL, f.nnzA, f.nnzL, f.n,
			f.elmL, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	if err := launch(0, -1); err != nil {
		return err
	}
	return thesisFactorSteps(f.dev, f.n, f.ldlt, launch)
}

func (f *cscFactor) thesisSolve(x *kernels.Buffer) error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		// A's arguments are unused by the solve phases: L stands in for them.
		return k.Launch([]int{global}, []int{local}, f.elmL, f.colL, f.rowL, f.elmL, f.colL, f.rowL, f.nnzA, f.nnzL, f.n,
			x, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	return thesisSolveSteps(f.dev, f.n, launch)
}
