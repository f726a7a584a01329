package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chzyer/readline"

	"github.com/oclsolve/oclsolve/kernels"
)

// progressAfter is how long work runs before the command line shows that
// it is still working.
const progressAfter = 2 * time.Second

// progress shows, on w when it is a terminal and after progressAfter, one
// line rewritten in place: what is running, for how long, and how many
// kernels the device has been given (the count moves while a factorization
// walks its columns or CG iterates). The returned function erases the line.
// Nothing is shown when quiet is set (--json) or w is not a terminal, so
// logs and pipes stay clean.
func progress(w io.Writer, what string, quiet bool, dev *kernels.Device) (stop func()) {
	f, ok := w.(*os.File)
	if quiet || !ok || !readline.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	start, launches0 := time.Now(), dev.Launches()
	go func() {
		defer close(exited)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case now := <-tick.C:
				if el := now.Sub(start); el >= progressAfter {
					fmt.Fprintf(w, "\r\x1b[K[%s: %.1f s, %d kernel launches so far]", what, el.Seconds(), dev.Launches()-launches0)
					shown = true
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}
