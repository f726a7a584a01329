package notebook

import (
	"github.com/oclsolve/oclsolve/repl"
	"github.com/oclsolve/oclsolve/repl/display"
)

// Session is what the kernel and the headless runner execute cells with:
// an Executor in this process, or a Supervisor that runs one in a worker
// process and survives the worker's death.
type Session interface {
	// Execute runs one cell, as Executor.Execute does.
	Execute(code string, sink Sink) (*display.Data, error)
	// Interrupt stops the running cell, if any.
	Interrupt()
	// Complete and Inspect answer the front end's completion and
	// inspection requests (repl.Engine.Complete and Inspect); they never
	// wait for a running cell.
	Complete(line string, pos int) (head string, matches []string)
	Inspect(code string, pos int) string
	// Banner is the session's greeting.
	Banner() string
	// Close ends the session.
	Close() error
}

// Interrupt stops the running cell, if any.
func (x *Executor) Interrupt() { x.Engine.Interrupt() }

// Complete returns completions for line at byte offset pos.
func (x *Executor) Complete(line string, pos int) (string, []string) {
	head, matches, _ := x.Engine.Complete(line, pos)
	return head, matches
}

// Inspect describes the name at byte offset pos of code.
func (x *Executor) Inspect(code string, pos int) string { return x.Engine.Inspect(code, pos) }

// Banner is the engine's greeting.
func (x *Executor) Banner() string { return repl.Banner(x.Engine) }

// Close does nothing: an in-process session ends with the process.
func (x *Executor) Close() error { return nil }
