package dense

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// Info is a device-side record of the first failing column of the
// factorizations enqueued with it. Kernels write it with atomic_min, so
// reading it (the only step that waits for the device) can come once,
// after a whole sequence of launches.
type Info struct {
	buf      *kernels.Buffer
	progress func(done, total int)
}

// OnBlockColumn makes Potrf call f(done, n) each time it has enqueued the
// work of a block column (done columns of n so far: enqueued, not
// finished), so that a caller can report progress without a device sync.
// f runs on the goroutine that calls Potrf; nil removes it.
func (i *Info) OnBlockColumn(f func(done, total int)) { i.progress = f }

// blockDone reports done of n columns enqueued to the OnBlockColumn hook.
func (i *Info) blockDone(done, n int) {
	if i.progress != nil {
		i.progress(done, n)
	}
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
// (default 1024): each block column, its diagonal block and the panel
// below it, is factored by blockColumn (recursively by columns down to
// one-launch 64-column leaves, see potrfTall) and the trailing matrix
// updated by Syrk, so nearly all flops run in the tuned GEMM kernel; with
// look-ahead (Lookahead) the next block column is factored on the side
// queue while the main queue updates the rest. BlockSize 0 makes the
// whole factorization recursive (potrfRec).
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
		if err := e.potrfRec(a, 0, n, info); err != nil {
			return err
		}
		info.blockDone(n, n)
		return nil
	}
	count, err := e.panelCounters(n)
	if err != nil {
		return err
	}
	defer count.Release() // OpenCL keeps it until the kernels that use it are done
	if e.Lookahead() && n > nb {
		return e.potrfLookahead(a, nb, info, count)
	}
	for k := 0; k < n; k += nb {
		kb := min(nb, n-k)
		if err := e.blockColumn(a, k, kb, info, count); err != nil {
			return err
		}
		info.blockDone(k+kb, n)
		if r := n - k - kb; r > 0 {
			p := a.Sub(k+kb, k, r, kb)
			if err := e.gemmLaunch(false, true, -1, p, p, 1, a.Sub(k+kb, k+kb, r, r), true); err != nil {
				return err
			}
		}
	}
	return nil
}

