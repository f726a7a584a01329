package kernels

/*
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

static cl_int oclsolve_xread(cl_command_queue q, cl_mem m, size_t off, size_t size, void *p,
		cl_uint nwait, const cl_event *wait, cl_event *ev) {
	return clEnqueueReadBuffer(q, m, CL_FALSE, off, size, p, nwait, wait, ev);
}

static cl_int oclsolve_xwrite(cl_command_queue q, cl_mem m, size_t off, size_t size, const void *p,
		cl_uint nwait, const cl_event *wait, cl_event *ev) {
	return clEnqueueWriteBuffer(q, m, CL_FALSE, off, size, p, nwait, wait, ev);
}

static cl_int oclsolve_xmarker(cl_command_queue q, cl_event *ev) {
	return clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
}

static cl_int oclsolve_xbarrier(cl_command_queue q, cl_event ev) {
	return clEnqueueBarrierWithWaitList(q, 1, &ev, NULL);
}

static cl_command_queue oclsolve_xqueue(cl_context ctx, cl_device_id dev, cl_int *err) {
	return clCreateCommandQueue(ctx, dev, 0, err);
}

static cl_mem oclsolve_xpinned(cl_context ctx, size_t size, cl_int *err) {
	return clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, err);
}

static void *oclsolve_xmap(cl_command_queue q, cl_mem m, size_t size, cl_int *err) {
	return clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, err);
}

*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Exchange is page-locked host memory for a small transfer that an
// iterative method repeats every iteration (a halo exchange with its
// scalars), and the transfers in and out of it. Both directions are
// enqueued without waiting and complete as events: the host enqueues a
// read, then more kernels, and waits for the read alone (Wait) while the
// device computes. With its own queue (NewExchange's copyQueue) the
// transfers also run beside the device's kernels, on the copy engine of a
// GPU, instead of between them in the device's in-order queue.
//
// The host reads and modifies Host() only between Wait and the next
// transfer. An Exchange is for one goroutine at a time.
type Exchange struct {
	dev   *Device
	mem   C.cl_mem
	host  []float64
	queue C.cl_command_queue // the copy queue, or nil: the device's queue
	read  C.cl_event         // the pending read, or nil
	write C.cl_event         // the pending write, or nil
}

// NewExchange allocates n float64s of pinned host memory for exchanges
// with the device's buffers; copyQueue gives the exchange a queue of its
// own (see Exchange).
func (d *Device) NewExchange(n int, copyQueue bool) (*Exchange, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: exchange of %d values", ErrLaunch, n)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	x := &Exchange{dev: d}
	var e C.cl_int
	size := C.size_t(8 * n)
	x.mem = C.oclsolve_xpinned(rawContext(d.ctx), size, &e)
	if err := check("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", e); err != nil {
		return nil, err
	}
	p := C.oclsolve_xmap(rawQueue(d.queue), x.mem, size, &e)
	if err := check("clEnqueueMapBuffer", e); err != nil {
		C.clReleaseMemObject(x.mem)
		return nil, err
	}
	x.host = unsafe.Slice((*float64)(p), n)
	if copyQueue {
		x.queue = C.oclsolve_xqueue(rawContext(d.ctx), rawDevice(d.dev), &e)
		if err := check("clCreateCommandQueue", e); err != nil {
			x.queue = nil
			x.release()
			return nil, err
		}
	}
	return x, nil
}

// Host is the exchange's host memory.
func (x *Exchange) Host() []float64 { return x.host }

// span checks that [off, off+n) elements lie in b and [at, at+n) in the
// exchange, and that no transfer of the same direction is pending.
func (x *Exchange) span(b *Buffer, off, at, n int, pending C.cl_event) error {
	if err := b.usable(); err != nil {
		return err
	}
	if b.dev != x.dev {
		return fmt.Errorf("%w: exchange on %s with a buffer on %s", ErrLaunch, x.dev.info.Name, b.dev.info.Name)
	}
	if off < 0 || at < 0 || n < 0 || int64(off+n)*8 > b.size || at+n > len(x.host) {
		return fmt.Errorf("%w: exchange of %d values at %d of a %d-byte buffer into %d at %d", ErrLaunch, n, off, b.size, len(x.host), at)
	}
	if pending != nil {
		return fmt.Errorf("%w: exchange transfer before Wait", ErrLaunch)
	}
	return nil
}

// ReadFrom enqueues reading n values of b at element off into Host()[at:]
// once every command enqueued on the device before it has completed, and
// submits it; it does not wait (Wait does).
func (x *Exchange) ReadFrom(b *Buffer, off, at, n int) error {
	if err := x.span(b, off, at, n, x.read); err != nil || n == 0 {
		return err
	}
	d := x.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	q := rawQueue(d.queue)
	var wait *C.cl_event
	var nwait C.cl_uint
	var marker C.cl_event
	if x.queue != nil {
		// The copy queue's read waits for the device queue's commands.
		if err := check("clEnqueueMarkerWithWaitList", C.oclsolve_xmarker(q, &marker)); err != nil {
			return err
		}
		defer keep(marker).release()
		if err := flush(d.queue); err != nil {
			return err
		}
		q, wait, nwait = x.queue, &marker, 1
	}
	var ev C.cl_event
	if err := check("clEnqueueReadBuffer", C.oclsolve_xread(q, rawMem(b.mem), C.size_t(8*off), C.size_t(8*n),
		unsafe.Pointer(&x.host[at]), nwait, wait, &ev)); err != nil {
		return err
	}
	x.read = keep(ev).e
	return check("clFlush", C.clFlush(q))
}

// WriteTo enqueues writing Host()[at:at+n] into b at element off and
// submits it without waiting; every command enqueued on the device after
// it waits for it. With a copy queue the write does not wait for the
// commands enqueued on the device before it (that is its point): the
// caller makes sure that none of them still reads or writes that range.
func (x *Exchange) WriteTo(b *Buffer, off, at, n int) error {
	return x.write1(nil, b, off, at, n)
}

// WriteAfter is WriteTo held back by g: the write, and every command
// enqueued on the device after it, runs once g is open, and it reads
// Host()[at:at+n] then, so the host may fill that range until it opens g.
// It is not submitted (Gate.Open submits it).
//
// Filling the range after the non-blocking clEnqueueWriteBuffer and before
// the gate opens goes beyond OpenCL 1.2, which says only that the host
// memory may not be reused until the write completes: it relies on the
// implementation not reading the source before the command runs (no copy
// at enqueue time). Held back by the gate, PoCL and NVIDIA's driver read
// it when the command runs; an implementation that copied at enqueue would
// write the previous contents.
func (x *Exchange) WriteAfter(g *Gate, b *Buffer, off, at, n int) error {
	if g == nil || g.ev == nil || g.dev != x.dev {
		return fmt.Errorf("%w: exchange write behind a gate that is open or of another device", ErrLaunch)
	}
	return x.write1(g, b, off, at, n)
}

func (x *Exchange) write1(g *Gate, b *Buffer, off, at, n int) error {
	if err := x.span(b, off, at, n, x.write); err != nil || n == 0 {
		return err
	}
	d := x.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	q := rawQueue(d.queue)
	if x.queue != nil {
		q = x.queue
	}
	var wait *C.cl_event
	var nwait C.cl_uint
	if g != nil {
		gev := g.ev // cgo may not take a pointer into the Gate, which holds Go pointers
		wait, nwait = &gev, 1
	}
	var ev C.cl_event
	if err := check("clEnqueueWriteBuffer", C.oclsolve_xwrite(q, rawMem(b.mem), C.size_t(8*off), C.size_t(8*n),
		unsafe.Pointer(&x.host[at]), nwait, wait, &ev)); err != nil {
		return err
	}
	x.write = keep(ev).e
	if g == nil {
		if err := check("clFlush", C.clFlush(q)); err != nil {
			return err
		}
	}
	if x.queue != nil {
		if err := check("clEnqueueBarrierWithWaitList", C.oclsolve_xbarrier(rawQueue(d.queue), ev)); err != nil {
			return err
		}
		if g != nil {
			// Gate.Open flushes the device's queue, not this one.
			return check("clFlush", C.clFlush(q))
		}
	}
	return nil
}

// Wait waits for the exchange's pending transfers; then Host() holds what
// the last ReadFrom read and may be modified.
func (x *Exchange) Wait() error {
	var err error
	for _, ev := range []*C.cl_event{&x.read, &x.write} {
		if *ev != nil {
			e := (rawEvent{*ev}).wait()
			(rawEvent{*ev}).release()
			if e != nil && err == nil {
				err = fmt.Errorf("%w (on %s)", e, x.dev.info.Name)
			}
			*ev = nil
		}
	}
	return err
}

// Release waits for pending transfers and frees the exchange.
func (x *Exchange) Release() {
	if x == nil || x.host == nil && x.mem == nil {
		return
	}
	x.Wait()
	x.dev.mu.Lock()
	defer x.dev.mu.Unlock()
	x.release()
}

func (x *Exchange) release() {
	if x.queue != nil {
		C.clFinish(x.queue)
		C.clReleaseCommandQueue(x.queue)
		x.queue = nil
	}
	if x.mem != nil {
		if x.host != nil {
			var ev C.cl_event
			if C.clEnqueueUnmapMemObject(rawQueue(x.dev.queue), x.mem, unsafe.Pointer(&x.host[0]), 0, nil, &ev) == C.CL_SUCCESS {
				un := keep(ev)
				un.wait() // an unmapped exchange is freed next whatever it says
				un.release()
			}
		}
		C.clReleaseMemObject(x.mem)
		x.mem, x.host = nil, nil
	}
}
