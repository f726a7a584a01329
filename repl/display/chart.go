package display

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Series is one named line of a Chart.
type Series struct {
	Name string
	X, Y []float64
	// Dashed series take the colour and marker of the solid series before
	// them: a measured curve and its reference are one colour, two styles.
	Dashed bool
}

// Chart draws named series against one variable (time or memory against
// the order n, say) in one call, with logarithmic axes by default and the
// legend beside the plot, where it cannot cover the data. It renders as a
// PNG image when it is a cell's last value, or through Show.
type Chart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
	// Width and Height default to 8 x 5 inches.
	Width, Height vg.Length
}

// NewChart returns a chart with both axes logarithmic.
func NewChart(title, xlabel, ylabel string) *Chart {
	return &Chart{Title: title, XLabel: xlabel, YLabel: ylabel, LogX: true, LogY: true}
}

// Line adds a solid series.
func (c *Chart) Line(name string, x, y []float64) *Chart {
	c.Series = append(c.Series, Series{Name: name, X: x, Y: y})
	return c
}

// Dashed adds a dashed series in the colour of the last solid one.
func (c *Chart) Dashed(name string, x, y []float64) *Chart {
	c.Series = append(c.Series, Series{Name: name, X: x, Y: y, Dashed: true})
	return c
}

// Ints converts orders (or any counts) to the float64 a Series holds.
func Ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// Display draws the chart as a PNG bundle; a chart that cannot be drawn
// gives a text bundle naming the reason.
func (c *Chart) Display() Data {
	b, err := c.PNG()
	if err != nil {
		return Text(err.Error())
	}
	d := PNG(b)
	d.Bundle[MIMEText] = c.String()
	return d
}

// String names the chart and its series, for the terminal.
func (c *Chart) String() string {
	return fmt.Sprintf("[chart %q: %d series]", c.Title, len(c.Series))
}

// PNG draws the chart. Points that a logarithmic axis cannot show (zero or
// negative) are left out, and so are series with no point left.
func (c *Chart) PNG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	if c.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if c.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	style := -1
	drawn := 0
	for _, s := range c.Series {
		if !s.Dashed || style < 0 {
			style++
		}
		var pts plotter.XYs
		for i := 0; i < len(s.X) && i < len(s.Y); i++ {
			x, y := s.X[i], s.Y[i]
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || (c.LogX && x <= 0) || (c.LogY && y <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("display: chart %q, series %q: %w", c.Title, s.Name, err)
		}
		l.Color, sc.Color, sc.Shape = plotutil.Color(style), plotutil.Color(style), plotutil.Shape(style)
		if s.Dashed {
			l.Dashes = plotutil.Dashes(1)
		}
		p.Add(l, sc)
		leg.Add(s.Name, l, sc)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("display: chart %q has no point to draw", c.Title)
	}
	w, h := c.Width, c.Height
	if w == 0 {
		w = 8 * vg.Inch
	}
	if h == 0 {
		h = 5 * vg.Inch
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	// The legend gets a column of its own on the right.
	leg.Top, leg.Left = true, true
	lw := leg.Rectangle(dc).Size().X + vg.Points(12)
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	legArea := dc
	legArea.Min.X = dc.Max.X - lw + vg.Points(6)
	legArea.Max.Y -= vg.Points(24) // below the title's line
	leg.Draw(legArea)
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: chart %q: %w", c.Title, err)
	}
	return buf.Bytes(), nil
}

// logTicks labels a logarithmic axis at 1, 2 and 5 times the powers of ten
// (every integer multiple when the range is narrower than that gives three
// labels), so that an axis spanning less than a decade still reads.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= min {
		return plot.LogTicks{Prec: -1}.Ticks(math.Max(min, 1e-300), math.Max(max, 1e-300))
	}
	collect := func(mantissas []float64) []plot.Tick {
		var ticks []plot.Tick
		for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
			p := math.Pow(10, e)
			for m := 1.0; m < 10; m++ {
				v := m * p
				if v < min*(1-1e-9) || v > max*(1+1e-9) {
					continue
				}
				label := ""
				for _, lm := range mantissas {
					if m == lm {
						label = fmt.Sprintf("%g", v)
					}
				}
				ticks = append(ticks, plot.Tick{Value: v, Label: label})
			}
		}
		return ticks
	}
	labelled := func(ts []plot.Tick) int {
		n := 0
		for _, t := range ts {
			if t.Label != "" {
				n++
			}
		}
		return n
	}
	for _, ms := range [][]float64{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		if ts := collect(ms); labelled(ts) >= 3 {
			return ts
		}
	}
	return collect([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
}
