package kernels

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Kernel profiling. With OCLSOLVE_PROFILE=1 in the environment when a
// device is first used, its queues are created with
// CL_QUEUE_PROFILING_ENABLE and every launch keeps its event; Profile then
// reads the device's own start and end times of each launch. This is the
// one way to see where a sequence of launches spends its time without a
// host sync per launch (a sync costs ~20 us on NVIDIA, as much as many of
// the kernels measured): the figures are the device's, of launches queued
// back to back.
//
// The price: one event per launch, and a wait for the device every
// profileBatch launches to read and release them. That wait drains the
// queue (the last pending event is the newest launch), so the device idles
// while the host refills it: profiled runs are slower, by about 5-10% for
// the LU on an H100 (2026-11-23: 11.54 against 10.57 ms at n = 2047), and
// their Span includes those gaps. While a gate of the device is closed
// (gate.go) the wait is put off, as the pacer's is (cancel.go): launches
// queued behind the gate cannot complete before it opens, so the events
// pile up until the first launch after it. The profiler's events are
// internal and bounded that way, and are not counted in LiveEvents, so
// that leak checks read the same with profiling on. Profiling is off
// unless asked for.

// profileBatch is how many launch events a device keeps before it waits
// for them and folds their times into its totals.
const profileBatch = 4096

// ProfilingRequested reports whether OCLSOLVE_PROFILE asks for kernel
// profiling ("1", "on", "true" or "timeline"): devices then time every
// launch.
func ProfilingRequested() bool {
	switch strings.ToLower(os.Getenv("OCLSOLVE_PROFILE")) {
	case "1", "on", "true", "yes", "timeline":
		return true
	}
	return false
}

// timelineRequested reports whether OCLSOLVE_PROFILE=timeline asks for
// every launch's times (Profile.Timeline) besides the totals.
func timelineRequested() bool { return strings.ToLower(os.Getenv("OCLSOLVE_PROFILE")) == "timeline" }

// LaunchTime is one launch of a Profile's timeline.
type LaunchTime struct {
	Name string
	Side bool // launched on the side queue (queue.go)
	// Start and End are the device's times of the launch, from the
	// profile's first launch's start.
	Start, End time.Duration
}

// KernelTime is the device time of one kernel's launches.
type KernelTime struct {
	Name     string
	Launches int
	// Total, Min and Max are execution times (CL_PROFILING_COMMAND_START
	// to _END), without the time a launch waited in the queue.
	Total, Min, Max time.Duration
}

// Mean is the average execution time of a launch.
func (k KernelTime) Mean() time.Duration {
	if k.Launches == 0 {
		return 0
	}
	return k.Total / time.Duration(k.Launches)
}

// Profile is what a device's launches took since profiling started or the
// previous Profile call.
type Profile struct {
	Device string
	// Kernels lists every kernel launched, the longest total first.
	Kernels []KernelTime
	// Busy is the sum of the launches' execution times; Span the time from
	// the first launch's start to the last one's end. On one in-order
	// queue Span - Busy is the device's idle time between launches: launch
	// overhead, host stalls and transfers (which are not launches).
	Busy, Span time.Duration
	// Timeline, with OCLSOLVE_PROFILE=timeline, lists every launch in the
	// order of enqueueing: where two queues ran side by side, their
	// launches' intervals overlap.
	Timeline []LaunchTime
}

// Launches is the number of launches profiled.
func (p Profile) Launches() int {
	n := 0
	for _, k := range p.Kernels {
		n += k.Launches
	}
	return n
}

// String renders the profile as a table, one kernel per line.
func (p Profile) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel profile on %s: %d launches, busy %s, span %s (idle %s)\n",
		p.Device, p.Launches(), fmtDur(p.Busy), fmtDur(p.Span), fmtDur(max(0, p.Span-p.Busy)))
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kernel\tlaunches\ttotal\tshare\tmean\tmin\tmax\t")
	for _, k := range p.Kernels {
		share := 0.0
		if p.Busy > 0 {
			share = 100 * float64(k.Total) / float64(p.Busy)
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%.1f%%\t%s\t%s\t%s\t\n", k.Name, k.Launches, fmtDur(k.Total), share,
			fmtDur(k.Mean()), fmtDur(k.Min), fmtDur(k.Max))
	}
	w.Flush()
	return b.String()
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1f us", float64(d)/1e3)
	}
}

