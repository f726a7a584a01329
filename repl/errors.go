package repl

import (
	"fmt"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"runtime"
	"strings"

	"github.com/cosmos72/gomacro/base"
)

// EvalError is a failed evaluation, in the words the Go runtime would use:
// the interpreter runs Go through reflection, and its panics read like
// "reflect: call of reflect.Value.SetInt on zero Value" where compiled Go
// says "invalid memory address or nil pointer dereference". It wraps
// ErrEval and, when there is one, the error the code panicked with.
type EvalError struct {
	// File is the source file (empty for a REPL line or notebook cell),
	// Line the 1-based line of the statement that failed (0 if unknown).
	File string
	Line int
	// Msg says what went wrong, without the position.
	Msg string
	// Err is the error value the code panicked with, if it was an error.
	Err error
}

func (e *EvalError) Error() string {
	switch {
	case e.Line > 0 && e.File != "":
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Unwrap gives ErrEval and the panic's own error.
func (e *EvalError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrEval, e.Err}
	}
	return []error{ErrEval}
}

// gomacroFile is the name the interpreter gives input that has none.
const gomacroFile = "repl.go"

// compilePos matches the position gomacro puts before a compile error.
var compilePos = regexp.MustCompile(`^(\S+?):(\d+):(\d+): `)

// reflectPanics translates the panics of package reflect that interpreted
// code raises into the runtime error compiled Go would raise.
var reflectPanics = []struct{ contains, says string }{
	{"on zero Value", "invalid memory address or nil pointer dereference"},
	{"Method on nil interface value", "invalid memory address or nil pointer dereference (method called on a nil interface)"},
	{"call of nil function", "invalid memory address or nil pointer dereference (call of a nil func)"},
	{"slice index out of range", "index out of range"},
	{"array index out of range", "index out of range"},
	{"string index out of range", "index out of range"},
	{"slice bounds out of range", "slice bounds out of range"},
	{"assignment to entry in nil map", "assignment to entry in nil map"},
}

// panicError turns what the interpreter panicked with into an error.
func (e *Engine) panicError(r any) error {
	if sig, ok := r.(base.Signal); ok && sig == base.SigInterrupt || e.interrupted.Load() {
		return fmt.Errorf("%w", ErrInterrupted)
	}
	ee := &EvalError{}
	var msg string
	switch x := r.(type) {
	case runtime.Error:
		msg, ee.Err = "panic: "+x.Error(), x
	case error:
		msg, ee.Err = x.Error(), x
	case reflect.Value:
		if x.IsValid() && x.CanInterface() {
			r = x.Interface()
			if err, ok := r.(error); ok {
				ee.Err = err
			}
		}
		msg = fmt.Sprintf("panic: %v", r)
	default:
		msg = fmt.Sprintf("panic: %v", r)
	}
	// A compile error names its own position.
	if m := compilePos.FindStringSubmatch(msg); m != nil {
		if m[1] != gomacroFile {
			ee.File = m[1]
		}
		fmt.Sscan(m[2], &ee.Line)
		ee.Msg = msg[len(m[0]):]
		return ee
	}
	for _, p := range reflectPanics {
		if strings.Contains(msg, p.contains) {
			msg = "panic: runtime error: " + p.says
			break
		}
	}
	msg = strings.Replace(msg, "panic: runtime error: runtime error: ", "panic: runtime error: ", 1)
	ee.Msg = msg
	ee.File, ee.Line = e.runningPos()
	return ee
}

// lineVar is the session variable that marked sources set to the line of
// the top-level statement about to run (see markLines).
const lineVar = "_oclsolveLine"

// markLines returns src with an assignment of its line number to lineVar
// before each top-level statement, on the same line, so that a panic can
// name the line of the cell that was running. Line numbers are unchanged;
// declarations (func, type, var, const, import) are left alone, so their
// order-independent treatment by the interpreter is too.
func markLines(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	var b strings.Builder
	last, depth, start := 0, 0, true
	header := false // in the header of a for, if or switch, whose semicolons separate clauses
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		if start && depth == 0 {
			switch tok {
			case token.IMPORT, token.FUNC, token.TYPE, token.CONST, token.VAR, token.PACKAGE, token.SEMICOLON:
			default:
				off := file.Offset(pos)
				b.WriteString(src[last:off])
				fmt.Fprintf(&b, "%s = %d; ", lineVar, file.Line(pos))
				last = off
			}
		}
		start = false
		switch tok {
		case token.FOR, token.IF, token.SWITCH:
			header = header || depth == 0
		case token.LBRACE:
			if depth == 0 {
				header = false
			}
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.SEMICOLON:
			start = depth == 0 && !header
		}
	}
	b.WriteString(src[last:])
	return b.String()
}

// runningPos returns the line of the top-level statement that was running
// when the evaluation panicked, as markLines recorded it; a panic inside a
// function gives the line of the call. The file is the one being loaded,
// empty for a cell.
func (e *Engine) runningPos() (string, int) {
	v := e.ir.ValueOf(lineVar)
	if !v.IsValid() || !v.ReflectValue().CanInt() {
		return "", 0
	}
	line := int(v.ReflectValue().Int())
	if line <= 0 {
		return "", 0
	}
	file := e.ir.Comp.CompGlobals.Filepath
	if file == gomacroFile {
		file = ""
	}
	return file, line
}
