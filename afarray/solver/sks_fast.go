package solver

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

// The fast variant of the skyline factorizations (sks_fast.cl): a
// right-looking block-column method with block width B. Per block of B
// columns it makes two launches, the fused diagonal-block factorization and
// panel solve (sks_panel) and the tiled rank-B trailing update (sks_syrk);
// each solve makes one launch per block each way. The schedule (each block's
// last row R) comes from the host copy of the index, so a factorization
// never waits for the device until its one status read.

//go:embed sks_fast.cl
var sksFastSource string

func init() {
	register(&entry{method: MethodCholesky, format: FormatSKS, variant: Fast, newFactor: func() factorization { return &SKSCholesky{} }})
	register(&entry{method: MethodLDLT, format: FormatSKS, variant: Fast, newFactor: func() factorization { return &SKSLDLT{} }})
}

const (
	sksLocal     = 256 // sks_panel, sks_fwd, sks_bwd
	sksSyrkLocal = 256 // sks_syrk: 32 x 8, fixed by the kernel
	sksTile      = 32
)

// sksBlock is one block column of the fast schedule.
type sksBlock struct{ k0, bs, r int }

func (f *sksFactor) blocks() []sksBlock {
	var out []sksBlock
	for k0 := 0; k0 < f.n; k0 += f.width {
		bs := min(f.width, f.n-k0)
		out = append(out, sksBlock{k0, bs, f.last(k0 + bs - 1)})
	}
	return out
}

// fastKernel returns a kernel and its local size: want, clamped to a power
// of two the kernel allows and never below min.
func (f *sksFactor) fastKernel(name string, want, least int) (*kernels.Kernel, int, error) {
	k, err := f.prog.Kernel(name)
	if err != nil {
		return nil, 0, err
	}
	local := sparsePow2Floor(min(want, k.MaxWorkGroupSize()))
	if local < least {
		return nil, 0, fmt.Errorf("%w: %s allows work-groups of %d items, needs %d", kernels.ErrLaunch, name, k.MaxWorkGroupSize(), least)
	}
	return k, local, nil
}

func (f *sksFactor) fastFactor() error {
	panel, pl, err := f.fastKernel("sks_panel", sksLocal, 1)
	if err != nil {
		return err
	}
	syrk, _, err := f.fastKernel("sks_syrk", sksSyrkLocal, sksSyrkLocal)
	if err != nil {
		return err
	}
	if f.dscr, err = f.dev.Alloc(int64(8 * f.width * f.width)); err != nil {
		return err
	}
	for _, b := range f.blocks() {
		m := b.r - (b.k0 + b.bs) + 1 // panel rows below the block
		groups := max(1, (m+pl-1)/pl)
		if err := panel.Launch([]int{groups * pl}, []int{pl}, f.elm, f.idx, f.nnz, f.n, b.k0, b.bs, b.r, f.dscr, f.status.buf, f.ldltArg()); err != nil {
			return err
		}
		if m <= 0 {
			continue
		}
		t := (m + sksTile - 1) / sksTile
		copyDiag := 0
		if groups > 1 {
			copyDiag = 1
		}
		if err := syrk.Launch([]int{t * (t + 1) / 2 * sksSyrkLocal}, []int{sksSyrkLocal}, f.elm, f.idx, f.nnz, f.n, b.k0, b.bs, b.r, f.dscr, copyDiag, f.status.buf, f.ldltArg()); err != nil {
			return err
		}
	}
	return nil
}

// fastSolve solves into x: the forward sweep reads and updates a working
// copy of b and writes y (LDLT: D⁻¹y) into x, the backward sweep overwrites
// x in place.
func (f *sksFactor) fastSolve(b, x *kernels.Buffer) error {
	fwd, fl, err := f.fastKernel("sks_fwd", sksLocal, 1)
	if err != nil {
		return err
	}
	bwd, bl, err := f.fastKernel("sks_bwd", sksLocal, 32)
	if err != nil {
		return err
	}
	if f.work == nil {
		if f.work, err = f.dev.Alloc(int64(8 * f.n)); err != nil {
			return err
		}
	}
	if err := b.CopyTo(f.work, 0, 0, int64(8*f.n)); err != nil {
		return err
	}
	blocks := f.blocks()
	for _, b := range blocks {
		m := b.r - (b.k0 + b.bs) + 1
		groups := max(1, (m+fl-1)/fl)
		if err := fwd.Launch([]int{groups * fl}, []int{fl}, f.elm, f.idx, f.nnz, f.n, b.k0, b.bs, b.r, f.work, x, f.ldltArg()); err != nil {
			return err
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if err := bwd.Launch([]int{bl}, []int{bl}, f.elm, f.idx, f.nnz, f.n, b.k0, b.bs, b.r, x, f.ldltArg()); err != nil {
			return err
		}
	}
	return nil
}

// ldltArg is the kernels' ldlt argument.
func (f *sksFactor) ldltArg() int {
	if f.ldlt {
		return 1
	}
	return 0
}
