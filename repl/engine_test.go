package repl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// fakeDevices stands in for the OpenCL layer in the session command tests.
type fakeDevices struct {
	devs     []*fakeDevice
	current  int
	finished int
}

type fakeDevice struct {
	name       string
	live, peak int64
	parent     *fakeDevices
}

func (d *fakeDevice) String() string             { return d.name }
func (d *fakeDevice) Finish() error              { d.parent.finished++; return nil }
func (d *fakeDevice) Memory() (live, peak int64) { return d.live, d.peak }

func (f *fakeDevices) Current() (Device, error) { return f.devs[f.current], nil }
func (f *fakeDevices) All() ([]Device, error) {
	out := make([]Device, len(f.devs))
	for i, d := range f.devs {
		out[i] = d
	}
	return out, nil
}
func (f *fakeDevices) Select(spec string) (Device, error) {
	for i, d := range f.devs {
		if strings.Contains(d.name, spec) {
			f.current = i
			return d, nil
		}
	}
	return nil, fmt.Errorf("no device %q", spec)
}

func newFakeDevices() *fakeDevices {
	f := &fakeDevices{}
	f.devs = []*fakeDevice{{name: "cpu0", live: 1024, peak: 4096, parent: f}, {name: "gpu1", parent: f}}
	return f
}

// newTestEngine returns an engine whose command output is collected in out.
func newTestEngine(t *testing.T) (*Engine, *strings.Builder, *fakeDevices) {
	t.Helper()
	var out strings.Builder
	devs := newFakeDevices()
	e, err := New(Options{Stdout: &out, Stderr: &out, Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	return e, &out, devs
}

func eval(t *testing.T, e *Engine, src string) Result {
	t.Helper()
	r, err := e.Eval(src)
	if err != nil {
		t.Fatalf("Eval(%q): %v", src, err)
	}
	return r
}

func TestEvalValuesAndState(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, "x := 20")
	eval(t, e, "func double(a int) int {\n\treturn 2 * a\n}")
	r := eval(t, e, "double(x) + 2")
	if len(r.Values) != 1 || r.Values[0] != 42 || r.Types[0] != "int" {
		t.Fatalf("double(x)+2 = %v %v, want 42 int", r.Values, r.Types)
	}
	// The default imports are there: gonum and math work without imports.
	r = eval(t, e, "m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})\nmat.Det(m) + math.Abs(-1)")
	if got, ok := r.Values[0].(float64); !ok || got != -1 {
		t.Fatalf("det+1 = %v, want -1", r.Values)
	}
	// Statements and prints produce no value.
	if r := eval(t, e, `fmt.Sprint("a"); fmt.Print("")`); len(r.Values) != 0 {
		t.Fatalf("fmt.Print left values %v", r.Values)
	}
}

func TestErrorsKeepState(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, "kept := 7")
	cases := []struct {
		src  string
		want error
		msg  string
	}{
		{`panic("boom")`, ErrEval, "boom"},
		{"var s []int\n_ = s[3]", ErrEval, "out of range"},
		{"y := undefinedName", ErrEval, "undefinedName"},
		{`import "github.com/nobody/nothing"`, ErrNotBound, "github.com/nobody/nothing"},
		{":nosuchcommand", ErrCommand, "unknown command"},
	}
	for _, c := range cases {
		_, err := e.Eval(c.src)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Eval(%q) = %v, want %v mentioning %q", c.src, err, c.want, c.msg)
		}
		if r := eval(t, e, "kept"); r.Values[0] != 7 {
			t.Fatalf("after %q the session lost its state: kept = %v", c.src, r.Values)
		}
	}
}

func TestBigUntypedConstants(t *testing.T) {
	e, _, _ := newTestEngine(t)
	r := eval(t, e, "uint64(math.MaxUint64)")
	if r.Values[0] != uint64(1<<64-1) {
		t.Fatalf("uint64(math.MaxUint64) = %v", r.Values)
	}
	r = eval(t, e, "math.Pi * 2")
	if r.Values[0] != 2*3.141592653589793 {
		t.Fatalf("math.Pi*2 = %v", r.Values)
	}
	// An untyped constant of a package only our generator binds.
	r = eval(t, e, "mat.ConditionTolerance / 2")
	if r.Values[0] != 5e15 {
		t.Fatalf("mat.ConditionTolerance/2 = %v", r.Values)
	}
}

