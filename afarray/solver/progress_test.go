package solver

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// progressLog runs opts on a and returns what Options.Progress saw, with
// Current checked from inside the callback (the Run is under way then).
func progressLog(t *testing.T, name string, opts Options) ([]Progress, *Report) {
	t.Helper()
	a := runMatrix(t, name)
	var log []Progress
	opts.Progress = func(p Progress) {
		if c, ok := Current(); !ok || c.Phase != p.Phase {
			t.Errorf("%s: Current() = %v, %v inside the callback of phase %q", name, c, ok, p.Phase)
		}
		log = append(log, p)
	}
	_, rep, err := Run(a, nil, opts)
	if err != nil {
		t.Fatalf("%s %+v: %v", name, opts, err)
	}
	if p, ok := Current(); ok {
		t.Errorf("Current() = %v after Run returned", p)
	}
	return log, rep
}

// phasesOf lists the phases in the order they first appeared.
func phasesOf(log []Progress) []string {
	var out []string
	for _, p := range log {
		if len(out) == 0 || out[len(out)-1] != p.Phase {
			out = append(out, p.Phase)
		}
	}
	return out
}

// checkCounted checks that the counted reports of phase move forward and
// end with all units done at 100%.
func checkCounted(t *testing.T, what string, log []Progress, phase, unit string, total int) {
	t.Helper()
	var seen []Progress
	for _, p := range log {
		if p.Phase == phase && p.Unit != "" {
			seen = append(seen, p)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("%s: %d counted reports in %s: %v", what, len(seen), phase, log)
	}
	for i, p := range seen {
		if p.Unit != unit || (total > 0 && p.Total != total) {
			t.Fatalf("%s: report %v, want %s of %d", what, p, unit, total)
		}
		if i > 0 && (p.Done < seen[i-1].Done || p.Fraction < seen[i-1].Fraction) {
			t.Fatalf("%s: progress went back: %v after %v", what, p, seen[i-1])
		}
	}
	if last := seen[len(seen)-1]; last.Done != last.Total || last.Fraction != 1 {
		t.Fatalf("%s: last report %v, want all done", what, last)
	}
	// At most about a hundred calls per phase, however many steps.
	if len(seen) > 120 {
		t.Fatalf("%s: %d callbacks in %s", what, len(seen), phase)
	}
}

func TestProgressPhasesAndCounts(t *testing.T) {
	for _, c := range []struct {
		opts  Options
		unit  string
		total func(*Report) int
	}{
		{Options{Method: MethodCholesky}, "levels", func(r *Report) int { v, _ := r.Stat("levels"); l, _ := v.(int); return l }},
		{Options{Method: MethodCholesky, Format: FormatSKS, Order: "rcm"}, "block columns", nil},
		{Options{Method: MethodLDLT, Format: FormatCSC}, "block columns", nil},
		{Options{Method: MethodCholesky, Format: FormatCSC, Variant: Thesis}, "columns", func(r *Report) int { return r.N }},
		{Options{Method: MethodCholesky, Format: FormatDense}, "columns", func(r *Report) int { return r.N }},
	} {
		log, rep := progressLog(t, "nos3", c.opts)
		what := string(rep.Method) + "/" + string(rep.Format) + "/" + string(rep.Variant)
		got := phasesOf(log)
		for _, want := range []string{"ordering", "upload", "factorize", "solve", "download", "check"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s: phases %v lack %s", what, got, want)
			}
		}
		if i, j := slices.Index(got, "factorize"), slices.Index(got, "solve"); i < 0 || j < i {
			t.Errorf("%s: phases out of order: %v", what, got)
		}
		// The sparse factorizations with a symbolic analysis name it.
		if i := slices.Index(got, "symbolic"); (rep.Format == "supernodal" || rep.Format == FormatCSC) != (i >= 0 && i+1 < len(got) && got[i+1] == "factorize") {
			t.Errorf("%s: symbolic phase in %v", what, got)
		}
		total := 0
		if c.total != nil {
			total = c.total(rep)
		}
		checkCounted(t, what, log, "factorize", c.unit, total)
		if c.unit == "block columns" || (c.unit == "columns" && rep.Format != FormatDense) {
			checkCounted(t, what, log, "solve", c.unit+" (two sweeps)", 2*total)
		}
	}
}

// CG reports iterations and its residual against the tolerance; the last
// residual seen is no smaller than the converged one and the fraction
// reaches the tolerance's share on a log scale.
func TestProgressCG(t *testing.T) {
	for _, v := range []Variant{Fast, Thesis} {
		log, rep := progressLog(t, "nos3", Options{Method: MethodCG, Format: FormatCSC, Variant: v, Tol: 1e-8, MaxIter: 20000})
		var its []Progress
		for _, p := range log {
			if p.Phase == "solve" && p.Unit == "iterations" {
				its = append(its, p)
			}
		}
		if len(its) == 0 {
			t.Fatalf("%s: no CG iteration reports: %v", v, log)
		}
		last := its[len(its)-1]
		if last.Residual != rep.Residual || last.Tol != 1e-8 || last.Done != rep.Iterations {
			t.Errorf("%s: last report %v; CG: %d iterations, residual %g", v, last, rep.Iterations, rep.Residual)
		}
		if v == Fast && last.Fraction != 1 {
			t.Errorf("fast: converged at %v", last)
		}
		if !strings.Contains(last.String(), "CG iterations") || !strings.Contains(last.String(), "residual") {
			t.Errorf("%s: %q", v, last.String())
		}
	}
}

