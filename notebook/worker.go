package notebook

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"

	"github.com/oclsolve/oclsolve/repl"
	"github.com/oclsolve/oclsolve/repl/display"
)

// The worker process runs the interpreter for a Supervisor. It is the same
// executable started again with workerEnv set: its standard output and
// error are pipes the supervisor reads (so whatever the Go runtime prints
// when it aborts the process reaches the supervisor, which never stops
// reading), descriptor 3 carries requests and descriptor 4 events, one JSON
// object a line.
const workerEnv = "OCLSOLVE_NOTEBOOK_WORKER"

// workerRequest is one request of the supervisor.
type workerRequest struct {
	ID   int64  `json:"id"`
	Op   string `json:"op"` // execute, complete, inspect, interrupt
	Code string `json:"code,omitempty"`
	Pos  int    `json:"pos,omitempty"`
}

// workerEvent is what the worker sends back: the answer to a request
// ("done"), a display in the middle of a cell, or "ready" at start-up.
type workerEvent struct {
	ID      int64         `json:"id"`
	Ev      string        `json:"ev"` // ready, display, done
	Data    *display.Data `json:"data,omitempty"`
	Error   *CellError    `json:"error,omitempty"`
	Head    string        `json:"head,omitempty"`
	Matches []string      `json:"matches,omitempty"`
	Text    string        `json:"text,omitempty"`
}

// RunWorkerIfChild makes this process a notebook worker when a Supervisor
// started it: it then serves the supervisor and exits, never returning.
// Otherwise it returns at once. Programs that create a Supervisor (the
// oclsolve command, test binaries) call it first thing in main or TestMain.
func RunWorkerIfChild() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	os.Unsetenv(workerEnv)
	if err := serveWorker(os.NewFile(3, "requests"), os.NewFile(4, "events")); err != nil {
		fmt.Fprintln(os.Stderr, "oclsolve worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveWorker(requests io.Reader, events io.Writer) error {
	// Interrupts arrive as requests; a SIGINT sent to the whole process
	// group (as terminals and some front ends do) interrupts too, rather
	// than killing the session.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	x, err := NewExecutor()
	if err != nil {
		return err
	}
	go func() {
		for range sig {
			x.Engine.Interrupt()
		}
	}()
	var sendMu sync.Mutex
	enc := json.NewEncoder(events)
	send := func(ev workerEvent) {
		// What C code buffered must reach the pipe before the event, so
		// that the supervisor shows it before what follows.
		flushStdio()
		sendMu.Lock()
		defer sendMu.Unlock()
		if err := enc.Encode(ev); err != nil {
			fmt.Fprintln(os.Stderr, "oclsolve worker: sending an event:", err)
			os.Exit(1)
		}
	}
	var cell atomic.Int64 // the id of the running execute request
	display.SetPublisher(func(d display.Data) {
		send(workerEvent{ID: cell.Load(), Ev: "display", Data: &d})
	})
	send(workerEvent{Ev: "ready", Text: repl.Banner(x.Engine)})
	dec := json.NewDecoder(requests)
	for {
		var req workerRequest
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return nil // the supervisor closed the session
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		switch req.Op {
		case "interrupt":
			x.Engine.Interrupt()
		case "execute":
			cell.Store(req.ID)
			go func() { send(executeInWorker(x, req)) }()
		case "complete":
			go func() {
				head, matches := x.Complete(req.Code, req.Pos)
				send(workerEvent{ID: req.ID, Ev: "done", Head: head, Matches: matches})
			}()
		case "inspect":
			go func() { send(workerEvent{ID: req.ID, Ev: "done", Text: x.Inspect(req.Code, req.Pos)}) }()
		default:
			send(workerEvent{ID: req.ID, Ev: "done", Error: &CellError{Name: "Error", Value: "unknown request " + req.Op}})
		}
	}
}

// executeInWorker runs one cell. Its output goes to the process's standard
// output and error, which the supervisor forwards.
func executeInWorker(x *Executor, req workerRequest) (ev workerEvent) {
	ev = workerEvent{ID: req.ID, Ev: "done"}
	defer func() {
		// Rendering the result calls the value's own methods.
		if r := recover(); r != nil {
			ev.Data = nil
			ev.Error = &CellError{Name: "DisplayError", Value: fmt.Sprintf("rendering the result: panic: %v", r)}
		}
	}()
	stopProgress := showProgress(display.Publish)
	res, err := x.Engine.Eval(req.Code)
	stopProgress()
	if err != nil {
		ev.Error = cellError(err)
		return ev
	}
	ev.Data = resultBundle(res)
	return ev
}