func TestInterrupt(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, "n := 0")
	done := make(chan error)
	go func() {
		_, err := e.Eval("for {\n\tn++\n}")
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !e.Running() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	e.Interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("interrupted loop returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Interrupt did not stop the loop")
	}
	r := eval(t, e, "n > 0")
	if r.Values[0] != true {
		t.Fatalf("the loop's progress was lost: n > 0 is %v", r.Values)
	}
}

func TestCommands(t *testing.T) {
	e, out, devs := newTestEngine(t)
	eval(t, e, ":help")
	if lines := strings.Split(out.String(), "\n"); !strings.HasPrefix(lines[0], "Workflow") || !strings.HasPrefix(lines[7], "Commands:") {
		t.Fatalf(":help: want the workflow in six lines, then the commands; got\n%s", out)
	}
	out.Reset()
	eval(t, e, ":help packages")
	if !strings.Contains(out.String(), "gonum.org/v1/gonum/mat") || !strings.Contains(out.String(), "github.com/oclsolve/oclsolve/repl/display") {
		t.Fatalf(":help packages does not list the bound packages:\n%s", out)
	}

	out.Reset()
	eval(t, e, ":mem")
	if !strings.Contains(out.String(), "0: cpu0: live 1.00 KiB, peak 4.00 KiB") || !strings.Contains(out.String(), "1: gpu1: live 0 B") {
		t.Fatalf(":mem printed\n%s", out)
	}

	out.Reset()
	eval(t, e, ":device")
	if !strings.Contains(out.String(), "* 0: cpu0") || !strings.Contains(out.String(), "  1: gpu1") {
		t.Fatalf(":device printed\n%s", out)
	}
	out.Reset()
	eval(t, e, ":device gpu")
	if devs.current != 1 || !strings.Contains(out.String(), "gpu1") {
		t.Fatalf(":device gpu: current %d, printed %q", devs.current, out)
	}
	if _, err := e.Eval(":device tpu"); !errors.Is(err, ErrCommand) {
		t.Fatalf(":device tpu = %v, want ErrCommand", err)
	}

	out.Reset()
	before := devs.finished
	r := eval(t, e, ":time t := 3\nt * 2")
	if devs.finished != before+1 {
		t.Fatal(":time did not wait for the device")
	}
	if len(r.Values) != 1 || r.Values[0] != 6 || !strings.Contains(out.String(), "seconds, device finished") {
		t.Fatalf(":time returned %v and printed %q", r.Values, out)
	}
	if r := eval(t, e, "t"); r.Values[0] != 3 {
		t.Fatal(":time did not evaluate in the session")
	}

	if r := eval(t, e, ":quit"); !r.Quit {
		t.Fatal(":quit did not ask to quit")
	}
}

func TestLoadFile(t *testing.T) {
	e, _, _ := newTestEngine(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.go")
	os.WriteFile(lib, []byte("// helpers\nfunc square(x float64) float64 { return x * x }\nvar loaded = square(3)\n"), 0o644)
	eval(t, e, ":load "+lib)
	if r := eval(t, e, "loaded"); r.Values[0] != 9.0 {
		t.Fatalf("loaded = %v", r.Values)
	}
	prog := filepath.Join(dir, "prog.go")
	os.WriteFile(prog, []byte("package main\n\nimport \"fmt\"\n\nvar ran = false\n\nfunc main() {\n\tran = true\n\tfmt.Sprint()\n}\n"), 0o644)
	if err := e.LoadFile(prog); err != nil {
		t.Fatal(err)
	}
	if r := eval(t, e, "ran"); r.Values[0] != true {
		t.Fatal("a program's main was not run")
	}
	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("x := 1\ny := nope + 1\n"), 0o644)
	err := e.LoadFile(bad)
	if !errors.Is(err, ErrEval) || !strings.Contains(err.Error(), "bad.go:2") {
		t.Fatalf("loading a bad file: %v, want ErrEval naming bad.go:2", err)
	}
	if _, err := e.Eval(":load " + filepath.Join(dir, "missing.go")); !errors.Is(err, ErrCommand) {
		t.Fatalf(":load of a missing file: %v", err)
	}
}

