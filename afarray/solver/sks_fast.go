package solver

import (
	"github.com/oclsolve/oclsolve/kernels"
)

// The fast variant of the skyline factorizations (sks_fast.cl): a
// right-looking block-column method with block width B. Per block of B
// columns it makes two launches, the fused diagonal-block factorization and
// panel solve (sks_panel) and the tiled rank-B trailing update (sks_syrk);
// each solve makes one launch per block each way. The schedule (each block's
// last row R) comes from the host copy of the index, so a factorization
// never waits for the device until its one status read.

func init() {
	registerFactors(FormatSKS, Fast, func() factorization { return &SKSCholesky{} }, func() factorization { return &SKSLDLT{} })
}

// blocks returns the schedule: each block column k0..k0+bs-1 with R, the
// last row of its last column, passed to every kernel.
func (f *sksFactor) blocks() []blockStep {
	var out []blockStep
	for k0 := 0; k0 < f.n; k0 += f.width {
		bs := min(f.width, f.n-k0)
		r := f.last(k0 + bs - 1)
		args := []any{f.elm, f.idx, f.nnz, f.n, k0, bs, r}
		out = append(out, blockStep{below: r - (k0 + bs) + 1, panel: args, update: args, solve: args})
	}
	return out
}

func (f *sksFactor) fastFactor() error {
	var err error
	if f.launches, err = newBlockLaunches(f.prog, "sks_panel", "sks_syrk", "sks_fwd", "sks_bwd"); err != nil {
		return err
	}
	if f.dscr, err = f.dev.Alloc(int64(8 * f.width * f.width)); err != nil {
		return err
	}
	return f.factorBlocks(f.blocks())
}

func (f *sksFactor) fastSolve(b, x *kernels.Buffer) error { return f.solveBlocks(f.blocks(), b, x) }
