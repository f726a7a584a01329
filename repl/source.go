package repl

import (
	"fmt"
	"go/scanner"
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmos72/gomacro/imports"
)

// scan calls f for each token of src, stopping early when f returns false.
// Scan errors are ignored: the interpreter reports them with context.
func scan(src string, f func(tok token.Token, lit string) bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF || !f(tok, lit) {
			return
		}
	}
}

// checkImports rejects imports of packages that are not compiled into
// oclsolve. Without this check gomacro would try to build a Go plugin,
// which needs a Go toolchain and fails in confusing ways.
func checkImports(src string) error {
	var missing []string
	inImport, paren := false, false
	scan(src, func(tok token.Token, lit string) bool {
		switch {
		case tok == token.IMPORT:
			inImport, paren = true, false
		case inImport && tok == token.LPAREN:
			paren = true
		case inImport && tok == token.RPAREN:
			inImport = false
		case inImport && tok == token.STRING:
			if p, err := strconv.Unquote(lit); err == nil {
				if _, ok := imports.Packages[p]; !ok {
					missing = append(missing, p)
				}
			}
			if !paren {
				inImport = false
			}
		}
		return true
	})
	if len(missing) > 0 {
		return fmt.Errorf("%w: %q is not compiled into oclsolve (see :help packages)", ErrNotBound, missing[0])
	}
	return nil
}

// BoundPackages lists the import paths interpreted code can import.
func BoundPackages() []string {
	paths := make([]string, 0, len(imports.Packages))
	for p := range imports.Packages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// splitPackageClause reports whether src starts with a package clause, and
// returns src with the clause blanked out (line numbers are kept), since
// the session is itself one package.
func splitPackageClause(src string) (program bool, body string) {
	var first token.Token
	var name string
	n := 0
	scan(src, func(tok token.Token, lit string) bool {
		if tok == token.COMMENT {
			return true
		}
		n++
		if n == 1 {
			first = tok
			return true
		}
		name = lit
		return false
	})
	if first != token.PACKAGE {
		return false, src
	}
	i := strings.Index(src, "package")
	rest := src[i+len("package"):]
	j := strings.Index(rest, name)
	end := i + len("package") + j + len(name)
	return true, src[:i] + strings.Repeat(" ", end-i) + src[end:]
}

// Completeness of an input, as the Jupyter is_complete request names it.
const (
	Complete   = "complete"
	Incomplete = "incomplete"
	Invalid    = "invalid"
)

// IsComplete reports whether src can be evaluated as it is, or needs more
// lines: brackets that are still open, an unterminated raw string, or a
// trailing operator or comma mean Incomplete; a closing bracket with no
// opening one means Invalid.
func IsComplete(src string) string {
	if strings.TrimSpace(src) == "" {
		return Complete
	}
	if strings.HasPrefix(strings.TrimSpace(src), ":") {
		return Complete
	}
	depth := 0
	invalid := false
	var last token.Token
	scan(src, func(tok token.Token, lit string) bool {
		depth += nesting(tok)
		if depth < 0 {
			invalid = true
			return false
		}
		if !(tok == token.SEMICOLON && lit == "\n") && tok != token.COMMENT {
			last = tok
		}
		return true
	})
	switch {
	case invalid:
		return Invalid
	case depth > 0, strings.Count(src, "`")%2 == 1:
		return Incomplete
	case last.IsOperator() && last != token.RPAREN && last != token.RBRACE && last != token.RBRACK &&
		last != token.INC && last != token.DEC && last != token.SEMICOLON:
		return Incomplete
	}
	return Complete
}

// nesting is what tok adds to the bracket depth: 1 for an opening
// parenthesis, brace or bracket, -1 for a closing one, 0 otherwise.
func nesting(tok token.Token) int {
	switch tok {
	case token.LPAREN, token.LBRACE, token.LBRACK:
		return 1
	case token.RPAREN, token.RBRACE, token.RBRACK:
		return -1
	}
	return 0
}

// endsWithPrint reports whether the last top-level statement of src is a
// call of fmt.Print, fmt.Println or fmt.Printf.
func endsWithPrint(src string) bool {
	var last []token.Token
	var lits []string
	depth := 0
	start := true
	scan(src, func(tok token.Token, lit string) bool {
		depth += nesting(tok)
		if depth == 0 && tok == token.SEMICOLON {
			start = true
			return true
		}
		if start {
			last, lits, start = last[:0], lits[:0], false
		}
		if len(last) < 3 {
			last = append(last, tok)
			lits = append(lits, lit)
		}
		return true
	})
	return len(last) == 3 && last[0] == token.IDENT && lits[0] == "fmt" && last[1] == token.PERIOD &&
		(lits[2] == "Print" || lits[2] == "Println" || lits[2] == "Printf")
}
