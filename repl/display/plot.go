package display

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// The size at which Render draws a plot.
const (
	DefaultPlotWidth  = 6 * vg.Inch
	DefaultPlotHeight = 4 * vg.Inch
)

// Plot draws p as a PNG image of the given size.
func Plot(p *plot.Plot, w, h vg.Length) (Data, error) {
	b, err := drawPlot(p, w, h, "png")
	if err != nil {
		return Data{}, err
	}
	return PNG(b), nil
}

// PlotSVG draws p as an SVG image of the given size.
func PlotSVG(p *plot.Plot, w, h vg.Length) (Data, error) {
	b, err := drawPlot(p, w, h, "svg")
	if err != nil {
		return Data{}, err
	}
	return SVG(string(b)), nil
}

func drawPlot(p *plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("display: nil plot")
	}
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("display: drawing plot: %w", err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("display: drawing plot: %w", err)
	}
	return b.Bytes(), nil
}