// panelCounters allocates and enqueues the zeroing of potrf_panel's
// counters for a factorization of order n: one int32 per 32 columns (every
// block column, and every leaf of potrfTall, starts at a multiple of 32,
// so each launch has its own).
func (e *Engine) panelCounters(n int) (*kernels.Buffer, error) {
	size := int64(4 * (n/trsmBlock + 1))
	b, err := e.dev.Alloc(size)
	if err != nil {
		return nil, err
	}
	if err := b.Fill([]byte{0, 0, 0, 0}, 0, size); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// blockColumn factors the block column [k, k+kb) of a, whose updates from
// the columns before k are done: its diagonal block and the panel below
// it. With potrf.cl's register form that is potrfTall; otherwise the
// diagonal block is factored recursively (potrfRec) and the panel solved
// by Trsm.
func (e *Engine) blockColumn(a Mat, k, kb int, info *Info, count *kernels.Buffer) error {
	if e.potrfPanelK != nil {
		return e.potrfTall(a, k, k+kb, a.Rows, info, count)
	}
	if err := e.potrfRec(a, k, k+kb, info); err != nil {
		return err
	}
	return e.panelSolve(a, k, kb, a.Rows)
}

// potrfTall factors the block column [k0, k1) of a over the rows [k0,
// end) recursively by columns: the left half (diagonal block and panel),
// one update of the right half with it (a lower GEMM over the right half's
// rows), the right half. Columns of at most 64 are one potrf_panel launch,
// which factors the diagonal block and solves the rows below it together:
// a 256-wide block column of n = 16384 is 7 launches, against 35 for
// potrfRec with a recursive Trsm (20 of them for the diagonal block).
func (e *Engine) potrfTall(a Mat, k0, k1, end int, info *Info, count *kernels.Buffer) error {
	w := k1 - k0
	if w <= 64 {
		rows := end - k0
		d := a.Sub(k0, k0, rows, w)
		groups := max(1, (rows-w+potrfLocal-1)/potrfLocal)
		return e.potrfPanelK.LaunchOn(e.q, []int{groups * potrfLocal}, []int{potrfLocal},
			int32(w), int32(rows), d.Buf, d.Off, d.ld(), int32(k0), info.buf, count, int64(k0/trsmBlock))
	}
	mid := k0 + (w/2+63)/64*64
	if err := e.potrfTall(a, k0, mid, end, info, count); err != nil {
		return err
	}
	p := a.Sub(mid, k0, end-mid, mid-k0)
	if err := e.gemmLaunch(false, true, -1, p, p.Sub(0, 0, k1-mid, mid-k0), 1, a.Sub(mid, mid, end-mid, k1-mid), true); err != nil {
		return err
	}
	return e.potrfTall(a, mid, k1, end, info, count)
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
		return e.potrfBlockK.LaunchOn(e.q, []int{e.potrfLocal()}, []int{e.potrfLocal()},
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

// potrfLookahead is the blocked factorization with a look-ahead of one
// block column on two queues. Block column k being factored, the main
// queue updates only the next block column with it (one launch, its
// diagonal block included) and marks an event; the side queue waits for
// that event, factors the next diagonal block and solves the panel below
// it, and marks an event of its own; meanwhile the main queue updates the
// rest of the trailing matrix, then waits for the side queue's event
// before the next step. The latency-bound diagonal blocks and panel solves
// thus run beside the large updates instead of between them. The two
// queues touch disjoint parts of A between their events: the side queue
// the next block column, the main queue the columns after it.
//
// On an H100 the gain was small (117.6 against 118.2 ms at n = 16384 in
// 512-column blocks): NVIDIA's OpenCL runs the side queue's small kernels
// hardly ever beside the large update (BenchmarkQueueOverlap: a kernel of
// the side queue waits for compute units until the update's last wave of
// work-groups, and a priority hint does not change that). It is kept on:
// it costs two events per block column and lets a device that does run
// queues side by side hide the latency-bound block columns.
func (e *Engine) potrfLookahead(a Mat, nb int, info *Info, count *kernels.Buffer) error {
	s, err := e.onSide()
	if err != nil {
		return err
	}
	n := a.Rows
	main := e.dev.Main()
	if err := e.blockColumn(a, 0, min(nb, n), info, count); err != nil {
		return err
	}
	info.blockDone(min(nb, n), n)
	for k := 0; ; {
		kb := min(nb, n-k)
		k1 := k + kb
		r := n - k1
		if r <= 0 {
			return nil
		}
		p := a.Sub(k1, k, r, kb) // the solved panel of block column k
		nb1 := min(nb, r)        // width of the next block column
		if err := e.gemmLaunch(false, true, -1, p, p.Sub(0, 0, nb1, kb), 1, a.Sub(k1, k1, r, nb1), true); err != nil {
			return err
		}
		if err := handOver(main, s.q); err != nil {
			return err
		}
		if err := s.blockColumn(a, k1, nb1, info, count); err != nil {
			return err
		}
		info.blockDone(k1+nb1, n)
		// The rest, in column chunks of lookaheadChunk when set: between
		// two chunks the side queue's kernels can take the device where
		// kernels of two queues do not run at once.
		w := r - nb1
		if c := lookaheadChunk(); c > 0 {
			w = c
		}
		for c0 := nb1; c0 < r; c0 += w {
			q := p.Sub(c0, 0, r-c0, kb)
			if err := e.gemmLaunch(false, true, -1, q, q.Sub(0, 0, min(w, r-c0), kb), 1, a.Sub(k1+c0, k1+c0, r-c0, min(w, r-c0)), true); err != nil {
				return err
			}
		}
		if err := handOver(s.q, main); err != nil {
			return err
		}
		k = k1
	}
}

// lookaheadChunk is the column chunk of the trailing update under
// look-ahead (OCLSOLVE_POTRF_CHUNK, a positive multiple of 64, for
// experiments; 0: one launch). On an H100 NVIDIA's OpenCL showed next to
// no overlap of the two queues: n = 16384 in 512-column blocks took 117.6
// ms with look-ahead and 118.2 without, 114.2 with chunks of 2048 (not yet
// measured with 1024-column blocks, hence not the default). Later, with
// 1024-column blocks and the two-column leaves: 92.1 ms with chunks of
// 2048 against 92.6 without, one run each (within run-to-run noise).
func lookaheadChunk() int {
	v, err := strconv.Atoi(os.Getenv("OCLSOLVE_POTRF_CHUNK"))
	if err != nil || v <= 0 || v%64 != 0 {
		return 0
	}
	return v
}

// handOver makes the commands enqueued on to from now on wait for those
// enqueued on from so far.
func handOver(from, to *kernels.Queue) error {
	ev, err := from.Marker()
	if err != nil {
		return err
	}
	defer ev.Release()
	return to.WaitFor(ev)
}

// panelSolve solves the rows [j+jb, end) of the block column [j, j+jb)
// against its factored diagonal block.
func (e *Engine) panelSolve(a Mat, j, jb, end int) error {
	r := end - j - jb
	if r <= 0 {
		return nil
	}
	return e.Trsm(Right, Lower, true, NonUnit, 1, a.Sub(j, j, jb, jb), a.Sub(j+jb, j, r, jb))
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
// trailing updates (Syrk). Where a block column's diagonal block and panel
// are factored together (potrfTall, the register form of potrf.cl: GPUs
// and PoCL), Diagonal holds both and Panel stays 0.
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
	count, err := e.panelCounters(n)
	if err != nil {
		return st, err
	}
	defer count.Release()
	for k := 0; k < n; k += nb {
		kb := min(nb, n-k)
		r := n - k - kb
		if e.potrfPanelK != nil {
			if err := timed(&st.Diagonal, func() error { return e.blockColumn(a, k, kb, info, count) }); err != nil {
				return st, err
			}
		} else {
			if err := timed(&st.Diagonal, func() error { return e.potrfRec(a, k, k+kb, info) }); err != nil {
				return st, err
			}
			if err := timed(&st.Panel, func() error { return e.panelSolve(a, k, kb, n) }); err != nil {
				return st, err
			}
		}
		if r <= 0 {
			break
		}
		p := a.Sub(k+kb, k, r, kb)
		if err := timed(&st.Update, func() error {
			return e.gemmLaunch(false, true, -1, p, p, 1, a.Sub(k+kb, k+kb, r, r), true)
		}); err != nil {
			return st, err
		}
	}
	return st, nil
}
