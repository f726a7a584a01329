package main

import (
	"os"

	"github.com/chzyer/readline"

	"github.com/oclsolve/oclsolve/repl"
)

// With no arguments oclsolve starts the interactive REPL.
func init() {
	defaultCommand = func() error { return runREPL(nil) }
	register(&command{
		name:    "repl",
		usage:   "[-history FILE]",
		summary: "start the interactive Go REPL (the default with no command)",
		run:     runREPL,
	})
}

func runREPL(args []string) error {
	fs := newFlagSet("repl")
	history := fs.String("history", "", "history file (default $OCLSOLVE_HISTORY or ~/.oclsolve_history)")
	if _, err := parseFlags(fs, args, 0, 0, ""); err != nil {
		return err
	}
	// On a terminal the session runs in a supervised child process that
	// is restarted if it dies (see superviseREPL).
	if os.Getenv(replChildEnv) == "" && readline.IsTerminal(int(os.Stdin.Fd())) {
		return superviseREPL(args)
	}
	os.Unsetenv(replChildEnv)
	e, err := repl.New(repl.Options{})
	if err != nil {
		return err
	}
	return repl.RunTerminal(e, repl.TerminalOptions{
		HistoryFile: *history,
		Banner:      repl.Banner(e),
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
	})
}
