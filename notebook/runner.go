package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/oclsolve/oclsolve/repl/display"
)

// Notebook is an nbformat 4 document. Fields the runner does not touch
// are kept as they were read.
type Notebook map[string]any

// ReadNotebook parses an .ipynb file; it must be nbformat 4.
func ReadNotebook(path string) (Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %w", path, err)
	}
	if v, _ := nb["nbformat"].(float64); v != 4 {
		return nil, fmt.Errorf("%s: nbformat %v, want 4", path, nb["nbformat"])
	}
	if _, ok := nb["cells"].([]any); !ok {
		return nil, fmt.Errorf("%s: notebook has no cells list", path)
	}
	return nb, nil
}

// Write encodes nb as Jupyter does: one-space indentation, sorted keys, a
// final newline.
func (nb Notebook) Write(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any(nb)); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteFile writes nb to path.
func (nb Notebook) WriteFile(path string) error {
	var b bytes.Buffer
	if err := nb.Write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// cellSource joins a cell's source, which nbformat stores as a string or a
// list of lines.
func cellSource(cell map[string]any) string {
	switch s := cell["source"].(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, line := range s {
			if l, ok := line.(string); ok {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	return ""
}

// multiline splits text into nbformat's list of lines, each keeping its
// newline.
func multiline(text string) []any {
	var lines []any
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// mimeBundle converts a display bundle to nbformat's output data: text
// types as lists of lines, JSON as a tree, images as base64 strings.
func mimeBundle(d display.Data) map[string]any {
	data := map[string]any{}
	for mime, v := range d.Bundle {
		if s, ok := v.(string); ok && strings.HasPrefix(mime, "text/") {
			data[mime] = multiline(s)
		} else {
			data[mime] = v
		}
	}
	return data
}

func metadata(d display.Data) map[string]any {
	if d.Metadata == nil {
		return map[string]any{}
	}
	return d.Metadata
}

// cellOutputs collects a cell's outputs in nbformat form, merging
// consecutive chunks of the same stream.
type cellOutputs struct {
	outputs []any
	echo    io.Writer        // where streamed text is also shown, or nil
	ids     map[string][]int // outputs by display_id, for updates
	// mu serialises the stream pumps, the cell's displays and the
	// progress display, which arrive from different goroutines.
	mu sync.Mutex
}

func (c *cellOutputs) Stream(name, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.echo != nil {
		io.WriteString(c.echo, text)
	}
	if n := len(c.outputs); n > 0 {
		if last, ok := c.outputs[n-1].(map[string]any); ok && last["output_type"] == "stream" && last["name"] == name {
			last["_text"] = last["_text"].(string) + text
			return
		}
	}
	c.outputs = append(c.outputs, map[string]any{"output_type": "stream", "name": name, "_text": text})
}

// Display adds a display_data output, or for an update replaces the
// outputs shown with its display_id, as Jupyter front ends do (an update of
// an unknown id is dropped, as they drop it).
func (c *cellOutputs) Display(d display.Data) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.Update {
		for _, i := range c.ids[d.DisplayID] {
			c.outputs[i] = map[string]any{"output_type": "display_data", "data": mimeBundle(d), "metadata": metadata(d)}
		}
		return
	}
	if d.DisplayID != "" {
		if c.ids == nil {
			c.ids = map[string][]int{}
		}
		c.ids[d.DisplayID] = append(c.ids[d.DisplayID], len(c.outputs))
	}
	c.outputs = append(c.outputs, map[string]any{"output_type": "display_data", "data": mimeBundle(d), "metadata": metadata(d)})
}

// finish turns the accumulated stream texts into nbformat's line lists.
func (c *cellOutputs) finish() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.outputs {
		if m, ok := o.(map[string]any); ok {
			if t, ok := m["_text"].(string); ok {
				m["text"] = multiline(t)
				delete(m, "_text")
			}
		}
	}
	if c.outputs == nil {
		return []any{}
	}
	return c.outputs
}

// Run executes every code cell of nb in order with x, replacing the
// cells' outputs and execution counts. It stops at the first failing cell,
// whose error is recorded in its outputs and returned; nb then holds the
// outputs up to that cell. Streamed text is copied to echo if it is not nil.
func Run(x Session, nb Notebook, echo io.Writer) error {
	cells, _ := nb["cells"].([]any)
	count := 0
	for i, c := range cells {
		cell, ok := c.(map[string]any)
		if !ok || cell["cell_type"] != "code" {
			continue
		}
		src := cellSource(cell)
		count++
		cell["execution_count"] = count
		out := &cellOutputs{echo: echo}
		result, err := x.Execute(src, out)
		if result != nil {
			out.outputs = append(out.outputs, map[string]any{
				"output_type": "execute_result", "execution_count": count,
				"data": mimeBundle(*result), "metadata": metadata(*result),
			})
		}
		if err != nil {
			ce, ok := err.(*CellError)
			if !ok {
				ce = &CellError{Name: "Error", Value: err.Error(), Traceback: []string{err.Error()}}
			}
			tb := make([]any, len(ce.Traceback))
			for k, t := range ce.Traceback {
				tb[k] = t
			}
			out.outputs = append(out.outputs, map[string]any{"output_type": "error", "ename": ce.Name, "evalue": ce.Value, "traceback": tb})
			cell["outputs"] = out.finish()
			return fmt.Errorf("cell %d (code cell %d): %w", i, count, ce)
		}
		cell["outputs"] = out.finish()
	}
	return nil
}
