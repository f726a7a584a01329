// Package repl is oclsolve's interactive engine: gomacro's fast Go
// interpreter with oclsolve, gonum and the usual standard packages compiled
// in (see bindings/), plus session commands (:help, :time, :mem, :device,
// :load, :quit). The terminal REPL, `oclsolve run` and the Jupyter kernel
// all drive the same Engine.
package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosmos72/gomacro/base"
	"github.com/cosmos72/gomacro/fast"
	"github.com/cosmos72/gomacro/imports"

	_ "github.com/oclsolve/oclsolve/repl/bindings" // the packages interpreted code can import
)

// Errors returned by Eval.
var (
	// ErrEval wraps every error raised while compiling or running
	// interpreted code, including panics.
	ErrEval = errors.New("evaluation failed")
	// ErrInterrupted marks an evaluation stopped by Interrupt.
	ErrInterrupted = errors.New("interrupted")
	// ErrCommand marks a malformed or failing session command.
	ErrCommand = errors.New("command failed")
	// ErrNotBound marks an import of a package not compiled into oclsolve.
	ErrNotBound = errors.New("package not available")
)

// Options configure a new Engine.
type Options struct {
	// Stdout receives the output of session commands (:time, :mem, ...)
	// and Stderr the interpreter's warnings. Both default to os.Stdout
	// and os.Stderr. Interpreted code itself writes to os.Stdout.
	Stdout, Stderr io.Writer
	// Devices is the device layer behind :mem, :device and :time. Nil
	// means the OpenCL devices of package kernels.
	Devices Devices
	// Bare skips the session's default imports.
	Bare bool
}

// Engine is one interpreter session. Its methods may be called from
// several goroutines, but evaluations run one at a time; Interrupt may be
// called while an evaluation runs.
type Engine struct {
	ir      *fast.Interp
	stdout  io.Writer
	stderr  io.Writer
	devices Devices

	mu          sync.Mutex  // serialises evaluations
	calls       chan func() // run on the engine's goroutine (see onEngine)
	running     atomic.Bool
	interrupted atomic.Bool
	imported    []string
	strAliases  map[reflect.Type]string // aliases of named string types (namedlit.go)
}

// Result is what one evaluation produced.
type Result struct {
	// Values are the values of the last expression, if the input ended
	// with one; statements and declarations produce none.
	Values []any
	// Types are the Go types of Values, as the interpreter names them.
	Types []string
	// Quit is set by :quit.
	Quit bool
}

// DefaultImports are imported at the start of every session, when they are
// bound. A session starts ready to work: fmt, math, gonum matrices, plots,
// the display package and oclsolve's device arrays.
var DefaultImports = []string{
	"fmt",
	"math",
	"strings",
	"time",
	"gonum.org/v1/gonum/mat",
	"gonum.org/v1/gonum/floats",
	"gonum.org/v1/plot",
	"gonum.org/v1/plot/plotter",
	"github.com/oclsolve/oclsolve/repl/display",
	"github.com/oclsolve/oclsolve/kernels",
	"github.com/oclsolve/oclsolve/afarray",
	"github.com/oclsolve/oclsolve/afarray/sparse",
	"github.com/oclsolve/oclsolve/afarray/gauss",
	"github.com/oclsolve/oclsolve/afarray/solver",
}

// warmUp touches the types whose packages gomacro loads lazily, so that
// its warnings about skipped generic functions are muted at start-up
// rather than printed in the middle of a user's first cell.
const warmUp = `
_ = new(_sync.Mutex)
_ = new(_reflect.Value)
`

// muteStdout points os.Stdout at the null device until the returned
// function is called.
func muteStdout() (restore func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	saved := os.Stdout
	os.Stdout = null
	return func() {
		os.Stdout = saved
		null.Close()
	}
}

