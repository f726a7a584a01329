package display

import (
	"fmt"
	"html"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// previewEdge is how many leading and trailing rows and columns a matrix
// preview shows; the rest is elided, so a preview costs O(1) elements.
const previewEdge = 4

// Matrix returns the bundle of a gonum matrix: an HTML table of at most
// 2*4 rows and columns (the corners of the matrix, with ellipses between)
// and gonum's own excerpted text form.
func Matrix(m mat.Matrix) Data {
	r, c := m.Dims()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="oclsolve-matrix"><div><b>%s</b> %d&times;%d</div>`, html.EscapeString(fmt.Sprintf("%T", m)), r, c)
	b.WriteString(`<table style="font-family:monospace">`)
	rows, cols := previewIndices(r), previewIndices(c)
	for _, i := range rows {
		b.WriteString("<tr>")
		for _, j := range cols {
			switch {
			case i < 0 && j < 0:
				b.WriteString("<td>&#8945;</td>")
			case i < 0:
				b.WriteString("<td>&#8942;</td>")
			case j < 0:
				b.WriteString("<td>&#8943;</td>")
			default:
				fmt.Fprintf(&b, `<td style="text-align:right">%.6g</td>`, m.At(i, j))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	text := fmt.Sprintf("%T %dx%d\n%v", m, r, c, mat.Formatted(m, mat.Excerpt(previewEdge), mat.Squeeze()))
	return Data{Bundle: map[string]any{MIMEHTML: b.String(), MIMEText: text}}
}

// previewIndices lists the indices a preview shows along a dimension of
// length n, with -1 marking the elided middle.
func previewIndices(n int) []int {
	var idx []int
	if n <= 2*previewEdge {
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for i := 0; i < previewEdge; i++ {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - previewEdge; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}
