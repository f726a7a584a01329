package sparse

import (
	"fmt"
	"html"
	"strings"
)

// The host formats print as one-line summaries (fmt's %v) and render in
// notebooks as small HTML tables: shape, storage, entry counts and the
// first few entries. A matrix is never dumped whole: printing one of a
// million entries must cost as little as printing one of ten.

// previewEntries is how many leading entries a summary lists.
const previewEntries = 5

// NNZLower returns the entries of the lower triangle, diagonal included,
// that c stores: every stored entry when c holds one triangle (Symmetric),
// else those with i >= j. With NNZFull it is the count every oclsolve report
// gives for a symmetric matrix, whichever file it came from (duplicates
// count separately until Compact).
func (c *COO) NNZLower() int {
	if c.Symmetric {
		return len(c.V)
	}
	return c.countEntries(func(i, j int32) bool { return i >= j })
}

// countEntries counts the entries (i, j) for which keep holds, on every
// core.
func (c *COO) countEntries(keep func(i, j int32) bool) int {
	counts := make([]int, scanWorkers(len(c.V)))
	scanEntriesOn(len(counts), len(c.V), func(w, lo, hi int) {
		n := 0
		for k := lo; k < hi; k++ {
			if keep(c.I[k], c.J[k]) {
				n++
			}
		}
		counts[w] = n
	})
	n := 0
	for _, k := range counts {
		n += k
	}
	return n
}

// NNZFull returns the entries of the whole matrix: the stored entries of a
// general COO, or twice the off-diagonal plus the diagonal entries of a
// Symmetric one.
func (c *COO) NNZFull() int {
	if !c.Symmetric {
		return len(c.V)
	}
	return 2*len(c.V) - c.countEntries(func(i, j int32) bool { return i == j })
}

// String summarises the matrix in one line.
func (c *COO) String() string {
	if c == nil {
		return "sparse.COO(nil)"
	}
	return fmt.Sprintf("sparse.COO %dx%d %s, nnz %d (lower triangle; %d in the full matrix)",
		c.Rows, c.Cols, c.storage(), c.NNZLower(), c.NNZFull())
}

func (c *COO) storage() string {
	if c.Symmetric {
		return "symmetric, one triangle stored"
	}
	return "general"
}

// HTML renders the summary and the first entries as a table, for notebooks.
func (c *COO) HTML() string {
	return summaryHTML("sparse.COO", c == nil, func() [][2]string {
		var first []string
		for k := 0; k < len(c.V) && k < previewEntries; k++ {
			first = append(first, fmt.Sprintf("(%d,%d) %.6g", c.I[k], c.J[k], c.V[k]))
		}
		if len(c.V) > previewEntries {
			first = append(first, "&hellip;")
		}
		return [][2]string{
			{"order", fmt.Sprintf("%d &times; %d", c.Rows, c.Cols)},
			{"storage", c.storage()},
			{"nnz (lower triangle)", fmt.Sprint(c.NNZLower())},
			{"nnz (full matrix)", fmt.Sprint(c.NNZFull())},
			{"first entries", strings.Join(first, ", ")},
		}
	})
}

// String summarises the matrix in one line.
func (a *CSC) String() string {
	if a == nil {
		return "sparse.CSC(nil)"
	}
	return fmt.Sprintf("sparse.CSC %dx%d, nnz %d (lower triangle, thesis layout; %d in the full matrix)", a.N, a.N, a.Len(), 2*a.Len()-a.N)
}

// HTML renders the summary as a table, for notebooks.
func (a *CSC) HTML() string {
	return summaryHTML("sparse.CSC", a == nil, func() [][2]string {
		return [][2]string{
			{"order", fmt.Sprint(a.N)},
			{"storage", "lower triangle by columns, diagonal first (thesis layout)"},
			{"nnz (lower triangle)", fmt.Sprint(a.Len())},
			{"nnz (full matrix)", fmt.Sprint(2*a.Len() - a.N)},
			{"thesis memory", fmt.Sprintf("%.3g MB", a.ThesisMemory()/1e6)},
		}
	})
}

// String summarises the matrix in one line.
func (s *SKS) String() string {
	if s == nil {
		return "sparse.SKS(nil)"
	}
	return fmt.Sprintf("sparse.SKS %dx%d, skyline length %d (%.1f per column)", s.N, s.N, s.Len(), float64(s.Len())/float64(max(s.N, 1)))
}

// HTML renders the summary as a table, for notebooks.
func (s *SKS) HTML() string {
	return summaryHTML("sparse.SKS", s == nil, func() [][2]string {
		return [][2]string{
			{"order", fmt.Sprint(s.N)},
			{"storage", "lower triangle, one contiguous run per column (skyline)"},
			{"skyline length", fmt.Sprintf("%d (%.1f per column)", s.Len(), float64(s.Len())/float64(max(s.N, 1)))},
			{"thesis memory", fmt.Sprintf("%.3g MB", s.ThesisMemory()/1e6)},
		}
	})
}

// summaryHTML renders a matrix's summary for notebooks: its title with
// "(nil)" for a nil matrix, else the rows, computed only then.
func summaryHTML(title string, isNil bool, rows func() [][2]string) string {
	if isNil {
		return "<p><code>" + html.EscapeString(title) + "(nil)</code></p>"
	}
	return summaryTable(title, rows())
}

// summaryTable renders a title and key/value rows; values are HTML.
func summaryTable(title string, rows [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<table class="oclsolve-summary"><caption style="text-align:left"><code>%s</code></caption>`, html.EscapeString(title))
	for _, r := range rows {
		fmt.Fprintf(&b, `<tr><th style="text-align:left">%s</th><td style="text-align:left">%s</td></tr>`, html.EscapeString(r[0]), r[1])
	}
	b.WriteString("</table>")
	return b.String()
}
