package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

func TestBenchDense(t *testing.T) {
	var stderr bytes.Buffer
	var code int
	out := captureStdout(t, func() {
		code = runMain([]string{"bench", "dense", "--sizes", "70", "--ops", "gemm,syrk,trsm,potrf,cholesky,lu", "--dtype", "both", "--nb", "0,32", "--reps", "1", "--json"}, os.Stdout, &stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep denseBenchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Device == "" || rep.Configs["float64"] == "" || rep.Configs["float32"] == "" {
		t.Errorf("report names no device or configuration: %+v", rep)
	}
	ops := map[string]int{}
	for _, r := range rep.Results {
		if r.Error != "" || r.GFLOPS <= 0 || r.TimeS <= 0 {
			t.Errorf("%+v", r)
		}
		ops[r.Op]++
	}
	// 2 dtypes x (gemm, syrk, trsm, 3 potrf block choices) + cholesky + lu in float64.
	want := map[string]int{"gemm": 2, "syrk": 2, "trsm": 2, "potrf": 6, "cholesky": 1, "lu": 1}
	for op, n := range want {
		if ops[op] != n {
			t.Errorf("%s: %d results, want %d", op, ops[op], n)
		}
	}
	// --lookahead both doubles the POTRF variants; --configs picks the
	// tuned configurations; latency reports a time per launch.
	stderr.Reset()
	out = captureStdout(t, func() {
		code = runMain([]string{"bench", "dense", "--sizes", "70", "--ops", "potrf,tune,latency", "--lookahead", "both",
			"--configs", "64x64x16/4x4,64x64x0/16x8", "--reps", "1", "--json"}, os.Stdout, &stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rep = denseBenchReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]int{}
	for _, r := range rep.Results {
		if r.Error != "" || r.TimeS <= 0 {
			t.Errorf("%+v", r)
		}
		got[r.Op+"/"+r.Lookahead+"/"+r.Config]++
	}
	for _, k := range []string{"potrf/on/" + rep.Results[0].Config, "potrf/off/" + rep.Results[0].Config,
		"tune//64x64x16/4x4", "tune//64x64x0/16x8", "latency//" + rep.Results[0].Config} {
		if got[k] != 1 {
			t.Errorf("%s: %d results, want 1 (%v)", k, got[k], got)
		}
	}
	for _, args := range [][]string{{"--sizes", "0"}, {"--sizes", "4000000000"}, {"--ops", "nope"}, {"--dtype", "float16"},
		{"--lookahead", "maybe"}, {"--ops", "tune", "--configs", "64x64x16/4x5"}, {"--pivoting", "rook"}} {
		stderr.Reset()
		code := runMain(append([]string{"bench", "dense"}, args...), os.Stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "usage") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// A measurement's backward error is the worst of its runs, and a NaN in
// any run stays (check then fails it).
func TestWorseBackwardError(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct{ a, b, want float64 }{
		{0, 1e-15, 1e-15}, {1e-3, 1e-15, 1e-3}, {1e-15, 1e-3, 1e-3}, {nan, 1e-15, nan}, {1e-15, nan, nan},
	} {
		if got := worse(c.a, c.b); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("worse(%g, %g) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
	be := 0.0
	for _, v := range []float64{1e-15, 9.6e-4, 2e-15} {
		be = worse(be, v)
	}
	rep := denseBenchReport{Results: []denseBenchResult{{Op: "lu", BackwardError: be}}}
	if rep.check() != 1 {
		t.Errorf("a wrong solve in the second of three runs passes: %+v", rep.Results[0])
	}
}
