//go:build unix

package sparse

import (
	"os"
	"syscall"
)

// mapFile maps a regular file read-only into memory, so that the parallel
// parser reads the page cache directly: no copy, and no zeroing of a buffer
// the size of the file. The returned function unmaps it; nothing may refer
// to the bytes afterwards. ok is false when the file cannot be mapped (the
// caller then reads it).
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { syscall.Munmap(data) }, true
}
