package kernels

import (
	"errors"
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// ErrCanceled is returned by Launch on a device whose work was canceled
// (Device.Cancel, CancelAll), until Resume. It is of the kind
// errs.ErrCanceled.
var ErrCanceled = pkgErrs.Of(errs.ErrCanceled)

// Cancel stops the device's work as soon as possible: every later Launch
// fails with ErrCanceled, so that a solver issuing thousands of launches
// returns at its next one, and what is already queued is bounded by the
// pacing below. Resume drains the queue and makes the device usable again.
// Cancel may be called from any goroutine (an interrupt handler) and does
// not wait.
func (d *Device) Cancel() { d.canceled.Store(true) }

// Canceled reports whether the device's work is canceled.
func (d *Device) Canceled() bool { return d.canceled.Load() }

// Resume waits until the commands queued before the cancellation have
// finished and lets launches run again. Buffers keep their memory; their
// contents are whatever the interrupted work left.
func (d *Device) Resume() error {
	if !d.canceled.Load() {
		return nil
	}
	err := d.Finish()
	d.canceled.Store(false)
	return err
}

// CancelAll cancels the work of every device in use, the parts of split
// devices (Split) included.
func CancelAll() {
	for _, d := range allDevices() {
		d.Cancel()
	}
}

// ResumeAll resumes every canceled device.
func ResumeAll() error {
	var errs []error
	for _, d := range allDevices() {
		if d.initialized() {
			errs = append(errs, d.Resume())
		} else {
			d.canceled.Store(false)
		}
	}
	return errors.Join(errs...)
}

// Pacing. Launches return at once and an in-order queue runs them
// later; a host loop issuing thousands of launches (the thesis variants
// issue about 4n) can run far ahead of the device, and once queued,
// OpenCL offers no way to take work back: an interrupt would then wait for
// all of it (29 s for a thesis Gauss-Jordan of bcsstk16 on PoCL). Every
// batch of launches is therefore followed by a marker event, and when more
// than paceDepth markers are in flight the host waits for the oldest. The
// batch starts at one launch and adapts so that a batch takes at most
// about paceTarget on the device: small launches go in batches of hundreds
// (no sync per launch; the device always has a whole batch queued while
// the host enqueues the next), long ones one by one, so no more than
// about two batches of work is ever queued.
const (
	paceDepth    = 1   // markers in flight before the host waits
	paceMinBatch = 1   // launches per marker, least
	paceMaxBatch = 512 // and most
	paceTarget   = 50 * time.Millisecond
)

// pacer is the pacing state of one device; the device's mu guards it.
type pacer struct {
	batch   int
	since   int        // launches since the last marker
	markers []rawEvent // in flight, oldest first
	last    time.Time  // when the previous marker was found complete
}

// paced is called after each launch, with d.mu held. While a gate of the
// device is closed it does nothing: a marker enqueued now would sit behind
// the gate, and waiting for it before the gate opens would never return.
func (d *Device) paced() error {
	if d.closed.Load() > 0 {
		return nil
	}
	p := &d.pace
	if p.batch == 0 {
		p.batch = paceMinBatch
	}
	p.since++
	if p.since < p.batch {
		return nil
	}
	p.since = 0
	ev, err := enqueueMarker(d.queue)
	if err != nil {
		return fmt.Errorf("pacing launches: %w", err)
	}
	if err := flush(d.queue); err != nil {
		ev.release()
		return err
	}
	p.markers = append(p.markers, ev)
	if len(p.markers) <= paceDepth {
		return nil
	}
	oldest := p.markers[0]
	p.markers = p.markers[1:]
	start := time.Now()
	err = oldest.wait()
	oldest.release()
	now := time.Now()
	blocked := now.Sub(start) > time.Millisecond
	if !p.last.IsZero() {
		// The time between two completions is what a batch costs on the
		// device when the host was waiting for it.
		switch dt := now.Sub(p.last); {
		case blocked && dt > paceTarget && p.batch > paceMinBatch:
			p.batch = max(paceMinBatch, p.batch/2)
		case dt < paceTarget/4 && p.batch < paceMaxBatch:
			p.batch = min(paceMaxBatch, p.batch*2)
		}
	}
	p.last = now
	return err
}

// unpace forgets the markers once the queue is known to be empty (after
// clFinish), with d.mu held.
func (d *Device) unpace() {
	for _, ev := range d.pace.markers {
		ev.release()
	}
	d.pace.markers = d.pace.markers[:0]
	d.pace.since = 0
	d.pace.last = time.Time{}
}
