package display

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

type htmlThing struct{}

func (htmlThing) HTML() string   { return "<b>thing</b>" }
func (htmlThing) String() string { return "thing" }

type mdThing struct{}

func (mdThing) Markdown() string { return "*md*" }

type custom struct{}

func (custom) Display() Data { return SVG("<svg/>") }

func TestRenderDispatch(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.White)
	cases := []struct {
		v    any
		mime string
		text string
	}{
		{htmlThing{}, MIMEHTML, "thing"},
		{mdThing{}, MIMEMarkdown, "*md*"},
		{custom{}, MIMESVG, "[SVG image]"},
		{HTML("<p>x</p>"), MIMEHTML, "[HTML]"},
		{42, MIMEText, "42"},
		{img, MIMEPNG, "[PNG image"},
		{mat.NewDense(1, 2, []float64{1, 2}), MIMEHTML, "*mat.Dense 1x2"},
	}
	for _, c := range cases {
		d := Render(c.v)
		if _, ok := d.Bundle[c.mime]; !ok || !strings.HasPrefix(d.Text(), c.text) {
			t.Errorf("Render(%T) = %v, want %s and text %q", c.v, d.Bundle, c.mime, c.text)
		}
	}
	if !Render(nil).IsEmpty() {
		t.Error("Render(nil) is not empty")
	}
}

func TestMatrixPreviewIsBounded(t *testing.T) {
	n := 1000
	m := mat.NewDense(n, n, nil)
	m.Set(0, 0, 1.5)
	m.Set(n-1, n-1, 2.5)
	m.Set(n/2, n/2, 99) // in the elided middle
	d := Matrix(m)
	html := d.Bundle[MIMEHTML].(string)
	if rows := strings.Count(html, "<tr>"); rows != 2*previewEdge+1 {
		t.Fatalf("%d table rows for a %dx%d matrix, want %d", rows, n, n, 2*previewEdge+1)
	}
	if cells := strings.Count(html, "<td"); cells != (2*previewEdge+1)*(2*previewEdge+1) {
		t.Fatalf("%d table cells", cells)
	}
	if !strings.Contains(html, ">1.5<") || !strings.Contains(html, ">2.5<") || strings.Contains(html, ">99<") {
		t.Fatal("the preview does not show the corners, or shows the middle")
	}
	if !strings.Contains(html, "1000&times;1000") {
		t.Fatal("the preview does not name the dimensions")
	}
	small := Matrix(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})).Bundle[MIMEHTML].(string)
	if strings.Count(small, "<tr>") != 2 || strings.Count(small, "<td") != 6 || strings.Contains(small, "&#8943;") {
		t.Fatalf("a small matrix is elided: %s", small)
	}
}

func TestSpy(t *testing.T) {
	// A 4x4 arrow matrix: full first row and column, and the diagonal.
	var rows, cols []int
	for i := 0; i < 4; i++ {
		rows, cols = append(rows, 0, i, i), append(cols, i, 0, i)
	}
	d, err := Spy(rows, cols, 4)
	if err != nil {
		t.Fatal(err)
	}
	svg := d.Bundle[MIMESVG].(string)
	// Row 0 is one run of 4 cells; rows 1-3 are two runs each (column 0
	// and the diagonal), except that row 1's diagonal touches column 0.
	if got := strings.Count(svg, "<rect") - 1; got != 1+1+2+2 {
		t.Fatalf("%d nonzero runs drawn, want 6:\n%s", got, svg)
	}
	if !strings.Contains(d.Text(), "n = 4, nnz = 12") {
		t.Fatalf("text %q", d.Text())
	}
	// A large matrix is binned: the SVG stays small however many nonzeros.
	n := 100000
	rows, cols = make([]int, n), make([]int, n)
	for i := range rows {
		rows[i], cols[i] = i, i
	}
	d, err = Spy(rows, cols, n)
	if err != nil {
		t.Fatal(err)
	}
	if runs := strings.Count(d.Bundle[MIMESVG].(string), "<rect") - 1; runs != spyPixels {
		t.Fatalf("a diagonal of %d binned into %d runs, want %d", n, runs, spyPixels)
	}
	if _, err := Spy([]int{0}, []int{0, 1}, 2); !errors.Is(err, ErrLength) {
		t.Errorf("mismatched lengths: %v", err)
	}
	if _, err := Spy([]int{0, 2}, []int{0, 0}, 2); !errors.Is(err, ErrIndex) {
		t.Errorf("row out of range: %v", err)
	}
	if _, err := Spy(nil, nil, 0); !errors.Is(err, ErrIndex) {
		t.Errorf("empty order: %v", err)
	}
	d32, err := SpyInt32([]int32{0, 1}, []int32{1, 0}, 2)
	d64, _ := Spy([]int{0, 1}, []int{1, 0}, 2)
	if err != nil || d32.Bundle[MIMESVG] != d64.Bundle[MIMESVG] {
		t.Errorf("SpyInt32 differs from Spy: %v", err)
	}
}

