// Command oclsolve solves the linear systems of structural analysis on OpenCL
// devices. Run it with no arguments for the interactive REPL, or with a
// subcommand; "oclsolve help" lists them.
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/oclsolve/oclsolve/afarray/solver/petsc"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/oclsolve/oclsolve/kernels"
	"github.com/oclsolve/oclsolve/notebook"
)

// A command is one subcommand of the oclsolve binary. Each lives in its own
// file and registers itself from an init function.
type command struct {
	name    string
	usage   string // one line: arguments after the command name
	summary string // one line: what it does
	// run does the work. It parses its flags (newFlagSet) before doing
	// anything else: -h and --help are answered there (see runMain).
	run func(args []string) error
}

var commands = map[string]*command{}

// register adds a subcommand. It is called from init functions only.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("oclsolve: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// defaultCommand runs when oclsolve is started with no arguments. The REPL
// replaces it once it exists.
var defaultCommand = func() error { return commands["help"].run(nil) }

// errUsage marks an error in the command line; main prints the usage after it.
var errUsage = errors.New("usage error")

// Exit statuses. A command that ran but whose answer fails a check exits
// with a status of its own, after printing its report, so that scripts can
// tell "no answer" from "an answer that must not be trusted".
const (
	exitFailure      = 1 // an error: unreadable input, a failed factorization, ...
	exitUsage        = 2 // a malformed command line
	exitNotConverged = 3 // an iterative solve stopped before its tolerance
	exitInaccurate   = 4 // a direct solve's backward error exceeds its limit
)

// exitError is an error with its own exit status.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	notebook.RunWorkerIfChild() // a notebook worker never returns from it
	trace("main")
	code := runMain(os.Args[1:], os.Stdout, os.Stderr)
	trace("exit")
	// Under mpiexec every rank must finalize MPI before it exits; this does
	// nothing when the PETSc engine was not used (or not built).
	if err := petsc.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "oclsolve:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func runMain(args []string, stdout, stderr io.Writer) int {
	kernels.CompileNotice = func(d *kernels.Device) {
		where := "the disk cache is off"
		if dir := kernels.CacheDir(); dir != "" {
			where = "kept in " + dir
		}
		fmt.Fprintf(stderr, "oclsolve: compiling OpenCL programs for %s, once (%s; `oclsolve warmup` builds them all ahead)\n", d.Name(), where)
	}
	var err error
	if len(args) == 0 {
		err = defaultCommand()
	} else if c, ok := commands[args[0]]; ok && wantsHelp(args[1:]) {
		printCommandHelp(stdout, c, args[1:])
		return 0
	} else if ok {
		err = c.run(args[1:])
		if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "usage: oclsolve %s %s\n", c.name, c.usage)
		}
	} else {
		fmt.Fprintf(stderr, "oclsolve: unknown command %q\n", args[0])
		printHelp(stderr)
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		// An error that another process reports (rank 0 of an MPI run) is
		// not printed again; its exit status still counts.
		var silent interface{ Silent() bool }
		if !errors.As(err, &silent) || !silent.Silent() {
			fmt.Fprintf(stderr, "oclsolve %s: %v\n", firstArg(args), err)
		}
		var ee *exitError
		switch {
		case errors.As(err, &ee):
			return ee.code
		case errors.Is(err, errUsage):
			return exitUsage
		}
		return exitFailure
	}
	return 0
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "oclsolve: linear systems of structural analysis on OpenCL devices")
	fmt.Fprintln(w, "\nusage: oclsolve [command] [arguments]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nWith no command, oclsolve starts the interactive REPL.")
}

func init() {
	register(&command{
		name: "help", usage: "[COMMAND]", summary: "list the commands, or describe one",
		run: func(args []string) error {
			if len(args) > 0 && args[0] != "-h" && args[0] != "--help" {
				c, ok := commands[args[0]]
				if !ok {
					return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
				}
				printCommandHelp(os.Stdout, c, nil)
				return nil
			}
			printHelp(os.Stdout)
			return nil
		},
	})
}

// wantsHelp reports whether the arguments ask for help: -h, -help or
// --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// helpOut, when set, is where flag sets print their flags: runMain sets it
// while a command answers -h.
var helpOut io.Writer

// printCommandHelp prints a command's usage line, summary and flags on w.
// The flags come from the command itself: it runs with -h (and the words
// before it, such as `kernel install` or `bench thesis`), which its flag
// set answers by printing them here before it does any work.
func printCommandHelp(w io.Writer, c *command, args []string) {
	fmt.Fprintf(w, "usage: oclsolve %s %s\n\n%s.\n", c.name, c.usage, c.summary)
	if c.name == "help" {
		return
	}
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	helpOut = w
	defer func() { helpOut = nil }()
	_ = c.run(append(words, "-h"))
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments (`oclsolve solve A.mtx --json`), which the flag
// package alone stops at, and returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if rest[0] == "--" || len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseFlags parses a command's flags and returns its positional arguments,
// from least to most of them. A malformed flag or another count of arguments is
// a usage error (exit status 2, the usage line printed); want says what the
// arguments should be, and a command that takes none names the first one
// instead. -h's flag.ErrHelp passes through, wrapped.
func parseFlags(fs *flag.FlagSet, args []string, least, most int, want string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	switch n := fs.NArg(); {
	case n > 0 && most == 0:
		return nil, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case n < least || n > most:
		return nil, fmt.Errorf("%w: want %s", errUsage, want)
	}
	return fs.Args(), nil
}

// newFlagSet returns a flag set that reports errors instead of exiting, so
// that commands are testable through runMain.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("oclsolve "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	if helpOut != nil {
		fs.SetOutput(helpOut)
		fs.Usage = func() {
			n := 0
			fs.VisitAll(func(*flag.Flag) { n++ })
			if n > 0 {
				fmt.Fprintf(helpOut, "\nflags of oclsolve %s:\n", name)
				fs.PrintDefaults()
			}
		}
	}
	return fs
}
