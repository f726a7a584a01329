package kernels

import (
	"fmt"
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
		var props cl.CommandQueueProperty
		if d.prof != nil {
			props = cl.CommandQueueProfilingEnable
		}
		q, err := d.ctx.CreateCommandQueue(d.dev, props)
		if err != nil {
			return nil, fmt.Errorf("%w: creating a second queue on %s: %v", ErrOpenCL, d.info.Name, err)
		}
		d.side = q
	}
	return &Queue{dev: d, side: true}, nil
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
