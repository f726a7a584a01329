package solver

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// Progress of a running solve. Run names its phases as it enters them and
// the loops that enqueue a factorization or iterate CG report how far they
// have come. The loops report what they have enqueued, never waiting for
// the device to do so: the device's launches are paced (kernels keeps
// little more than a pacing interval queued), so what is enqueued is what
// the device is working on within a fraction of a second. CG reports its
// residual at the points where it reads its convergence flag anyway.
//
// Two ways to see it: Options.Progress, a function Run calls on its own
// goroutine when the phase changes or the work moves by a whole percent,
// and Current, which a REPL or a notebook kernel polls from another
// goroutine for the solve its user started with plain Solve.

// Progress is one look at a running solve.
type Progress struct {
	// Phase is the part of Run under way: ordering, upload, convert,
	// symbolic (the CSC and supernodal analyses), factorize, solve (the
	// triangular solves, or CG's iterations), download or check.
	Phase string
	// Unit names what Done and Total count within the phase: "levels"
	// (supernodal), "block columns" (fast CSC and skyline), "columns"
	// (thesis and dense), "iterations" (CG), and for the sparse triangular
	// solves "block columns (two sweeps)" or "columns (two sweeps)" (the
	// forward sweep counts the first half); empty when the phase has no
	// count.
	Unit        string
	Done, Total int
	// Fraction estimates the share of the phase's work done, in [0, 1]:
	// weighted by flops where steps differ in size (supernodal levels,
	// dense columns), by the residual's progress towards the tolerance on
	// a log scale for CG; -1 when unknown.
	Fraction float64
	// Residual and Tol are CG's last residual read and its tolerance (0
	// before the first read and for the direct methods).
	Residual, Tol float64
	// Elapsed is the time since Run started.
	Elapsed time.Duration
}

// Percent is Fraction in percent, -1 when unknown.
func (p Progress) Percent() float64 {
	if p.Fraction < 0 {
		return -1
	}
	return 100 * p.Fraction
}

// String is one line such as "factorize: level 12 of 30, 43%" or "solve: CG
// iteration 120 of 10000, residual 3.2e-05 (tol 1e-08), 61%".
func (p Progress) String() string {
	s := p.Phase
	if s == "" {
		s = "starting"
	}
	if p.Unit != "" && p.Total > 0 {
		u := p.Unit
		if p.Unit == "iterations" {
			u = "CG iterations"
		}
		s += fmt.Sprintf(": %d of %d %s", p.Done, p.Total, u)
	}
	if p.Tol > 0 && p.Residual > 0 {
		s += fmt.Sprintf(", residual %.2g (tol %.2g)", p.Residual, p.Tol)
	}
	if p.Fraction >= 0 {
		s += fmt.Sprintf(", %.0f%%", p.Percent())
	}
	return s
}

// tracker is the progress state of one Run. Its methods are safe on a nil
// tracker (no Run, or a factor used outside Run), which is what makes the
// loops' calls free when nobody looks.
type tracker struct {
	dev      *kernels.Device
	start    time.Time
	callback func(Progress)

	mu       sync.Mutex
	p        Progress
	lastCall Progress
	lastTime time.Time
}

// running holds the trackers of the Runs under way, by device (the loops
// know their device, not their Run), and the most recent for Current.
var running struct {
	byDev sync.Map // *kernels.Device -> *tracker: the top of stacks[dev]
	mu    sync.Mutex
	order []*tracker
	// stacks holds each device's Runs in the order they started; a Run
	// leaves its own place when it ends, whichever ends first, so that the
	// device reports to the latest Run still under way and never to one
	// that has ended.
	stacks map[*kernels.Device][]*tracker
}