func TestComplete(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, "type point struct{ Xpos, Ypos float64 }\nvar pt point\nvar mm = mat.NewDense(1, 1, nil)")
	cases := []struct {
		line string
		head string
		want string
	}{
		{"mat.NewDe", "mat.", "NewDense"},         // package function
		{"x := floats.Su", "x := floats.", "Sum"}, // after other text
		{"mm.Sol", "mm.", "Solve"},                // method of a compiled type
		{"pt.Xp", "pt.", "Xpos"},                  // field of an interpreted type
		{"plott", "", "plotter"},                  // package name
		{":me", "", ":mem"},                       // session command
		{"display.Sp", "display.", "Spy"},         // our display package
	}
	for _, c := range cases {
		head, comps, _ := e.Complete(c.line, len(c.line))
		found := false
		for _, x := range comps {
			found = found || x == c.want
		}
		if head != c.head || !found {
			t.Errorf("Complete(%q) = %q, %v; want head %q and %q", c.line, head, comps, c.head, c.want)
		}
	}
	if got := e.Inspect("y := mat.NewDense(2, 2, nil)", 10); !strings.Contains(got, "func(int, int, []float64)") {
		t.Errorf("Inspect(mat.NewDense) = %q", got)
	}
	if got := e.Inspect("zzz", 1); got != "" {
		t.Errorf("Inspect(unknown) = %q, want nothing", got)
	}
}

func TestIsComplete(t *testing.T) {
	cases := map[string]string{
		"x := 1":                     Complete,
		"func f() {":                 Incomplete,
		"func f() {\n}":              Complete,
		"a := []int{\n1,":            Incomplete,
		"x := 1 +":                   Incomplete,
		"s := `raw\nstring":          Incomplete,
		"}":                          Invalid,
		"f(1))":                      Invalid,
		":time f(":                   Complete,
		"":                           Complete,
		"x++":                        Complete,
		"if x {\n} else {\n  y()\n}": Complete,
	}
	for src, want := range cases {
		if got := IsComplete(src); got != want {
			t.Errorf("IsComplete(%q) = %s, want %s", src, got, want)
		}
	}
}

func TestHistoryEntry(t *testing.T) {
	e, _, _ := newTestEngine(t)
	src := "func tri(n int) int { // triangular numbers\n\ts := 0\n\tfor i := 1; i <= n; i++ {\n\t\ts += i\n\t}\n\treturn s\n}"
	one := historyEntry(src)
	if strings.Contains(one, "\n") || strings.Contains(one, "triangular") {
		t.Fatalf("historyEntry left newlines or comments: %q", one)
	}
	// The one-line form must mean the same as the original.
	eval(t, e, one)
	if r := eval(t, e, "tri(4)"); r.Values[0] != 10 {
		t.Fatalf("tri(4) from history entry %q = %v", one, r.Values)
	}
	list := "v := []int{\n\t1,\n\t2,\n}"
	eval(t, e, historyEntry(list))
	if r := eval(t, e, "len(v)"); r.Values[0] != 2 {
		t.Fatalf("history entry %q: len(v) = %v", historyEntry(list), r.Values)
	}
}

func TestSplitPackageClause(t *testing.T) {
	program, body := splitPackageClause("// doc\npackage main\n\nfunc main() {}\n")
	if !program || strings.Contains(body, "package") || strings.Count(body, "\n") != 4 {
		t.Fatalf("splitPackageClause: %v %q", program, body)
	}
	if program, _ := splitPackageClause("x := 1\n"); program {
		t.Fatal("statements taken for a program")
	}
}

// FuzzSourceScanning checks the token-level helpers on arbitrary input:
// they never panic, IsComplete answers one of its three words, and a
// history entry never spans lines.
func FuzzSourceScanning(f *testing.F) {
	for _, s := range []string{"x := 1", "func f() {\n\treturn\n}", "a := []int{\n1,\n}", "s := `a\nb`", "}", "// c\npackage main", `import ("fmt"; "os")`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		switch IsComplete(src) {
		case Complete, Incomplete, Invalid:
		default:
			t.Fatalf("IsComplete(%q) answered something else", src)
		}
		if h := historyEntry(src); strings.Count(src, "\n") > 0 && strings.Contains(h, "\n") && !strings.Contains(src, "`") {
			t.Fatalf("historyEntry(%q) = %q spans lines", src, h)
		}
		splitPackageClause(src)
		endsWithPrint(src)
		checkImports(src)
	})
}

