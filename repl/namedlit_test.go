package repl

import (
	"fmt"
	"strings"
	"testing"
)

// Untyped string constants where the context makes them a compiled named
// string type: gomacro alone panics on every one of these (namedlit.go).
func TestNamedStringLiterals(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, `a1, err := sparse.ReadFile("../../shared/matrices/bcsstk01.mtx")`)
	eval(t, e, `import "errors"`)
	for _, c := range []struct{ src, want, typ string }{
		{`o := solver.Options{Method: "cg"}; o.Method`, "cg", "solver.Method"},
		{"var m solver.Method = `ldlt`; m", "ldlt", "solver.Method"},
		{`solver.Method("cg")`, "cg", "solver.Method"},
		{`solver.Options{Order: "rcm", Format: "sks", Tol: 1}.Order`, "rcm", "sparse.Ordering"},
		{`[]solver.Method{"cg", "ldlt"}`, "[cg ldlt]", "[]github.com/oclsolve/oclsolve/afarray/solver.Method"},
		{`map[solver.Method]solver.Format{"cg": "csc"}`, "map[cg:csc]", "map["},
		{`[]*solver.Options{{Method: "cg"}, &solver.Options{Variant: "thesis"}}[1].Variant`, "thesis", "solver.Variant"},
		{"y := solver.Options{\n\tMethod: \"gj\",\n}\ny.Method", "gj", "solver.Method"},
		// Assignments to fields of the cell's and the session's variables.
		{`q := solver.Options{}; q.Method = "cg"; q.Method`, "cg", "solver.Method"},
		{`var r solver.Options; r.Format = "sks"; r.Format`, "sks", "solver.Format"},
		{`pq := &solver.Options{}; pq.Order = "amd"; pq.Order`, "amd", "sparse.Ordering"},
		{`o.Variant = "thesis"; o.Variant`, "thesis", "solver.Variant"},
		{`ms := []solver.Method{"cg"}; ms[0] = "gj"; ms[0]`, "gj", "solver.Method"},
		// Arguments of package functions and of methods.
		{`perm, used, err := sparse.Order(a1, "rcm"); used`, "rcm", "sparse.Ordering"},
		{`var f solver.SKSCholesky; f.Factorize(nil, "thesis") != nil`, "true", "bool"},
		{`errors.New("plain") != nil`, "true", "bool"},
		// Interpreted named types and plain strings are left as they are.
		{`type T string; type S struct{ A T }; S{A: "x"}.A`, "x", "T"},
		{`s := "plain"; s`, "plain", "string"},
	} {
		res, err := e.Eval(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if len(res.Values) != 1 || fmt.Sprint(res.Values[0]) != c.want || !strings.Contains(res.Types[0], c.typ) {
			t.Errorf("%s = %v %v, want %s of type %s", c.src, res.Values, res.Types, c.want, c.typ)
		}
	}
	// The options reach the solver as typed: an unknown method is the
	// solver's error, not the interpreter's.
	_, err := e.Eval(`a, _ := sparse.ReadFile("../../shared/matrices/bcsstk01.mtx"); _, _, err := solver.Run(a, nil, solver.Options{Method: "nope"}); if err != nil { panic(err) }`)
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown method: %v", err)
	}
	// Runtime errors still name the cell's line after the rewrite.
	_, err = e.Eval("o := solver.Options{Method: \"cg\"}\nvar p *solver.Options\n_ = o\np.Method = \"x\"")
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("nil dereference: %v", err)
	}
	if !strings.Contains(err.Error(), "nil pointer") {
		t.Fatalf("nil dereference: %v", err)
	}
}