// startTracking registers a tracker for a Run on dev; the returned function
// unregisters it. A second Run on the same device at the same time (two
// goroutines sharing a device) takes the device's reports over until it
// ends; they go back to the first only if that one is still under way.
func startTracking(dev *kernels.Device, callback func(Progress)) (*tracker, func()) {
	t := &tracker{dev: dev, start: time.Now(), callback: callback, p: Progress{Fraction: -1}}
	running.mu.Lock()
	if running.stacks == nil {
		running.stacks = map[*kernels.Device][]*tracker{}
	}
	running.stacks[dev] = append(running.stacks[dev], t)
	running.byDev.Store(dev, t)
	running.order = append(running.order, t)
	running.mu.Unlock()
	return t, func() {
		running.mu.Lock()
		defer running.mu.Unlock()
		stack := running.stacks[dev]
		if i := slices.Index(stack, t); i >= 0 {
			stack = slices.Delete(stack, i, i+1)
		}
		if len(stack) == 0 {
			delete(running.stacks, dev)
			running.byDev.Delete(dev)
		} else {
			running.stacks[dev] = stack
			running.byDev.Store(dev, stack[len(stack)-1])
		}
		if i := slices.Index(running.order, t); i >= 0 {
			running.order = slices.Delete(running.order, i, i+1)
		}
	}
}

// lastPoll is when Current was last called (Unix nanoseconds): CG reads its
// residual for the progress only while someone looks.
var lastPoll atomic.Int64

// watched reports whether anyone looks at this Run's progress: a callback,
// or a poller of Current within the last two seconds.
func (t *tracker) watched() bool {
	return t != nil && (t.callback != nil || time.Now().UnixNano()-lastPoll.Load() < int64(2*time.Second))
}

// trackerOf returns the tracker of the Run using dev, or nil.
func trackerOf(dev *kernels.Device) *tracker {
	if t, ok := running.byDev.Load(dev); ok {
		return t.(*tracker)
	}
	return nil
}

// Current returns the progress of the most recently started Run (or Solve)
// still under way in this process, and false when none is. It is meant to
// be polled from another goroutine (the REPL's status line, the notebook
// kernel's updating display).
func Current() (Progress, bool) {
	lastPoll.Store(time.Now().UnixNano())
	running.mu.Lock()
	var t *tracker
	if n := len(running.order); n > 0 {
		t = running.order[n-1]
	}
	running.mu.Unlock()
	if t == nil {
		return Progress{}, false
	}
	return t.snapshot(), true
}

func (t *tracker) snapshot() Progress {
	t.mu.Lock()
	p := t.p
	t.mu.Unlock()
	p.Elapsed = time.Since(t.start)
	return p
}

// phase enters a phase of Run.
func (t *tracker) phase(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.p = Progress{Phase: name, Fraction: -1}
	t.mu.Unlock()
	t.notify(true)
}

// keepFraction, as step's frac, leaves the fraction as it was (CG between
// two residual reads).
const keepFraction = -2

// step records that done of total units of the current phase are enqueued,
// frac of its work (-1: done/total; keepFraction: unchanged).
func (t *tracker) step(unit string, done, total int, frac float64) {
	if t == nil {
		return
	}
	if frac == -1 && total > 0 {
		frac = float64(done) / float64(total)
	}
	t.mu.Lock()
	t.p.Unit, t.p.Done, t.p.Total = unit, done, total
	if frac != keepFraction {
		t.p.Fraction = math.Min(math.Max(frac, 0), 1)
	}
	t.mu.Unlock()
	t.notify(false)
}

// residual records CG's residual res against tol at iteration it of at
// most maxIter; r0 is the starting residual on the same scale (1 for a
// relative residual), from which the fraction is the share of the orders
// of magnitude from r0 to tol covered so far.
func (t *tracker) residual(it, maxIter int, res, r0, tol float64) {
	if t == nil {
		return
	}
	frac := -1.0
	if res > 0 && r0 > tol && tol > 0 {
		frac = math.Log(r0/res) / math.Log(r0/tol)
	}
	t.mu.Lock()
	t.p.Residual, t.p.Tol = res, tol
	t.mu.Unlock()
	t.step("iterations", it, maxIter, math.Max(frac, 0))
}

