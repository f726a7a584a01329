package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// sparseTriangular is what the shared triangular-solve path needs of a CSC
// or SKS factor: its state and its two solve implementations.
type sparseTriangular interface {
	name() string
	state() (ok bool, dev *kernels.Device, n int, status *sparseStatus, v Variant, stats *FactorStats)
	thesisSolve(x *kernels.Buffer) error
	fastSolve(b, x *kernels.Buffer) error
}

// sparseSolveTo solves A x = b with f's factor into dst (dst may be b):
// input and output are checked for NaN/Inf on the device and the status is
// read once at the end.
func sparseSolveTo(f sparseTriangular, dst, b *afarray.Array) error {
	ok, dev, n, status, variant, stats := f.state()
	if !ok {
		return fmt.Errorf("%w: %s has no factorization", ErrReleased, f.name())
	}
	if err := sparseCheckVectors(dev, n, dst, b); err != nil {
		return err
	}
	start, launches := time.Now(), dev.Launches()
	bb, err := b.DeviceBuffer()
	if err != nil {
		return err
	}
	x, err := dst.DeviceBuffer()
	if err != nil {
		return err
	}
	if err := status.reset(); err != nil {
		return err
	}
	if err := status.check(bb, n, stRHS); err != nil {
		return err
	}
	if variant == Thesis {
		if x != bb {
			if err := bb.CopyTo(x, 0, 0, int64(8*n)); err != nil {
				return err
			}
		}
		err = f.thesisSolve(x)
	} else {
		err = f.fastSolve(bb, x)
	}
	if err != nil {
		return err
	}
	if err := status.check(x, n, stSolution); err != nil {
		return err
	}
	st, _, err := status.read()
	if err != nil {
		return err
	}
	stats.Solves++
	stats.SolveTime, stats.SolveLaunches = time.Since(start), dev.Launches()-launches
	return solveError(st)
}

// sparseSolve solves A x = b into a new vector.
func sparseSolve(f sparseTriangular, b *afarray.Array) (*afarray.Array, error) {
	ok, dev, n, _, _, _ := f.state()
	if !ok {
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
