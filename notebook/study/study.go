// Package study holds the plumbing of oclsolve's study notebooks, so that
// their cells read as the steps of a study: the scale of a run, the
// thesis's techniques, one call per measured solve, result tables that
// render as HTML and series for display.Chart. Everything here is
// non-generic, for the interpreter.
package study

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
	"github.com/oclsolve/oclsolve/repl/display"
)

// Scales of a study run (OCLSOLVE_SCALE): small for CI on a CPU, thesis
// for the thesis's orders, large for beyond.
const (
	Small  = "small"
	Thesis = "thesis"
	Large  = "large"
)

// Technique is a method on a storage format, labelled as the thesis's
// tables label it ("SKS Ch").
type Technique struct {
	Label  string
	Method solver.Method
	Format solver.Format
	// Variant, when set, is the variant the technique always runs in
	// (the supernodal Cholesky's); Run records it under the variant asked
	// for, so that it shares the fast column of tables and series.
	Variant solver.Variant
}

// ThesisTechniques returns the thesis's ten techniques in its column order.
func ThesisTechniques() []Technique {
	return []Technique{
		{Label: "D GJ", Method: solver.MethodGaussJordan, Format: solver.FormatDense}, {Label: "D Ch", Method: solver.MethodCholesky, Format: solver.FormatDense},
		{Label: "D LDL", Method: solver.MethodLDLT, Format: solver.FormatDense}, {Label: "D CG", Method: solver.MethodCG, Format: solver.FormatDense},
		{Label: "CSC Ch", Method: solver.MethodCholesky, Format: solver.FormatCSC}, {Label: "CSC LDL", Method: solver.MethodLDLT, Format: solver.FormatCSC},
		{Label: "CSC CG", Method: solver.MethodCG, Format: solver.FormatCSC},
		{Label: "SKS Ch", Method: solver.MethodCholesky, Format: solver.FormatSKS}, {Label: "SKS LDL", Method: solver.MethodLDLT, Format: solver.FormatSKS},
		{Label: "SKS CG", Method: solver.MethodCG, Format: solver.FormatSKS},
	}
}

// Pick returns the techniques with the given labels, in that order.
func Pick(ts []Technique, labels ...string) []Technique {
	var out []Technique
	for _, l := range labels {
		for _, t := range ts {
			if t.Label == l {
				out = append(out, t)
			}
		}
	}
	return out
}

// Result is one technique on one system in one variant.
type Result struct {
	N       int // the order the study names the system by (the thesis's)
	Label   string
	Variant solver.Variant
	// Time is factorization + solve (CG: all iterations), as the thesis
	// timed; Total the whole solver.Run, upload, ordering, symbolic
	// analysis and compilation included.
	Time, Total float64
	// ThesisMB is the thesis's memory formula for the matrix, DeviceMB the
	// peak device memory measured.
	ThesisMB, DeviceMB float64
	Iterations         int
	BackErr            float64 // normwise backward error of x
	Skipped            string  // why there is no result
}

// Study is one notebook's runs on one device.
type Study struct {
	Name    string
	Scale   string
	Device  *kernels.Device
	Results []Result
	// Quiet stops Run from printing a line per run.
	Quiet bool
}

// New starts a study on the default device (OCLSOLVE_DEVICE) at the scale
// OCLSOLVE_SCALE names (small when unset), and prints both.
func New(name string) (*Study, error) {
	scale := os.Getenv("OCLSOLVE_SCALE")
	if scale == "" {
		scale = Small
	}
	if scale != Small && scale != Thesis && scale != Large {
		return nil, fmt.Errorf("study: OCLSOLVE_SCALE must be small, thesis or large, not %q", scale)
	}
	dev, err := kernels.Default()
	if err != nil {
		return nil, err
	}
	afarray.SetDevice(dev)
	info := dev.Info()
	fmt.Printf("%s, scale %s\ndevice: %s, %d compute units, %s global memory (max single allocation %s)\n", name, scale,
		dev, info.ComputeUnits, kernels.FormatBytes(info.GlobalMemBytes), kernels.FormatBytes(info.MaxAllocBytes))
	return &Study{Name: name, Scale: scale, Device: dev}, nil
}

