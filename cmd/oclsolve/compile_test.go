package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestColdCacheCompilePhase solves with empty program and tuning caches
// (oclsolve's and PoCL's): the report has a compile entry, its split adds
// up to the total with no negative part, and a compilation over a second is
// announced once on stderr, not in the JSON. A second run with the caches
// warm compiles nothing to speak of and says nothing. The blocked LU builds
// most of its programs inside the factorization (the dense engine tunes its
// GEMM tiles on first use), which its phases once counted a second time
// beside compile: "other" came out negative.
func TestColdCacheCompilePhase(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles OpenCL programs from nothing")
	}
	bin := oclsolveBinary(t)
	for _, args := range [][]string{
		{"--method", "cr", "poisson1d:500"},
		{"--method", "gauss-pivot", "--variant", "blocked", "--rhs", "random", "random:100"},
	} {
		t.Run(args[1], func(t *testing.T) {
			dir := t.TempDir()
			run := func() (map[string]float64, string) {
				cmd := exec.Command(bin, append([]string{"solve", "--json"}, args...)...)
				// Untuned (the default tiles): tuning from nothing compiles
				// every candidate, over a minute on PoCL, and the default
				// GEMM program is built inside the factorization all the same.
				cmd.Env = append(os.Environ(), "OCLSOLVE_CACHE="+filepath.Join(dir, "programs"), "POCL_CACHE_DIR="+filepath.Join(dir, "pocl"), "OCLSOLVE_TUNE=off")
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("%v: %s", err, stderr.String())
				}
				var rep struct {
					Times map[string]float64 `json:"times_s"`
				}
				if err := json.Unmarshal(out, &rep); err != nil {
					t.Fatalf("--json output is not JSON (%v): %s", err, out)
				}
				return rep.Times, stderr.String()
			}
			times, stderr := run()
			sum := 0.0
			for k, v := range times {
				if v < -1e-3 {
					t.Errorf("cold run: %s is %.3f s: %v", k, v, times)
				}
				if k != "total" {
					sum += v
				}
			}
			if times["compile"] <= 0 || sum > times["total"]*1.01+1e-3 || sum < times["total"]*0.9 {
				t.Fatalf("cold run: %v (phases add to %.3f s)", times, sum)
			}
			if times["compile"] > 1 && strings.Count(stderr, "compiling OpenCL programs for") != 1 {
				t.Fatalf("a %.1f s compilation was not announced once: %q", times["compile"], stderr)
			}
			t.Logf("cold: %v", times)
			times, stderr = run()
			if strings.Contains(stderr, "compiling") || times["compile"] > 1 {
				t.Fatalf("warm run: %v, stderr %q", times, stderr)
			}
		})
	}
}

// TestWarmupCoversEveryMethod checks, without running them, that warmup
// has a system for every method x format of `oclsolve solve`, and that the
// system loads and fits the method's format.
func TestWarmupCoversEveryMethod(t *testing.T) {
	for name, m := range solveMethods {
		for _, f := range m.formats {
			o := solveOptions{Method: name, Format: f, Variant: m.variants[0], Order: "natural", Seed: 1}
			p, err := loadProblem(warmupProblem(f), &o)
			if err != nil || p.N == 0 {
				t.Errorf("%s %s: %v", name, f, err)
			}
		}
	}
}
