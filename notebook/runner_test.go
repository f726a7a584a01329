package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oclsolve/oclsolve/repl/display"
)

// collect is a Sink that records what a cell produced.
type collect struct {
	streams  map[string]string
	displays []display.Data
}

func (c *collect) Stream(name, text string) {
	if c.streams == nil {
		c.streams = map[string]string{}
	}
	c.streams[name] += text
}
func (c *collect) Display(d display.Data) { c.displays = append(c.displays, d) }

func TestCaptureReachesCOutput(t *testing.T) {
	var c collect
	capt, err := startCapture(c.Stream)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("go ")
	printC("buffered C stdio ") // stays in libc's buffer until flushed
	os.Stderr.WriteString("err ")
	os.Stdout.WriteString("héllo wörld")
	capt.stop()
	// C's stdio buffers its output until the capture flushes it, so it
	// may come after what Go wrote later: all of it must be there.
	out := c.streams["stdout"]
	if !strings.Contains(out, "buffered C stdio ") || strings.Replace(out, "buffered C stdio ", "", 1) != "go héllo wörld" || c.streams["stderr"] != "err " {
		t.Fatalf("captured %q", c.streams)
	}
	// Descriptors are restored: a second capture works the same.
	c = collect{}
	capt, err = startCapture(c.Stream)
	if err != nil {
		t.Fatal(err)
	}
	printC("again")
	capt.stop()
	if c.streams["stdout"] != "again" {
		t.Fatalf("second capture got %q", c.streams)
	}
}

func writeNotebook(t *testing.T, dir string, cells ...string) string {
	t.Helper()
	var cs []any
	for i, src := range cells {
		typ := "code"
		if strings.HasPrefix(src, "# ") {
			typ = "markdown"
		}
		cs = append(cs, map[string]any{"cell_type": typ, "id": string(rune('a' + i)), "metadata": map[string]any{}, "source": src, "outputs": []any{}, "execution_count": nil})
	}
	for _, c := range cs {
		if c.(map[string]any)["cell_type"] == "markdown" {
			delete(c.(map[string]any), "outputs")
			delete(c.(map[string]any), "execution_count")
		}
	}
	nb := map[string]any{"cells": cs, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5}
	b, _ := json.Marshal(nb)
	p := filepath.Join(dir, "t.ipynb")
	os.WriteFile(p, b, 0o644)
	return p
}

func TestRunNotebook(t *testing.T) {
	x, err := NewExecutor()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeNotebook(t, dir,
		"# A title",
		"v := 3\nfmt.Println(\"one\")\nfmt.Println(\"two\")\nv * 2",
		"display.Show(display.Markdown(\"**shown**\"))\np := plot.New()\np",
		"fmt.Println(\"before\")\npanic(\"stop here\")",
		"fmt.Println(\"never\")",
	)
	nb, err := ReadNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	var echo bytes.Buffer
	err = Run(x, nb, &echo)
	var ce *CellError
	if !errors.As(err, &ce) || ce.Name != "EvalError" || !strings.Contains(err.Error(), "code cell 3") {
		t.Fatalf("Run = %v, want the EvalError of code cell 3", err)
	}
	if echo.String() != "one\ntwo\nbefore\n" {
		t.Fatalf("echo %q", echo.String())
	}
	out := filepath.Join(dir, "out.ipynb")
	if err := nb.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNotebook(out)
	if err != nil {
		t.Fatal(err)
	}
	cells := back["cells"].([]any)
	outputs := func(i int) []any { return cells[i].(map[string]any)["outputs"].([]any) }
	o1 := outputs(1)
	if len(o1) != 2 || o1[0].(map[string]any)["output_type"] != "stream" ||
		strings.Join(toStrings(o1[0].(map[string]any)["text"]), "|") != "one\n|two\n" ||
		o1[1].(map[string]any)["output_type"] != "execute_result" || cells[1].(map[string]any)["execution_count"] != 1.0 {
		t.Fatalf("cell 1 outputs %v", o1)
	}
	o2 := outputs(2)
	if len(o2) != 2 || o2[0].(map[string]any)["output_type"] != "display_data" {
		t.Fatalf("cell 2 outputs %v", o2)
	}
	if png, _ := o2[1].(map[string]any)["data"].(map[string]any)["image/png"].(string); !strings.HasPrefix(png, "iVBORw0KGgo") {
		t.Fatalf("cell 2: the plot is not a base64 PNG: %.40q", png)
	}
	o3 := outputs(3)
	if last := o3[len(o3)-1].(map[string]any); last["output_type"] != "error" || !strings.Contains(last["evalue"].(string), "stop here") {
		t.Fatalf("cell 3 outputs %v", o3)
	}
	if len(outputs(4)) != 0 || cells[4].(map[string]any)["execution_count"] != nil {
		t.Fatal("a cell after the failing one ran")
	}
	if _, ok := cells[0].(map[string]any)["outputs"]; ok {
		t.Fatal("a markdown cell got outputs")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestReadNotebookErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"v3.ipynb":   `{"nbformat": 3, "worksheets": []}`,
		"json.ipynb": `{"cells": [`,
		"none.ipynb": `{"nbformat": 4}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := ReadNotebook(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("ReadNotebook(%s) = %v, want an error naming the file", name, err)
		}
	}
}

func TestMultiline(t *testing.T) {
	got := multiline("a\nb\n\nc")
	want := []any{"a\n", "b\n", "\n", "c"}
	if len(got) != len(want) {
		t.Fatalf("multiline = %q", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("multiline = %q", got)
		}
	}
}
