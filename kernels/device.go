package kernels

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jgillich/go-opencl/cl"
)

// Device is one OpenCL device. Its context and in-order command queue are
// created on first use; programs built for it are kept for the life of the
// process. Commands are enqueued asynchronously: only Finish and host reads
// wait for the device.
//
// A Device is safe for concurrent use; commands from several goroutines are
// serialised on its single queue.
type Device struct {
	info     DeviceInfo
	platform *cl.Platform
	dev      *cl.Device
	parent   *Device // for a part of a device (Split)
	part     string  // "sub-device 1/2", "instance 2/2"; "" for a whole device

	initOnce sync.Once
	initErr  error
	ctx      *cl.Context
	queue    *cl.CommandQueue
	side     *cl.CommandQueue // the side queue (queue.go), nil until first used
	sideHigh bool             // the side queue has a high priority hint (queue.go)
	prof     *profiler        // kernel profiling (profile.go), nil when off

	mu       sync.Mutex // guards the queue, kernel arguments and launches
	programs programCache
	compile  compileAccount
	mem      memoryAccount
	launches atomic.Int64
	ready    atomic.Bool  // the context and queue exist
	canceled atomic.Bool  // see Cancel
	pace     pacer        // guarded by mu
	closed   atomic.Int32 // gates of the device not yet open (gate.go)
	stage    staging      // pinned buffers for large transfers (staging.go)
	staged   int8         // 0: pinned staging on GPUs only; 1: always; -1: never (tests, benchmarks)
}

var (
	discoverOnce sync.Once
	discovered   []*Device
	discoverErr  error

	defaultMu  sync.Mutex
	defaultDev *Device
)

// Devices lists every OpenCL device of every platform, in platform order.
// Discovery happens once per process.
func Devices() ([]*Device, error) {
	discoverOnce.Do(func() { discovered, discoverErr = discover() })
	return discovered, discoverErr
}

func discover() (devs []*Device, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: platform discovery: %v", ErrOpenCL, r)
		}
	}()
	platforms, err := cl.GetPlatforms()
	if err != nil {
		return nil, fmt.Errorf("%w: no OpenCL platform (is an ICD such as pocl-opencl-icd installed?): %v", ErrNoDevice, err)
	}
	for _, p := range platforms {
		ds, err := p.GetDevices(cl.DeviceTypeAll)
		if err != nil {
			continue // a platform without devices is not an error
		}
		for _, d := range ds {
			devs = append(devs, &Device{info: queryInfo(len(devs), p, d), platform: p, dev: d})
		}
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("%w: %d OpenCL platform(s) but no device", ErrNoDevice, len(platforms))
	}
	return devs, nil
}

// Default returns the device oclsolve works on unless told otherwise: the
// device named by the OCLSOLVE_DEVICE environment variable (see Select), else
// the first GPU with double precision, else the first CPU with double
// precision, else the first device.
func Default() (*Device, error) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultDev != nil {
		return defaultDev, nil
	}
	var d *Device
	var err error
	if spec := strings.TrimSpace(os.Getenv("OCLSOLVE_DEVICE")); spec != "" {
		d, err = Select(spec)
		if err != nil {
			return nil, fmt.Errorf("OCLSOLVE_DEVICE=%q: %w", spec, err)
		}
	} else {
		d, err = pickDefault()
		if err != nil {
			return nil, err
		}
	}
	defaultDev = d
	return d, nil
}

// SetDefault makes d the device returned by Default.
func SetDefault(d *Device) {
	defaultMu.Lock()
	defaultDev = d
	defaultMu.Unlock()
}

func pickDefault() (*Device, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	for _, want := range []string{"GPU", "CPU"} {
		for _, d := range devs {
			if d.info.FP64 && strings.Contains(d.info.Type, want) {
				return d, nil
			}
		}
	}
	return devs[0], nil
}

// Select finds a device by a specification: a device index ("1"), "gpu" or
// "cpu" (the first such device with double precision, else the first such
// device), or a case-insensitive fragment of the device, vendor or platform
// name ("nvidia", "h100", "pthread"). When nothing matches, the error lists
// the devices that exist.
func Select(spec string) (*Device, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	s := strings.ToLower(strings.TrimSpace(spec))
	if i, err := strconv.Atoi(s); err == nil {
		if i >= 0 && i < len(devs) {
			return devs[i], nil
		}
		return nil, noMatch(spec, devs)
	}
	if s == "gpu" || s == "cpu" {
		var first *Device
		for _, d := range devs {
			if strings.EqualFold(d.info.Type, s) || strings.Contains(strings.ToLower(d.info.Type), s) {
				if d.info.FP64 {
					return d, nil
				}
				if first == nil {
					first = d
				}
			}
		}
		if first != nil {
			return first, nil
		}
		return nil, noMatch(spec, devs)
	}
	for _, d := range devs {
		for _, field := range []string{d.info.Name, d.info.Vendor, d.info.Platform} {
			if s != "" && strings.Contains(strings.ToLower(field), s) {
				return d, nil
			}
		}
	}
	return nil, noMatch(spec, devs)
}

func noMatch(spec string, devs []*Device) error {
	var b strings.Builder
	for _, d := range devs {
		fmt.Fprintf(&b, "\n  %d: %s [%s] (%s, fp64 %v)", d.info.Index, d.info.Name, d.info.Type, d.info.Platform, d.info.FP64)
	}
	return fmt.Errorf("%w: %q matches none of:%s", ErrNoDevice, spec, b.String())
}

// Info returns the device's properties.
func (d *Device) Info() DeviceInfo { return d.info }

// Name returns the device name.
func (d *Device) Name() string { return d.info.Name }

// String names the device and its platform.
func (d *Device) String() string {
	return fmt.Sprintf("%s (%s, %s)", d.info.Name, d.info.Type, d.info.Platform)
}

// init creates the context and queue on first use.
func (d *Device) init() error {
	d.initOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				d.initErr = fmt.Errorf("%w: creating context on %s: %v", ErrOpenCL, d.info.Name, r)
			}
		}()
		ctx, err := cl.CreateContext([]*cl.Device{d.dev})
		if err != nil {
			d.initErr = fmt.Errorf("%w: creating context on %s: %v", ErrOpenCL, d.info.Name, err)
			return
		}
		var props cl.CommandQueueProperty
		if ProfilingRequested() {
			props = cl.CommandQueueProfilingEnable
			d.prof = &profiler{timeline: timelineRequested()}
		}
		q, err := ctx.CreateCommandQueue(d.dev, props)
		if err != nil {
			d.initErr = fmt.Errorf("%w: creating queue on %s: %v", ErrOpenCL, d.info.Name, err)
			return
		}
		d.ctx, d.queue = ctx, q
		d.ready.Store(true)
	})
	return d.initErr
}

// Flush submits every queued command to the device without waiting.
func (d *Device) Flush() error {
	if err := d.init(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return flush(d.queue)
}

// Finish waits until every queued command has completed. Errors of
// asynchronous commands surface here.
func (d *Device) Finish() error {
	if err := d.init(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.side != nil {
		if err := finish(d.side); err != nil {
			return fmt.Errorf("%w (side queue on %s)", err, d.info.Name)
		}
	}
	if err := finish(d.queue); err != nil {
		return fmt.Errorf("%w (on %s)", err, d.info.Name)
	}
	d.unpace()
	return nil
}

// initialized reports whether the device's context and queue exist.
func (d *Device) initialized() bool { return d.ready.Load() }
