package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// replChildEnv marks the REPL process that a supervising oclsolve started.
const replChildEnv = "OCLSOLVE_REPL_CHILD"

// quickDeaths is how many sessions in a row may die within quickDeath of
// starting before the supervisor gives up instead of restarting again.
const (
	quickDeaths = 3
	quickDeath  = 5 * time.Second
)

// superviseREPL runs the terminal REPL in a child process and starts a new
// one when it dies: a panic in a goroutine the user started, a stack
// overflow on such a goroutine or a fatal runtime error end the Go process
// whatever it does, and the user would otherwise be dropped to the shell
// with the state gone. The child shares the terminal, so the runtime's own
// report (its first lines say why) is on the screen; the supervisor adds
// that the state was lost, restores the terminal's settings (the child may
// have died in raw mode) and starts a fresh session.
func superviseREPL(args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	fd := int(os.Stdin.Fd())
	saved, termErr := unix.IoctlGetTermios(fd, unix.TCGETS)
	// Ctrl-C and Ctrl-\ reach the whole foreground process group: they are
	// the child's to handle, never the supervisor's death.
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, os.Interrupt, syscall.SIGQUIT)
	defer signal.Stop(sig)
	go func() {
		for range sig {
		}
	}()
	quick := 0
	for {
		cmd := exec.Command(exe, append([]string{"repl"}, args...)...)
		cmd.Env = append(os.Environ(), replChildEnv+"=1")
		if os.Getenv("GOTRACEBACK") == "" {
			// The Go stacks of a dying session are the interpreter's
			// internals; the runtime's first lines say what happened.
			// GOTRACEBACK=single or all shows them.
			cmd.Env = append(cmd.Env, "GOTRACEBACK=none")
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		start := time.Now()
		err := cmd.Run()
		if termErr == nil {
			unix.IoctlSetTermios(fd, unix.TCSETS, saved)
		}
		if err == nil {
			return nil
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("starting the REPL session: %w", err)
		}
		ws, _ := ee.Sys().(syscall.WaitStatus)
		var reason string
		switch {
		case ws.Signaled() && ws.Signal() == syscall.SIGKILL:
			reason = "it was killed (out of memory?)"
		case ws.Signaled():
			// Ended on purpose (SIGTERM, SIGHUP): so does the supervisor.
			return fmt.Errorf("the REPL session ended by signal %v", ws.Signal())
		case ws.ExitStatus() == 2:
			reason = "the Go runtime aborted it; its reason is printed above"
		default:
			// The session ended with an error it has already printed.
			os.Exit(ws.ExitStatus())
		}
		if time.Since(start) < quickDeath {
			quick++
		} else {
			quick = 0
		}
		if quick >= quickDeaths {
			return fmt.Errorf("the REPL session died %d times in a row right after starting (%s); not restarting it", quick, reason)
		}
		fmt.Fprintf(os.Stderr, "\noclsolve: the REPL session died (%s). Every variable, function and import was lost; starting a new session.\n\n", reason)
	}
}
