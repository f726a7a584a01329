package repl

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/repl/display"
)

// TerminalOptions configure RunTerminal.
type TerminalOptions struct {
	// HistoryFile keeps the input history between sessions; empty means
	// $OCLSOLVE_HISTORY, else ~/.oclsolve_history.
	HistoryFile string
	// Banner is printed before the first prompt.
	Banner string
	// Stdin, Stdout and Stderr default to the process's own.
	Stdin          io.ReadCloser
	Stdout, Stderr io.Writer
}

// Prompts of the terminal REPL.
const (
	Prompt         = "oclsolve> "
	PromptContinue = "       .. "
)

// ProgressAfter is how long work runs before the terminal REPL, the
// command line and notebook cells show its progress: 2 s, or the Go
// duration in OCLSOLVE_PROGRESS_AFTER (tests use 0s).
func ProgressAfter() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("OCLSOLVE_PROGRESS_AFTER")); err == nil && d >= 0 {
		return d
	}
	return 2 * time.Second
}

// DefaultHistoryFile is where the terminal REPL keeps its history.
func DefaultHistoryFile() string {
	if f := os.Getenv("OCLSOLVE_HISTORY"); f != "" {
		return f
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".oclsolve_history")
}

// RunTerminal runs an interactive session on a terminal until :quit or
// end of input: line editing and persistent history, tab completion,
// multi-line input until brackets balance, Ctrl-C to interrupt a running
// evaluation (the session keeps its state) or discard a half-typed input.
func RunTerminal(e *Engine, o TerminalOptions) error {
	if o.HistoryFile == "" {
		o.HistoryFile = DefaultHistoryFile()
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	var rl *readline.Instance
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		HistoryFile:            o.HistoryFile,
		HistoryLimit:           5000,
		DisableAutoSaveHistory: true, // a multi-line input is saved as one entry
		HistorySearchFold:      true,
		AutoComplete:           completer{e},
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		Stdin:                  o.Stdin,
		Stdout:                 o.Stdout,
		Stderr:                 o.Stderr,
		// Ctrl-C discards the typed line, as in a shell, also while Tab
		// candidates or a history search are shown: readline itself only
		// leaves those modes there and keeps the text, which then ran
		// together with the next line typed.
		FuncFilterInputRune: func(r rune) (rune, bool) {
			if r == readline.CharInterrupt && rl != nil {
				if rl.Operation.IsInCompleteMode() {
					rl.Operation.ExitCompleteMode(false)
				}
				if rl.Operation.IsSearchMode() {
					rl.Operation.ExitSearchMode(false)
				}
			}
			return r, true
		},
	})
	if err != nil {
		return fmt.Errorf("repl: terminal: %w", err)
	}
	defer rl.Close()
	if o.Banner != "" {
		fmt.Fprintln(o.Stdout, o.Banner)
	}
	var lines []string
	for {
		if len(lines) == 0 {
			rl.SetPrompt(Prompt)
		} else {
			rl.SetPrompt(PromptContinue)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			lines = lines[:0] // Ctrl-C at the prompt discards the input
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("repl: terminal: %w", err)
		}
		lines = append(lines, line)
		src := strings.Join(lines, "\n")
		if strings.TrimSpace(src) == "" {
			lines = lines[:0]
			continue
		}
		if IsComplete(src) == Incomplete {
			continue
		}
		lines = lines[:0]
		_ = rl.SaveHistory(historyEntry(src))
		res, err := evalInterruptible(e, src, o.Stderr)
		if err != nil {
			fmt.Fprintf(o.Stderr, "error: %v\n", err)
			continue
		}
		if res.Quit {
			return nil
		}
		PrintValues(o.Stdout, res)
	}
}

// evalInterruptible evaluates src with SIGINT routed to Interrupt, and
// shows progress on the terminal when it takes longer than ProgressAfter.
func evalInterruptible(e *Engine, src string, stderr io.Writer) (res Result, err error) {
	err = interruptible(e, stderr, func() error {
		res, err = e.Eval(src)
		return err
	})
	return res, err
}

// RunScript evaluates a whole script, as `oclsolve run` does: output goes
// where the script prints it, Ctrl-C interrupts, long runs show progress
// on a terminal, and the first error stops it.
func RunScript(e *Engine, name, src string, stderr io.Writer) error {
	return interruptible(e, stderr, func() error { return e.LoadSource(name, src) })
}

// interruptible runs eval with SIGINT routed to e.Interrupt, showing
// progress on stderr, when it is a terminal, after ProgressAfter.
func interruptible(e *Engine, stderr io.Writer, eval func() error) error {
	return interruptibleShowing(e, stderr, isTerminal(stderr), eval)
}

