package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestSolveReportsEntryStats: the figures a registry entry adds to its
// report (the supernodal factor's nnz(L), flops, supernodes, levels) reach
// --json as the documented fields with solver.Run's values, and the text
// report's factor line; an entry without figures (CG) has neither.
func TestSolveReportsEntryStats(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "matrices", "bcsstk13.mtx")
	d, err := sparse.ReadMatrixMarketFile(src)
	if err != nil {
		t.Skip(err)
	}
	_, want, err := solver.Run(d.COO, nil, solver.Options{Method: solver.MethodCholesky})
	if err != nil {
		t.Fatal(err)
	}
	rep, code, stderr := solveJSON(t, src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, k := range []string{"nnz_l", "flops", "supernodes", "levels"} {
		v, ok := want.Stat(k)
		if !ok {
			t.Fatalf("solver.Report has no %s", k)
		}
		var f float64
		switch v := v.(type) {
		case int:
			f = float64(v)
		case int64:
			f = float64(v)
		case float64:
			f = v
		}
		if got, ok := rep[k].(float64); !ok || got != f || f <= 0 {
			t.Errorf("%s = %v, want %v", k, rep[k], v)
		}
	}
	text := captureStdout(t, func() { code = runMain([]string{"solve", src}, os.Stdout, os.Stderr) })
	if code != 0 {
		t.Fatalf("text report: exit %d", code)
	}
	if !strings.Contains(captureLine(text, "factor"), "supernodes") {
		t.Errorf("no factor line in\n%s", text)
	}
	rep, code, stderr = solveJSON(t, "--method", "cg", filepath.Join("..", "..", "..", "shared", "matrices", "nos4.mtx"))
	if code != 0 {
		t.Fatalf("cg: exit %d: %s", code, stderr)
	}
	if _, ok := rep["nnz_l"]; ok {
		t.Errorf("cg report has nnz_l")
	}
}

// captureLine returns the first line of s that starts with prefix.
func captureLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// The stats follow the fixed fields in their order; zero values and keys
// that are already fields are left out.
func TestSolveReportMarshalStats(t *testing.T) {
	r := &solveReport{N: 3, Method: "m", Stats: []solver.Stat{
		{Key: "b_count", Value: 2}, {Key: "zero", Value: 0.0}, {Key: "n", Value: 99}, {Key: "a_ratio", Value: 0.5},
	}}
	buf, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(buf)
	if !strings.HasSuffix(s, `,"b_count":2,"a_ratio":0.5}`) || strings.Contains(s, "zero") || strings.Count(s, `"n":`) != 1 || !strings.Contains(s, `"n":3`) {
		t.Errorf("got %s", s)
	}
	// Keys of fields omitted here as empty are taken too: a stat named
	// "error" must not make a passing answer look failed.
	r = &solveReport{N: 3, Stats: []solver.Stat{{Key: "error", Value: "x"}, {Key: "notes", Value: 1}, {Key: "ref_rel_diff", Value: 2.0}, {Key: "kept", Value: 1}, {Key: "kept", Value: 2}}}
	if buf, err = json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf, &back); err != nil {
		t.Fatalf("%s: %v", buf, err)
	}
	if _, ok := back["error"]; ok || back["notes"] != nil || back["ref_rel_diff"] != nil || back["kept"] != 1.0 || strings.Count(string(buf), "kept") != 1 {
		t.Errorf("stats named like omitted fields: %s", buf)
	}
	var w bytes.Buffer
	printSolverStats(&w, []solver.Stat{{Key: "x", Value: int64(7), Group: "factor", Format: "nnz(L) %d"},
		{Key: "y", Value: 0, Group: "other", Format: "%d"}, {Key: "z", Value: 2.5e8, Group: "factor", Format: "%.3g flops"}})
	if w.String() != "factor        nnz(L) 7, 2.5e+08 flops\n" {
		t.Errorf("printSolverStats: %q", w.String())
	}
}

// The solver's methods know which format x variant pairs the registry
// has, so that warmup runs only those (supernodal and SELL have no thesis
// variant).
func TestSolverMethodPairs(t *testing.T) {
	for _, c := range []struct {
		method, format, variant string
		want                    bool
	}{
		{"cholesky", "supernodal", "fast", true}, {"cholesky", "supernodal", "thesis", false},
		{"cholesky", "csc", "thesis", true}, {"cg", "sell", "fast", true}, {"cg", "sell", "thesis", false},
	} {
		m := solveMethods[c.method]
		if m == nil || m.has == nil || m.has(c.format, c.variant) != c.want {
			t.Errorf("%s %s %s: want %v", c.method, c.format, c.variant, c.want)
		}
	}
}

// A failed run's report may hold NaN or infinite figures (the backward
// error of an answer that overflowed): --json must still print the report,
// with null for them, not an encoder error in its place; and a float that
// is finite prints exactly as encoding/json prints a float64.
func TestSolveReportMarshalNonFinite(t *testing.T) {
	inf := jsonFloat(math.Inf(1))
	r := &solveReport{N: 2, Method: "cg", BackwardError: jsonFloat(math.NaN()), RelativeResidual: 1.5e-300,
		ResidualHistory: []jsonFloat{1, jsonFloat(math.NaN()), 0.25}, RefRelDiff: &inf, Error: "not converged",
		Stats: []solver.Stat{{Key: "growth", Value: math.Inf(-1)}, {Key: "ratio", Value: 0.125}}}
	buf, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf, &back); err != nil {
		t.Fatalf("%s: %v", buf, err)
	}
	hist, _ := back["residual_history"].([]any)
	if v, ok := back["backward_error"]; !ok || v != nil || back["relative_residual"] != 1.5e-300 ||
		len(hist) != 3 || hist[0] != 1.0 || hist[1] != nil || hist[2] != 0.25 || back["ref_rel_diff"] != nil ||
		back["growth"] != nil || back["ratio"] != 0.125 || back["error"] != "not converged" {
		t.Errorf("non-finite figures: %s", buf)
	}
	if !strings.Contains(string(buf), `"backward_error":null`) || !strings.Contains(string(buf), `"growth":null`) {
		t.Errorf("want null for NaN and Inf: %s", buf)
	}
	// The report decodes back into its own type (null leaves a zero).
	var again solveReport
	if err := json.Unmarshal(buf, &again); err != nil || again.RelativeResidual != 1.5e-300 || again.N != 2 {
		t.Errorf("decode into solveReport: %v %+v", err, again)
	}
}
