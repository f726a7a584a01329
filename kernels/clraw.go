package kernels

// This file is the one place that reaches below go-opencl. The binding lacks
// program binaries, build logs on success, enqueues without events (it creates
// one per call, about 10 us each on the GPU machine), a real clFlush (its Flush
// calls clFinish) and float64 kernel arguments. Everything here works on raw
// handles taken from go-opencl's objects, whose first field is the C handle.

/*
#cgo LDFLAGS: -lOpenCL
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <stdlib.h>
#include <CL/cl.h>

static cl_program oclsolve_program_from_binary(cl_context ctx, cl_device_id dev,
		const unsigned char *bin, size_t len, cl_int *status, cl_int *err) {
	return clCreateProgramWithBinary(ctx, 1, &dev, &len, &bin, status, err);
}

static cl_int oclsolve_program_binary(cl_program p, unsigned char *dst, size_t len) {
	unsigned char *bins[1] = { dst };
	return clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL);
}

static cl_int oclsolve_marker(cl_command_queue q, cl_event *ev) {
	return clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
}

static cl_int oclsolve_barrier_on(cl_command_queue q, cl_event ev) {
	return clEnqueueBarrierWithWaitList(q, 1, &ev, NULL);
}

static cl_int oclsolve_wait(cl_event ev) {
	return clWaitForEvents(1, &ev);
}

static cl_int oclsolve_sub_devices(cl_device_id dev, cl_uint units, cl_uint max,
		cl_device_id *out, cl_uint *got) {
	cl_device_partition_property props[3] = { CL_DEVICE_PARTITION_EQUALLY, (cl_device_partition_property)units, 0 };
	return clCreateSubDevices(dev, props, max, out, got);
}

static cl_int oclsolve_enqueue(cl_command_queue q, cl_kernel k, cl_uint dim,
		const size_t *global, const size_t *local) {
	return clEnqueueNDRangeKernel(q, k, dim, NULL, global, local, 0, NULL, NULL);
}

static cl_int oclsolve_enqueue_event(cl_command_queue q, cl_kernel k, cl_uint dim,
		const size_t *global, const size_t *local, cl_event *ev) {
	return clEnqueueNDRangeKernel(q, k, dim, NULL, global, local, 0, NULL, ev);
}

// clCreateCommandQueueWithProperties is OpenCL 2.0; the headers are asked
// for 1.2, so its prototype is declared here (cl_queue_properties is a
// cl_bitfield).
extern CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context, cl_device_id,
		const cl_bitfield *, cl_int *);

static cl_command_queue oclsolve_queue_priority(cl_context ctx, cl_device_id dev, cl_bitfield props,
		cl_bitfield priority, cl_int *err) {
	cl_bitfield list[5] = { CL_QUEUE_PROPERTIES, props, 0x1096, priority, 0 }; // CL_QUEUE_PRIORITY_KHR
	return clCreateCommandQueueWithProperties(ctx, dev, list, err);
}

static cl_int oclsolve_event_times(cl_event ev, cl_ulong *start, cl_ulong *end) {
	cl_int err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(cl_ulong), start, NULL);
	if (err != CL_SUCCESS)
		return err;
	return clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(cl_ulong), end, NULL);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/jgillich/go-opencl/cl"
)

// Raw handles. go-opencl stores the C handle as the first field of each
// object; the module version is pinned, so the layout is fixed.
func rawDevice(d *cl.Device) C.cl_device_id { return *(*C.cl_device_id)(unsafe.Pointer(d)) }
func rawContext(c *cl.Context) C.cl_context { return *(*C.cl_context)(unsafe.Pointer(c)) }
func rawQueue(q *cl.CommandQueue) C.cl_command_queue {
	return *(*C.cl_command_queue)(unsafe.Pointer(q))
}
func rawMem(m *cl.MemObject) C.cl_mem { return *(*C.cl_mem)(unsafe.Pointer(m)) }

// clError is an OpenCL status code with the call that returned it.
type clError struct {
	call string
	code int
}

func (e *clError) Error() string {
	return fmt.Sprintf("%s: OpenCL error %d (%s)", e.call, e.code, clErrorName(e.code))
}

// Unwrap makes a clError match ErrOutOfMemory for the codes that mean it and
// ErrOpenCL otherwise.
func (e *clError) Unwrap() error {
	switch e.code {
	case -4, -5, -6, -61: // MEM_OBJECT_ALLOCATION_FAILURE, OUT_OF_RESOURCES, OUT_OF_HOST_MEMORY, INVALID_BUFFER_SIZE
		return ErrOutOfMemory
	}
	return ErrOpenCL
}

func check(call string, code C.cl_int) error {
	if code == C.CL_SUCCESS {
		return nil
	}
	return &clError{call: call, code: int(code)}
}

func clErrorName(code int) string {
	names := map[int]string{
		-1: "DEVICE_NOT_FOUND", -2: "DEVICE_NOT_AVAILABLE", -3: "COMPILER_NOT_AVAILABLE",
		-4: "MEM_OBJECT_ALLOCATION_FAILURE", -5: "OUT_OF_RESOURCES", -6: "OUT_OF_HOST_MEMORY",
		-11: "BUILD_PROGRAM_FAILURE", -30: "INVALID_VALUE", -33: "INVALID_DEVICE",
		-34: "INVALID_CONTEXT", -36: "INVALID_COMMAND_QUEUE", -38: "INVALID_MEM_OBJECT",
		-42: "INVALID_BINARY", -44: "INVALID_PROGRAM", -45: "INVALID_PROGRAM_EXECUTABLE",
		-46: "INVALID_KERNEL_NAME", -48: "INVALID_KERNEL", -49: "INVALID_ARG_INDEX",
		-50: "INVALID_ARG_VALUE", -51: "INVALID_ARG_SIZE", -52: "INVALID_KERNEL_ARGS",
		-53: "INVALID_WORK_DIMENSION", -54: "INVALID_WORK_GROUP_SIZE", -55: "INVALID_WORK_ITEM_SIZE",
		-56: "INVALID_GLOBAL_OFFSET", -61: "INVALID_BUFFER_SIZE", -63: "INVALID_GLOBAL_WORK_SIZE",
		// NVIDIA's own code, returned by the next call that syncs or
		// flushes: an earlier command faulted (an out-of-bounds address
		// in a kernel, a fill the driver cannot do).
		-9999: "NVIDIA: an earlier command faulted",
	}
	if n, ok := names[code]; ok {
		return n
	}
	return "unknown"
}

// rawProgram is a cl_program owned by a Program.
type rawProgram struct{ p C.cl_program }

func createProgramFromSource(ctx *cl.Context, src string) (rawProgram, error) {
	cs := C.CString(src)
	defer C.free(unsafe.Pointer(cs))
	var err C.cl_int
	p := C.clCreateProgramWithSource(rawContext(ctx), 1, &cs, nil, &err)
	if e := check("clCreateProgramWithSource", err); e != nil {
		return rawProgram{}, e
	}
	return rawProgram{p}, nil
}

func createProgramFromBinary(ctx *cl.Context, dev *cl.Device, bin []byte) (rawProgram, error) {
	if len(bin) == 0 {
		return rawProgram{}, &clError{"clCreateProgramWithBinary", -42}
	}
	cbin := C.CBytes(bin)
	defer C.free(cbin)
	var status, err C.cl_int
	p := C.oclsolve_program_from_binary(rawContext(ctx), rawDevice(dev), (*C.uchar)(cbin), C.size_t(len(bin)), &status, &err)
	if e := check("clCreateProgramWithBinary", err); e != nil {
		return rawProgram{}, e
	}
	if e := check("clCreateProgramWithBinary(status)", status); e != nil {
		C.clReleaseProgram(p)
		return rawProgram{}, e
	}
	return rawProgram{p}, nil
}

// build compiles the program for dev and returns the build log, which the
// caller keeps for failures and for warnings.
func (rp rawProgram) build(dev *cl.Device, options string) (log string, err error) {
	copts := C.CString(options)
	defer C.free(unsafe.Pointer(copts))
	id := rawDevice(dev)
	code := C.clBuildProgram(rp.p, 1, &id, copts, nil, nil)
	log = rp.buildLog(dev)
	return log, check("clBuildProgram", code)
}

func (rp rawProgram) buildLog(dev *cl.Device) string {
	var n C.size_t
	if C.clGetProgramBuildInfo(rp.p, rawDevice(dev), C.CL_PROGRAM_BUILD_LOG, 0, nil, &n) != C.CL_SUCCESS || n == 0 {
		return ""
	}
	buf := make([]byte, int(n))
	if C.clGetProgramBuildInfo(rp.p, rawDevice(dev), C.CL_PROGRAM_BUILD_LOG, n, unsafe.Pointer(&buf[0]), nil) != C.CL_SUCCESS {
		return ""
	}
	for len(buf) > 0 && (buf[len(buf)-1] == 0 || buf[len(buf)-1] == '\n') {
		buf = buf[:len(buf)-1]
	}
	return string(buf)
}

// binary returns the program binary for its single device.
func (rp rawProgram) binary() ([]byte, error) {
	var size C.size_t
	if e := check("clGetProgramInfo(BINARY_SIZES)", C.clGetProgramInfo(rp.p, C.CL_PROGRAM_BINARY_SIZES, C.size_t(unsafe.Sizeof(size)), unsafe.Pointer(&size), nil)); e != nil {
		return nil, e
	}
	if size == 0 {
		return nil, nil
	}
	dst := C.malloc(size)
	defer C.free(dst)
	if e := check("clGetProgramInfo(BINARIES)", C.oclsolve_program_binary(rp.p, (*C.uchar)(dst), size)); e != nil {
		return nil, e
	}
	return C.GoBytes(dst, C.int(size)), nil
}

func (rp rawProgram) release() {
	if rp.p != nil {
		C.clReleaseProgram(rp.p)
	}
}

// rawKernel is a cl_kernel owned by a Kernel.
type rawKernel struct{ k C.cl_kernel }

func (rp rawProgram) createKernel(name string) (rawKernel, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var err C.cl_int
	k := C.clCreateKernel(rp.p, cn, &err)
	if e := check("clCreateKernel("+name+")", err); e != nil {
		return rawKernel{}, e
	}
	return rawKernel{k}, nil
}

func (rk rawKernel) release() {
	if rk.k != nil {
		C.clReleaseKernel(rk.k)
	}
}

func (rk rawKernel) setArg(i int, size uintptr, p unsafe.Pointer) error {
	return check("clSetKernelArg", C.clSetKernelArg(rk.k, C.cl_uint(i), C.size_t(size), p))
}

func (rk rawKernel) setMemArg(i int, m *cl.MemObject) error {
	h := rawMem(m)
	return check("clSetKernelArg", C.clSetKernelArg(rk.k, C.cl_uint(i), C.size_t(unsafe.Sizeof(h)), unsafe.Pointer(&h)))
}

func (rk rawKernel) setLocalArg(i int, bytes int) error {
	return check("clSetKernelArg(local)", C.clSetKernelArg(rk.k, C.cl_uint(i), C.size_t(bytes), nil))
}

// deviceUint reads a cl_uint property of a device by its code, for the
// extensions' properties that go-opencl does not know (queryInfo asks only
// where the device lists the extension).
func deviceUint(d *cl.Device, param uint32) (uint32, error) {
	var v C.cl_uint
	e := check("clGetDeviceInfo", C.clGetDeviceInfo(rawDevice(d), C.cl_device_info(param), C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil))
	return uint32(v), e
}

// workGroupSize reports CL_KERNEL_WORK_GROUP_SIZE for the kernel on dev.
func (rk rawKernel) workGroupSize(dev *cl.Device) (int, error) {
	var n C.size_t
	e := check("clGetKernelWorkGroupInfo", C.clGetKernelWorkGroupInfo(rk.k, rawDevice(dev), C.CL_KERNEL_WORK_GROUP_SIZE, C.size_t(unsafe.Sizeof(n)), unsafe.Pointer(&n), nil))
	return int(n), e
}

// enqueue launches the kernel without creating an event.
func enqueue(q *cl.CommandQueue, rk rawKernel, global, local []int) error {
	var g, l [3]C.size_t
	for i := range global {
		g[i] = C.size_t(global[i])
		l[i] = C.size_t(local[i])
	}
	return check("clEnqueueNDRangeKernel", C.oclsolve_enqueue(rawQueue(q), rk.k, C.cl_uint(len(global)), &g[0], &l[0]))
}

// enqueueTimed launches the kernel and returns its event (profiling).
func enqueueTimed(q *cl.CommandQueue, rk rawKernel, global, local []int) (rawEvent, error) {
	var g, l [3]C.size_t
	for i := range global {
		g[i] = C.size_t(global[i])
		l[i] = C.size_t(local[i])
	}
	var ev C.cl_event
	if err := check("clEnqueueNDRangeKernel", C.oclsolve_enqueue_event(rawQueue(q), rk.k, C.cl_uint(len(global)), &g[0], &l[0], &ev)); err != nil {
		return rawEvent{}, err
	}
	return keep(ev), nil
}

// times returns a completed command's start and end on the device's clock
// (ns); its queue must profile.
func (ev rawEvent) times() (start, end uint64, err error) {
	var s, e C.cl_ulong
	if err := check("clGetEventProfilingInfo", C.oclsolve_event_times(ev.e, &s, &e)); err != nil {
		return 0, 0, err
	}
	return uint64(s), uint64(e), nil
}

// createPriorityQueue creates an in-order queue of dev with the priority
// hint priority (cl_khr_priority_hints: CL_QUEUE_PRIORITY_HIGH_KHR 1,
// MED 2, LOW 4), profiling its commands with prof; go-opencl cannot.
func createPriorityQueue(ctx *cl.Context, dev *cl.Device, prof bool, priority int) (*cl.CommandQueue, error) {
	var props C.cl_bitfield
	if prof {
		props = C.CL_QUEUE_PROFILING_ENABLE
	}
	var err C.cl_int
	q := C.oclsolve_queue_priority(rawContext(ctx), rawDevice(dev), props, C.cl_bitfield(priority), &err)
	if e := check("clCreateCommandQueueWithProperties", err); e != nil {
		return nil, e
	}
	if q == nil {
		return nil, fmt.Errorf("clCreateCommandQueueWithProperties returned no queue and no error")
	}
	out := new(cl.CommandQueue) // its first field is the handle; Release releases it
	*(*C.cl_command_queue)(unsafe.Pointer(out)) = q
	return out, nil
}

// flush submits queued commands without waiting for them (go-opencl's Flush
// waits).
func flush(q *cl.CommandQueue) error { return check("clFlush", C.clFlush(rawQueue(q))) }

func finish(q *cl.CommandQueue) error { return check("clFinish", C.clFinish(rawQueue(q))) }

// rawEvent is an OpenCL event handle.
type rawEvent struct{ e C.cl_event }

// enqueueMarker enqueues a marker, an event that completes when every
// command enqueued before it has.
func enqueueMarker(q *cl.CommandQueue) (rawEvent, error) {
	var ev C.cl_event
	if err := check("clEnqueueMarkerWithWaitList", C.oclsolve_marker(rawQueue(q), &ev)); err != nil {
		return rawEvent{}, err
	}
	return keep(ev), nil
}

// enqueueWaitFor makes every command enqueued on q after it wait for ev
// (an event of any queue of the same context).
func enqueueWaitFor(q *cl.CommandQueue, ev rawEvent) error {
	return check("clEnqueueBarrierWithWaitList", C.oclsolve_barrier_on(rawQueue(q), ev.e))
}

func (ev rawEvent) wait() error { return check("clWaitForEvents", C.oclsolve_wait(ev.e)) }

// keep wraps an event that an enqueue returned to Go code, counting it in
// liveEvents until release.
func keep(ev C.cl_event) rawEvent {
	liveEvents.Add(1)
	return rawEvent{ev}
}

func (ev rawEvent) release() {
	C.clReleaseEvent(ev.e)
	liveEvents.Add(-1)
}

// Buffer transfers without events. blocking reads and writes into Go memory
// are allowed by cgo's pointer rules because the call returns only when the
// copy is done.
func writeBuffer(q *cl.CommandQueue, m *cl.MemObject, offset, size int, p unsafe.Pointer) error {
	return check("clEnqueueWriteBuffer", C.clEnqueueWriteBuffer(rawQueue(q), rawMem(m), C.CL_TRUE, C.size_t(offset), C.size_t(size), p, 0, nil, nil))
}

func readBuffer(q *cl.CommandQueue, m *cl.MemObject, offset, size int, p unsafe.Pointer) error {
	return check("clEnqueueReadBuffer", C.clEnqueueReadBuffer(rawQueue(q), rawMem(m), C.CL_TRUE, C.size_t(offset), C.size_t(size), p, 0, nil, nil))
}

func copyBuffer(q *cl.CommandQueue, src, dst *cl.MemObject, srcOff, dstOff, size int) error {
	return check("clEnqueueCopyBuffer", C.clEnqueueCopyBuffer(rawQueue(q), rawMem(src), rawMem(dst), C.size_t(srcOff), C.size_t(dstOff), C.size_t(size), 0, nil, nil))
}

func fillBuffer(q *cl.CommandQueue, m *cl.MemObject, pattern []byte, offset, size int) error {
	cp := C.CBytes(pattern)
	defer C.free(cp)
	return check("clEnqueueFillBuffer", C.clEnqueueFillBuffer(rawQueue(q), rawMem(m), cp, C.size_t(len(pattern)), C.size_t(offset), C.size_t(size), 0, nil, nil))
}

// createSubDevices splits dev into sub-devices of units compute units each
// (CL_DEVICE_PARTITION_EQUALLY) and returns at most max of them, wrapped as
// go-opencl devices (whose only field is the handle).
func createSubDevices(dev *cl.Device, units, max int) ([]*cl.Device, error) {
	var count C.cl_uint
	if err := check("clCreateSubDevices", C.oclsolve_sub_devices(rawDevice(dev), C.cl_uint(units), 0, nil, &count)); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, &clError{"clCreateSubDevices", -18} // CL_DEVICE_PARTITION_FAILED
	}
	ids := make([]C.cl_device_id, int(count))
	if err := check("clCreateSubDevices", C.oclsolve_sub_devices(rawDevice(dev), C.cl_uint(units), count, &ids[0], nil)); err != nil {
		return nil, err
	}
	out := make([]*cl.Device, 0, max)
	for i, id := range ids {
		if i >= max {
			C.clReleaseDevice(id) // the partition made more than asked for
			continue
		}
		d := new(cl.Device)
		*(*C.cl_device_id)(unsafe.Pointer(d)) = id
		out = append(out, d)
	}
	return out, nil
}

// releaseSubDevices releases sub-devices made by createSubDevices that will
// not be used.
func releaseSubDevices(ds []*cl.Device) {
	for _, d := range ds {
		C.clReleaseDevice(rawDevice(d))
	}
}
