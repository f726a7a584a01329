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

// thesisLaunch is thesisLaunch for the CSC kernels: args are A's buffers,
// L's, the sizes and the vector the phases work on.
func (f *cscFactor) thesisLaunch(args ...any) (func(step, sstep int) error, error) {
	return thesisLaunch(f.prog, f.ldlt, "Cholesky_sparse_c", "ldlt_sparse_c", f.status.buf, args...)
}

func (f *cscFactor) thesisFactor(a *afarray.CSC) error {
	elmA, colA, rowA, err := a.DeviceBuffers()
	if err != nil {
		return err
	}
	launch, err := f.thesisLaunch(elmA, colA, rowA, f.elmL, f.colL, f.rowL, f.nnzA, f.nnzL, f.n, f.elmL)
	if err != nil {
		return err
	}
	// The fill of L from A, then the phases.
	if err := launch(0, -1); err != nil {
		return err
	}
	return thesisFactorSteps(f.dev, f.n, f.ldlt, launch)
}

func (f *cscFactor) thesisSolveLaunch(x *kernels.Buffer) (func(step, sstep int) error, error) {
	// A's arguments are unused by the solve phases: L stands in for them.
	return f.thesisLaunch(f.elmL, f.colL, f.rowL, f.elmL, f.colL, f.rowL, f.nnzA, f.nnzL, f.n, x)
}
