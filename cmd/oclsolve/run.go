package main

import (
	"io"
	"os"

	"github.com/oclsolve/oclsolve/repl"
)

func init() {
	register(&command{
		name:    "run",
		usage:   "FILE.go | -",
		summary: "run a Go script with the REPL's engine (- reads standard input)",
		run:     runScript,
	})
}

// runScript evaluates a script in a fresh session. A script is either a
// sequence of REPL inputs (statements, declarations, :commands on their own
// lines are not allowed) or a Go program with package main and func main.
// It stops at the first error, which makes oclsolve exit non-zero.
func runScript(args []string) error {
	pos, err := parseFlags(newFlagSet("run"), args, 1, 1, "one script file or -")
	if err != nil {
		return err
	}
	name := pos[0]
	var src []byte
	if name == "-" {
		src, err = io.ReadAll(os.Stdin)
		name = "<stdin>"
	} else {
		src, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	e, err := repl.New(repl.Options{})
	if err != nil {
		return err
	}
	return repl.RunScript(e, name, string(src), os.Stderr)
}