// Totals adds up every Run's split, so that a difference across solves is
// their split.
func TestTotals(t *testing.T) {
	a := runMatrix(t, "bcsstk01")
	before := Totals()
	var sum Report
	for _, o := range []Options{{}, {Method: MethodCG}} {
		_, rep, err := Run(a, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		sum.TotalTime += rep.TotalTime
		sum.FactorizeTime += rep.FactorizeTime
		sum.SolveTime += rep.SolveTime
	}
	d := Totals().Sub(before)
	if d.Runs != 2 || d.Total != sum.TotalTime || d.Factorize != sum.FactorizeTime || d.Solve != sum.SolveTime {
		t.Fatalf("totals %+v, reports %v / %v / %v", d, sum.TotalTime, sum.FactorizeTime, sum.SolveTime)
	}
	parts := d.Ordering + d.Upload + d.Convert + d.Compile + d.Symbolic + d.Factorize + d.Solve + d.Download + d.Other
	if parts != d.Total {
		t.Fatalf("split %v does not add up to %v", parts, d.Total)
	}
	if s := d.String(); !strings.Contains(s, "2 solves") || !strings.Contains(s, "solve ") {
		t.Fatalf("String() = %q", s)
	}
}

func TestProgressString(t *testing.T) {
	p := Progress{Phase: "factorize", Unit: "levels", Done: 12, Total: 30, Fraction: 0.43}
	if s := p.String(); s != "factorize: 12 of 30 levels, 43%" {
		t.Fatalf("%q", s)
	}
	p = Progress{Phase: "solve", Unit: "iterations", Done: 120, Total: 10000, Residual: 3.2e-5, Tol: 1e-8, Fraction: math.Log(1/3.2e-5) / math.Log(1e8)}
	if s := p.String(); s != "solve: 120 of 10000 CG iterations, residual 3.2e-05 (tol 1e-08), 56%" {
		t.Fatalf("%q", s)
	}
	if s := (Progress{Phase: "upload", Fraction: -1}).String(); s != "upload" {
		t.Fatalf("%q", s)
	}
}

// TestTrackingOverlappingRuns: two Runs on one device, in every order of
// ending: the device reports to the latest Run still under way, never to
// one that has ended, and nothing stays registered once both have ended.
func TestTrackingOverlappingRuns(t *testing.T) {
	dev := new(kernels.Device)
	for _, firstEndsFirst := range []bool{true, false} {
		a, stopA := startTracking(dev, nil)
		b, stopB := startTracking(dev, nil)
		if trackerOf(dev) != b {
			t.Fatalf("second Run does not take the device's reports")
		}
		if firstEndsFirst {
			stopA()
			if trackerOf(dev) != b {
				t.Errorf("after the first Run ended, the device reports to %p, want the second %p", trackerOf(dev), b)
			}
			stopB()
		} else {
			stopB()
			if trackerOf(dev) != a {
				t.Errorf("after the second Run ended, the device reports to %p, want the first %p", trackerOf(dev), a)
			}
			stopA()
		}
		if got := trackerOf(dev); got != nil {
			t.Errorf("first ends first %v: the device still reports to an ended Run (%p; a %p, b %p)", firstEndsFirst, got, a, b)
		}
		running.mu.Lock()
		left := 0
		for _, u := range running.order {
			if u == a || u == b {
				left++
			}
		}
		running.mu.Unlock()
		if left != 0 {
			t.Errorf("first ends first %v: %d trackers left registered", firstEndsFirst, left)
		}
	}
}

// Run on several devices reports its progress as on one: the phases, and
// CG's iterations (from the first device's goroutine, which runs them).
func TestProgressMultiDevice(t *testing.T) {
	devs := multiTestParts(t, 2)
	log, rep := progressLog(t, "nos3", Options{Method: MethodCG, Format: FormatCSC, Devices: devs})
	its := 0
	for _, p := range log {
		if p.Phase == "solve" && p.Unit == "iterations" {
			its++
		}
	}
	if got := strings.Join(phasesOf(log), ","); got != "ordering,solve,check" || its == 0 || len(rep.Shares) != 2 {
		t.Errorf("cg on two devices: phases %s, %d iteration reports", got, its)
	}
	log, _ = progressLog(t, "bcsstk01", Options{Method: MethodCholesky, Format: FormatSupernodal, Devices: devs})
	if got := strings.Join(phasesOf(log), ","); !strings.HasPrefix(got, "ordering,factorize") || !strings.HasSuffix(got, "check") {
		t.Errorf("cholesky on two devices: phases %s", got)
	}
}