// TestRecursionStopped: infinite recursion in a cell is stopped before the
// Go runtime's stack limit would abort the process, and the session keeps
// its state.
func TestRecursionStopped(t *testing.T) {
	e, _, _ := newTestEngine(t)
	eval(t, e, "kept := 41")
	start := time.Now()
	_, err := e.Eval("func f(n int) int { return f(n+1) + 1 }; f(0)")
	if !errors.Is(err, ErrStackOverflow) || !errors.Is(err, ErrEval) {
		t.Fatalf("infinite recursion: err = %v, want ErrStackOverflow", err)
	}
	t.Logf("stopped after %v: %v", time.Since(start), err)
	if r := eval(t, e, "kept + 1"); r.Values[0] != 42 {
		t.Fatalf("state after the overflow: %v", r.Values)
	}
	// Deep but finite recursion is not stopped.
	if r := eval(t, e, "func g(n int) int { if n == 0 { return 0 }; return g(n-1) + 1 }; g(20000)"); r.Values[0] != 20000 {
		t.Fatalf("g(20000) = %v", r.Values)
	}
	// A second runaway cell is stopped as well.
	if _, err := e.Eval("f(0)"); !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("second recursion: %v", err)
	}
}

// TestInterruptFunctionFromAnotherGoroutine: Interrupt stops a loop inside
// an interpreted function when Eval is called from a goroutine other than
// the one that created the engine, as the kernel and the terminal do.
func TestInterruptFunctionFromAnotherGoroutine(t *testing.T) {
	e, _, _ := newTestEngine(t)
	done := make(chan error, 1)
	go func() {
		_, err := e.Eval("func spin() { for {} }\nspin()")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	e.Interrupt()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("err = %v, want ErrInterrupted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupt did not stop a loop inside a function")
	}
}

// TestRuntimeErrorsInGoWords checks that a failing statement reports what
// compiled Go would say, and the line of the cell it is on, not the
// reflection call the interpreter happened to make.
func TestRuntimeErrorsInGoWords(t *testing.T) {
	e, _, _ := newTestEngine(t)
	cases := []struct{ src, want string }{
		{"type T struct{ X int }\nvar p *T\n\np.X = 3", "line 4: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"s := []int{1, 2, 3}\ni := 5\n_ = s[i]", "line 3: panic: runtime error: index out of range"},
		{"var m *mat.Dense\nm.Set(0, 0, 1)", "line 2: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"var err error\n_ = err.Error()", "line 2: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"var m *mat.Dense\nfor i := 0; i < 2; i++ {\n\tif i == 1 {\n\t\tm.Set(0, 0, 1)\n\t}\n}", "line 2: panic: runtime error: invalid memory address or nil pointer dereference"},
		{"func f(s []int) int {\n\treturn s[5]\n}\n\nf(nil)", "line 5: panic: runtime error: index out of range"},
		{"x := 1\ny := nope + x", "line 2: undefined identifier: nope"},
	}
	for _, c := range cases {
		_, err := e.Eval(c.src)
		var ee *EvalError
		if !errors.As(err, &ee) || !errors.Is(err, ErrEval) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Eval(%q) = %v, want %q", c.src, err, c.want)
		}
		if strings.Contains(fmt.Sprint(err), "reflect") {
			t.Errorf("Eval(%q) names reflection: %v", c.src, err)
		}
	}
}

// TestLineMarksKeepMeaning evaluates cells whose shape the line marker must
// respect: clause semicolons, labels, raw strings, closures, declarations.
func TestLineMarksKeepMeaning(t *testing.T) {
	e, _, _ := newTestEngine(t)
	cells := []struct {
		src  string
		want any
	}{
		{"s := `a\nb;\n`\nlen(s)", 5},
		{"k := 0\nswitch y := 2; y {\ncase 2:\n\tk = 1; k++\n}\nk", 2},
		{"n := 0\nouter:\nfor i := 0; i < 3; i++ {\n\tfor {\n\t\tn++\n\t\tcontinue outer\n\t}\n}\nn", 3},
		{"type P struct{ A, B int }\nfunc sum(p P) int { return p.A + p.B }\nv := sum(P{\n\tA: 1,\n\tB: 2,\n})\nv", 3},
		{"f := func() int {\n\treturn 4\n}\nif w := f(); w > 3 { w++ }\nf()", 4},
		{"c := 0\nif m := map[string]int{\"a\": 1}; m[\"a\"] > 0 {\n\tc = m[\"a\"]\n}\nc", 1},
		{"t := 0\nfor s := []int{1, 2}; len(s) > 0; s = s[1:] {\n\tt += s[0]\n}\nt", 3},
	}
	for _, c := range cells {
		r := eval(t, e, c.src)
		if len(r.Values) != 1 || r.Values[0] != c.want {
			t.Errorf("%q = %v, want %v", c.src, r.Values, c.want)
		}
	}
}

