package repl

import (
	"github.com/oclsolve/oclsolve/kernels"
)

// Device is one compute device as the session commands see it.
type Device interface {
	// String names the device for the banner and :device.
	String() string
	// Finish waits for every command queued on the device.
	Finish() error
	// Memory reports the bytes this process holds on the device now, and
	// the most it has held.
	Memory() (live, peak int64)
}

// Devices is the device layer behind :device, :mem and :time. The engine
// talks to OpenCL only through it, which lets tests use a fake.
type Devices interface {
	// Current returns the device new work goes to.
	Current() (Device, error)
	// All lists every device, in the order Select's indices refer to.
	All() ([]Device, error)
	// Select makes the device that spec names (an index, "gpu", "cpu" or
	// a fragment of its name) the current one.
	Select(spec string) (Device, error)
}

// Canceler is implemented by device layers whose queued work an interrupt
// can stop: Interrupt calls CancelWork, and the evaluation, once it has
// returned, calls ResumeWork, which waits for the queue to drain.
type Canceler interface {
	CancelWork()
	ResumeWork() error
}

// openCLDevices is Devices over package kernels.
type openCLDevices struct{}

// CancelWork makes every device's next launch fail with
// kernels.ErrCanceled, so that a solver's long launch sequence stops.
func (openCLDevices) CancelWork() { kernels.CancelAll() }

// ResumeWork drains the canceled queues and makes the devices usable.
func (openCLDevices) ResumeWork() error { return kernels.ResumeAll() }

type openCLDevice struct{ d *kernels.Device }

func (d openCLDevice) String() string { return d.d.String() }
func (d openCLDevice) Finish() error  { return d.d.Finish() }
func (d openCLDevice) Memory() (live, peak int64) {
	s := d.d.MemoryStats()
	return s.Live, s.Peak
}

func (openCLDevices) Current() (Device, error) {
	d, err := kernels.Default()
	if err != nil {
		return nil, err
	}
	return openCLDevice{d}, nil
}

func (openCLDevices) All() ([]Device, error) {
	ds, err := kernels.Devices()
	if err != nil {
		return nil, err
	}
	out := make([]Device, len(ds))
	for i, d := range ds {
		out[i] = openCLDevice{d}
	}
	return out, nil
}

func (openCLDevices) Select(spec string) (Device, error) {
	d, err := kernels.Select(spec)
	if err != nil {
		return nil, err
	}
	kernels.SetDefault(d)
	return openCLDevice{d}, nil
}

// formatBytes writes a byte count with a binary unit.
func formatBytes(n int64) string { return kernels.FormatBytes(n) }
