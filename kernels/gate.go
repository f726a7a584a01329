package kernels

/*
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

static cl_event oclsolve_user_event(cl_context ctx, cl_int *err) { return clCreateUserEvent(ctx, err); }

static cl_int oclsolve_open(cl_event ev) {
	cl_int err = clSetUserEventStatus(ev, CL_COMPLETE);
	clReleaseEvent(ev);
	return err;
}
*/
import "C"

import "fmt"

// Gate holds back the commands made to wait for it (Exchange.WriteAfter,
// and through the device's in-order queue every command enqueued after
// those) until the host opens it: an OpenCL user event. An iterative
// method enqueues its next iteration while the device still computes the
// current one, then opens the gate once the host has written what that
// iteration reads into the exchange, so what remains between two
// iterations is the open, not the enqueues.
//
// A gate is opened exactly once: commands behind a gate that is never
// opened never run, and a blocking call waiting for them never returns.
// Open on an open gate does nothing. While a gate is closed the device's
// launches are not paced (Launch never waits).
type Gate struct {
	dev *Device
	ev  C.cl_event // nil once open
}

// NewGate returns a closed gate on the device's context.
func (d *Device) NewGate() (*Gate, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	var e C.cl_int
	ev := C.oclsolve_user_event(rawContext(d.ctx), &e)
	if err := check("clCreateUserEvent", e); err != nil {
		return nil, err
	}
	d.closed.Add(1)
	return &Gate{dev: d, ev: keep(ev).e}, nil
}

// Open lets the commands behind the gate run and submits them.
func (g *Gate) Open() error {
	if g == nil || g.ev == nil {
		return nil
	}
	err := check("clSetUserEventStatus", C.oclsolve_open(g.ev)) // releases g.ev
	liveEvents.Add(-1)
	g.ev = nil
	g.dev.closed.Add(-1)
	if err != nil {
		return fmt.Errorf("%w (on %s)", err, g.dev.info.Name)
	}
	d := g.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	return flush(d.queue)
}
