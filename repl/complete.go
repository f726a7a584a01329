package repl

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Complete returns completions for the text before pos in line: packages,
// functions, variables, methods and fields, as "pkg.Fu" or "x.Me" ask, and
// session commands after ':'. Each completion replaces line[len(head):pos];
// tail is line[pos:].
func (e *Engine) Complete(line string, pos int) (head string, completions []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	if t := strings.TrimLeft(line[:pos], " \t"); strings.HasPrefix(t, ":") && !strings.ContainsAny(t, " \t") {
		for _, c := range commandNames {
			if strings.HasPrefix(c, t) {
				completions = append(completions, c)
			}
		}
		return line[:pos-len(t)], completions, line[pos:]
	}
	// Completion must not block behind a running evaluation, nor run
	// concurrently with one: it reads the compiler's tables.
	if !e.mu.TryLock() {
		return line[:pos], nil, line[pos:]
	}
	defer e.mu.Unlock()
	head, completions, tail = e.ir.CompleteWords(line, pos)
	sort.Strings(completions)
	return head, dedupe(completions), tail
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Inspect describes the identifier or selector (pkg.Name, x.Field) that
// ends at or spans pos in src: its kind and Go type. It compiles the name
// without running anything. It returns "" when there is nothing to say.
func (e *Engine) Inspect(src string, pos int) string {
	word := wordAt(src, pos)
	if word == "" {
		return ""
	}
	if !e.mu.TryLock() {
		return ""
	}
	defer e.mu.Unlock()
	var desc string
	func() {
		defer func() { recover() }() // an unknown name is not worth reporting
		c := e.ir.Comp
		if t := c.TryResolveType(word); t != nil {
			desc = fmt.Sprintf("type %s: %v", word, t)
			return
		}
		expr := e.ir.Compile(word)
		if expr != nil && expr.Type != nil {
			desc = fmt.Sprintf("%s: %v", word, expr.Type)
		}
	}()
	return desc
}

// wordAt returns the dotted identifier around pos.
func wordAt(src string, pos int) string {
	if pos > len(src) {
		pos = len(src)
	}
	isWord := func(r byte) bool {
		return r == '.' || r == '_' || r < 128 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r)))
	}
	start, end := pos, pos
	for start > 0 && isWord(src[start-1]) {
		start--
	}
	for end < len(src) && isWord(src[end]) {
		end++
	}
	return strings.Trim(src[start:end], ".")
}
