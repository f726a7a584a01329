package kernels

import (
	"sync"
	"sync/atomic"
	"time"
)

// Building programs is the one slow thing of a first run: a cold PoCL
// compiles oclsolve's kernels for tens of seconds, after which the disk
// cache makes it a fraction of a second. The device accounts the time its
// builds take, so that reports can give compilation its own entry instead
// of hiding it in whichever phase built a program first, and it can tell
// the user, once, that the wait is compilation.

// CompileNoticeAfter is how long source compilation must have taken, in
// total for a device, before CompileNotice is called.
const CompileNoticeAfter = time.Second

// CompileNotice, when set, is called once per device and process when
// compiling programs from source has taken more than CompileNoticeAfter
// (so a warm disk cache never calls it). The command-line tools set it to
// print "compiling OpenCL programs for DEVICE, once" on standard error.
var CompileNotice func(d *Device)

// compileAccount is a device's record of program builds.
type compileAccount struct {
	nanos    atomic.Int64 // every build, from source or the disk cache
	mu       sync.Mutex
	source   time.Duration // source compilation finished so far
	noticed  bool
	noticeMu sync.Mutex
}

func (c *compileAccount) add(d time.Duration) { c.nanos.Add(int64(d)) }

// noticeAfter starts timing one source compilation and returns the
// function that ends it. When the device's source compilations reach
// CompileNoticeAfter, during this one or by adding it, CompileNotice is
// called, once per device.
func (c *compileAccount) noticeAfter(d *Device) (stop func()) {
	c.mu.Lock()
	left := CompileNoticeAfter - c.source
	c.mu.Unlock()
	start := time.Now()
	t := time.AfterFunc(max(left, 0), func() { c.notify(d) })
	return func() {
		t.Stop()
		c.mu.Lock()
		c.source += time.Since(start)
		reached := c.source >= CompileNoticeAfter
		c.mu.Unlock()
		// The timer's goroutine may not have run yet on a loaded machine:
		// once the threshold is passed the notice is given before the
		// build returns, so it always precedes the work that follows.
		if reached {
			c.notify(d)
		}
	}
}

func (c *compileAccount) notify(d *Device) {
	c.noticeMu.Lock()
	defer c.noticeMu.Unlock()
	if c.noticed || CompileNotice == nil {
		return
	}
	c.noticed = true
	CompileNotice(d)
}

// CompileTime returns the time this process has spent building programs
// for the device: compiling from source, or loading binaries from the disk
// cache. Reports take the difference across a run.
func (d *Device) CompileTime() time.Duration { return time.Duration(d.compile.nanos.Load()) }
