package notebook

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// notebooksDir is the repository's notebooks folder, relative to this
// package's directory (where go test runs).
const notebooksDir = "../notebooks"

// TestNotebooks executes every notebooks/*.ipynb in-process at
// OCLSOLVE_SCALE=small, in the notebook's own directory as Jupyter and
// `oclsolve notebook run` do, and fails on the first failing cell. The
// notebooks share one engine session each but one process, so kernels built
// by an earlier notebook are reused by the later ones.
func TestNotebooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every notebook on the OpenCL device")
	}
	paths, err := filepath.Glob(filepath.Join(notebooksDir, "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var notebooks []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".out.ipynb") {
			notebooks = append(notebooks, p)
		}
	}
	sort.Strings(notebooks)
	if len(notebooks) == 0 {
		t.Fatalf("no notebooks in %s", notebooksDir)
	}
	dir, err := filepath.Abs(notebooksDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OCLSOLVE_SCALE", "small")
	for _, path := range notebooks {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".ipynb"), func(t *testing.T) {
			nb, err := ReadNotebook(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			x, err := NewExecutor()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := Run(x, nb, nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("%s ran in %v", name, time.Since(start).Round(time.Millisecond))
			checkOutputs(t, name, nb)
		})
	}
}

// cellsWithOutputs lists the code cells of nb (counted from 1) that carry
// outputs or an execution count.
func cellsWithOutputs(nb Notebook) []int {
	var dirty []int
	code := 0
	for _, c := range nb["cells"].([]any) {
		cell, ok := c.(map[string]any)
		if !ok || cell["cell_type"] != "code" {
			continue
		}
		code++
		outs, _ := cell["outputs"].([]any)
		if len(outs) > 0 || cell["execution_count"] != nil {
			dirty = append(dirty, code)
		}
	}
	return dirty
}

// checkOutputs verifies that every code cell ran and that the notebook
// showed something: a notebook whose cells all print nothing is broken even
// if no cell failed.
func checkOutputs(t *testing.T, name string, nb Notebook) {
	t.Helper()
	shown := 0
	for i, c := range nb["cells"].([]any) {
		cell := c.(map[string]any)
		if cell["cell_type"] != "code" {
			continue
		}
		if cell["execution_count"] == nil {
			t.Errorf("%s: cell %d did not run", name, i)
		}
		outs, _ := cell["outputs"].([]any)
		for _, o := range outs {
			out := o.(map[string]any)
			if out["output_type"] == "error" {
				t.Errorf("%s: cell %d: %v", name, i, out["evalue"])
			}
			shown++
		}
	}
	if shown == 0 {
		t.Errorf("%s produced no output at all", name)
	}
}

// TestNotebooksCommittedClean checks, without a device, that the notebooks
// parse and carry no outputs.
func TestNotebooksCommittedClean(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(notebooksDir, "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if strings.HasSuffix(path, ".out.ipynb") {
			continue
		}
		nb, err := ReadNotebook(path)
		if err != nil {
			t.Error(err)
			continue
		}
		if dirty := cellsWithOutputs(nb); len(dirty) > 0 {
			t.Errorf("%s carries outputs in code cells %v: commit notebooks without outputs, so that diffs stay readable", path, dirty)
		}
	}
}
