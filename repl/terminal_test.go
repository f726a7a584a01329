package repl

import (
	"strings"
	"sync"
	"testing"
)

// writes records each Write as one chunk.
type writes struct {
	mu     sync.Mutex
	chunks []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.chunks = append(w.chunks, string(p))
	return len(p), nil
}

// :time prints its message over the progress line: the line is erased and
// stops before the message, so a tick cannot land inside or after it.
func TestTimeOverProgressLine(t *testing.T) {
	t.Setenv("OCLSOLVE_PROGRESS_AFTER", "0s")
	term := &writes{} // stdout and stderr: one terminal
	e, err := New(Options{Stdout: term, Stderr: term, Devices: newFakeDevices()})
	if err != nil {
		t.Fatal(err)
	}
	eval(t, e, `import "time"`)
	err = interruptibleShowing(e, term, true, func() error {
		_, err := e.Eval(":time time.Sleep(time.Second)")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	msg := -1
	for i, c := range term.chunks {
		if strings.Contains(c, "seconds, device finished") {
			msg = i
		}
	}
	if msg < 1 || !strings.HasPrefix(term.chunks[0], "\r\x1b[K[running") {
		t.Fatalf("no progress line before :time's message: %q", term.chunks)
	}
	if term.chunks[msg-1] != "\r\x1b[K" {
		t.Errorf("the progress line was not erased just before :time's message: %q", term.chunks)
	}
	if strings.Count(term.chunks[msg], "\n") != 1 || !strings.HasSuffix(term.chunks[msg], "\n") {
		t.Errorf(":time's message is not one whole write: %q", term.chunks[msg])
	}
	for _, c := range term.chunks[msg+1:] {
		t.Errorf("written after :time's message: %q (all: %q)", c, term.chunks)
	}
}
