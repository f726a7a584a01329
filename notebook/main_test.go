package notebook

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

// TestMain lets this test binary serve as the worker process that a
// Supervisor starts, and as a kernel process (kernelProcessEnv).
func TestMain(m *testing.M) {
	RunWorkerIfChild()
	if path := os.Getenv(kernelProcessEnv); path != "" {
		os.Unsetenv(kernelProcessEnv)
		os.Exit(serveKernelProcess(path))
	}
	os.Exit(m.Run())
}

// serveKernelProcess does what `oclsolve kernel CONNECTION_FILE` does.
func serveKernelProcess(path string) int {
	conn, err := ReadConnectionFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	x, err := NewSupervisor(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer x.Close()
	if err := ServeKernel(context.Background(), conn, x); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// syncBuffer is a bytes.Buffer safe for a process's output and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
