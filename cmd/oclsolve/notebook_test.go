package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNotebookRunQuickstart executes notebooks/00-quickstart.ipynb headless,
// as `make test` does, and checks that every code cell ran and the rich
// outputs are there.
func TestNotebookRunQuickstart(t *testing.T) {
	wd, _ := os.Getwd()
	t.Chdir(wd) // the runner moves to the notebook's directory; restore it after
	in := filepath.Join(wd, "..", "..", "notebooks", "00-quickstart.ipynb")
	out := filepath.Join(t.TempDir(), "out.ipynb")
	var code int
	withStdio(t, "", func() { code = runMain([]string{"notebook", "run", "-q", in, out}, os.Stdout, os.Stderr) })
	if code != 0 {
		t.Fatalf("notebook run: exit %d", code)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string `json:"cell_type"`
			Count    *int   `json:"execution_count"`
			Outputs  []struct {
				Type string         `json:"output_type"`
				Data map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	mimes := map[string]bool{}
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		if c.Count == nil {
			t.Fatal("a code cell did not run")
		}
		for _, o := range c.Outputs {
			if o.Type == "error" {
				t.Fatal("a cell failed")
			}
			for m := range o.Data {
				mimes[m] = true
			}
		}
	}
	for _, m := range []string{"text/html", "image/png", "image/svg+xml"} {
		if !mimes[m] {
			t.Errorf("no %s output", m)
		}
	}
}

func TestNotebookRunFailure(t *testing.T) {
	wd, _ := os.Getwd()
	t.Chdir(wd)
	dir := t.TempDir()
	in := filepath.Join(dir, "fail.ipynb")
	os.WriteFile(in, []byte(`{"cells":[{"cell_type":"code","execution_count":null,"id":"a","metadata":{},"outputs":[],"source":"panic(\"no\")"}],"metadata":{},"nbformat":4,"nbformat_minor":5}`), 0o644)
	var code int
	withStdio(t, "", func() { code = runMain([]string{"notebook", "run", in}, io.Discard, io.Discard) })
	if code != 1 {
		t.Fatalf("a failing notebook: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "fail.out.ipynb")); err != nil {
		t.Fatalf("the outputs up to the failure were not saved: %v", err)
	}
	if code := runMain([]string{"notebook", "convert", in}, io.Discard, io.Discard); code != 2 {
		t.Fatalf("unknown notebook subcommand: exit %d", code)
	}
}

// TestNotebookThroughJupyter runs the quickstart through Debian's real
// Jupyter (jupyter nbconvert --execute) with the oclsolve kernelspec.
func TestNotebookThroughJupyter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter")
	}
	needTool(t, "jupyter-nbconvert", "jupyter-nbconvert")
	bin := oclsolveBinary(t)
	cmd := exec.Command("sh", "notebook/testdata/jupyter_nbconvert.sh", bin)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestDisplayNamesThroughJupyter runs a notebook that ends each cell with
// one of gophernotes' display names through Debian's Jupyter, and checks
// the MIME type of every cell's output.
func TestDisplayNamesThroughJupyter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter")
	}
	needTool(t, "jupyter-nbconvert", "jupyter-nbconvert")
	bin := oclsolveBinary(t)
	cmd := exec.Command("sh", "notebook/testdata/jupyter_nbconvert.sh", bin, "notebook/testdata/display_names.ipynb")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestProgressThroughJupyter checks a long cell's updating progress display
// through Debian's Jupyter: display_data with a display_id, then
// update_display_data messages with the same id (jupyter_client), and the
// one output nbconvert keeps.
func TestProgressThroughJupyter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter")
	}
	needTool(t, "jupyter-nbconvert", "jupyter-nbconvert")
	bin := oclsolveBinary(t)
	cmd := exec.Command("sh", "notebook/testdata/jupyter_progress.sh", bin)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