// TestInterruptStopsDeviceWork interrupts a thesis Gauss-Jordan solve,
// thousands of launches, on the real default device (PoCL in CI): Eval
// must return within a second of Interrupt with the queue drained, and the
// device must solve correctly afterwards.
func TestInterruptStopsDeviceWork(t *testing.T) {
	if testing.Short() {
		t.Skip("a long device solve")
	}
	var out strings.Builder
	e, err := New(Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Devices().Current(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	eval(t, e, `import "github.com/oclsolve/oclsolve/afarray/solver"`)
	// A diagonally dominant matrix of order 1500: the thesis variant makes
	// one launch per column, each streaming the whole augmented matrix.
	eval(t, e, `func system(n int) (*afarray.Array, *afarray.Array) {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, 1/float64(1+i+j))
		}
		d.Set(i, i, float64(n))
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	a, _ := afarray.FromDense(d)
	b, _ := afarray.FromFloat64s(ones)
	return a, b
}`)
	eval(t, e, "a, b := system(1500)")
	done := make(chan error, 1)
	var solveStart time.Time
	go func() {
		solveStart = time.Now()
		_, err := e.Eval("x, err := solver.GaussJordan(a, b, solver.Thesis)\nerr")
		done <- err
	}()
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	e.Interrupt()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Eval did not return within 60 s of Interrupt")
	}
	took := time.Since(start)
	if err == nil {
		t.Skipf("the solve finished in %v, before the interrupt", time.Since(solveStart))
	}
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted solve: %v", err)
	}
	t.Logf("Eval returned %v after Interrupt: %v", took, err)
	if took > time.Second {
		t.Errorf("Eval returned %v after Interrupt, want under 1 s", took)
	}
	// The device is usable: a small solve is right.
	r := eval(t, e, `a2, b2 := system(50)
x2, err2 := solver.GaussJordan(a2, b2, solver.Thesis)
v, _ := x2.Float64s()
r := b2.Float64s
_ = r
err2 == nil && len(v) == 50 && v[0] > 0 && v[0] < 1`)
	if len(r.Values) != 1 || r.Values[0] != true {
		t.Fatalf("solve after the interrupt: %v (%s)", r.Values, out.String())
	}
}

// TestNoFalseStackOverflow: after a runaway recursion was stopped, long
// ordinary evaluations (during which the runtime collects garbage and
// shrinks stacks) are not mistaken for another one.
func TestNoFalseStackOverflow(t *testing.T) {
	e, _, _ := newTestEngine(t)
	if _, err := e.Eval("func f(n int) int { return f(n+1) + 1 }\nf(0)"); !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("runaway recursion: %v", err)
	}
	for i := 0; i < 3; i++ {
		eval(t, e, "s := 0\nfor k := 0; k < 2000000; k++ { s += k % 7; if k % 100000 == 0 { _ = make([]byte, 1<<20) } }")
	}
	if _, err := e.Eval("f(0)"); !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("second runaway recursion: %v", err)
	}
}

// TestHelpExamplesRun runs the numbered lines of :help as a user would type
// them, with the matrix file name pointing at the collection.
func TestHelpExamplesRun(t *testing.T) {
	path, err := filepath.Abs("../../shared/matrices/bcsstk16.mtx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skip("matrix collection not found")
	}
	e, _, _ := newTestEngine(t)
	ran := 0
	for _, line := range strings.Split(HelpText, "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 3 || line[0] < '1' || line[0] > '9' || line[1] != '.' {
			continue
		}
		code, _, _ := strings.Cut(strings.TrimSpace(line[2:]), "   ")
		code = strings.ReplaceAll(code, `"bcsstk16.mtx"`, fmt.Sprintf("%q", path))
		r, err := e.Eval(code)
		if err != nil {
			t.Fatalf("help line %q: %v", code, err)
		}
		ran++
		if strings.TrimSpace(code) == "rep" {
			if len(r.Values) != 1 || !strings.Contains(FormatValue(r.Values[0]), "n = 4884") {
				t.Fatalf("rep shows %v", r.Values)
			}
		}
	}
	if ran < 5 {
		t.Fatalf("only %d help examples found", ran)
	}
	if r := eval(t, e, "err"); r.Values[0] != nil {
		t.Fatalf("err after the examples: %v", r.Values[0])
	}
}

