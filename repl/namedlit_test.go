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
	eval(t, e, "type MT struct{}\nfunc (MT) Twice(m solver.Method, ms ...solver.Method) int { return len(ms) + len(m) }\ntype MI interface{ Twice(solver.Method, ...solver.Method) int }")
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
		// Comparisons, +, switch cases, map indexes: gomacro compared the
		// untyped constant wrongly (x.Method == "cg" was false).
		{`x := solver.Options{Method: solver.MethodCG}; x.Method == "cg"`, "true", "bool"},
		{`x.Method != "cg"`, "false", "bool"},
		{`x.Method < "d"`, "true", "bool"},
		{`x.Method >= "d" || "cg" != x.Method`, "false", "bool"},
		{`var mm solver.Method = "cg"; mm == "cg"`, "true", "bool"},
		{`sw := ""; switch x.Method { case "gj": sw = "gj"; case "cg": sw = "yes"; default: sw = "no" }; sw`, "yes", "string"},
		{`sw2 := ""; switch m := x.Method; m { case "cg", "gj": sw2 = "yes" }; sw2`, "yes", "string"},
		{`solver.MethodCG == "cg"`, "true", "bool"},
		{`x.Method + "-x" == "cg-x"`, "true", "bool"},
		{`x.Method + "2"`, "cg2", "solver.Method"},
		{`mi := map[solver.Method]int{"cg": 1}; mv := mi["cg"]; mv`, "1", "int"},
		// Call arguments (compiled functions, the cell's functions and
		// interpreted methods) and returned values.
		{`_, used2, _ := sparse.Order(a1, "natural"); used2`, "natural", "sparse.Ordering"},
		{`func idm(m solver.Method) solver.Method { return m }; idm("gj")`, "gj", "solver.Method"},
		{`func pick(b bool) (solver.Method, error) { if b { return "cg", nil }; return "gj", nil }; pm, _ := pick(true); pm`, "cg", "solver.Method"},
		{`pf := func() solver.Format { return "sks" }; pf()`, "sks", "solver.Format"},
		{`MT{}.Twice("cg", "gj", "ldlt")`, "4", "int"},
		{`mt := MT{}; mt.Twice("cg")`, "2", "int"},
		{`var mi2 MI = MT{}; mi2.Twice("cg", "x")`, "3", "int"},
		{`mp := &mt; mp.Twice("gj") + (*mp).Twice("cg")`, "4", "int"},
		{`mch := make(chan solver.Method, 1); mch <- "cg"; cv := <-mch; cv`, "cg", "solver.Method"},
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

// The rewrite resolves names as Go does, scope by scope: a name the cell
// declares shadows the session's, a variable named like a package is not
// the package.
func TestNamedStringLiteralsScopes(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, `o := solver.Options{}`)
	for _, c := range []struct{ src, want, typ string }{
		// The cell redeclares o with a type it cannot know here.
		{`o := func() struct{ Method string } { return struct{ Method string }{} }(); o.Method = "cg"; o.Method`, "cg", "string"},
		{`o = struct{ Method string }{}; p := solver.Options{}; p.Method = "cg"; { p := struct{ Method string }{}; p.Method = "x"; _ = p }; p.Method`, "cg", "solver.Method"},
		{`q := solver.Options{}; n := func() int { q := struct{ Method string }{}; q.Method = "x"; return len(q.Method) }(); q.Method = "gj"; string(q.Method) + fmt.Sprint(n)`, "gj1", "string"},
		{`r := 0; for _, x := range []struct{ Method string }{{"a"}} { x.Method = "cg"; r += len(x.Method) }; r`, "2", "int"},
		{`func f(o struct{ Method string }) string { o.Method = "cg"; return o.Method }; f(struct{ Method string }{})`, "cg", "string"},
		// A variable named like a package.
		{`n := func() int { solver := struct{ Method func(string) int }{Method: func(s string) int { return len(s) }}; return solver.Method("cg") }(); n`, "2", "int"},
		{`solver := struct{ Method func(string) int }{Method: func(s string) int { return len(s) + 1 }}; solver.Method("cg")`, "3", "int"},
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
}