// profiler is a device's kernel profiling state, guarded by the device's
// mu.
type profiler struct {
	pending     []timedLaunch
	err         error // the first fold error since the last Profile
	totals      map[string]*KernelTime
	first, last uint64 // device clock (ns) of the earliest start and latest end folded in
	busy        time.Duration
	timeline    bool // keep every launch's times (OCLSOLVE_PROFILE=timeline)
	launches    []timedSpan
}

type timedLaunch struct {
	name string
	side bool
	ev   rawEvent
}

// timedSpan is a folded launch of the timeline, on the device's clock (ns).
type timedSpan struct {
	name       string
	side       bool
	start, end uint64
}

// Profiling reports whether the device times its launches (OCLSOLVE_PROFILE
// was set when it was first used).
func (d *Device) Profiling() bool {
	if err := d.init(); err != nil {
		return false
	}
	return d.prof != nil
}

// record keeps a launch's event and folds the pending ones once there are
// profileBatch of them, unless gated (a gate of the device is closed); with
// mu held. A fold error is kept for Profile, not returned: the launch was
// enqueued, and an error would tell its caller otherwise (lu_trsv.cl's
// tickets, for one, count the launches that ran).
func (p *profiler) record(name string, side bool, ev rawEvent, gated bool) {
	liveEvents.Add(-1) // the profiler's own (fold gives it back to release it)
	p.pending = append(p.pending, timedLaunch{name, side, ev})
	if len(p.pending) >= profileBatch && !gated {
		if err := p.fold(); err != nil && p.err == nil {
			p.err = err
		}
	}
}

// fold waits for the pending launches, adds their times to the totals and
// releases their events; with mu held.
func (p *profiler) fold() error {
	defer func() {
		liveEvents.Add(int64(len(p.pending))) // release counts them off
		for _, l := range p.pending {
			l.ev.release()
		}
		p.pending = p.pending[:0]
	}()
	if p.totals == nil {
		p.totals = map[string]*KernelTime{}
	}
	for _, l := range p.pending {
		if err := l.ev.wait(); err != nil {
			return err
		}
		start, end, err := l.ev.times()
		if err != nil {
			return err
		}
		d := time.Duration(end - start)
		k := p.totals[l.name]
		if k == nil {
			k = &KernelTime{Name: l.name, Min: d}
			p.totals[l.name] = k
		}
		k.Launches++
		k.Total += d
		k.Min, k.Max = min(k.Min, d), max(k.Max, d)
		p.busy += d
		if p.first == 0 || start < p.first {
			p.first = start
		}
		p.last = max(p.last, end)
		if p.timeline {
			p.launches = append(p.launches, timedSpan{l.name, l.side, start, end})
		}
	}
	return nil
}

// Profile waits for the device and returns the times of its launches since
// profiling started or the previous Profile call, then starts counting
// afresh; its error includes the first failure to read the launches'
// times since then. Without OCLSOLVE_PROFILE it returns an empty Profile.
func (d *Device) Profile() (Profile, error) {
	out := Profile{Device: d.info.Name}
	if err := d.Finish(); err != nil {
		return out, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.prof
	if p == nil {
		return out, nil
	}
	err := p.fold()
	if p.err != nil {
		err = p.err
	}
	for _, k := range p.totals {
		out.Kernels = append(out.Kernels, *k)
	}
	sort.Slice(out.Kernels, func(i, j int) bool {
		if out.Kernels[i].Total != out.Kernels[j].Total {
			return out.Kernels[i].Total > out.Kernels[j].Total
		}
		return out.Kernels[i].Name < out.Kernels[j].Name
	})
	out.Busy = p.busy
	if p.last > p.first {
		out.Span = time.Duration(p.last - p.first)
	}
	for _, l := range p.launches {
		out.Timeline = append(out.Timeline, LaunchTime{Name: l.name, Side: l.side,
			Start: time.Duration(l.start - p.first), End: time.Duration(l.end - p.first)})
	}
	*p = profiler{pending: p.pending[:0], timeline: p.timeline}
	return out, err
}