func TestConstructors(t *testing.T) {
	if d := LaTeX(`x^2`); d.Bundle[MIMELaTeX] != "$$x^2$$" {
		t.Errorf("LaTeX without delimiters: %v", d.Bundle)
	}
	if d := LaTeX(`$x$`); d.Bundle[MIMELaTeX] != "$x$" {
		t.Errorf("LaTeX with delimiters: %v", d.Bundle)
	}
	d := JSON(map[string]int{"a": 1})
	if d.Bundle[MIMEJSON].(map[string]any)["a"] != 1.0 {
		t.Errorf("JSON: %v", d.Bundle)
	}
	if d := JSON(func() {}); d.Bundle[MIMEJSON] != nil || !strings.Contains(d.Text(), "display: JSON") {
		t.Errorf("JSON of a func: %v", d.Bundle)
	}
	png := PNG([]byte{1, 2, 3})
	if b, _ := base64.StdEncoding.DecodeString(png.Bundle[MIMEPNG].(string)); !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Error("PNG is not base64 of the bytes")
	}
}

func TestPlot(t *testing.T) {
	p := plot.New()
	line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(line)
	d := Render(p)
	b, err := base64.StdEncoding.DecodeString(fmt.Sprint(d.Bundle[MIMEPNG]))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("Render(plot) is not a PNG: %v", err)
	}
	s, err := PlotSVG(p, DefaultPlotWidth, DefaultPlotHeight)
	if err != nil || !strings.Contains(s.Bundle[MIMESVG].(string), "<svg") {
		t.Fatalf("PlotSVG: %v", err)
	}
	if _, err := Plot(nil, 1, 1); err == nil {
		t.Fatal("Plot(nil) did not fail")
	}
}

func TestShowUsesPublisher(t *testing.T) {
	var got []Data
	prev := SetPublisher(func(d Data) { got = append(got, d) })
	defer SetPublisher(prev)
	Show(HTML("<i>x</i>"))
	Show(nil) // nothing to show
	if len(got) != 1 || got[0].Bundle[MIMEHTML] != "<i>x</i>" {
		t.Fatalf("published %v", got)
	}
}

type svgThing struct{}

func (svgThing) SVG() string    { return "<svg/>" }
func (svgThing) String() string { return "an svg thing" }

type renderThing struct{}

func (renderThing) Render() Data { return Markdown("*r*") }

