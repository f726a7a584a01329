package display

import (
	"fmt"
	"html"
	"strings"
	"text/tabwriter"
	"time"
)

// Table is a result table: a title, a header and rows of cells. It renders
// as an HTML table in a notebook and as aligned text in the terminal, so
// that a study cell adds rows instead of building Markdown by hand.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Notes are printed under the table (sources, units, what a mark means).
	Notes []string
}

// NewTable returns an empty table with the given column names.
func NewTable(title string, header ...string) *Table {
	return &Table{Title: title, Header: header}
}

// Row adds a row. Cells are formatted by kind: float64 with four
// significant digits (%.4g), durations in seconds, nil as "·" (not run),
// anything else with fmt.
func (t *Table) Row(cells ...any) *Table {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = Cell(c)
	}
	t.Rows = append(t.Rows, row)
	return t
}

// Note adds a line under the table.
func (t *Table) Note(s string) *Table {
	t.Notes = append(t.Notes, s)
	return t
}

// Cell formats one table cell the way Row does.
func Cell(c any) string {
	switch v := c.(type) {
	case nil:
		return "·"
	case string:
		return v
	case float64:
		return fmt.Sprintf("%.4g", v)
	case float32:
		return fmt.Sprintf("%.4g", v)
	case time.Duration:
		return fmt.Sprintf("%.4g s", v.Seconds())
	}
	return fmt.Sprint(c)
}

// HTML renders the table.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="oclsolve-table">`)
	if t.Title != "" {
		fmt.Fprintf(&b, `<caption style="text-align:left;font-weight:bold">%s</caption>`, html.EscapeString(t.Title))
	}
	b.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(&b, `<th style="text-align:right">%s</th>`, html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, `<td style="text-align:right;font-family:monospace">%s</td>`, html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	for _, n := range t.Notes {
		fmt.Fprintf(&b, `<p style="font-size:smaller">%s</p>`, html.EscapeString(n))
	}
	return b.String()
}

// String renders the table as aligned text.
func (t *Table) String() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n")
	}
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, strings.Join(t.Header, "\t")+"\t")
	for _, r := range t.Rows {
		fmt.Fprintln(w, strings.Join(r, "\t")+"\t")
	}
	w.Flush()
	for _, n := range t.Notes {
		b.WriteString(n + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
