package solver

import (
	"fmt"
	"html"
)

// The factor types print as one-line summaries (order, factor size, times,
// launches) and render in notebooks as small tables; the factor's entries
// stay on the device.

// summary is the one-line form of a factor type named name.
func (s FactorStats) summary(name string) string {
	if s.N == 0 {
		return name + " (not factorized)"
	}
	return fmt.Sprintf("%s %s, n = %d, factor length %d; factorized in %s (%d launches), %d solves",
		name, s.Variant, s.N, s.FactorLen, seconds(s.SymbolicTime+s.FactorTime), s.FactorLaunches, s.Solves)
}

// summaryHTML renders the same as a table.
func (s FactorStats) summaryHTML(name string) string {
	if s.N == 0 {
		return "<p><code>" + html.EscapeString(name) + "</code> (not factorized)</p>"
	}
	row := func(k, v string) string {
		return fmt.Sprintf(`<tr><th style="text-align:left">%s</th><td style="text-align:left">%s</td></tr>`, k, html.EscapeString(v))
	}
	t := `<table><caption style="text-align:left"><code>` + html.EscapeString(name) + `</code></caption>` +
		row("variant", string(s.Variant)) + row("order", fmt.Sprint(s.N)) + row("factor length", fmt.Sprint(s.FactorLen))
	if s.SymbolicTime > 0 {
		t += row("symbolic analysis", seconds(s.SymbolicTime))
	}
	t += row("factorization", fmt.Sprintf("%s, %d launches", seconds(s.FactorTime), s.FactorLaunches))
	if s.Solves > 0 {
		t += row("last solve", fmt.Sprintf("%s, %d launches (%d solves)", seconds(s.SolveTime), s.SolveLaunches, s.Solves))
	}
	return t + "</table>"
}

// String summarises the factor.
func (c *sksOf[K]) String() string { return c.Stats().summary("solver.SKS" + kindName[K]()) }

// HTML renders the summary, for notebooks.
func (c *sksOf[K]) HTML() string { return c.Stats().summaryHTML("solver.SKS" + kindName[K]()) }

// String summarises the factor.
func (c *cscOf[K]) String() string { return c.Stats().summary("solver.CSC" + kindName[K]()) }

// HTML renders the summary, for notebooks.
func (c *cscOf[K]) HTML() string { return c.Stats().summaryHTML("solver.CSC" + kindName[K]()) }

// String summarises the factor.
func (c *denseOf[K]) String() string { return c.Stats().summary("solver.Dense" + kindName[K]()) }

// HTML renders the summary, for notebooks.
func (c *denseOf[K]) HTML() string { return c.Stats().summaryHTML("solver.Dense" + kindName[K]()) }
