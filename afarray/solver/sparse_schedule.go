package solver

import (
	"fmt"
	"slices"

	"github.com/oclsolve/oclsolve/kernels"
)

// The launch schedules shared by the CSC and skyline factorizations: the
// thesis's per-column phase sequence, and the fast variants' two launches
// per block column. Each format supplies only the kernel arguments that
// locate a column or block in its storage.

// kernelLocal returns a kernel of prog and its local size: want, clamped to
// a power of two the kernel allows, and never below least.
func kernelLocal(prog *kernels.Program, name string, want, least int) (*kernels.Kernel, int, error) {
	k, err := prog.Kernel(name)
	if err != nil {
		return nil, 0, err
	}
	local := pow2Below(min(want, k.MaxWorkGroupSize()))
	if local < least {
		return nil, 0, fmt.Errorf("%w: %s allows work-groups of %d items, needs %d", kernels.ErrLaunch, name, k.MaxWorkGroupSize(), least)
	}
	return k, local, nil
}

// thesisLaunch returns the launch of the thesis's multiplexed kernel (the
// Cholesky one, or the LDLT one when ldlt is set) that thesisFactorSteps
// and thesisSolveSteps call, with the thesis's geometry: 32 groups of 1024
// items, the local size clamped to a power of two the kernel allows (the
// backward solve's tree reduction needs a power of two). args are the
// format's arguments; every launch appends the local scratch, its phase
// (step, sstep) and the status buffer.
func thesisLaunch(prog *kernels.Program, ldlt bool, cholesky, ldltName string, status *kernels.Buffer, args ...any) (func(step, sstep int) error, error) {
	name := cholesky
	if ldlt {
		name = ldltName
	}
	k, local, err := kernelLocal(prog, name, ThesisLocal, 1)
	if err != nil {
		return nil, err
	}
	global := []int{ThesisGroups * local}
	all := append(append([]any(nil), args...), kernels.Local(8*local), 0, 0, status)
	phase := len(args) + 1
	return func(step, sstep int) error {
		// Launch sets the arguments before it returns: the next launch may
		// change the phase in place.
		all[phase], all[phase+1] = step, sstep
		return k.Launch(global, []int{local}, all...)
	}, nil
}

// thesisFactorSteps makes the thesis's factorization phases for n columns:
// per column but the last, scale (sstep 0) and update (sstep 1); then the
// square roots (sstep 2) for Cholesky. The thesis never checks the last
// column's pivot: Cholesky checks it in the square-root phase, LDLT, which
// has none, spends one more sstep 0 launch on it.
func thesisFactorSteps(dev *kernels.Device, n int, ldlt bool, launch func(step, sstep int) error) error {
	tr := trackerOf(dev)
	for j := 0; j < n-1; j++ {
		tr.step("columns", j, n, -1)
		if err := launch(j, 0); err != nil {
			return err
		}
		if err := launch(j, 1); err != nil {
			return err
		}
	}
	tr.step("columns", n, n, -1)
	if ldlt {
		return launch(n-1, 0)
	}
	return launch(0, 2)
}

// thesisSolveSteps makes the thesis's solve phases: a forward launch per
// column but the last (sstep 3), the diagonal (sstep 4), and a backward
// launch per unknown (sstep 5); 2n launches, counted as sweeps of columns
// in the progress.
func thesisSolveSteps(dev *kernels.Device, n int, launch func(step, sstep int) error) error {
	tr := trackerOf(dev)
	for j := 0; j < n-1; j++ {
		tr.step("columns (two sweeps)", j, 2*n, -1)
		if err := launch(j, 3); err != nil {
			return err
		}
	}
	if err := launch(0, 4); err != nil {
		return err
	}
	for s := 0; s < n; s++ {
		tr.step("columns (two sweeps)", n+s, 2*n, -1)
		if err := launch(s, 5); err != nil {
			return err
		}
	}
	tr.step("columns (two sweeps)", 2*n, 2*n, -1)
	return nil
}

// blockStep is one block column of a fast schedule (a skyline block or a CSC
// supernode): the rows below its diagonal block, and the leading kernel
// arguments of its panel, update and solve launches.
type blockStep struct {
	below                int
	panel, update, solve []any
}

