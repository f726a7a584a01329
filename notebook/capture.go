package notebook

/*
#include <stdio.h>
#include <stdlib.h>
static void flushC(void) { fflush(NULL); }
static void printC(const char *s) { fputs(s, stdout); }
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// capture redirects the process's standard output and error, at the file
// descriptor level, into pipes for the duration of one cell, so that what
// Go code, interpreted code and C code (OpenCL drivers) print all reaches
// the cell's outputs. Chunks are delivered as they are read, in order per
// stream.
type capture struct {
	deliver func(stream, text string)

	savedOut, savedErr int // copies of the original descriptors 1 and 2
	streams            []*capturedStream
}

type capturedStream struct {
	name string
	fd   int      // 1 or 2
	r, w *os.File // the pipe that replaces fd during the cell
	busy sync.Mutex
	done chan struct{}
}

// captureMu makes sure only one capture holds descriptors 1 and 2.
var captureMu sync.Mutex

// startCapture starts redirecting descriptors 1 and 2. stop must be called
// to restore them; it returns after every byte written during the capture
// has been delivered.
func startCapture(deliver func(stream, text string)) (*capture, error) {
	captureMu.Lock()
	c := &capture{deliver: deliver}
	var err error
	if c.savedOut, err = unix.Dup(1); err != nil {
		captureMu.Unlock()
		return nil, fmt.Errorf("capture: dup stdout: %w", err)
	}
	if c.savedErr, err = unix.Dup(2); err != nil {
		unix.Close(c.savedOut)
		captureMu.Unlock()
		return nil, fmt.Errorf("capture: dup stderr: %w", err)
	}
	C.flushC()
	for _, s := range []struct {
		name string
		fd   int
	}{{"stdout", 1}, {"stderr", 2}} {
		r, w, err := os.Pipe()
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("capture: pipe: %w", err)
		}
		// A large pipe, so that what the Go runtime prints while it aborts
		// the process (nobody reads the pipe then: every goroutine has
		// stopped) fits without blocking the abort forever. The kernel
		// runs cells in a Supervisor's worker, which has no such pipe; this
		// is for the in-process Executor.
		if sc, err := r.SyscallConn(); err == nil {
			sc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
		}
		if err := unix.Dup2(int(w.Fd()), s.fd); err != nil {
			r.Close()
			w.Close()
			c.stop()
			return nil, fmt.Errorf("capture: dup2: %w", err)
		}
		cs := &capturedStream{name: s.name, fd: s.fd, r: r, w: w, done: make(chan struct{})}
		c.streams = append(c.streams, cs)
		go c.pump(cs)
	}
	return c, nil
}

// pump forwards what is written to one stream, keeping multi-byte UTF-8
// sequences split across reads together.
func (c *capture) pump(s *capturedStream) {
	defer close(s.done)
	pumpRunes(s.r, &s.busy, nil, func(text string) { c.deliver(s.name, text) })
}

// sync waits, for a short while at most, until everything written so far
// has been delivered. Rich displays call it so that text printed before a
// plot appears before the plot.
func (c *capture) sync() {
	C.flushC()
	deadline := time.Now().Add(200 * time.Millisecond)
	for _, s := range c.streams {
		for time.Now().Before(deadline) {
			n, err := unix.IoctlGetInt(int(s.r.Fd()), unix.TIOCINQ)
			if err != nil || n == 0 {
				s.busy.Lock() // wait for a chunk being delivered
				s.busy.Unlock()
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// stop restores descriptors 1 and 2 and waits until the pipes are drained.
func (c *capture) stop() {
	C.flushC()
	if c.savedOut >= 0 {
		unix.Dup2(c.savedOut, 1)
		unix.Close(c.savedOut)
	}
	if c.savedErr >= 0 {
		unix.Dup2(c.savedErr, 2)
		unix.Close(c.savedErr)
	}
	for _, s := range c.streams {
		s.w.Close()
		<-s.done
		s.r.Close()
	}
	c.streams = nil
	captureMu.Unlock()
}

// flushStdio flushes C's buffered standard streams.
func flushStdio() { C.flushC() }

// printC writes s with C's buffered stdio, as OpenCL drivers and other C
// libraries do; tests use it to check that such output is captured.
func printC(s string) {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	C.printC(cs)
}
