package kernels

/*
#cgo LDFLAGS: -lOpenCL
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

static cl_mem oclsolve_create_pinned(cl_context ctx, size_t size, cl_int *err) {
	return clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, err);
}

static void *oclsolve_map_pinned(cl_command_queue q, cl_mem m, size_t size, cl_int *err) {
	return clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, err);
}

static cl_int oclsolve_write_async(cl_command_queue q, cl_mem m, size_t off, size_t size, const void *p, cl_event *ev) {
	return clEnqueueWriteBuffer(q, m, CL_FALSE, off, size, p, 0, NULL, ev);
}

static cl_int oclsolve_read_async(cl_command_queue q, cl_mem m, size_t off, size_t size, void *p, cl_event *ev) {
	return clEnqueueReadBuffer(q, m, CL_FALSE, off, size, p, 0, NULL, ev);
}

static cl_int oclsolve_wait(cl_event ev) {
	cl_int err = clWaitForEvents(1, &ev);
	clReleaseEvent(ev);
	return err;
}
*/
import "C"

import (
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/jgillich/go-opencl/cl"
)

// Large host-device transfers go through pinned (page-locked) staging
// buffers. A blocking clEnqueueWriteBuffer from ordinary Go memory makes the
// driver copy through its own small pinned bounce buffer, one chunk at a
// time, with no overlap: about 2 GB/s on the H100 machine. Here each device
// owns two pinned buffers (CL_MEM_ALLOC_HOST_PTR, mapped once for the life of
// the process, the pattern NVIDIA's OpenCL guide recommends); a transfer is
// cut into chunks that alternate between them, so that the DMA of one chunk
// overlaps the copy of the next between Go memory and pinned memory, and
// that copy is spread over several cores.

const (
	// stagingChunk is the size of each pinned buffer.
	stagingChunk = 16 << 20
	// stagingMin is the smallest transfer that goes through them; below
	// it a direct transfer costs less than the extra copy.
	stagingMin = 1 << 20
)

// useStaging reports whether large transfers go through the pinned buffers:
// on GPUs. On a CPU device (PoCL) device memory is host memory, a direct
// transfer is one memcpy, and the staged path only adds a copy (and PoCL
// serves asynchronous writes from mapped buffers slowly).
func (d *Device) useStaging() bool {
	if d.staged != 0 {
		return d.staged > 0
	}
	return strings.Contains(strings.ToUpper(d.info.Type), "GPU")
}

// staging is a device's pair of pinned buffers.
type staging struct {
	once sync.Once
	err  error
	mem  [2]C.cl_mem
	host [2][]byte     // the mapped pinned memory
	busy [2]C.cl_event // the transfer using each buffer, or nil
}

// pinned returns the device's staging buffers, creating them on first use.
// The caller holds d.mu.
func (d *Device) pinned() (*staging, error) {
	s := &d.stage
	s.once.Do(func() {
		ctx, q := rawContext(d.ctx), rawQueue(d.queue)
		for k := range s.mem {
			var e C.cl_int
			s.mem[k] = C.oclsolve_create_pinned(ctx, stagingChunk, &e)
			if err := check("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", e); err != nil {
				s.err = err
				return
			}
			p := C.oclsolve_map_pinned(q, s.mem[k], stagingChunk, &e)
			if err := check("clEnqueueMapBuffer", e); err != nil {
				s.err = err
				return
			}
			s.host[k] = unsafe.Slice((*byte)(p), stagingChunk)
		}
	})
	return s, s.err
}

// wait blocks until buffer k is free.
func (s *staging) wait(k int) error {
	if s.busy[k] == nil {
		return nil
	}
	ev := s.busy[k]
	s.busy[k] = nil
	err := check("clWaitForEvents", C.oclsolve_wait(ev)) // releases ev
	liveEvents.Add(-1)
	return err
}

// parallelCopy copies src to dst on several cores when it is large.
func parallelCopy(dst, src []byte) {
	const piece = 2 << 20
	n := len(src)
	w := min(runtime.GOMAXPROCS(0), 8, max(1, n/piece))
	if w == 1 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		lo, hi := n*i/w, n*(i+1)/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

// writeStaged copies n bytes at p (Go memory) to m at off through the
// pinned buffers. It returns once p is no longer needed; the last chunks may
// still be in flight, ordered before everything enqueued later.
func (d *Device) writeStaged(mo *cl.MemObject, off int64, src []byte) error {
	s, err := d.pinned()
	if err != nil {
		return err
	}
	k := 0
	for done := 0; done < len(src); done += stagingChunk {
		c := min(stagingChunk, len(src)-done)
		if err := s.wait(k); err != nil {
			return err
		}
		parallelCopy(s.host[k][:c], src[done:done+c])
		if err := d.enqueueChunk(s, k, mo, off+int64(done), c, true); err != nil {
			return err
		}
		k ^= 1
	}
	return nil
}

// readStaged copies len(dst) bytes of m at off into dst through the pinned
// buffers, the read of one chunk overlapping the copy-out of the previous.
func (d *Device) readStaged(mo *cl.MemObject, off int64, dst []byte) error {
	s, err := d.pinned()
	if err != nil {
		return err
	}
	for k := range s.busy {
		if err := s.wait(k); err != nil {
			return err
		}
	}
	enqueue := func(k, at int) error {
		return d.enqueueChunk(s, k, mo, off+int64(at), min(stagingChunk, len(dst)-at), false)
	}
	if err := enqueue(0, 0); err != nil {
		return err
	}
	k := 0
	for at := 0; at < len(dst); at += stagingChunk {
		if next := at + stagingChunk; next < len(dst) {
			if err := enqueue(k^1, next); err != nil {
				return err
			}
		}
		if err := s.wait(k); err != nil {
			return err
		}
		c := min(stagingChunk, len(dst)-at)
		parallelCopy(dst[at:at+c], s.host[k][:c])
		k ^= 1
	}
	return nil
}

// enqueueChunk enqueues the copy of c bytes between pinned buffer k and mo
// at byte offset at (to the device when write, else from it), without
// waiting: its event goes to s.busy[k], for s.wait. It flushes the queue, so
// that the DMA starts now rather than when the queue is next flushed.
func (d *Device) enqueueChunk(s *staging, k int, mo *cl.MemObject, at int64, c int, write bool) error {
	q, m, host := rawQueue(d.queue), rawMem(mo), unsafe.Pointer(&s.host[k][0])
	var ev C.cl_event
	var err error
	if write {
		err = check("clEnqueueWriteBuffer", C.oclsolve_write_async(q, m, C.size_t(at), C.size_t(c), host, &ev))
	} else {
		err = check("clEnqueueReadBuffer", C.oclsolve_read_async(q, m, C.size_t(at), C.size_t(c), host, &ev))
	}
	if err != nil {
		return err
	}
	s.busy[k] = keep(ev).e
	return flush(d.queue)
}

// stagedBytes views a transfer's Go memory as bytes.
func stagedBytes(p unsafe.Pointer, n int64) []byte { return unsafe.Slice((*byte)(p), n) }
