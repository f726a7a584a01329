package afarray

import (
	"fmt"
	"html"
	"strings"
)

// PreviewEdge is how many leading and trailing rows and columns a printed
// array shows. Printing an array moves at most (2*PreviewEdge)^2 elements to
// the host, whatever its size.
const PreviewEdge = 4

// preview holds the visible corner of an array: the selected row and column
// indices and their values.
type preview struct {
	rows, cols []int
	vals       [][]float64 // vals[r][c] for rows[r], cols[c]
}

func edges(n int) []int {
	if n <= 2*PreviewEdge {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, 2*PreviewEdge)
	for i := 0; i < PreviewEdge; i++ {
		idx = append(idx, i)
	}
	for i := n - PreviewEdge; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// contiguous splits sorted indices into runs [start, end).
func contiguous(idx []int) [][2]int {
	var runs [][2]int
	for _, i := range idx {
		if len(runs) > 0 && runs[len(runs)-1][1] == i {
			runs[len(runs)-1][1]++
		} else {
			runs = append(runs, [2]int{i, i + 1})
		}
	}
	return runs
}

// takePreview reads only the corner elements from the device (or from the
// host copy when it is current).
func (a *Array) takePreview() (*preview, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	p := &preview{rows: edges(a.rows), cols: edges(a.cols)}
	p.vals = make([][]float64, len(p.rows))
	for r := range p.vals {
		p.vals[r] = make([]float64, len(p.cols))
	}
	if a.hostValid {
		all, _ := a.Float64s()
		for r, i := range p.rows {
			for c, j := range p.cols {
				p.vals[r][c] = all[i+a.rows*j]
			}
		}
		return p, nil
	}
	var moved int64
	for c, j := range p.cols {
		r0 := 0
		for _, run := range contiguous(p.rows) {
			n := run[1] - run[0]
			off := int64(run[0]+a.rows*j) * a.dtype.Size()
			vals, err := a.readRun(off, n)
			if err != nil {
				return nil, err
			}
			for k, v := range vals {
				p.vals[r0+k][c] = v
			}
			r0 += n
			moved += int64(n) * a.dtype.Size()
		}
	}
	if moved > 0 {
		a.countDown(moved)
	}
	return p, nil
}

func (a *Array) readRun(off int64, n int) ([]float64, error) {
	out := make([]float64, n)
	switch a.dtype {
	case Float64:
		return out, a.buf.Read(off, out)
	case Float32:
		s := make([]float32, n)
		if err := a.buf.Read(off, s); err != nil {
			return nil, err
		}
		for i, v := range s {
			out[i] = float64(v)
		}
	default:
		s := make([]int32, n)
		if err := a.buf.Read(off, s); err != nil {
			return nil, err
		}
		for i, v := range s {
			out[i] = float64(v)
		}
	}
	return out, nil
}

func (a *Array) header() string {
	shape := fmt.Sprintf("%dx%d", a.rows, a.cols)
	if a.vector {
		shape = fmt.Sprintf("%d", a.rows)
	}
	return fmt.Sprintf("afarray.Array %s %s on %s", shape, a.dtype, a.dev.Name())
}

func (a *Array) formatValue(v float64) string {
	if a.dtype == Int32 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.6g", v)
}

// String describes the array: shape, dtype, device and a bounded preview of
// its corners. It never transfers the whole array.
func (a *Array) String() string {
	if a.Released() {
		return "afarray.Array (released)"
	}
	p, err := a.takePreview()
	if err != nil {
		return a.header() + " (preview failed: " + err.Error() + ")"
	}
	var b strings.Builder
	b.WriteString(a.header())
	if a.Len() == 0 {
		b.WriteString(" (empty)")
		return b.String()
	}
	cells := make([][]string, len(p.rows))
	width := 0
	for r := range p.rows {
		cells[r] = make([]string, len(p.cols))
		for c := range p.cols {
			cells[r][c] = a.formatValue(p.vals[r][c])
			width = max(width, len(cells[r][c]))
		}
	}
	for r, i := range p.rows {
		if r > 0 && i != p.rows[r-1]+1 {
			b.WriteString("\n  ...")
		}
		b.WriteString("\n ")
		for c, j := range p.cols {
			if c > 0 && j != p.cols[c-1]+1 {
				b.WriteString("  ...")
			}
			fmt.Fprintf(&b, " %*s", width, cells[r][c])
		}
	}
	return b.String()
}

// HTML renders the same bounded preview as an HTML table, for notebooks.
func (a *Array) HTML() string {
	if a.Released() {
		return "<p><code>afarray.Array</code> (released)</p>"
	}
	p, err := a.takePreview()
	if err != nil {
		return "<p>" + html.EscapeString(a.header()) + " (preview failed)</p>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<div><p><code>%s</code> &middot; %s on device</p>", html.EscapeString(a.header()), byteString(a.Bytes()))
	if a.Len() == 0 {
		return b.String() + "</div>"
	}
	b.WriteString(`<table style="font-family:monospace"><tr><th></th>`)
	for c, j := range p.cols {
		if c > 0 && j != p.cols[c-1]+1 {
			b.WriteString("<th>&hellip;</th>")
		}
		fmt.Fprintf(&b, "<th>%d</th>", j)
	}
	b.WriteString("</tr>")
	for r, i := range p.rows {
		if r > 0 && i != p.rows[r-1]+1 {
			fmt.Fprintf(&b, `<tr><th>&vellip;</th><td colspan="%d"></td></tr>`, len(p.cols)+1)
		}
		fmt.Fprintf(&b, "<tr><th>%d</th>", i)
		for c, j := range p.cols {
			if c > 0 && j != p.cols[c-1]+1 {
				b.WriteString("<td>&hellip;</td>")
			}
			fmt.Fprintf(&b, "<td>%s</td>", a.formatValue(p.vals[r][c]))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	return b.String()
}

func byteString(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.2f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// Format implements fmt.Formatter so that %v and %s print the bounded
// preview, never the whole array.
func (a *Array) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, a.String())
}
