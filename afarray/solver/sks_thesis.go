package solver

import (
	_ "embed"

	"github.com/oclsolve/oclsolve/kernels"
)

// The thesis variant of the skyline factorizations (sks_thesis.cl): the
// thesis's multiplexed kernel launched column by column with its fixed
// geometry, 4n-1 launches for Cholesky (2n-1 to factor, 2n to solve) and
// 4n-2 for LDLT.

//go:embed sks_thesis.cl
var sksThesisSource string

func init() {
	register(&entry{method: MethodCholesky, format: FormatSKS, variant: Thesis, newFactor: func() factorization { return &SKSCholesky{} }})
	register(&entry{method: MethodLDLT, format: FormatSKS, variant: Thesis, newFactor: func() factorization { return &SKSLDLT{} }})
}

// thesisKernel returns the multiplexed kernel and the thesis geometry: 32
// groups of 1024 items, the local size clamped to a power of two the kernel
// allows (the backward solve's tree reduction needs a power of two).
func (f *sksFactor) thesisKernel() (k *kernels.Kernel, global, local int, err error) {
	name := "chol_sparse_sks"
	if f.ldlt {
		name = "ldlt_sparse_sks"
	}
	if k, err = f.prog.Kernel(name); err != nil {
		return nil, 0, 0, err
	}
	local = sparsePow2Floor(min(ThesisLocal, k.MaxWorkGroupSize()))
	return k, ThesisGroups * local, local, nil
}

func (f *sksFactor) thesisFactor() error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		return k.Launch([]int{global}, []int{local}, f.elm, f.idx, f.nnz, f.n, f.elm, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	for j := 0; j < f.n-1; j++ {
		if err := launch(j, 0); err != nil {
			return err
		}
		if err := launch(j, 1); err != nil {
			return err
		}
	}
	// The thesis never checks the last column's pivot. Cholesky checks it in
	// the square-root phase; LDLT, which has none, spends one more sstep 0
	// launch on it (4n-1 launches instead of the thesis's 4n-2).
	if f.ldlt {
		return launch(f.n-1, 0)
	}
	return launch(0, 2)
}

func (f *sksFactor) thesisSolve(x *kernels.Buffer) error {
	k, global, local, err := f.thesisKernel()
	if err != nil {
		return err
	}
	launch := func(step, sstep int) error {
		return k.Launch([]int{global}, []int{local}, f.elm, f.idx, f.nnz, f.n, x, kernels.Local(8*local), step, sstep, f.status.buf)
	}
	for j := 0; j < f.n-1; j++ {
		if err := launch(j, 3); err != nil {
			return err
		}
	}
	if err := launch(0, 4); err != nil {
		return err
	}
	for s := 0; s < f.n; s++ {
		if err := launch(s, 5); err != nil {
			return err
		}
	}
	return nil
}
