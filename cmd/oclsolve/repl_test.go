package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// oclsolveBinary builds the oclsolve binary once for the tests that drive
// it from outside: through tmux, and through Jupyter.
func oclsolveBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "oclsolve-bin")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "oclsolve")
		cmd := exec.Command("go", "build", "-o", binaryPath, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// needTool skips the test when an external tool is missing, except in CI
// (CI set), where a missing tool is a failure.
func needTool(t *testing.T, tool, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (Debian package %s): required in CI", tool, pkg)
		}
		t.Skipf("%s not found; install the Debian package %s", tool, pkg)
	}
}

// TestREPLThroughTmux types into the terminal REPL under tmux: typing,
// completion, Ctrl-C, progress, a multi-line function and history.
func TestREPLThroughTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a terminal session")
	}
	needTool(t, "tmux", "tmux")
	bin := oclsolveBinary(t)
	cmd := exec.Command("sh", "../../repl/testdata/tmux_repl.sh", bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
