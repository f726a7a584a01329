#!/bin/sh
# Drives the terminal REPL through tmux, as a person would: reading,
# solving and reporting on a matrix in three lines, typing, tab
# completion, a multi-line function, a long solve's progress line (its
# phase and columns) and :time's phase split, Ctrl-C interrupting a running
# loop (with the progress line), Ctrl-C at the prompt, a runtime
# error's message, runaway recursion stopped, a session killed by a
# goroutine's panic restarted, and the persistent history, recalled with the
# Up arrow in a second session.
#
# usage: repl/testdata/tmux_repl.sh OCLSOLVE_BINARY
# Needs: tmux (Debian package tmux).
set -eu
bin=$(readlink -f "$1")
tmp=$(mktemp -d)
sock="oclsolve-test-$$"
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

fail() {
	echo "tmux REPL test: $*" >&2
	echo "--- screen ---" >&2
	t capture-pane -p -t repl >&2 || true
	exit 1
}

# expect TEXT [SECONDS]: wait until TEXT appears on the screen.
expect() {
	n=$(( ${2:-10} * 10 ))
	while [ "$n" -gt 0 ]; do
		if t capture-pane -p -t repl | grep -qF -- "$1"; then return 0; fi
		sleep 0.1
		n=$((n - 1))
	done
	fail "never saw: $1"
}

# count TEXT: how many screen lines contain TEXT.
count() { t capture-pane -p -t repl | grep -cF -- "$1" || true; }

type_line() { t send-keys -t repl -l "$1"; t send-keys -t repl Enter; }

start() {
	t new-session -d -s repl -x 160 -y 50 "env OCLSOLVE_HISTORY=$tmp/history OCLSOLVE_PROGRESS_AFTER=0.5s TERM=xterm $bin"
	expect "Type :help for the workflow" 60
	expect "oclsolve>"
}

start
# Read, solve, report: three lines from a file to a solution.
matrix=$(readlink -f "$(dirname "$0")/../../../shared/matrices/bcsstk16.mtx")
if [ -f "$matrix" ]; then
	type_line "a, err := sparse.ReadFile(\"$matrix\")"
	type_line 'x, rep, err := solver.Solve(a, nil)'
	type_line 'rep'
	expect "solver.Report: cholesky on" 120
	expect "n = 4884, nnz = 147631 (lower triangle; 290378 in the full matrix)"
	expect "chosen: symmetric positive definite"
	# A long solve shows its phase and progress on the updating line (the
	# session starts with OCLSOLVE_PROGRESS_AFTER=0.5s); :time gives the
	# phase split; a method named by an untyped string constant works.
	type_line ':time x, rep, err = solver.Run(a, nil, solver.Options{Method: "cholesky", Format: "sks", Variant: "thesis"})'
	expect "factorize: " 60
	expect " columns, " 10
	expect "solver: ordering" 120
	expect "(1 solve, "
fi
# Typing and state.
type_line 'x := 6 * 7'
type_line 'x + 0'
expect "42"
# Tab completion of a package function, then of a method.
t send-keys -t repl -l 'm := mat.NewDen'
t send-keys -t repl Tab
expect "m := mat.NewDense"
t send-keys -t repl -l '(2, 3, nil)'
t send-keys -t repl Enter
t send-keys -t repl -l 'm.Dim'
t send-keys -t repl Tab
expect "m.Dims"
t send-keys -t repl -l '()'
t send-keys -t repl Enter
expect "3"
# Ctrl-C interrupts a running loop; the session keeps its state.
type_line 'for { x++ }'
expect "[running" 10
t send-keys -t repl C-c
expect "interrupted" 10
type_line 'x > 42'
expect "true"
# Ctrl-C at the prompt discards the typed line, like a shell, also while
# Tab shows candidates (readline alone kept the text there).
t send-keys -t repl -l 'afarray.From'
t send-keys -t repl Tab Tab
expect "FromDense"
t send-keys -t repl C-c
expect "afarray.From^C"
type_line '40 + 2'
expect "oclsolve> 40 + 2"
t capture-pane -p -t repl | grep -qF "From40" && fail "the discarded line ran together with the next one"
# A runtime error reads as compiled Go's, with the line.
type_line 'var nilMatrix *mat.Dense; nilMatrix.Set(0, 0, 1)'
expect "error: line 1: panic: runtime error: invalid memory address or nil pointer dereference"
# Runaway recursion is stopped before it overflows the stack; the session
# keeps its state.
type_line 'func rec(n int) int { return rec(n+1) + 1 }'
type_line 'rec(0)'
expect "stack overflow" 60
type_line 'fmt.Println("still", x > 42)'
expect "still true"
# A panic in a goroutine kills the session process: the reason is on the
# screen, a new session starts and works.
type_line 'go func() { panic("boom in a goroutine") }(); time.Sleep(10 * time.Second)'
expect "panic: boom in a goroutine" 30
expect "starting a new session" 30
expect "oclsolve>" 60
type_line 'fmt.Println("alive", 6*7)'
expect "alive 42" 60
t send-keys -t repl C-l
# A multi-line function: input continues until the brackets balance.
type_line 'func fib(n int) int {'
expect "       .."
type_line '	if n < 2 {'
type_line '		return n'
type_line '	}'
type_line '	return fib(n-1) + fib(n-2)'
type_line '}'
type_line 'fib(20)'
expect "6765"
type_line ':quit'
n=50
while t has-session -t repl 2>/dev/null && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
t has-session -t repl 2>/dev/null && fail ":quit did not end the session"
grep -qxF 'func fib(n int) int { if n < 2 { return n; }; return fib(n-1) + fib(n-2); }' "$tmp/history" ||
	{ cat "$tmp/history" >&2; fail "the multi-line function is not one history entry"; }

# A second session recalls the function from the history file.
start
t send-keys -t repl Up Up Up
expect "oclsolve> func fib(n int) int {"
t send-keys -t repl Enter
type_line 'fib(10) * 1000'
expect "55000"
t send-keys -t repl C-d
echo "tmux REPL test: typing, completion, interrupt, progress, multi-line input and history work"