// :time gives the phase split of the solves its expression ran, and the
// progress line names the phase of a solve under way.
func TestTimeSplitAndProgressLine(t *testing.T) {
	e, out, _ := newTestEngine(t)
	eval(t, e, `a, err := sparse.ReadFile("../../shared/matrices/nos3.mtx")`)
	out.Reset()
	eval(t, e, `:time x, rep, err := solver.Solve(a, nil)`)
	got := out.String()
	if !strings.Contains(got, "solver: ") || !strings.Contains(got, "factorize ") || !strings.Contains(got, "(1 solve, ") ||
		!strings.Contains(got, "outside the solves") {
		t.Fatalf(":time printed %q", got)
	}
	// Two solves in one expression: their phases summed.
	out.Reset()
	eval(t, e, `:time for i := 0; i < 2; i++ { solver.Run(a, nil, solver.Options{Method: "cg"}) }`)
	if got := out.String(); !strings.Contains(got, "(2 solves, ") || !strings.Contains(got, "solve ") {
		t.Fatalf(":time printed %q", got)
	}
	// No solve: no split.
	out.Reset()
	eval(t, e, `:time 1 + 1`)
	if strings.Contains(out.String(), "solver:") {
		t.Fatalf(":time printed %q", out.String())
	}

	// The progress line polls solver.Current: from a Progress callback,
	// the solve is under way.
	var lines []string
	solverOpts := solver.Options{Method: solver.MethodCholesky, Format: solver.FormatSKS, Progress: func(solver.Progress) {
		lines = append(lines, ProgressLine(3*time.Second))
	}}
	a, err := sparse.ReadFile("../../shared/matrices/nos3.mtx")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := solver.Run(a, nil, solverOpts); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{"running 3.0 s: ordering;", "running 3.0 s: factorize: ", " block columns, ", "Ctrl-C interrupts"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("progress lines lack %q:\n%s", want, joined)
		}
	}
	if l := ProgressLine(time.Second); l != "running 1.0 s; Ctrl-C interrupts" {
		t.Fatalf("idle progress line %q", l)
	}
}

// TestSKSBlockWidth: a session sets a skyline factor's block width (the
// embedded solver.SKSOptions) and factors: the width reaches the
// factorization (Stats reports it; a width the fast variant does not have
// is refused) and the solve is right.
func TestSKSBlockWidth(t *testing.T) {
	path, err := filepath.Abs("../../shared/matrices/bcsstk01.mtx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skip("matrix collection not found")
	}
	e, _, _ := newTestEngine(t)
	eval(t, e, `import "errors"`)
	eval(t, e, fmt.Sprintf(`h, _ := sparse.ReadFile(%q)
a, _ := afarray.UploadCOO(h)
ones := make([]float64, h.Rows)
for i := range ones {
	ones[i] = 1
}
b, _ := afarray.FromFloat64s(ones)`, path))
	r := eval(t, e, `var f solver.SKSCholesky
f.BlockWidth = 64
ferr := f.FactorizeCOO(a, solver.Fast)
x, serr := f.Solve(b)
xs, _ := x.Float64s()
fmt.Sprint(ferr, serr, f.Stats().BlockWidth, solver.BackwardError(h, xs, ones) < solver.MaxBackwardError)`)
	if len(r.Values) != 1 || r.Values[0] != "<nil> <nil> 64 true" {
		t.Fatalf("SKSCholesky with BlockWidth 64: %v", r.Values)
	}
	r = eval(t, e, `var g solver.SKSLDLT
g.BlockWidth = 48
errors.Is(g.FactorizeCOO(a, solver.Fast), solver.ErrUnknown)`)
	if len(r.Values) != 1 || r.Values[0] != true {
		t.Fatalf("SKSLDLT with BlockWidth 48: %v, want ErrUnknown", r.Values)
	}
}