// notify calls the Options.Progress callback when the phase changed, the
// work moved by a whole percent, or a counted step came after a quarter
// of a second without a call: at most about a hundred calls a phase plus
// four a second, whatever the loops report.
func (t *tracker) notify(force bool) {
	if t.callback == nil {
		return
	}
	t.mu.Lock()
	p, last := t.p, t.lastCall
	now := time.Now()
	call := force || p.Phase != last.Phase || p.Unit != last.Unit ||
		math.Floor(100*p.Fraction) != math.Floor(100*last.Fraction) ||
		(p.Done != last.Done && now.Sub(t.lastTime) >= 250*time.Millisecond)
	if call {
		t.lastCall, t.lastTime = p, now
	}
	t.mu.Unlock()
	if call {
		p.Elapsed = now.Sub(t.start)
		t.callback(p)
	}
}

// cubicFraction is the share of a dense right-looking factorization's
// flops done after j of n columns: column j costs about (n-j)².
func cubicFraction(j, n int) float64 {
	if n <= 0 {
		return -1
	}
	r := float64(n-j) / float64(n)
	return 1 - r*r*r
}

// Split is a time split summed over solves (see Totals).
type Split struct {
	Runs                                                    int
	Ordering, Upload, Convert, Compile, Symbolic, Factorize time.Duration
	Solve, Download, Other, Total                           time.Duration
}

var totals struct {
	mu sync.Mutex
	s  Split
}

// recordTotals adds a finished Run's split to Totals.
func recordTotals(r *Report) {
	if r == nil {
		return
	}
	totals.mu.Lock()
	s := &totals.s
	s.Runs++
	s.Ordering += r.OrderingTime
	s.Upload += r.UploadTime
	s.Convert += r.ConvertTime
	s.Compile += r.CompileTime
	s.Symbolic += r.SymbolicTime
	s.Factorize += r.FactorizeTime
	s.Solve += r.SolveTime
	s.Download += r.DownloadTime
	s.Other += r.OtherTime
	s.Total += r.TotalTime
	totals.mu.Unlock()
}

// Totals returns the time split of every Run and Solve this process has
// finished, summed: the REPL's :time takes the difference across an
// expression to show where its solves spent their time.
func Totals() Split {
	totals.mu.Lock()
	defer totals.mu.Unlock()
	return totals.s
}

// Sub returns s - t, the split of the solves between two calls of Totals.
func (s Split) Sub(t Split) Split {
	return Split{Runs: s.Runs - t.Runs, Ordering: s.Ordering - t.Ordering, Upload: s.Upload - t.Upload,
		Convert: s.Convert - t.Convert, Compile: s.Compile - t.Compile, Symbolic: s.Symbolic - t.Symbolic,
		Factorize: s.Factorize - t.Factorize, Solve: s.Solve - t.Solve, Download: s.Download - t.Download,
		Other: s.Other - t.Other, Total: s.Total - t.Total}
}

// String lists the phases that took time, as a Report does: "ordering
// 0.039 s, upload 0.013 s, ..., other 1.8 ms (2 solves, 0.370 s)".
func (s Split) String() string {
	r := Report{OrderingTime: s.Ordering, UploadTime: s.Upload, ConvertTime: s.Convert, CompileTime: s.Compile,
		SymbolicTime: s.Symbolic, FactorizeTime: s.Factorize, SolveTime: s.Solve, DownloadTime: s.Download, OtherTime: s.Other}
	out := ""
	for i, p := range r.phases() {
		if i > 0 {
			out += ", "
		}
		out += p.name + " " + seconds(p.d)
	}
	solves := "solves"
	if s.Runs == 1 {
		solves = "solve"
	}
	return fmt.Sprintf("%s (%d %s, %s)", out, s.Runs, solves, seconds(s.Total))
}

