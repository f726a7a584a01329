package display

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
)

// Displayer is implemented by values that build their own MIME bundle.
type Displayer interface {
	Display() Data
}

// HTMLer is implemented by values with an HTML representation. Device
// arrays implement it with a summary and a bounded preview, so that
// rendering them never transfers a whole array to the host.
type HTMLer interface {
	HTML() string
}

// Markdowner is implemented by values with a Markdown representation.
type Markdowner interface {
	Markdown() string
}

// The single-representation interfaces of gophernotes, so that a type
// written for gophernotes renders here too.
type (
	// Renderer builds its own bundle, as Displayer does.
	Renderer interface{ Render() Data }
	// SimpleRenderer gives its representations as a MIMEMap.
	SimpleRenderer interface{ SimpleRender() map[string]any }
	JavaScripter   interface{ JavaScript() string }
	JPEGer         interface{ JPEG() []byte }
	JSONer         interface{ JSON() map[string]any }
	Latexer        interface{ Latex() string }
	PNGer          interface{ PNG() []byte }
	PDFer          interface{ PDF() []byte }
	SVGer          interface{ SVG() string }
)

// Render returns the MIME bundle of v. It tries, in order: Data itself,
// Displayer, gophernotes' Renderer and SimpleRenderer, HTMLer, Markdowner,
// the other single-type interfaces of gophernotes (Latexer, SVGer, PNGer,
// JPEGer, PDFer, JSONer, JavaScripter), gonum plots (PNG), images (PNG), gonum
// matrices (HTML with a bounded preview), and finally the value formatted
// with fmt. Rendering never fails: a value whose rich form cannot be built
// falls back to text that names the error. A nil value renders as an empty
// bundle.
func Render(v any) Data {
	switch x := v.(type) {
	case nil:
		return Data{}
	case Data:
		return x
	case *Data:
		if x == nil {
			return Data{}
		}
		return *x
	case Displayer:
		return x.Display()
	case Renderer:
		return x.Render()
	case SimpleRenderer:
		return withText(MIME(x.SimpleRender(), nil), v)
	case HTMLer:
		return Data{Bundle: map[string]any{MIMEHTML: x.HTML(), MIMEText: fmt.Sprint(v)}}
	case Markdowner:
		return Markdown(x.Markdown())
	case Latexer:
		return withText(Latex(x.Latex()), v)
	case SVGer:
		return withText(SVG(x.SVG()), v)
	case PNGer:
		return withText(PNG(x.PNG()), v)
	case JPEGer:
		return withText(JPEG(x.JPEG()), v)
	case PDFer:
		return withText(PDF(x.PDF()), v)
	case JSONer:
		return withText(JSON(x.JSON()), v)
	case JavaScripter:
		return withText(JavaScript(x.JavaScript()), v)
	case *plot.Plot:
		d, err := Plot(x, DefaultPlotWidth, DefaultPlotHeight)
		if err != nil {
			return Text(err.Error())
		}
		return d
	case image.Image:
		var b bytes.Buffer
		if err := png.Encode(&b, x); err != nil {
			return Text(fmt.Sprintf("display: encoding image: %v", err))
		}
		return PNG(b.Bytes())
	case mat.Matrix:
		return Matrix(x)
	}
	return Text(fmt.Sprint(v))
}

// withText sets the plain-text form of d to v's fmt text when v has a
// String method (a better terminal form than a placeholder).
func withText(d Data, v any) Data {
	if st, ok := v.(fmt.Stringer); ok {
		if d.Bundle == nil {
			d.Bundle = map[string]any{}
		}
		d.Bundle[MIMEText] = st.String()
	} else if _, ok := d.Bundle[MIMEText]; !ok {
		if d.Bundle == nil {
			d.Bundle = map[string]any{}
		}
		d.Bundle[MIMEText] = fmt.Sprint(v)
	}
	return d
}
