package dense

import (
	"fmt"
	"math"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// Info is a device-side record of the first failing column of the
// factorizations enqueued with it. Kernels write it with atomic_min, so
// reading it (the only step that waits for the device) can come once,
// after a whole sequence of launches.
type Info struct {
	buf *kernels.Buffer
}

var intMax = []byte{0xff, 0xff, 0xff, 0x7f}

// NewInfo allocates an Info on dev, reset.
func NewInfo(dev *kernels.Device) (*Info, error) {
	b, err := dev.Alloc(4)
	if err != nil {
		return nil, err
	}
	i := &Info{buf: b}
	if err := i.Reset(); err != nil {
		b.Release()
		return nil, err
	}
	return i, nil
}

// Reset enqueues clearing the record.
func (i *Info) Reset() error { return i.buf.Fill(intMax, 0, 4) }

// Column waits for the device and returns the first failing column, or -1
// when every pivot was fine.
func (i *Info) Column() (int, error) {
	v := []int32{0}
	if err := i.buf.Read(0, v); err != nil {
		return 0, err
	}
	if v[0] == math.MaxInt32 {
		return -1, nil
	}
	return int(v[0]), nil
}

// Buffer returns the device word (int32; INT_MAX when nothing failed).
func (i *Info) Buffer() *kernels.Buffer { return i.buf }

// Release frees the device word.
func (i *Info) Release() {
	if i != nil {
		i.buf.Release()
	}
}

// Potrf enqueues the Cholesky factorization A = L L^T of the symmetric
// positive definite matrix whose lower triangle a holds, overwriting that
// triangle with L; the strict upper triangle is neither read nor written.
// A pivot that is not positive (or NaN) records its column in info (read
// it with info.Column once the work is done) and leaves the pivot's value
// at A(j, j); the rest of L is then meaningless.
//
// The factorization is right-looking in blocks of BlockSize columns
// (default 512): the diagonal block is factored recursively (its first
// half, the panel below that half by Trsm, the update of the second half
// by Syrk, the second half; blocks of at most 64 columns by one
// work-group in local memory), the panel below it solved by Trsm and the
// trailing matrix updated by Syrk, so nearly all flops run in the tuned
// GEMM kernel. BlockSize 0 makes the whole factorization recursive.
func (e *Engine) Potrf(a Mat, info *Info) error {
	if a.Rows != a.Cols {
		return fmt.Errorf("dense: Potrf: %w: matrix is %dx%d", ErrShape, a.Rows, a.Cols)
	}
	if info == nil || info.buf == nil || info.buf.Released() {
		return fmt.Errorf("dense: Potrf: %w: no Info", ErrArgument)
	}
	if err := e.checkAll("Potrf", namedMat{"A", a}); err != nil {
		return err
	}
	n := a.Rows
	if n == 0 {
		return nil
	}
	if info.buf.Device() != e.dev {
		return fmt.Errorf("dense: Potrf: %w: Info lives on another device", ErrDevice)
	}
	nb := e.BlockSize()
	if nb == 0 {
		return e.potrfRec(a, 0, n, info)
	}
	for k := 0; k < n; k += nb {
		kb := min(nb, n-k)
		if err := e.potrfRec(a, k, k+kb, info); err != nil {
			return err
		}
		if err := e.panelUpdate(a, k, kb, n); err != nil {
			return err
		}
	}
	return nil
}

// potrfRec factors the diagonal block [k0, k1) of a (whose updates from
// the columns before k0 are done) recursively: the first half, the panel
// below it (Trsm), the update of the second half (Syrk), the second half.
// Blocks of at most PB columns are factored by one work-group in local
// memory.
func (e *Engine) potrfRec(a Mat, k0, k1 int, info *Info) error {
	n := k1 - k0
	if n <= e.pb {
		d := a.Sub(k0, k0, n, n)
		return e.potrfBlockK.Launch([]int{e.potrfLocal()}, []int{e.potrfLocal()},
			int32(n), d.Buf, d.Off, d.ld(), int32(k0), info.buf)
	}
	mid := k0 + (n/2+e.pb-1)/e.pb*e.pb
	if err := e.potrfRec(a, k0, mid, info); err != nil {
		return err
	}
	if err := e.panelUpdate(a, k0, mid-k0, k1); err != nil {
		return err
	}
	return e.potrfRec(a, mid, k1, info)
}

// panelUpdate solves the rows [j+jb, end) of the block column [j, j+jb)
// against its factored diagonal block and updates the trailing lower
// triangle up to end.
func (e *Engine) panelUpdate(a Mat, j, jb, end int) error {
	r := end - j - jb
	if r <= 0 {
		return nil
	}
	p := a.Sub(j+jb, j, r, jb)
	if err := e.Trsm(Right, Lower, true, NonUnit, 1, a.Sub(j, j, jb, jb), p); err != nil {
		return err
	}
	return e.gemmLaunch(false, true, -1, p, p, 1, a.Sub(j+jb, j+jb, r, r), true)
}

// A diagonal block factored by one work-group in global memory (leaves of
// 8 columns, rank-8 trailing updates, one launch per 512-column block) was
// measured on an H100 and dropped: the diagonal blocks of n = 16384 took
// 156.6 ms against 55.1 ms for this recursion of small launches.
func (e *Engine) potrfLocal() int {
	return min(potrfLocal, e.dev.Info().MaxWorkGroupSize, e.potrfBlockK.MaxWorkGroupSize())
}

// PotrfSteps is where a blocked Potrf spends its time: the diagonal
// blocks (recursive, latency-bound), the panel solves (Trsm) and the
// trailing updates (Syrk).
type PotrfSteps struct {
	Diagonal, Panel, Update time.Duration
}

// PotrfTimed is Potrf with a wait for the device after every step, so
// that a benchmark can see which step dominates; the waits make it slower
// than Potrf, which production code calls. With BlockSize 0 the whole
// factorization counts as Diagonal.
func (e *Engine) PotrfTimed(a Mat, info *Info) (PotrfSteps, error) {
	var st PotrfSteps
	if a.Rows != a.Cols {
		return st, fmt.Errorf("dense: Potrf: %w: matrix is %dx%d", ErrShape, a.Rows, a.Cols)
	}
	if info == nil || info.buf == nil || info.buf.Released() {
		return st, fmt.Errorf("dense: Potrf: %w: no Info", ErrArgument)
	}
	if err := e.checkAll("Potrf", namedMat{"A", a}); err != nil {
		return st, err
	}
	if info.buf.Device() != e.dev {
		return st, fmt.Errorf("dense: Potrf: %w: Info lives on another device", ErrDevice)
	}
	n := a.Rows
	timed := func(d *time.Duration, f func() error) error {
		if err := e.dev.Finish(); err != nil {
			return err
		}
		t := time.Now()
		if err := f(); err != nil {
			return err
		}
		err := e.dev.Finish()
		*d += time.Since(t)
		return err
	}
	nb := e.BlockSize()
	if nb == 0 || n == 0 {
		return st, timed(&st.Diagonal, func() error { return e.potrfRec(a, 0, n, info) })
	}
	for k := 0; k < n; k += nb {
		kb := min(nb, n-k)
		if err := timed(&st.Diagonal, func() error { return e.potrfRec(a, k, k+kb, info) }); err != nil {
			return st, err
		}
		r := n - k - kb
		if r <= 0 {
			break
		}
		p := a.Sub(k+kb, k, r, kb)
		if err := timed(&st.Panel, func() error {
			return e.Trsm(Right, Lower, true, NonUnit, 1, a.Sub(k, k, kb, kb), p)
		}); err != nil {
			return st, err
		}
		if err := timed(&st.Update, func() error {
			return e.gemmLaunch(false, true, -1, p, p, 1, a.Sub(k+kb, k+kb, r, r), true)
		}); err != nil {
			return st, err
		}
	}
	return st, nil
}
