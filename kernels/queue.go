package kernels

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/jgillich/go-opencl/cl"
)

// Queue is an in-order command queue of a device. Every device has its
// main queue (Device.Main; Kernel.Launch, transfers and Finish use it) and
// may have a side queue (Device.Side), created at first use, for work that
// should run beside the main queue's: a factorization's look-ahead factors
// the next block column on the side queue while the main queue updates the
// trailing matrix. The queues order their commands against each other only
// through events (Queue.Marker, Queue.WaitFor), never through the host.
type Queue struct {
	dev  *Device
	side bool
}

// Event marks a point in a queue: it completes when every command
// enqueued on that queue before it has completed.
type Event struct {
	ev   rawEvent
	once sync.Once
}

// Main returns the device's main queue.
func (d *Device) Main() *Queue { return &Queue{dev: d} }

// Side returns the device's side queue, creating it at first use. Finish
// waits for it too.
func (d *Device) Side() (*Queue, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.side == nil {
		high, forced := sidePriority(d.info)
		var q *cl.CommandQueue
		var err error
		if high {
			if !openCL20(d.info.DeviceVersion) {
				// clCreateCommandQueueWithProperties is OpenCL 2.0: a 1.x
				// platform's dispatch table has no entry for it.
				err = fmt.Errorf("the priority hint needs OpenCL 2.0, the device is %q", d.info.DeviceVersion)
			} else {
				q, err = createPriorityQueue(d.ctx, d.dev, d.prof != nil, priorityHigh)
			}
			if err != nil && forced {
				return nil, fmt.Errorf("%w: creating a second queue with a high priority on %s (OCLSOLVE_SIDE_PRIORITY=high): %v", ErrOpenCL, d.info.Name, err)
			}
			if err != nil {
				// The device listed cl_khr_priority_hints but refused the
				// hint: a side queue without it still serves.
				high, err = false, nil
			}
		}
		if !high {
			var props cl.CommandQueueProperty
			if d.prof != nil {
				props = cl.CommandQueueProfilingEnable
			}
			q, err = d.ctx.CreateCommandQueue(d.dev, props)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: creating a second queue on %s: %v", ErrOpenCL, d.info.Name, err)
		}
		d.side, d.sideHigh = q, high
	}
	return &Queue{dev: d, side: true}, nil
}

// priorityHigh is CL_QUEUE_PRIORITY_HIGH_KHR (cl_khr_priority_hints).
const priorityHigh = 1

// sidePriority says whether the side queue is created with a high priority
// hint, and whether that was forced: where the device lists
// cl_khr_priority_hints (if the device then refuses the hint, Side makes
// a plain queue), unless OCLSOLVE_SIDE_PRIORITY=normal;
// OCLSOLVE_SIDE_PRIORITY=high forces it on any device (Side fails where the
// hint is not supported, as on PoCL); other values are ignored. The side queue carries a factorization's
// latency-bound look-ahead, which a device that schedules by priority
// could run between the work-groups of the main queue's large launches.
// NVIDIA's OpenCL (H100, 2026-11-23) does not list the extension but
// accepts a queue created with the hint, and runs it no differently:
// dense's BenchmarkQueueOverlap measured the same with either.
func sidePriority(info DeviceInfo) (high, forced bool) {
	switch strings.ToLower(os.Getenv("OCLSOLVE_SIDE_PRIORITY")) {
	case "high":
		return true, true
	case "normal":
		return false, false
	}
	return slices.Contains(info.Extensions, "cl_khr_priority_hints"), false
}

// openCL20 reports whether a CL_DEVICE_VERSION string ("OpenCL 3.0 CUDA",
// "OpenCL 1.2 pocl ...") names version 2.0 or later.
func openCL20(version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "OpenCL %d.%d", &major, &minor); err != nil {
		return false
	}
	return major >= 2
}

// SidePriority reports "high" or "normal": the side queue's priority hint,
// once it exists (Side); "" before.
func (d *Device) SidePriority() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.side == nil:
		return ""
	case d.sideHigh:
		return "high"
	}
	return "normal"
}

// Device returns the queue's device.
func (q *Queue) Device() *Device { return q.dev }

// raw returns the OpenCL queue, with the device's mu held.
func (q *Queue) raw() *cl.CommandQueue {
	if q.side {
		return q.dev.side
	}
	return q.dev.queue
}

// Marker enqueues an event that completes when every command enqueued on
// q before it has. Release it once it has been waited for (WaitFor keeps
// what it needs). The queue is flushed, so that another queue may wait
// for the event without a deadlock.
func (q *Queue) Marker() (*Event, error) {
	d := q.dev
	if err := d.init(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ev, err := enqueueMarker(q.raw())
	if err != nil {
		return nil, err
	}
	if err := flush(q.raw()); err != nil {
		ev.release()
		return nil, err
	}
	return &Event{ev: ev}, nil
}

// WaitFor makes every command enqueued on q after it wait until ev has
// completed, without waiting on the host.
func (q *Queue) WaitFor(ev *Event) error {
	if ev == nil {
		return fmt.Errorf("%w: WaitFor: nil event", ErrLaunch)
	}
	d := q.dev
	if err := d.init(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return enqueueWaitFor(q.raw(), ev.ev)
}

// Release frees the event; it is idempotent.
func (ev *Event) Release() {
	if ev != nil {
		ev.once.Do(ev.ev.release)
	}
}

// LaunchOn is Launch on queue q (nil: the main queue). Launches on the
// side queue are not paced: they come a few at a time between events the
// main queue waits for, so the main queue's pacing bounds them too.
func (k *Kernel) LaunchOn(q *Queue, global, local []int, args ...any) error {
	if q == nil || !q.side {
		return k.Launch(global, local, args...)
	}
	if q.dev != k.prog.dev {
		return fmt.Errorf("%w: %s: queue of %s, kernel built for %s", ErrLaunch, k.name, q.dev.info.Name, k.prog.dev.info.Name)
	}
	return k.launch(q, global, local, args)
}