// Fits reports whether a dense matrix of order n fits the device.
func (s *Study) Fits(n int) bool {
	info := s.Device.Info()
	need := int64(sparse.ThesisMemoryDense(n))
	return need <= info.GlobalMemBytes && int64(n)*int64(n)*8 <= info.MaxAllocBytes
}

// Run solves K x = F with one technique and variant, records the result
// under order n and prints a line. A run that fails (dense storage beyond
// the device, CG that does not converge, a pivot that breaks down) is
// recorded with the reason instead of stopping the study.
func (s *Study) Run(n int, K *sparse.COO, F []float64, t Technique, v solver.Variant, order sparse.Ordering) *Result {
	r := Result{N: n, Label: t.Label, Variant: v}
	if t.Format == solver.FormatDense && !s.Fits(K.Rows) {
		r.ThesisMB = sparse.ThesisMemoryDense(K.Rows) / 1e6
		r.Skipped = "dense storage exceeds the device"
	} else {
		run := v
		if t.Variant != "" {
			run = t.Variant
		}
		_, rep, err := solver.Run(K, F, solver.Options{Method: t.Method, Format: t.Format, Variant: run, Order: order, Device: s.Device})
		if rep != nil {
			r.Time = (rep.FactorizeTime + rep.SolveTime).Seconds()
			r.Total = rep.TotalTime.Seconds()
			r.ThesisMB, r.DeviceMB = rep.ThesisMemory/1e6, float64(rep.DeviceBytes)/1e6
			r.Iterations, r.BackErr = rep.Iterations, rep.BackwardError
		}
		var nc *solver.NotConvergedError
		switch {
		case errors.As(err, &nc):
			r.Skipped = "CG did not converge: " + err.Error()
		case err != nil:
			r.Skipped = err.Error()
		}
	}
	s.Results = append(s.Results, r)
	if !s.Quiet {
		fmt.Println(r.line())
	}
	return &s.Results[len(s.Results)-1]
}

func (r Result) line() string {
	if r.Skipped != "" {
		return fmt.Sprintf("n = %6d %-8s %-6s skipped: %s", r.N, r.Label, r.Variant, r.Skipped)
	}
	l := fmt.Sprintf("n = %6d %-8s %-6s %8.3f s (whole run %7.3f s)  backward error %.1e", r.N, r.Label, r.Variant, r.Time, r.Total, r.BackErr)
	if r.Iterations > 0 {
		l += fmt.Sprintf("  %d iterations", r.Iterations)
	}
	return l
}

// Find returns the result of a technique and variant at order n, or nil.
func (s *Study) Find(n int, label string, v solver.Variant) *Result {
	for i := range s.Results {
		r := &s.Results[i]
		if r.N == n && r.Label == label && r.Variant == v {
			return r
		}
	}
	return nil
}

// Value returns one quantity of a result: "time", "total", "memory" (the
// thesis formula, MB), "device" (measured MB), "backerr" or "iterations".
func (r *Result) Value(what string) float64 {
	switch what {
	case "time":
		return r.Time
	case "total":
		return r.Total
	case "memory":
		return r.ThesisMB
	case "device":
		return r.DeviceMB
	case "backerr":
		return r.BackErr
	case "iterations":
		return float64(r.Iterations)
	}
	return 0
}

// Series returns the orders and values of one quantity (see Value) of a
// technique and variant, over the runs that have a result: a line for
// display.Chart.
func (s *Study) Series(label string, v solver.Variant, what string) (x, y []float64) {
	seen := map[int]bool{}
	for _, r := range s.Results {
		if r.Label == label && r.Variant == v && r.Skipped == "" && !seen[r.N] {
			seen[r.N] = true
			x, y = append(x, float64(r.N)), append(y, r.Value(what))
		}
	}
	return x, y
}

// Cell formats one quantity of the result at n for a table: "·" for a run
// this scale does not make, "—" for one that was skipped.
func (s *Study) Cell(n int, label string, v solver.Variant, what, format string) string {
	r := s.Find(n, label, v)
	switch {
	case r == nil:
		return "·"
	case r.Skipped != "" && r.Value(what) == 0:
		return "—"
	}
	return fmt.Sprintf(format, r.Value(what))
}

