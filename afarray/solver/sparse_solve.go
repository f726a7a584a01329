package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// sparseBase is the state the CSC and skyline factors share (embedded in
// cscFactor and sksFactor), and what the shared solve path reads.
type sparseBase struct {
	ldlt     bool
	variant  Variant
	n        int
	dev      *kernels.Device
	prog     *kernels.Program
	status   *sparseStatus
	work     *kernels.Buffer // fast solve: working copy of b
	dscr     *kernels.Buffer // fast factorization: diagonal-block scratch
	launches *blockLaunches  // fast: the block kernels
	ok       bool
	stats    FactorStats
}

// base gives the shared solve path the embedding factor's state.
func (f *sparseBase) base() *sparseBase { return f }

// Stats describes the last factorization and solve.
func (f *sparseBase) Stats() FactorStats { return f.stats }

// factorBlocks runs the fast variant's factorization launches over the
// block schedule steps (the CSC supernodes or the skyline's block
// columns).
func (f *sparseBase) factorBlocks(steps []blockStep) error {
	return f.launches.factor(steps, f.dscr, f.status.buf, f.ldlt)
}

// solveBlocks is the fast variant's solve into x over steps: the forward
// sweep reads and updates a working copy of b and writes y (LDLT: D⁻¹y)
// into x, the backward sweep overwrites x in place.
func (f *sparseBase) solveBlocks(steps []blockStep, b, x *kernels.Buffer) error {
	if err := copyToWork(f.dev, f.n, &f.work, b); err != nil {
		return err
	}
	return f.launches.solve(steps, f.work, x, f.ldlt)
}

// sparseTriangular is what the shared triangular-solve path needs of a CSC
// or SKS factor: its state and its two solve implementations.
type sparseTriangular interface {
	name() string
	base() *sparseBase
	// thesisSolveLaunch is the thesis kernel's launch (thesisLaunch) for
	// the solve phases on x.
	thesisSolveLaunch(x *kernels.Buffer) (func(step, sstep int) error, error)
	fastSolve(b, x *kernels.Buffer) error
}

// sparseSolveTo solves A x = b with f's factor into dst (dst may be b):
// input and output are checked for NaN/Inf on the device and the status is
// read once at the end.
func sparseSolveTo(f sparseTriangular, dst, b *afarray.Array) error {
	c := f.base()
	dev, n, status, stats := c.dev, c.n, c.status, &c.stats
	if !c.ok {
		return fmt.Errorf("%w: %s has no factorization", ErrReleased, f.name())
	}
	if err := sparseCheckVectors(dev, n, dst, b); err != nil {
		return err
	}
	start, launches := time.Now(), dev.Launches()
	bb, x, err := status.startSolve(dst, b, n)
	if err != nil {
		return err
	}
	if c.variant == Thesis {
		if x != bb {
			if err := bb.CopyTo(x, 0, 0, int64(8*n)); err != nil {
				return err
			}
		}
		var launch func(step, sstep int) error
		if launch, err = f.thesisSolveLaunch(x); err == nil {
			err = thesisSolveSteps(dev, n, launch)
		}
	} else {
		err = f.fastSolve(bb, x)
	}
	if err != nil {
		return err
	}
	err = status.finishSolve(x, n)
	stats.Solves++
	stats.SolveTime, stats.SolveLaunches = time.Since(start), dev.Launches()-launches
	return err
}

// sparseSolve solves A x = b into a new vector.
func sparseSolve(f sparseTriangular, b *afarray.Array) (*afarray.Array, error) {
	c := f.base()
	dev, n := c.dev, c.n
	if !c.ok {
		return nil, fmt.Errorf("%w: %s has no factorization", ErrReleased, f.name())
	}
	buf, err := dev.Alloc(int64(8 * n))
	if err != nil {
		return nil, err
	}
	x, err := afarray.FromBuffer(buf, afarray.Float64, n, 1)
	if err != nil {
		buf.Release()
		return nil, err
	}
	if err := sparseSolveTo(f, x, b); err != nil {
		x.Release()
		return nil, err
	}
	return x, nil
}
