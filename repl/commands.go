package repl

import (
	"fmt"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
)

// HelpText is what :help prints: the workflow, then the commands. Every
// numbered line runs as written (TestHelpExamplesRun), given the matrix.
const HelpText = `Workflow (fmt, math, mat, plot, display, kernels, afarray, sparse, solver, gauss are imported):
  1. a, err := sparse.ReadFile("bcsstk16.mtx")     read a matrix: Matrix Market, OpenFEM set or SciPy .npz
  2. x, rep, err := solver.Solve(a, nil)           solve A x = b (nil b: ones) with the best method for A
  3. rep                                           what ran, the time split, memory; rep.TotalTime, ...
  4. xd, err := afarray.FromFloat64s(x)            a device array: printing it moves only its corners
  5. :time nx, err := afarray.Norm2(xd)            time device work until the device has finished
  6. x, rep, err = solver.Run(a, nil, solver.Options{Method: "cg", Format: "csc"})
Commands: :help [packages]  :time EXPR  :mem  :device [SPEC]  :load FILE.go  :quit
Keys: Tab completes, Ctrl-C interrupts the running evaluation or clears the line, Ctrl-D quits.`

// commandNames are the session commands, for completion.
var commandNames = []string{":help", ":time", ":mem", ":device", ":load", ":quit"}

// command runs a session command line (starting with ':').
func (e *Engine) command(line string) (Result, error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	if i := strings.IndexAny(name, "\n\t"); i >= 0 { // ":time\nexpr"
		name, arg = name[:i], strings.TrimSpace(name[i:]+" "+arg)
	}
	switch name {
	case ":help", ":h", ":?":
		if arg == "packages" {
			fmt.Fprintln(e.stdout, "Packages interpreted code can import:")
			for _, p := range BoundPackages() {
				fmt.Fprintln(e.stdout, "  "+p)
			}
			return Result{}, nil
		}
		fmt.Fprintln(e.stdout, HelpText)
		return Result{}, nil
	case ":quit", ":q", ":exit":
		return Result{Quit: true}, nil
	case ":time":
		if arg == "" {
			return Result{}, fmt.Errorf("%w: usage: :time EXPR", ErrCommand)
		}
		return e.timed(arg)
	case ":mem":
		return Result{}, e.mem()
	case ":device":
		return Result{}, e.device(arg)
	case ":load":
		if arg == "" {
			return Result{}, fmt.Errorf("%w: usage: :load FILE.go", ErrCommand)
		}
		return Result{}, e.loadFile(arg)
	}
	return Result{}, fmt.Errorf("%w: unknown command %s (try :help)", ErrCommand, name)
}

// timed evaluates src and prints the wall time until the current device
// has completed everything queued, like Julia's @time: device work is
// asynchronous, so the time to return from a call is not the time it took.
func (e *Engine) timed(src string) (Result, error) {
	dev, devErr := e.devices.Current()
	var live0, peak0 int64
	if devErr == nil {
		live0, peak0 = dev.Memory()
	}
	split0 := solver.Totals()
	start := time.Now()
	res, err := e.evalGo(src)
	note := ""
	if devErr == nil {
		if ferr := dev.Finish(); ferr != nil {
			note = fmt.Sprintf(" (device error: %v)", ferr)
		}
	} else {
		note = " (no device)"
	}
	elapsed := time.Since(start)
	if err != nil {
		return res, err
	}
	msg := fmt.Sprintf("%.6f seconds, device finished%s", elapsed.Seconds(), note)
	if devErr == nil {
		live1, peak1 := dev.Memory()
		msg += fmt.Sprintf("; device memory %+d B live", live1-live0)
		if peak1 > peak0 {
			msg += fmt.Sprintf(", peak %s", formatBytes(peak1))
		}
	}
	msg += "\n"
	// Where the solves inside the expression spent their time, and what
	// the rest of it took.
	if d := solver.Totals().Sub(split0); d.Runs > 0 {
		msg += fmt.Sprintf("solver: %s; outside the solves %.3f s\n", d, max(elapsed-d.Total, 0).Seconds())
	}
	// Over the progress line, if one is showing (on stderr, the same
	// terminal): it is erased and stops before the message is written.
	printOverProgress(e, e.stdout, msg)
	return res, nil
}

// mem prints the live and peak device memory of every device.
func (e *Engine) mem() error {
	devs, err := e.devices.All()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommand, err)
	}
	for i, d := range devs {
		live, peak := d.Memory()
		fmt.Fprintf(e.stdout, "%d: %s: live %s, peak %s\n", i, d, formatBytes(live), formatBytes(peak))
	}
	return nil
}

// device shows the current device and the others, or switches to the one
// spec names.
func (e *Engine) device(spec string) error {
	if spec != "" {
		d, err := e.devices.Select(spec)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCommand, err)
		}
		fmt.Fprintf(e.stdout, "current device: %s\n", d)
		return nil
	}
	cur, err := e.devices.Current()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommand, err)
	}
	devs, err := e.devices.All()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCommand, err)
	}
	for i, d := range devs {
		mark := " "
		if d.String() == cur.String() {
			mark = "*"
		}
		fmt.Fprintf(e.stdout, "%s %d: %s\n", mark, i, d)
	}
	return nil
}
