package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chzyer/readline"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/kernels"
	"github.com/oclsolve/oclsolve/repl"
)

// progress shows, on w when it is a terminal and after repl.ProgressAfter
// (2 s), one line rewritten in place (progressText): what is running, for
// how long, and the phase and progress of the solve under way
// (solver.Current), or for work outside solver.Run how many kernels the
// device has been given. The returned function erases the line. Nothing is
// shown when quiet is set (--json) or w is not a terminal, so
// logs and pipes stay clean.
func progress(w io.Writer, what string, quiet bool, dev *kernels.Device) (stop func()) {
	f, ok := w.(*os.File)
	if quiet || !ok || !readline.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	start, launches0, after := time.Now(), dev.Launches(), repl.ProgressAfter()
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
				if el := now.Sub(start); el >= after {
					fmt.Fprintf(w, "\r\x1b[K[%s]", progressText(what, el, dev.Launches()-launches0))
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

// progressText is the progress line's text: "solving 3.1 s: factorize: 12
// of 30 levels, 43%", or "solving 3.1 s, 1,204 kernel launches so far"
// when no solve reports its progress.
func progressText(what string, elapsed time.Duration, launches int64) string {
	if p, ok := solver.Current(); ok {
		return fmt.Sprintf("%s %.1f s: %s", what, elapsed.Seconds(), p)
	}
	return fmt.Sprintf("%s %.1f s, %d kernel launches so far", what, elapsed.Seconds(), launches)
}
