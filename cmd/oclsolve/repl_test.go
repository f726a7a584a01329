package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLDefault feeds a session to `oclsolve` without arguments through a
// pipe; the interactive side (keys, completion) is tested through tmux by
// repl/testdata/tmux_repl.sh.
func TestREPLDefault(t *testing.T) {
	t.Setenv("OCLSOLVE_HISTORY", filepath.Join(t.TempDir(), "history"))
	var code int
	out, errOut := withStdio(t, "x := 20\nfunc inc(v int) int {\n\treturn v + 1\n}\ninc(x) * 2\nundefinedName\n:quit\nx\n", func() {
		code = runMain(nil, os.Stdout, os.Stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Type :help for the workflow") || !strings.Contains(out, "42\n") {
		t.Fatalf("REPL output %q", out)
	}
	if !strings.Contains(errOut, "undefinedName") {
		t.Fatalf("the error was not reported: %q", errOut)
	}
	if strings.Count(out, "20\n") != 0 {
		t.Fatal("input after :quit was evaluated")
	}
	if code := runMain([]string{"repl", "extra"}, os.Stdout, os.Stderr); code != 2 {
		t.Fatalf("repl with an argument: exit %d", code)
	}
}