// TestGophernotesNames checks each gophernotes display name gives the MIME
// type gophernotes gives it.
func TestGophernotesNames(t *testing.T) {
	dir := t.TempDir()
	pngFile := filepath.Join(dir, "x.png")
	img := image.NewGray(image.Rect(0, 0, 1, 1))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pngFile, buf.Bytes(), 0o644)
	cases := []struct {
		d    Data
		mime string
	}{
		{HTML("<b>x</b>"), MIMEHTML},
		{Markdown("*x*"), MIMEMarkdown},
		{Latex("x^2"), MIMELaTeX},
		{Math("x^2"), MIMELaTeX},
		{SVG("<svg/>"), MIMESVG},
		{PNG(buf.Bytes()), MIMEPNG},
		{JPEG([]byte{0xff, 0xd8, 0xff}), MIMEJPEG},
		{PDF([]byte("%PDF-1.4")), MIMEPDF},
		{JavaScript("console.log(1)"), MIMEJS},
		{JSON(map[string]any{"a": 1}), MIMEJSON},
		{Any("text/html", "<i>y</i>"), MIMEHTML},
		{Auto(buf.Bytes()), MIMEPNG},
		{Auto([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>")), MIMESVG},
		{Auto(strings.NewReader("%PDF-1.4 ...")), MIMEPDF},
		{File("", pngFile), MIMEPNG},
		{File("image/png", pngFile), MIMEPNG},
		{MakeData("text/html", "<p/>"), MIMEHTML},
		{MakeData3("text/markdown", "plain", "*md*"), MIMEMarkdown},
		{MIME(MIMEMap{MIMESVG: "<svg/>", MIMEText: "t"}, nil), MIMESVG},
		{Render(svgThing{}), MIMESVG},
		{Render(renderThing{}), MIMEMarkdown},
	}
	for i, c := range cases {
		if _, ok := c.d.Bundle[c.mime]; !ok {
			t.Errorf("case %d: bundle %v lacks %s", i, c.d.Bundle, c.mime)
		}
		if _, ok := c.d.Bundle[MIMEText]; !ok {
			t.Errorf("case %d: bundle %v lacks text/plain", i, c.d.Bundle)
		}
	}
	if Latex("x").Bundle[MIMELaTeX] != "$x$" || Math("$x$").Bundle[MIMELaTeX] != "$$x$$" {
		t.Error("Latex is inline math and Math display math")
	}
	if b, _ := base64.StdEncoding.DecodeString(JPEG([]byte{1, 2}).Bundle[MIMEJPEG].(string)); !bytes.Equal(b, []byte{1, 2}) {
		t.Error("JPEG is not base64 of the bytes")
	}
	if d := File("", filepath.Join(dir, "missing")); !strings.Contains(d.Text(), "missing") {
		t.Errorf("File of a missing file: %v", d.Bundle)
	}
	if Render(svgThing{}).Text() != "an svg thing" {
		t.Error("an SVGer's text form is not its String")
	}
	var got []Data
	prev := SetPublisher(func(d Data) { got = append(got, d) })
	defer SetPublisher(prev)
	if err := Display(HTML("<i>z</i>")); err != nil || len(got) != 1 {
		t.Fatalf("Display: %v, published %v", err, got)
	}
}

func TestChartAndTable(t *testing.T) {
	n := []float64{1000, 2000, 4000, 8000}
	c := NewChart("time against n", "order n", "s").
		Line("SKS Ch", n, []float64{0.1, 0.3, 0.9, 2.7}).Dashed("SKS Ch (thesis)", n, []float64{0.3, 0.7, 1.7, 6}).
		Line("CSC CG", n, []float64{1, 0, 3, 9}) // the zero is left out on a log axis
	d := c.Display()
	b, err := base64.StdEncoding.DecodeString(fmt.Sprint(d.Bundle[MIMEPNG]))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("chart is not a PNG: %v %v", err, d.Bundle[MIMEText])
	}
	if os.Getenv("OCLSOLVE_CHART_OUT") != "" {
		os.WriteFile(os.Getenv("OCLSOLVE_CHART_OUT"), b, 0o644)
	}
	if _, err := NewChart("empty", "x", "y").Line("none", []float64{0}, []float64{0}).PNG(); err == nil {
		t.Error("a chart with no drawable point did not fail")
	}
	tab := NewTable("Model 1", "n", "time", "method").Row(1080, 0.12345678, "SKS Ch").Row(2016, nil, "CSC CG").Note("· not run")
	h := Render(tab)
	if html := h.Bundle[MIMEHTML].(string); !strings.Contains(html, "<td") || !strings.Contains(html, "0.1235") || !strings.Contains(html, "·") {
		t.Errorf("table HTML %s", html)
	}
	if !strings.Contains(h.Text(), "1080") || !strings.Contains(h.Text(), "· not run") {
		t.Errorf("table text %q", h.Text())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("Check(err) did not stop")
		}
	}()
	Check(nil)
	Check(errors.New("stop"))
}
