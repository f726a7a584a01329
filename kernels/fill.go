package kernels

import (
	_ "embed"
	"fmt"
	"unsafe"
)

//go:embed fill.cl
var fillSource string

// fillDirectMax is the end (byte offset plus size) up to which Fill uses
// clEnqueueFillBuffer; a range reaching beyond it is filled by fill_pattern
// (a variable so that tests can send small fills that way). NVIDIA's
// clEnqueueFillBuffer fails on large buffers: pyopencl issue 395 saw it
// from 2^31 bytes (error -9999 or a hang) on 2020 drivers; on 2 x H200
// (driver 580.159.04) the 22 GiB zero fill of L faulted the split
// supernodal factorization of Model 2 at n = 3M (-9999 at the next
// flush), one 20 GiB fill hung for more than 15 s, and the same cut into
// 1 GiB pieces failed (-36 at the next clFinish), while fills of 11.5 GB
// from offset 0 had worked.
var fillDirectMax int64 = 1 << 31

// Fill enqueues setting n bytes at off to repetitions of pattern (whose
// length must be 1, 2, 4, 8, 16, 32, 64 or 128 and divide off and n).
func (b *Buffer) Fill(pattern []byte, off, n int64) error {
	if err := b.usable(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if off < 0 || n < 0 || off+n > b.size {
		return fmt.Errorf("%w: fill of %d bytes at %d in a %d-byte buffer", ErrLaunch, n, off, b.size)
	}
	p := int64(len(pattern))
	if p == 0 || p&(p-1) != 0 || p > 128 || off%p != 0 || n%p != 0 {
		return fmt.Errorf("%w: fill pattern of %d bytes does not fit offset %d, size %d", ErrLaunch, p, off, n)
	}
	if off+n > fillDirectMax {
		return b.fillKernel(pattern, off, n)
	}
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	return fillBuffer(b.dev.queue, b.mem, pattern, int(off), int(n))
}

// fillKernel is Fill through fill_pattern.
func (b *Buffer) fillKernel(pattern []byte, off, n int64) error {
	prog, err := b.dev.Build("", Source{Name: "fill.cl", Text: fillSource})
	if err != nil {
		return err
	}
	k, err := prog.Kernel("fill_pattern")
	if err != nil {
		return err
	}
	var pat [16]uint64 // the pattern repeated over 128 bytes: a ulong16
	rep := unsafe.Slice((*byte)(unsafe.Pointer(&pat[0])), 128)
	for i := range rep {
		rep[i] = pattern[i%len(pattern)]
	}
	words, items := 0, n
	if off%4 == 0 && n%4 == 0 {
		words, items = 1, n/4
	}
	local := 64
	groups := int(min((items+int64(local)-1)/int64(local), 8192))
	return k.Launch([]int{groups * local}, []int{local}, b, off, n, pat, words)
}