// New starts a session.
func New(o Options) (*Engine, error) {
	e := &Engine{stdout: o.Stdout, stderr: o.Stderr, devices: o.Devices}
	if e.stdout == nil {
		e.stdout = os.Stdout
	}
	if e.stderr == nil {
		e.stderr = os.Stderr
	}
	if e.devices == nil {
		e.devices = openCLDevices{}
	}
	restore := muteStdout()
	defer restore()
	e.calls = make(chan func())
	go func() {
		for f := range e.calls {
			f()
		}
	}()
	e.onEngine(func() { e.ir = fast.New() })
	g := &e.ir.Comp.Globals
	warnings := quietWarnings{e.stderr}
	g.Stdout = warnings
	g.Stderr = warnings
	// Panics are trapped by Eval itself, which turns them into errors.
	g.Options &^= base.OptTrapPanic | base.OptShowPrompt | base.OptShowEval | base.OptShowEvalType
	// The line marker that runtime errors read (see markLines).
	if _, err := e.evalGo("var " + lineVar + " int"); err != nil {
		return nil, fmt.Errorf("repl: %w", err)
	}
	if !o.Bare {
		var lines []string
		for _, p := range DefaultImports {
			if _, ok := imports.Packages[p]; ok {
				lines = append(lines, fmt.Sprintf("import %q", p))
				e.imported = append(e.imported, p)
			}
		}
		lines = append(lines, `import _sync "sync"`, `import _reflect "reflect"`)
		// gomacro warns about the generic functions it skips while loading
		// the standard library's types, partly with fmt.Printf: noise, not
		// news, at start-up, so os.Stdout is muted while the imports load.
		g.Stdout, g.Stderr = io.Discard, io.Discard
		_, err := e.evalGo(strings.Join(lines, "\n") + warmUp)
		g.Stdout, g.Stderr = warnings, warnings
		if err != nil {
			return nil, fmt.Errorf("repl: default imports: %w", err)
		}
	}
	return e, nil
}

// Imported lists the packages the session imported at its start.
func (e *Engine) Imported() []string { return append([]string(nil), e.imported...) }

// Devices returns the device layer the engine reports on.
func (e *Engine) Devices() Devices { return e.devices }

// Eval evaluates src, which is Go code (statements, declarations,
// expressions, imports of bound packages) or a session command starting
// with ':'. A panic or a compile error becomes an error wrapping ErrEval;
// the session keeps every declaration made before it.
func (e *Engine) Eval(src string) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := strings.TrimSpace(src); strings.HasPrefix(t, ":") {
		return e.command(t)
	}
	return e.evalGo(src)
}

// Interrupt stops the running evaluation, if any, at its next loop
// iteration or function call in interpreted code; Eval then returns an
// error wrapping ErrInterrupted. Device work stops too: the devices'
// next launches fail with kernels.ErrCanceled, so a solver in the middle
// of thousands of launches returns at once, and Eval returns after the
// little work already queued has drained. Other compiled code (a gonum
// call) runs to completion first.
func (e *Engine) Interrupt() {
	if e.running.Load() {
		e.interrupted.Store(true)
		if c, ok := e.devices.(Canceler); ok {
			c.CancelWork()
		}
		e.ir.Interrupt(os.Interrupt)
	}
}

// Running reports whether an evaluation is in progress.
func (e *Engine) Running() bool { return e.running.Load() }

// onEngine runs f on the engine's own goroutine, the one that created the
// interpreter, and waits for it. gomacro keeps its run state (and the
// interrupt flag Interrupt sets) per goroutine: code evaluated on another
// goroutine runs its function calls on a state Interrupt never reaches, so
// a runaway recursive or looping function could not be stopped.
func (e *Engine) onEngine(f func()) {
	done := make(chan struct{})
	e.calls <- func() {
		defer close(done)
		f()
	}
	<-done
}

// evalGo compiles and runs Go source. The caller holds e.mu (or is New).
func (e *Engine) evalGo(src string) (res Result, err error) {
	if strings.TrimSpace(src) == "" {
		return Result{}, nil
	}
	if err := checkImports(src); err != nil {
		return Result{}, err
	}
	var guard *stackGuard
	e.onEngine(func() { res, err = e.evalOnEngine(src, &guard) })
	if guard != nil && guard.tripped {
		guard.shrink() // the engine's goroutine is idle now
	}
	return res, err
}

