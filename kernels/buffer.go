package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/jgillich/go-opencl/cl"
)

// Buffer is a block of device global memory. It is freed by Release; a
// finalizer only catches buffers that were forgotten. Every allocation is
// counted by the device's memory account.
type Buffer struct {
	dev      *Device
	mem      *cl.MemObject
	size     int64
	released atomic.Bool
}

// MemoryStats reports what this process holds on a device.
type MemoryStats struct {
	Live        int64 // bytes allocated and not yet released
	Peak        int64 // largest Live seen
	Allocations int64 // buffers allocated so far
	Releases    int64 // buffers released so far
	Global      int64 // device global memory
	MaxAlloc    int64 // largest single allocation the device allows
}

type memoryAccount struct {
	mu                        sync.Mutex
	live, peak, allocs, frees int64
}

// MemoryStats returns the device's memory account.
func (d *Device) MemoryStats() MemoryStats {
	d.mem.mu.Lock()
	defer d.mem.mu.Unlock()
	return MemoryStats{Live: d.mem.live, Peak: d.mem.peak, Allocations: d.mem.allocs, Releases: d.mem.frees,
		Global: d.info.GlobalMemBytes, MaxAlloc: d.info.MaxAllocBytes}
}

// ResetPeak sets the peak to the current live bytes, so that a measurement
// can report the peak of one computation.
func (d *Device) ResetPeak() {
	d.mem.mu.Lock()
	d.mem.peak = d.mem.live
	d.mem.mu.Unlock()
}

// Alloc allocates size bytes of device memory. The content is undefined. An
// allocation larger than the device's maximum single allocation, or one that
// would take the process's live bytes beyond the device's global memory,
// fails with an *OutOfMemoryError before the driver is asked.
func (d *Device) Alloc(size int64) (*Buffer, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: negative buffer size %d", ErrLaunch, size)
	}
	alloc := size
	if alloc == 0 {
		alloc = 8 // OpenCL forbids empty buffers; a zero-length array still needs a handle
	}
	d.mem.mu.Lock()
	live := d.mem.live
	oom := func(reason string) error {
		return &OutOfMemoryError{Device: d.info.Name, Requested: size, Live: live, Global: d.info.GlobalMemBytes, MaxAlloc: d.info.MaxAllocBytes, Reason: reason}
	}
	if d.info.MaxAllocBytes > 0 && alloc > d.info.MaxAllocBytes {
		d.mem.mu.Unlock()
		return nil, oom("larger than the maximum single allocation")
	}
	if d.info.GlobalMemBytes > 0 && live+alloc > d.info.GlobalMemBytes {
		d.mem.mu.Unlock()
		return nil, oom("more than the device's free global memory")
	}
	d.mem.live += alloc
	if d.mem.live > d.mem.peak {
		d.mem.peak = d.mem.live
	}
	d.mem.allocs++
	d.mem.mu.Unlock()

	mem, err := d.ctx.CreateEmptyBuffer(cl.MemReadWrite, int(alloc))
	if err != nil {
		d.unaccount(alloc)
		return nil, fmt.Errorf("%w: %v", oom("the driver refused the allocation"), err)
	}
	b := &Buffer{dev: d, mem: mem, size: size}
	runtime.SetFinalizer(b, (*Buffer).Release)
	return b, nil
}

func (d *Device) unaccount(n int64) {
	d.mem.mu.Lock()
	d.mem.live -= n
	d.mem.frees++
	d.mem.mu.Unlock()
}

// Release frees the device memory at once. Further use of the buffer returns
// ErrReleased. Release is idempotent. Commands already queued that use the
// buffer still complete: OpenCL keeps the memory until they are done.
func (b *Buffer) Release() {
	if b == nil || b.released.Swap(true) {
		return
	}
	runtime.SetFinalizer(b, nil)
	b.mem.Release()
	n := b.size
	if n == 0 {
		n = 8
	}
	b.dev.unaccount(n)
}

// Size returns the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Device returns the device holding the buffer.
func (b *Buffer) Device() *Device { return b.dev }

// Released reports whether Release was called.
func (b *Buffer) Released() bool { return b.released.Load() }

func (b *Buffer) usable() error {
	if b == nil {
		return fmt.Errorf("%w: nil buffer", ErrReleased)
	}
	if b.released.Load() {
		return ErrReleased
	}
	return nil
}

