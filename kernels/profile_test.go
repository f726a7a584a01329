package kernels

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Profiling is fixed when a device is first used, so TestProfile runs its
// checks (TestProfileChild) in a child process with OCLSOLVE_PROFILE=1.
func TestProfile(t *testing.T) {
	runProfileChild(t, "1", "TestProfileChild", "TestProfileChildGate")
}

func TestProfileChild(t *testing.T) {
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") == "" {
		t.Skip("run by TestProfile in a child process")
	}
	d := testDevice(t)
	if !d.Profiling() {
		t.Fatal("OCLSOLVE_PROFILE=1 but the device does not profile")
	}
	k := axpyKernel(t, d)
	const n = 1 << 16
	bx, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer bx.Release()
	by, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer by.Release()
	if _, err := d.Profile(); err != nil { // whatever came before
		t.Fatal(err)
	}
	events := LiveEvents()
	// More launches than a batch, so that a fold happens on the way.
	const launches = profileBatch + 5
	for i := 0; i < launches; i++ {
		if err := k.Launch([]int{n}, []int{64}, n, 0.5, bx, by); err != nil {
			t.Fatal(err)
		}
	}
	// The pending events are the profiler's, outside the leak count
	// (Finish drops the pacer's markers, not them).
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := LiveEvents(); got != events {
		t.Errorf("%d events counted with launches pending, %d before", got, events)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Kernels) != 1 || p.Kernels[0].Name != "axpy" || p.Launches() != launches {
		t.Fatalf("profile %+v, want %d launches of axpy", p.Kernels, launches)
	}
	kt := p.Kernels[0]
	if kt.Total <= 0 || kt.Min <= 0 || kt.Min > kt.Mean() || kt.Mean() > kt.Max || p.Busy != kt.Total || p.Span < p.Busy {
		t.Errorf("inconsistent times: %+v, busy %v, span %v", kt, p.Busy, p.Span)
	}
	if got := LiveEvents(); got != events {
		t.Errorf("%d events kept after Profile, %d before the launches", got, events)
	}
	if len(p.Timeline) != 0 {
		t.Errorf("OCLSOLVE_PROFILE=1 kept a timeline of %d launches", len(p.Timeline))
	}
	if s := p.String(); !strings.Contains(s, "axpy") || !strings.Contains(s, "launches") {
		t.Errorf("table lacks the kernel:\n%s", s)
	}
	// Counting starts afresh.
	if p, err := d.Profile(); err != nil || p.Launches() != 0 {
		t.Errorf("second Profile: %d launches, %v", p.Launches(), err)
	}
}

// With a gate of the device closed, the profiler does not wait for its
// pending launches (they sit behind the gate): more than a batch of
// launches behind a closed gate return, and once the gate opens Profile
// has them all (notes/review8.md, finding 3: they used to block until
// another goroutine opened the gate). Run by TestProfile's child.
func TestProfileChildGate(t *testing.T) {
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") == "" {
		t.Skip("run by TestProfile in a child process")
	}
	d := testDevice(t)
	k := axpyKernel(t, d)
	b, err := d.Alloc(8 * 64)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	x, err := d.NewExchange(32, false)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Release()
	if _, err := d.Profile(); err != nil {
		t.Fatal(err)
	}
	g, err := d.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	if err := x.WriteAfter(g, b, 0, 16, 8); err != nil {
		t.Fatal(err)
	}
	const launches = profileBatch + 1
	done := make(chan error, 1)
	go func() {
		for i := 0; i < launches; i++ {
			if err := k.Launch([]int{16}, []int{16}, 16, 1.0, b, b); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(60 * time.Second):
		t.Error("launches behind a closed gate blocked for 60 s")
		g.Open() // let the launching goroutine finish
		<-done
	}
	if err := g.Open(); err != nil {
		t.Fatal(err)
	}
	if err := x.Wait(); err != nil {
		t.Fatal(err)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if p.Launches() != launches {
		t.Errorf("profile has %d launches, want %d", p.Launches(), launches)
	}
}

// TestProfileTimeline runs TestProfileTimelineChild in a child process
// with OCLSOLVE_PROFILE=timeline.
func TestProfileTimeline(t *testing.T) {
	runProfileChild(t, "timeline", "TestProfileTimelineChild")
}

// The timeline lists each launch with its queue, in the order of
// enqueueing, on one clock: a side-queue launch that waited for the main
// queue's event starts after the main queue's launches end.
func TestProfileTimelineChild(t *testing.T) {
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") == "" {
		t.Skip("run by TestProfileTimeline in a child process")
	}
	d := testDevice(t)
	k := axpyKernel(t, d)
	const n = 1 << 16
	b, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	side, err := d.Side()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Profile(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := k.Launch([]int{n}, []int{64}, n, 0.5, b, b); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := d.Main().Marker()
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Release()
	if err := side.WaitFor(ev); err != nil {
		t.Fatal(err)
	}
	if err := k.LaunchOn(side, []int{n}, []int{64}, n, 0.5, b, b); err != nil {
		t.Fatal(err)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	tl := p.Timeline
	if len(tl) != 3 || tl[0].Side || tl[1].Side || !tl[2].Side {
		t.Fatalf("timeline %+v: want two main-queue launches, then a side-queue one", tl)
	}
	for i, l := range tl {
		if l.Name != "axpy" || l.Start < 0 || l.End < l.Start || l.End > p.Span {
			t.Errorf("launch %d: %+v (span %v)", i, l, p.Span)
		}
	}
	if tl[0].Start != 0 || tl[1].Start < tl[0].End || tl[2].Start < tl[1].End {
		t.Errorf("launches out of order: %+v", tl)
	}
	if p, err := d.Profile(); err != nil || len(p.Timeline) != 0 {
		t.Errorf("second Profile: timeline %+v, %v", p.Timeline, err)
	}
}

// runProfileChild runs the tests named (their checks, which need
// profiling from a device's first use) in a child process with
// OCLSOLVE_PROFILE=mode, and fails unless each passed; in the child it
// skips.
func runProfileChild(t *testing.T, mode string, tests ...string) {
	t.Helper()
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^("+strings.Join(tests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "OCLSOLVE_PROFILE="+mode, "OCLSOLVE_PROFILE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, name := range tests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Fatalf("child: %s did not pass\n%s", name, out)
		}
	}
}
