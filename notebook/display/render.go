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

// Render returns the MIME bundle of v. It tries, in order: Data itself,
// Displayer, HTMLer, Markdowner, gonum plots (PNG), images (PNG), gonum
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
	case HTMLer:
		return Data{Bundle: map[string]any{MIMEHTML: x.HTML(), MIMEText: fmt.Sprint(v)}}
	case Markdowner:
		return Markdown(x.Markdown())
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
