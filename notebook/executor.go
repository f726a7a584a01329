// Package notebook runs oclsolve's engine behind notebooks: a Jupyter
// kernel speaking the wire protocol over ZeroMQ (kernel.go), the kernelspec
// installer, and a headless runner that executes .ipynb files in-process
// (runner.go). Both execute cells with an Executor.
package notebook

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/oclsolve/oclsolve/repl"
	"github.com/oclsolve/oclsolve/repl/display"
)

// Sink receives what a cell produces while it runs.
type Sink interface {
	// Stream is text written to "stdout" or "stderr".
	Stream(name, text string)
	// Display is a bundle shown in the middle of the cell (display.Show).
	Display(d display.Data)
}

// CellError is a failed cell: an error raised in the engine.
type CellError struct {
	Name      string // "EvalError", "Interrupted", "CommandError", ...
	Value     string // the message
	Traceback []string
}

func (e *CellError) Error() string { return e.Name + ": " + e.Value }

// Executor runs cells on one engine session.
type Executor struct {
	Engine *repl.Engine
}

// NewExecutor starts an engine session for notebooks.
func NewExecutor() (*Executor, error) {
	e, err := repl.New(repl.Options{})
	if err != nil {
		return nil, err
	}
	return &Executor{Engine: e}, nil
}

// Execute runs one cell. Output written to the process's standard output
// and error (by Go or C code) goes to sink as it happens, as do mid-cell
// displays. It returns the bundle of the cell's last value, if any, and a
// *CellError if the cell failed; the session keeps its state either way.
func (x *Executor) Execute(code string, sink Sink) (result *display.Data, err error) {
	var capt *capture
	capt, err = startCapture(sink.Stream)
	if err != nil {
		return nil, err
	}
	prev := display.SetPublisher(func(d display.Data) {
		capt.sync()
		sink.Display(d)
	})
	stopProgress := showProgress(display.Publish)
	res, evalErr := x.Engine.Eval(code)
	stopProgress()
	display.SetPublisher(prev)
	capt.stop()
	if evalErr != nil {
		return nil, cellError(evalErr)
	}
	if d := resultBundle(res); d != nil {
		return d, nil
	}
	return nil, nil
}

// resultBundle renders the values of a cell's last expression. Of several
// values, one that is not nil beside nil ones (a result and its nil error)
// renders richly, as it would alone.
func resultBundle(res repl.Result) *display.Data {
	var nonNil []any
	for _, v := range res.Values {
		if !isNil(v) {
			nonNil = append(nonNil, v)
		}
	}
	if len(nonNil) == 1 {
		res.Values = nonNil
	}
	switch len(res.Values) {
	case 0:
		return nil
	case 1:
		d := display.Render(res.Values[0])
		if d.IsEmpty() {
			return nil
		}
		return &d
	}
	texts := make([]string, len(res.Values))
	for i, v := range res.Values {
		texts[i] = repl.FormatValue(v)
	}
	d := display.Text(strings.Join(texts, "\n"))
	return &d
}

func cellError(err error) *CellError {
	name := "Error"
	switch {
	case errors.Is(err, repl.ErrStackOverflow):
		name = "StackOverflow"
	case errors.Is(err, repl.ErrInterrupted):
		name = "Interrupted"
	case errors.Is(err, repl.ErrNotBound):
		name = "ImportError"
	case errors.Is(err, repl.ErrCommand):
		name = "CommandError"
	case errors.Is(err, repl.ErrEval):
		name = "EvalError"
	}
	msg := err.Error()
	return &CellError{Name: name, Value: msg, Traceback: []string{fmt.Sprintf("%s: %s", name, msg)}}
}

// isNil reports whether v is nil or a nil pointer, interface, map or slice.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return r.IsNil()
	}
	return false
}
