package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/oclsolve/oclsolve/notebook"
)

func init() {
	register(&command{
		name:    "notebook",
		usage:   "run IN.ipynb [OUT.ipynb | -]",
		summary: "execute a notebook headless, in-process, and save its outputs",
		run:     runNotebook,
	})
}

// runNotebook executes a notebook with the REPL's engine. Without OUT the
// result goes to IN's name with .out.ipynb, so the input is never
// overwritten by accident; "-" writes it to standard output.
func runNotebook(args []string) error {
	if len(args) == 0 || args[0] != "run" {
		return fmt.Errorf("%w: the only notebook subcommand is run", errUsage)
	}
	fs := newFlagSet("notebook run")
	quiet := fs.Bool("q", false, "do not echo cell output while running")
	pos, err := parseFlags(fs, args[1:], 1, 2, "IN.ipynb [OUT.ipynb]")
	if err != nil {
		return err
	}
	in := pos[0]
	out := strings.TrimSuffix(in, ".ipynb") + ".out.ipynb"
	if len(pos) == 2 {
		out = pos[1]
	}
	nb, err := notebook.ReadNotebook(in)
	if err != nil {
		return err
	}
	// Cells run in the notebook's directory, as under Jupyter, so that
	// relative paths in them mean the same in both.
	if out != "-" {
		if out, err = filepath.Abs(out); err != nil {
			return err
		}
	}
	if err := os.Chdir(filepath.Dir(in)); err != nil {
		return err
	}
	// The cells run in a worker process, so that a cell that crashes it
	// (a panic in a goroutine it started, a fatal runtime error) fails
	// with the reason instead of ending this process.
	x, err := notebook.NewSupervisor(nil)
	if err != nil {
		return err
	}
	defer x.Close()
	var runErr error
	if *quiet {
		runErr = notebook.Run(x, nb, nil)
	} else {
		// Cells' output is captured at the descriptor level, descriptor 2
		// included: the echo goes to a duplicate of the original one.
		fd, err := syscall.Dup(2)
		if err != nil {
			return err
		}
		echo := os.NewFile(uintptr(fd), "stderr")
		defer echo.Close()
		runErr = notebook.Run(x, nb, echo)
	}
	var writeErr error
	if out == "-" {
		writeErr = nb.Write(os.Stdout)
	} else {
		writeErr = nb.WriteFile(out)
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", in, runErr)
	}
	return writeErr
}