// hostSlice returns the address and byte length of a Go slice of a type that
// can cross to the device.
func hostSlice(data any) (unsafe.Pointer, int64, error) {
	switch s := data.(type) {
	case []float64:
		return sliceBytes(s)
	case []float32:
		return sliceBytes(s)
	case []int32:
		return sliceBytes(s)
	case []int64:
		return sliceBytes(s)
	case []uint32:
		return sliceBytes(s)
	case []byte:
		return sliceBytes(s)
	}
	return nil, 0, fmt.Errorf("%w: cannot transfer %T", ErrLaunch, data)
}

func sliceBytes[T float64 | float32 | int32 | int64 | uint32 | byte](s []T) (unsafe.Pointer, int64, error) {
	if len(s) == 0 {
		return nil, 0, nil
	}
	return unsafe.Pointer(&s[0]), int64(len(s)) * int64(unsafe.Sizeof(s[0])), nil
}

// Write copies a Go slice ([]float64, []float32, []int32, []int64, []uint32
// or []byte) to the buffer at byte offset off. It returns when the data has
// been copied out of the slice.
func (b *Buffer) Write(off int64, data any) error { return b.write(off, data, stagingMin) }

// WriteNoWait is Write for small, frequent transfers on a critical path (a
// halo exchange every iteration): on a GPU it goes through the device's
// pinned staging buffers whatever its size, so it returns once data is
// copied there, without waiting for the device; the transfer is ordered
// before every command enqueued later. On other devices it is Write.
func (b *Buffer) WriteNoWait(off int64, data any) error { return b.write(off, data, 1) }

func (b *Buffer) write(off int64, data any, staged int64) error {
	return b.transfer(off, data, staged, true)
}

// Read copies from the buffer at byte offset off into a Go slice. It waits for
// every command queued before it (the queue is in order).
func (b *Buffer) Read(off int64, data any) error { return b.transfer(off, data, stagingMin, false) }

// transfer is Write (write true) and Read: it checks the buffer, the host
// slice and the byte range [off, off+n), then copies through the device's
// pinned staging buffers from staged bytes on where the device uses them,
// directly otherwise.
func (b *Buffer) transfer(off int64, data any, staged int64, write bool) error {
	if err := b.usable(); err != nil {
		return err
	}
	p, n, err := hostSlice(data)
	if err != nil || n == 0 {
		return err
	}
	if off < 0 || off+n > b.size {
		op, prep := "read", "from"
		if write {
			op, prep = "write", "into"
		}
		return fmt.Errorf("%w: %s of %d bytes at %d %s a %d-byte buffer", ErrLaunch, op, n, off, prep, b.size)
	}
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	staging := n >= staged && b.dev.useStaging()
	if staging {
		if _, err := b.dev.pinned(); err != nil {
			// No pinned memory to be had (a low memlock limit, say): the
			// direct transfer still works, only slower.
			staging = false
		}
	}
	switch {
	case staging && write:
		return b.dev.writeStaged(b.mem, off, stagedBytes(p, n))
	case staging:
		return b.dev.readStaged(b.mem, off, stagedBytes(p, n))
	case write:
		return writeBuffer(b.dev.queue, b.mem, int(off), int(n), p)
	}
	return readBuffer(b.dev.queue, b.mem, int(off), int(n), p)
}

// CopyTo enqueues a device-side copy of n bytes from b at srcOff to dst at
// dstOff. It does not wait.
func (b *Buffer) CopyTo(dst *Buffer, srcOff, dstOff, n int64) error {
	if err := b.usable(); err != nil {
		return err
	}
	if err := dst.usable(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if dst.dev != b.dev {
		return fmt.Errorf("%w: copy between devices %s and %s", ErrLaunch, b.dev.info.Name, dst.dev.info.Name)
	}
	if srcOff < 0 || dstOff < 0 || n < 0 || srcOff+n > b.size || dstOff+n > dst.size {
		return fmt.Errorf("%w: copy of %d bytes from %d (of %d) to %d (of %d)", ErrLaunch, n, srcOff, b.size, dstOff, dst.size)
	}
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	return copyBuffer(b.dev.queue, b.mem, dst.mem, int(srcOff), int(dstOff), int(n))
}