// snProgress maps the supernodal factorization's steps to levels done and a
// flop-weighted fraction (a level's supernode of ns columns in a front of
// order F costs about Σ_{j<ns} (F-j)²): the deep levels hold most
// supernodes, the last few most of the flops.
type snProgress struct {
	tr       *tracker
	levelEnd []int
	cum      []float64 // flops of the first i levels in schedule order
	level    int
}

// newSnProgress returns nil (every report a no-op) when nobody tracks.
func newSnProgress(tr *tracker, s *sparse.Supernodal, sc *snSchedule) *snProgress {
	if tr == nil || len(sc.levelEnd) != len(s.Levels) {
		return nil
	}
	p := &snProgress{tr: tr, levelEnd: sc.levelEnd, cum: make([]float64, len(s.Levels)+1)}
	for i := range s.Levels {
		w := 0.0
		for _, k := range s.Levels[len(s.Levels)-1-i] { // the schedule goes from the deepest level up
			_, ns, F := s.Front(k)
			for j := 0; j < ns; j++ {
				r := float64(F - j)
				w += r * r
			}
		}
		p.cum[i+1] = p.cum[i] + w
	}
	return p
}

// at reports that steps[:i] are enqueued.
func (p *snProgress) at(i int) {
	if p == nil {
		return
	}
	for p.level < len(p.levelEnd) && p.levelEnd[p.level] <= i {
		p.level++
	}
	frac := -1.0
	if total := p.cum[len(p.cum)-1]; total > 0 {
		done := p.cum[p.level]
		if p.level < len(p.levelEnd) {
			lo := 0
			if p.level > 0 {
				lo = p.levelEnd[p.level-1]
			}
			if hi := p.levelEnd[p.level]; hi > lo {
				done += (p.cum[p.level+1] - p.cum[p.level]) * float64(i-lo) / float64(hi-lo)
			}
		}
		frac = done / total
	}
	p.tr.step("levels", p.level, len(p.levelEnd), frac)
}

// blockProgress weights the block columns of the fast CSC and skyline
// schedules by their work: a block with m rows below its diagonal block
// costs about (m + width)² in its update.
type blockProgress struct {
	tr  *tracker
	cum []float64
}

func newBlockProgress(tr *tracker, steps []blockStep) *blockProgress {
	if tr == nil {
		return nil
	}
	p := &blockProgress{tr: tr, cum: make([]float64, len(steps)+1)}
	for i, s := range steps {
		w := float64(s.below + blockTile)
		p.cum[i+1] = p.cum[i] + w*w
	}
	return p
}

func (p *blockProgress) at(i int) {
	if p == nil {
		return
	}
	frac := -1.0
	if total := p.cum[len(p.cum)-1]; total > 0 {
		frac = p.cum[i] / total
	}
	p.tr.step("block columns", i, len(p.cum)-1, frac)
}

// cgProgress reports the fast CG's iterations where it reads its done flag
// anyway, and its residual (one more small read, while the queue is empty)
// at most every 0.2 s, and only while someone watches (tracker.watched).
type cgProgress struct {
	tr       *tracker
	r0       float64 // r·r of the first residual
	lastRead time.Time
}

func (p *cgProgress) at(c *cgFastRun, it int) {
	if p.tr == nil || c.err != nil {
		return
	}
	if !p.tr.watched() || time.Since(p.lastRead) < 200*time.Millisecond {
		p.tr.step("iterations", it+1, c.maxIter, keepFraction)
		return
	}
	p.lastRead = time.Now()
	if p.r0 == 0 {
		r0 := []float64{0}
		if err := c.rrh.Read(0, r0); err != nil || r0[0] <= 0 {
			return
		}
		p.r0 = r0[0]
	}
	rr := []float64{0}
	if err := c.rrh.Read(int64(8*it), rr); err != nil || rr[0] < 0 {
		return
	}
	p.tr.residual(it+1, c.maxIter, math.Sqrt(rr[0]/p.r0), 1, c.tol)
}
