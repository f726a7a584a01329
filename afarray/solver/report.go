package solver

import (
	"fmt"
	"html"
	"reflect"
	"strings"
	"time"
)

// A Report prints as a few lines a person reads at the REPL (what ran,
// where the time went, memory, CG's iterations) and renders in notebooks
// as a table with the time split drawn as bars. It never lists CG's whole
// residual history.

// Stat is one figure an entry adds to its Report beyond those every run
// has: the supernodal factorizations give nnz(L), flops, supernodes and
// levels. `oclsolve solve` prints each as a field of --json named Key and
// on its report's line Group, so a new solver's figures need no edits
// there.
type Stat struct {
	// Key is the stable machine name (a --json field): lower case, words
	// joined by "_".
	Key string
	// Value is an int, int64 or float64.
	Value any
	// Group names the report line the figure goes on ("factor").
	Group string
	// Format prints Value for that line: a fmt format with one verb
	// ("nnz(L) %d", "%.3g flops").
	Format string
}

// String returns the figure as its report line prints it.
func (s Stat) String() string { return fmt.Sprintf(s.Format, s.Value) }

// Stat returns the value of the figure named key and whether the run gave
// it.
func (r *Report) Stat(key string) (any, bool) {
	if r == nil {
		return nil, false
	}
	for _, s := range r.Stats {
		if s.Key == key {
			return s.Value, true
		}
	}
	return nil, false
}

// StatLines groups the figures that are not zero by Group, in the order
// the groups first appear: each line is the group and its figures joined
// by ", " ("factor", "nnz(L) 147631, 5.53e+07 flops, 137 supernodes, 10
// levels"). Report.String, Report.HTML and `oclsolve solve` print them so.
func StatLines(stats []Stat) [][2]string {
	var out [][2]string
	at := map[string]int{}
	for _, st := range stats {
		if st.Value == nil || reflect.ValueOf(st.Value).IsZero() {
			continue
		}
		i, ok := at[st.Group]
		if !ok {
			i = len(out)
			at[st.Group] = i
			out = append(out, [2]string{st.Group, st.String()})
			continue
		}
		out[i][1] += ", " + st.String()
	}
	return out
}

// statser is implemented by factor types and operators whose runs have
// figures of their own for the Report (Stat).
type statser interface {
	reportStats() []Stat
}

// statsOf returns x's figures, nil when it has none.
func statsOf(x any) []Stat {
	if s, ok := x.(statser); ok {
		return s.reportStats()
	}
	return nil
}

// phase is one entry of the time split.
type phase struct {
	name string
	d    time.Duration
}

// phases returns the time split in order with the entries that took
// time; they add up to TotalTime (OtherTime holds the host's checks and
// bookkeeping).
func (r *Report) phases() []phase {
	all := []phase{{"ordering", r.OrderingTime}, {"upload", r.UploadTime}, {"convert", r.ConvertTime},
		{"compile", r.CompileTime}, {"symbolic", r.SymbolicTime}, {"factorize", r.FactorizeTime},
		{"solve", r.SolveTime}, {"download", r.DownloadTime}, {"other", r.OtherTime}}
	var out []phase
	for _, p := range all {
		if p.d > 0 {
			out = append(out, p)
		}
	}
	return out
}

func (r *Report) what() string {
	s := fmt.Sprintf("%s on %s, %s variant", r.Method, r.Format, r.Variant)
	if r.Ordering != "" {
		s += ", " + string(r.Ordering) + " ordering"
	}
	return s
}

// String summarises the run in a few lines.
func (r *Report) String() string {
	if r == nil {
		return "solver.Report(nil)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "solver.Report: %s\n", r.what())
	if r.Choice != "" {
		fmt.Fprintf(&b, "  chosen: %s\n", r.Choice)
	}
	fmt.Fprintf(&b, "  n = %d, nnz = %d (lower triangle; %d in the full matrix)\n", r.N, r.NNZ, r.NNZFull)
	fmt.Fprintf(&b, "  time %s:", seconds(r.TotalTime))
	for _, p := range r.phases() {
		fmt.Fprintf(&b, " %s %s,", p.name, seconds(p.d))
	}
	s := strings.TrimSuffix(b.String(), ",")
	b.Reset()
	b.WriteString(s)
	fmt.Fprintf(&b, "\n  backward error %.2g", r.BackwardError)
	fmt.Fprintf(&b, "\n  device memory %s peak (thesis formula %s), %d kernel launches", megabytes(float64(r.DeviceBytes)), megabytes(r.ThesisMemory), r.Launches)
	if r.Iterations > 0 {
		fmt.Fprintf(&b, "\n  CG: %d iterations, residual %.3g", r.Iterations, r.Residual)
	}
	for _, l := range StatLines(r.Stats) {
		fmt.Fprintf(&b, "\n  %s: %s", l[0], l[1])
	}
	return b.String()
}

// HTML renders the report as a table, with the time split as bars.
func (r *Report) HTML() string {
	if r == nil {
		return "<p><code>solver.Report(nil)</code></p>"
	}
	var b strings.Builder
	row := func(k, v string) {
		fmt.Fprintf(&b, `<tr><th style="text-align:left">%s</th><td style="text-align:left">%s</td></tr>`, k, v)
	}
	b.WriteString(`<table class="oclsolve-report"><caption style="text-align:left"><code>solver.Report</code></caption>`)
	row("method", html.EscapeString(r.what()))
	if r.Choice != "" {
		row("chosen", html.EscapeString(r.Choice))
	}
	row("system", fmt.Sprintf("n = %d, nnz = %d (lower triangle; %d in the full matrix)", r.N, r.NNZ, r.NNZFull))
	row("total time", seconds(r.TotalTime))
	var bars strings.Builder
	bars.WriteString(`<table style="border-collapse:collapse">`)
	for _, p := range r.phases() {
		w := 0.0
		if r.TotalTime > 0 {
			w = 100 * float64(p.d) / float64(r.TotalTime)
		}
		fmt.Fprintf(&bars, `<tr><td style="text-align:left;padding:0 6px 0 0">%s</td><td style="text-align:right;padding:0 6px;font-family:monospace">%s</td>`+
			`<td style="width:240px;padding:0"><div style="background:#4c78a8;height:10px;width:%.1f%%"></div></td></tr>`, p.name, seconds(p.d), w)
	}
	bars.WriteString("</table>")
	row("time split", bars.String())
	row("backward error", fmt.Sprintf("%.2g (‖b−Ax‖∞ / (‖A‖∞‖x‖∞ + ‖b‖∞))", r.BackwardError))
	row("device memory", fmt.Sprintf("%s peak measured; thesis formula %s", megabytes(float64(r.DeviceBytes)), megabytes(r.ThesisMemory)))
	row("kernel launches", fmt.Sprint(r.Launches))
	if r.Iterations > 0 {
		row("CG", fmt.Sprintf("%d iterations, residual %.3g", r.Iterations, r.Residual))
	}
	for _, l := range StatLines(r.Stats) {
		row(html.EscapeString(l[0]), html.EscapeString(l[1]))
	}
	b.WriteString("</table>")
	return b.String()
}

func seconds(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	case s >= 0.01:
		return fmt.Sprintf("%.3f s", s)
	}
	return fmt.Sprintf("%.2g ms", s*1e3)
}

func megabytes(b float64) string { return fmt.Sprintf("%.3g MB", b/1e6) }
