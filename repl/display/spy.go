package display

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Errors returned by Spy.
var (
	ErrLength = errors.New("display: index slices differ in length")
	ErrIndex  = errors.New("display: index out of range")
)

// spyPixels is the side of the spy plot's grid. A matrix larger than this
// is binned: a cell is dark when any entry falls in it, which keeps the SVG
// small (a few thousand rectangles at most for banded matrices) however
// many nonzeros the matrix has.
const spyPixels = 300

// Spy returns an SVG sparsity plot of an n×n matrix whose nonzeros sit at
// (rows[k], cols[k]), as MATLAB's and Matplotlib's spy draw it: row 0 at
// the top, one dark cell per nonzero. It fails with ErrLength if the index
// slices differ in length and ErrIndex if an index is outside [0, n).
func Spy(rows, cols []int, n int) (Data, error) {
	if len(rows) != len(cols) {
		return Data{}, fmt.Errorf("%w: %d rows, %d columns", ErrLength, len(rows), len(cols))
	}
	if n <= 0 {
		return Data{}, fmt.Errorf("%w: matrix order %d", ErrIndex, n)
	}
	g := n
	if g > spyPixels {
		g = spyPixels
	}
	occupied := make([]bool, g*g)
	for k := range rows {
		i, j := rows[k], cols[k]
		if i < 0 || i >= n || j < 0 || j >= n {
			return Data{}, fmt.Errorf("%w: entry %d at (%d, %d) in a %d×%d matrix", ErrIndex, k, i, j, n, n)
		}
		occupied[(i*g/n)*g+j*g/n] = true
	}
	cell := float64(spyPixels) / float64(g)
	const margin = 20
	size := spyPixels + 2*margin
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`, size, size+16, size, size+16)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="white" stroke="black"/>`, margin, margin, spyPixels, spyPixels)
	fmt.Fprintf(&b, `<g fill="#1f4e9c">`)
	// Runs of occupied cells in a row become one rectangle.
	for r := 0; r < g; r++ {
		for c := 0; c < g; {
			if !occupied[r*g+c] {
				c++
				continue
			}
			start := c
			for c < g && occupied[r*g+c] {
				c++
			}
			fmt.Fprintf(&b, `<rect x="%.3f" y="%.3f" width="%.3f" height="%.3f"/>`,
				margin+float64(start)*cell, margin+float64(r)*cell, float64(c-start)*cell, cell)
		}
	}
	b.WriteString(`</g>`)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-family="sans-serif" font-size="12">n = %d, nnz = %d</text>`, margin, size+8, n, len(rows))
	b.WriteString(`</svg>`)
	d := SVG(b.String())
	d.Bundle[MIMEText] = fmt.Sprintf("[spy plot: n = %d, nnz = %d]", n, len(rows))
	// The same picture as an HTML image: front ends prefer HTML, and
	// nbconvert's HTML export strips the shapes out of inline SVG.
	d.Bundle[MIMEHTML] = fmt.Sprintf(`<img alt="spy plot, n = %d" src="data:image/svg+xml;base64,%s">`, n, base64.StdEncoding.EncodeToString([]byte(b.String())))
	return d, nil
}

// SpyInt32 is Spy for int32 indices, as sparse.COO stores them.
func SpyInt32(rows, cols []int32, n int) (Data, error) {
	r := make([]int, len(rows))
	for k, v := range rows {
		r[k] = int(v)
	}
	c := make([]int, len(cols))
	for k, v := range cols {
		c[k] = int(v)
	}
	return Spy(r, c, n)
}