// Table returns a table with a row per order and a column per technique
// whose cells hold a quantity (see Value) of each variant, then the
// thesis's number from thesis (nil for none; columns match ts by
// position, or by thesisCols when given), joined by " / ".
func (s *Study) Table(title string, orders []int, ts []Technique, what, format string, variants []solver.Variant, thesis map[int][]float64, thesisCols []int) *display.Table {
	header := []string{"n"}
	for _, t := range ts {
		header = append(header, t.Label)
	}
	tab := display.NewTable(title, header...)
	for _, n := range orders {
		row := []any{n}
		for j, t := range ts {
			var parts []string
			for _, v := range variants {
				parts = append(parts, s.Cell(n, t.Label, v, what, format))
			}
			if thesis != nil {
				col := j
				if thesisCols != nil {
					col = thesisCols[j]
				}
				th := "·"
				if rowT, ok := thesis[n]; ok && col < len(rowT) {
					th = fmt.Sprintf("%.2f", rowT[col])
				}
				parts = append(parts, th)
			}
			row = append(row, strings.Join(parts, " / "))
		}
		tab.Row(row...)
	}
	tab.Note("· not run at this scale; — skipped (the reason is in the run log)")
	return tab
}

// Ranking lists the techniques by a quantity at order n, smallest first,
// as Markdown.
func (s *Study) Ranking(n int, ts []Technique, v solver.Variant, what, unit string) display.Data {
	type ranked struct {
		label string
		val   float64
	}
	var rk []ranked
	for _, t := range ts {
		if r := s.Find(n, t.Label, v); r != nil && r.Skipped == "" {
			rk = append(rk, ranked{t.Label, r.Value(what)})
		}
	}
	for i := 1; i < len(rk); i++ {
		for j := i; j > 0 && rk[j].val < rk[j-1].val; j-- {
			rk[j], rk[j-1] = rk[j-1], rk[j]
		}
	}
	parts := make([]string, len(rk))
	for i, r := range rk {
		parts[i] = fmt.Sprintf("**%s** %.3g %s", r.label, r.val, unit)
	}
	return display.Markdown(fmt.Sprintf("%s variant at n = %d on %s, smallest first: %s", v, n, s.Device.Name(), strings.Join(parts, ", ")))
}

// Elapsed is a stopwatch for a study step.
func Elapsed(start time.Time) string { return time.Since(start).Round(time.Second).String() }

// WithSupernodal returns ts and, when the solver registry has a supernodal
// Cholesky (a format or variant named "supernodal"), that technique after
// them, labelled "SN Ch": the fastest factorization beside the thesis's.
func WithSupernodal(ts []Technique) []Technique {
	out := append([]Technique(nil), ts...)
	for _, c := range solver.Combinations() {
		if c.Method == solver.MethodCholesky && (c.Format == "supernodal" || c.Variant == "supernodal") {
			return append(out, Technique{Label: "SN Ch", Method: c.Method, Format: c.Format, Variant: c.Variant})
		}
	}
	return out
}

// ThesisTable renders one of the thesis's tables (thesis.go) with the
// techniques' labels as columns.
func ThesisTable(title string, table map[int][]float64, ts []Technique) *display.Table {
	header := []string{"n"}
	for _, t := range ts {
		header = append(header, t.Label)
	}
	tab := display.NewTable(title, header...)
	for _, n := range sortedKeys(table) {
		row := []any{n}
		for j := range ts {
			if j < len(table[n]) {
				row = append(row, fmt.Sprintf("%.2f", table[n][j]))
			} else {
				row = append(row, nil)
			}
		}
		tab.Row(row...)
	}
	return tab
}

// HasThesisVariant reports whether the technique comes in the thesis's
// variant (the supernodal Cholesky does not).
func (t Technique) HasThesisVariant() bool { return t.Variant == "" }

// SkylineFits returns nil when the skyline of K (factorized in place, with
// the thesis's 4(2le + 3n) bytes) fits in 80 % of the device's memory and
// its elements in one allocation, else an error saying how much it needs.
func (s *Study) SkylineFits(K *sparse.COO) error {
	le, err := sparse.SKSLen(K, nil)
	if err != nil {
		return err
	}
	info := s.Device.Info()
	need := int64(sparse.ThesisMemorySKS(K.Rows, int(le)))
	if need > info.GlobalMemBytes*8/10 || 8*le > info.MaxAllocBytes {
		return fmt.Errorf("n = %d: the skyline (%.0f MB) does not fit %s", K.Rows, float64(need)/1e6, s.Device.Name())
	}
	return nil
}