// Geometry of the fast block kernels (sks_fast.cl, csc_fast.cl).
const (
	blockLocal     = 256 // panel, forward and backward launches
	blockTileLocal = 256 // update: 32 x 8 items, fixed by the kernels
	blockTile      = 32  // update output tile
)

// blockLaunches holds the fast program's kernels and their local sizes.
type blockLaunches struct {
	panel, update, fwd, bwd *kernels.Kernel
	pl, fl, bl              int
}

// newBlockLaunches finds the prefix_panel, prefix_update (prefix_syrk for
// the skyline: name it in update), prefix_fwd and prefix_bwd kernels.
func newBlockLaunches(prog *kernels.Program, panel, update, fwd, bwd string) (*blockLaunches, error) {
	var l blockLaunches
	var err error
	if l.panel, l.pl, err = kernelLocal(prog, panel, blockLocal, 1); err != nil {
		return nil, err
	}
	if l.update, _, err = kernelLocal(prog, update, blockTileLocal, blockTileLocal); err != nil {
		return nil, err
	}
	if l.fwd, l.fl, err = kernelLocal(prog, fwd, blockLocal, 1); err != nil {
		return nil, err
	}
	if l.bwd, l.bl, err = kernelLocal(prog, bwd, blockLocal, 32); err != nil {
		return nil, err
	}
	return &l, nil
}

// factor makes two launches per block: the panel (diagonal block factored in
// local memory, rows below solved against it) and the tiled trailing update.
// dscr is the B x B scratch through which a multi-group panel hands its
// factored block to the update; st the status buffer.
func (l *blockLaunches) factor(steps []blockStep, dscr, st *kernels.Buffer, ldlt bool) error {
	ld := boolArg(ldlt)
	prog := newBlockProgress(trackerOf(dscr.Device()), steps)
	for i, s := range steps {
		prog.at(i)
		groups := max(1, (s.below+l.pl-1)/l.pl)
		if err := l.panel.Launch([]int{groups * l.pl}, []int{l.pl}, slices.Concat(s.panel, []any{dscr, st, ld})...); err != nil {
			return err
		}
		if s.below <= 0 {
			continue
		}
		t := (s.below + blockTile - 1) / blockTile
		copyDiag := boolArg(groups > 1)
		if err := l.update.Launch([]int{t * (t + 1) / 2 * blockTileLocal}, []int{blockTileLocal},
			slices.Concat(s.update, []any{dscr, copyDiag, st, ld})...); err != nil {
			return err
		}
	}
	prog.at(len(steps))
	return nil
}

// solve makes one launch per block each way: the forward sweep reads and
// updates work (a copy of b) and writes y (LDLT: D⁻¹y) into x, the backward
// sweep overwrites x in place.
func (l *blockLaunches) solve(steps []blockStep, work, x *kernels.Buffer, ldlt bool) error {
	ld := boolArg(ldlt)
	tr, total := trackerOf(work.Device()), 2*len(steps)
	for i, s := range steps {
		tr.step("block columns (two sweeps)", i, total, -1)
		groups := max(1, (s.below+l.fl-1)/l.fl)
		if err := l.fwd.Launch([]int{groups * l.fl}, []int{l.fl}, slices.Concat(s.solve, []any{work, x, ld})...); err != nil {
			return err
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		tr.step("block columns (two sweeps)", total-1-i, total, -1)
		if err := l.bwd.Launch([]int{l.bl}, []int{l.bl}, slices.Concat(steps[i].solve, []any{x, ld})...); err != nil {
			return err
		}
	}
	tr.step("block columns (two sweeps)", total, total, -1)
	return nil
}

// copyToWork copies the n doubles of b into *work, allocating it on first
// use: the forward sweeps update a copy of b, not b.
func copyToWork(dev *kernels.Device, n int, work **kernels.Buffer, b *kernels.Buffer) error {
	if *work == nil {
		w, err := dev.Alloc(int64(8 * n))
		if err != nil {
			return err
		}
		*work = w
	}
	return b.CopyTo(*work, 0, 0, int64(8*n))
}

// boolArg is a kernel's int flag.
func boolArg(b bool) int {
	if b {
		return 1
	}
	return 0
}
