package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestBindingsFresh regenerates the bindings into a temporary directory and
// compares them with the committed ones in repl/bindings: a package list
// edited, or a bound package whose API changed, without `go generate
// ./repl/` fails here.
func TestBindingsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every bound package with go list")
	}
	tmp := t.TempDir()
	log, err := os.CreateTemp(tmp, "log")
	if err != nil {
		t.Fatal(err)
	}
	if err := generate(filepath.Join(tmp, "bindings"), log); err != nil {
		t.Fatal(err)
	}
	committed := "../../bindings"
	want := goFiles(t, filepath.Join(tmp, "bindings"))
	have := goFiles(t, committed)
	if extra, missing := diff(have, want), diff(want, have); len(extra)+len(missing) > 0 {
		logText, _ := os.ReadFile(log.Name())
		t.Fatalf("repl/bindings has extra files %v and lacks %v (run go generate ./repl/)\n%s", extra, missing, logText)
	}
	for i, name := range want {
		if have[i] != name {
			t.Fatalf("repl/bindings has %s where regeneration gives %s (run go generate ./repl/)", have[i], name)
		}
		a, _ := os.ReadFile(filepath.Join(tmp, "bindings", name))
		b, _ := os.ReadFile(filepath.Join(committed, name))
		if !bytes.Equal(a, b) {
			t.Errorf("repl/bindings/%s is stale (run go generate ./repl/)", name)
		}
	}
}

func goFiles(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	return names
}

// diff returns the names in a and not in b.
func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