// evalOnEngine is evalGo on the engine's goroutine.
func (e *Engine) evalOnEngine(src string, guardp **stackGuard) (res Result, err error) {
	if c, ok := e.devices.(Canceler); ok {
		// An interrupt that came as the previous evaluation ended may
		// have left the devices canceled.
		if err := c.ResumeWork(); err != nil {
			return res, fmt.Errorf("%w: %w", ErrEval, err)
		}
	}
	e.interrupted.Store(false)
	e.running.Store(true)
	guard := startStackGuard(func() { e.ir.Interrupt(os.Interrupt) })
	*guardp = guard
	defer func() {
		r := recover()
		tripped := guard.finish()
		e.running.Store(false)
		if c, ok := e.devices.(Canceler); ok && e.interrupted.Load() {
			// The device work the interrupt canceled has drained; the
			// next evaluation starts on an empty queue.
			if rerr := c.ResumeWork(); rerr != nil && r == nil && err == nil {
				err = fmt.Errorf("%w: after the interrupt: %w", ErrEval, rerr)
			}
		}
		switch {
		case tripped:
			res = Result{}
			err = fmt.Errorf("%w: %w: the evaluation's goroutine stack grew past %d MiB (infinite recursion?); it was stopped and the session keeps its state",
				ErrEval, ErrStackOverflow, StackLimit>>20)
		case r != nil:
			err = e.panicError(r)
		}
	}()
	if v := e.ir.ValueOf(lineVar); v.IsValid() && v.ReflectValue().CanSet() {
		v.ReflectValue().SetInt(0)
	}
	code := markLines(src)
	if code != src && !e.parses(code) {
		// The marking misread this source's syntax (a composite literal in
		// an if/for/switch header, say): run it as written; its runtime
		// errors then name no line.
		code = src
	}
	code = e.fixNamedStringLits(code)
	vals, types := e.ir.Eval(code)
	if endsWithPrint(src) {
		// fmt.Println's byte count and nil error are not a result.
		return res, nil
	}
	for i, v := range vals {
		if !v.IsValid() {
			continue
		}
		rv := v.ReflectValue()
		if !rv.IsValid() || !rv.CanInterface() {
			continue
		}
		res.Values = append(res.Values, rv.Interface())
		name := ""
		if i < len(types) && types[i] != nil {
			name = types[i].String()
		}
		res.Types = append(res.Types, name)
	}
	return res, nil
}

// LoadFile evaluates a Go source file in the session, as :load does. A
// file with a package clause and a func main is a program: main is called
// after the file's declarations are made.
func (e *Engine) LoadFile(path string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.loadFile(path)
}

func (e *Engine) loadFile(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommand, err)
	}
	return e.loadSource(path, string(src))
}

// LoadSource evaluates a whole Go source text named name (for messages).
func (e *Engine) LoadSource(name, src string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.loadSource(name, src)
}

func (e *Engine) loadSource(name, src string) error {
	program, body := splitPackageClause(src)
	g := e.ir.Comp.CompGlobals
	saved := g.Filepath
	g.Filepath = name
	defer func() { g.Filepath = saved }()
	if _, err := e.evalGo(body); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if program && e.ir.ValueOf("main").IsValid() {
		if _, err := e.evalGo("main()"); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// quietWarnings passes the interpreter's messages on, except the warning
// about redefining a name: `x, err := ...` in cell after cell is how
// sessions are written, not a mistake.
type quietWarnings struct{ w io.Writer }

func (q quietWarnings) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), "// warning: redefined identifier:") {
		return len(p), nil
	}
	return q.w.Write(p)
}

// parses reports whether the interpreter's parser accepts src. Parsing runs
// nothing and declares nothing.
func (e *Engine) parses(src string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e.ir.Comp.Parse(src)
	return true
}