// interruptibleShowing is interruptible, showing progress on stderr when
// showProgress is set.
func interruptibleShowing(e *Engine, stderr io.Writer, showProgress bool, eval func() error) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	done := make(chan struct{})
	after := ProgressAfter()
	p := &progressDisplay{w: stderr}
	if showProgress {
		// What the evaluation itself prints over the line (:time's
		// message) goes through p, under its lock.
		progressDisplays.Store(e, p)
		defer progressDisplays.CompareAndDelete(e, p)
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		start := time.Now()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-sig:
				e.Interrupt()
			case now := <-tick.C:
				if showProgress && now.Sub(start) >= after {
					// The line is rewritten in place and erased when the
					// evaluation ends (see stop below).
					p.show(ProgressLine(now.Sub(start)))
				}
			}
		}
	}()
	err := eval()
	close(done)
	<-exited
	p.stop(nil, "")
	return err
}

// progressDisplays holds the progress display of each engine's running
// evaluation on a terminal, for what the evaluation prints over it.
var progressDisplays sync.Map // *Engine -> *progressDisplay

// progressDisplay is the progress line of an evaluation on a terminal: its
// updates, its erasure and the text printed over it are single writes under
// one lock, so they cannot interleave.
type progressDisplay struct {
	mu      sync.Mutex
	w       io.Writer
	shown   bool // the line is on the terminal
	stopped bool // no more updates
}

// show rewrites the line in place, unless the display was stopped.
func (p *progressDisplay) show(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		fmt.Fprintf(p.w, "\r\x1b[K[%s]", line)
		p.shown = true
	}
}

// stop erases the line if it is showing, ends the updates, then writes
// text to w (when w is not nil), all under the display's lock.
func (p *progressDisplay) stop(w io.Writer, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	if w != nil {
		io.WriteString(w, text)
	}
}

// printOverProgress writes text to w once the progress line of e's running
// evaluation, if any, is erased and stopped, so the two cannot interleave.
func printOverProgress(e *Engine, w io.Writer, text string) {
	if v, ok := progressDisplays.Load(e); ok {
		v.(*progressDisplay).stop(w, text)
		return
	}
	io.WriteString(w, text)
}

// ProgressLine is the status of an evaluation running for elapsed: the
// phase and progress of the solve under way, if any (solver.Current),
// e.g. "running 3.1 s: factorize: 12 of 30 levels, 43%; Ctrl-C
// interrupts".
func ProgressLine(elapsed time.Duration) string {
	s := fmt.Sprintf("running %.1f s", elapsed.Seconds())
	if p, ok := solver.Current(); ok {
		s += ": " + p.String()
	}
	return s + "; Ctrl-C interrupts"
}

// PrintValues prints the values of an evaluation in their text form, one
// per line.
func PrintValues(w io.Writer, res Result) {
	for _, v := range res.Values {
		fmt.Fprintln(w, FormatValue(v))
	}
}

// FormatValue returns the text a terminal shows for a value: the text
// form of its display bundle (a bounded preview for arrays and matrices).
func FormatValue(v any) string {
	if v == nil {
		return "<nil>"
	}
	if d := display.Render(v); d.Text() != "" || !d.IsEmpty() {
		return d.Text()
	}
	return fmt.Sprint(v)
}

// completer adapts Engine.Complete to readline.
type completer struct{ e *Engine }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	s := string(line)
	bytePos := len(string(line[:pos]))
	head, completions, _ := c.e.Complete(s, bytePos)
	word := s[len(head):bytePos]
	var out [][]rune
	for _, comp := range completions {
		if strings.HasPrefix(comp, word) {
			out = append(out, []rune(comp[len(word):]))
		}
	}
	return out, len([]rune(word))
}

// historyEntry joins a multi-line input into one line that evaluates the
// same: lines end in a semicolon where Go's automatic semicolon insertion
// would put one, and line comments are dropped.
func historyEntry(src string) string {
	lines := strings.Split(src, "\n")
	if len(lines) == 1 {
		return src
	}
	var b strings.Builder
	for i, line := range lines {
		code, semi := lineCode(line)
		code = strings.TrimSpace(code)
		if code == "" {
			continue
		}
		b.WriteString(code)
		if i < len(lines)-1 {
			if semi {
				b.WriteString("; ")
			} else {
				b.WriteString(" ")
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// lineCode returns a line without its trailing // comment, and whether Go
// would insert a semicolon at its end.
func lineCode(line string) (code string, semi bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(line))
	var s scanner.Scanner
	s.Init(file, []byte(line), func(token.Position, string) {}, scanner.ScanComments)
	code = line
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return code, semi
		}
		if tok == token.COMMENT && strings.HasPrefix(lit, "//") {
			code = line[:file.Offset(pos)]
			continue
		}
		semi = tok == token.SEMICOLON && lit == "\n"
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// Banner is the terminal REPL's greeting, naming the device.
func Banner(e *Engine) string {
	dev := "no OpenCL device"
	if d, err := e.Devices().Current(); err == nil {
		dev = "device: " + d.String()
	} else {
		dev += " (" + err.Error() + ")"
	}
	return "oclsolve: Go on OpenCL, " + dev + "\nType :help for the workflow, Tab to complete, Ctrl-D to quit."
}
