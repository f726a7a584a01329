// Package display turns Go values into the rich output of a notebook cell:
// HTML, Markdown, SVG, PNG, LaTeX and JSON, with a plain-text fallback for
// the terminal. The oclsolve kernel renders the last value of a cell with
// Render, and Show publishes a value in the middle of a cell.
//
// A type takes part by implementing one of the interfaces in render.go:
// Displayer (a full MIME bundle), HTMLer, Markdowner or fmt.Stringer.
package display

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// MIME types that notebooks understand.
const (
	MIMEText     = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMELaTeX    = "text/latex"
	MIMESVG      = "image/svg+xml"
	MIMEPNG      = "image/png"
	MIMEJSON     = "application/json"
	MIMEJPEG     = "image/jpeg"
	MIMEPDF      = "application/pdf"
	MIMEJS       = "application/javascript"
)

// Data is a MIME bundle: one value in several representations, from which
// the front end picks the richest it can show. Values are strings, except
// for MIMEJSON whose value is any JSON-encodable value. PNG images are
// base64-encoded, as the Jupyter protocol requires.
type Data struct {
	Bundle   map[string]any
	Metadata map[string]any
	// DisplayID names a display that later bundles replace in place
	// (Jupyter's display_id, see Handle); Update marks such a
	// replacement (an update_display_data message) rather than a new
	// output.
	DisplayID string `json:",omitempty"`
	Update    bool   `json:",omitempty"`
}

// Text returns the plain-text representation of d, or "" if it has none.
func (d Data) Text() string {
	s, _ := d.Bundle[MIMEText].(string)
	return s
}

// String returns the plain-text representation, so that Data prints
// sensibly in the terminal REPL.
func (d Data) String() string { return d.Text() }

// IsEmpty reports whether d holds no representation at all.
func (d Data) IsEmpty() bool { return len(d.Bundle) == 0 }

func bundle(mime string, content any, text string) Data {
	return Data{Bundle: map[string]any{mime: content, MIMEText: text}}
}

// Text returns a plain-text bundle.
func Text(s string) Data { return Data{Bundle: map[string]any{MIMEText: s}} }

// HTML returns a bundle that shows s as HTML.
func HTML(s string) Data { return bundle(MIMEHTML, s, "[HTML]") }

// Markdown returns a bundle that shows s as Markdown; the terminal sees the
// Markdown source.
func Markdown(s string) Data { return bundle(MIMEMarkdown, s, s) }

// LaTeX returns a bundle that shows s as a LaTeX formula. A formula without
// math delimiters is put in display math.
func LaTeX(s string) Data {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "$") && !strings.HasPrefix(t, `\[`) && !strings.HasPrefix(t, `\begin`) {
		t = "$$" + t + "$$"
	}
	return bundle(MIMELaTeX, t, s)
}

// SVG returns a bundle that shows the SVG document s.
func SVG(s string) Data { return bundle(MIMESVG, s, "[SVG image]") }

// PNG returns a bundle that shows the PNG-encoded image b.
func PNG(b []byte) Data {
	return bundle(MIMEPNG, base64.StdEncoding.EncodeToString(b), fmt.Sprintf("[PNG image, %d bytes]", len(b)))
}

// JSON returns a bundle that shows v as a JSON tree; v is anything
// encoding/json accepts (gophernotes takes a map[string]interface{}, which
// is one such value). It is one value, so that display.JSON(m) can end a
// cell; a v that cannot be encoded gives a text bundle naming the error.
func JSON(v any) Data {
	b, err := json.Marshal(v)
	if err != nil {
		return Text(fmt.Sprintf("display: JSON: %v", err))
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return Text(fmt.Sprintf("display: JSON: %v", err))
	}
	indented, _ := json.MarshalIndent(tree, "", "  ")
	return bundle(MIMEJSON, tree, string(indented))
}
