package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// `oclsolve bench thesis` regenerates the thesis's time and memory tables
// (Tables 10 to 14 and 16) on the current device: for every system, every
// method x format combination, in the thesis variant, the fast one, or both.

// thesisOrders are the orders of the thesis's tables (10-11 for Model 1,
// 12-16 for Model 2).
var thesisOrders = map[string][]int{
	"model1": {1080, 2016, 3045, 4032, 5040, 6048, 7161, 8184, 9216, 10044},
	"model2": {1572, 3534, 5409, 8331, 10449},
}

// benchColumn is one technique: a method on a format, with the variants
// the solver registry has for it.
type benchColumn struct {
	format, method, label string
	variants              map[string]bool
}

// benchColumns returns the solver registry's method x format combinations in
// the thesis's column order (for the thesis's ten: D GJ, D Ch, D LDL, D CG,
// CSC Ch, CSC LDL, CSC CG, SKS Ch, SKS LDL, SKS CG).
func benchColumns() []benchColumn {
	var cols []benchColumn
	for _, c := range solver.Combinations() {
		if n := len(cols); n == 0 || cols[n-1].format != string(c.Format) || cols[n-1].method != string(c.Method) {
			cols = append(cols, benchColumn{format: string(c.Format), method: string(c.Method), label: c.Label, variants: map[string]bool{}})
		}
		cols[len(cols)-1].variants[string(c.Variant)] = true
	}
	return cols
}

// registryNames lists the registered methods, formats and variants for the
// usage line.
func registryNames() (methods, formats, variants []string) {
	for _, c := range benchColumns() {
		if !contains(methods, c.method) {
			methods = append(methods, c.method)
		}
		if !contains(formats, c.format) {
			formats = append(formats, c.format)
		}
	}
	for _, v := range solver.Variants() {
		variants = append(variants, string(v))
	}
	return methods, formats, variants
}

// benchResult is one row of `oclsolve bench thesis --json`. Field names are
// stable: time_s is factorization plus solve (CG: the whole iteration), as
// the thesis timed its calls; upload, ordering and the CSC symbolic phase
// are reported apart. thesis_memory_mb uses the thesis's formulas; a skipped
// combination has skipped set and says why.
type benchResult struct {
	System         string    `json:"system"`
	N              int       `json:"n"`
	NNZ            int       `json:"nnz"`
	Method         string    `json:"method"`
	Format         string    `json:"format"`
	Variant        string    `json:"variant"`
	Ordering       string    `json:"ordering,omitempty"`
	TimeS          float64   `json:"time_s"`
	UploadS        float64   `json:"upload_s"`
	OrderingS      float64   `json:"ordering_s"`
	SymbolicS      float64   `json:"symbolic_s"`
	TotalS         float64   `json:"total_s"`
	ThesisMemoryMB float64   `json:"thesis_memory_mb"`
	DeviceBytes    int64     `json:"device_bytes"`
	Launches       int64     `json:"kernel_launches"`
	Iterations     int       `json:"iterations,omitempty"`
	BackwardError  jsonFloat `json:"backward_error"`
	Skipped        string    `json:"skipped,omitempty"`
	Error          string    `json:"error,omitempty"`
}

func init() {
	methods, formats, variants := registryNames()
	register(&command{
		name: "bench",
		usage: fmt.Sprintf("dense [--sizes N,...] [--ops gemm,syrk,trsm,trsminv,potrf,cholesky,lu,tune] [--dtype float64|float32|both] [--nb N,...] [--json] | thesis [--sizes N,N,...] [--methods %s] [--formats %s] [--variant %s|both] [--order %s] [--devices all|LIST] [--markdown|--json] INPUTS...",
			strings.Join(methods, ","), strings.Join(formats, ","), strings.Join(variants, "|"), orderNames()),
		summary: "regenerate the thesis's time and memory tables on the current device",
		run:     runBench,
	})
}

func runBench(args []string) error {
	if len(args) > 0 && args[0] == "dense" {
		return runBenchDense(args[1:]) // bench_dense.go
	}
	if len(args) == 0 || args[0] != "thesis" {
		return fmt.Errorf("%w: the benchmark suite is `bench thesis`", errUsage)
	}
	cfg, err := parseBenchThesis(args[1:])
	if err != nil {
		return err
	}
	results, err := cfg.run()
	if err != nil {
		return err
	}
	if cfg.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	printBenchTables(os.Stdout, kernels.Labels(cfg.devs), results, cfg.variants)
	return nil
}

// benchThesis is a parsed `oclsolve bench thesis`.
type benchThesis struct {
	inputs       []string
	variants     []string
	wantM, wantF map[string]bool
	devs         []*kernels.Device
	multi        []*kernels.Device // nil on one device
	opts         *solveOptions
	asJSON       bool
}

// parseBenchThesis reads the flags and expands model1/model2 into the
// thesis's (or --sizes') orders.
func parseBenchThesis(args []string) (*benchThesis, error) {
	fs := newFlagSet("bench thesis")
	sizes := fs.String("sizes", "", "orders for model1/model2 inputs (default: the thesis's orders)")
	allMethods, allFormats, allVariants := registryNames()
	methods := fs.String("methods", strings.Join(allMethods, ","), "methods to run")
	formats := fs.String("formats", strings.Join(allFormats, ","), "formats to run")
	variant := fs.String("variant", "both", strings.Join(allVariants, ", ")+" or both (every variant)")
	order := fs.String("order", "auto", "ordering: "+orderNames()+" (the thesis used none for Model 1 and RCM for Model 2)")
	fs.Bool("markdown", true, "print Markdown tables (the default; --json prints JSON instead)")
	asJSON := fs.Bool("json", false, "print one JSON array of results")
	devices := fs.String("devices", "", devicesHelp+"; on several devices only the combinations that run there are measured")
	posArgs, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, errUsage
	}
	if len(posArgs) == 0 {
		return nil, fmt.Errorf("%w: name the systems: model1, model2, generator specs or matrix files", errUsage)
	}
	cfg := &benchThesis{variants: allVariants, wantM: splitSet(*methods), wantF: splitSet(*formats), asJSON: *asJSON}
	if *variant != "both" {
		if !contains(allVariants, *variant) {
			return nil, fmt.Errorf("%w: --variant %s|both", errUsage, strings.Join(allVariants, "|"))
		}
		cfg.variants = []string{*variant}
	}
	if cfg.inputs, err = benchInputs(posArgs, *sizes); err != nil {
		return nil, err
	}
	if cfg.devs, err = selectDevices(*devices, "", "", ""); err != nil {
		return nil, err
	}
	if len(cfg.devs) > 1 {
		cfg.multi = cfg.devs
	}
	ord, err := sparse.ParseOrdering(*order)
	if err != nil {
		return nil, fmt.Errorf("%w: --order %s", errUsage, orderNames())
	}
	cfg.opts = &solveOptions{Order: string(ord), Seed: 1, Device: cfg.devs[0]}
	return cfg, nil
}

// benchInputs expands model1 and model2 into one generator spec per order.
func benchInputs(posArgs []string, sizes string) ([]string, error) {
	var orders []int
	if sizes != "" {
		for _, s := range strings.Split(sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%w: --sizes wants orders, got %q", errUsage, s)
			}
			orders = append(orders, n)
		}
	}
	var inputs []string
	for _, in := range posArgs {
		def, ok := thesisOrders[in]
		if !ok {
			inputs = append(inputs, in)
			continue
		}
		list := orders
		if list == nil {
			list = def
		}
		for _, n := range list {
			inputs = append(inputs, fmt.Sprintf("%s:%d", in, n))
		}
	}
	return inputs, nil
}

// run measures every wanted column and variant on every input, reporting
// progress on standard error.
func (cfg *benchThesis) run() ([]benchResult, error) {
	columns := benchColumns()
	var results []benchResult
	total := len(cfg.inputs) * len(columns) * len(cfg.variants)
	done := 0
	for _, in := range cfg.inputs {
		fmt.Fprintf(os.Stderr, "bench: building %s\n", in)
		p, err := loadProblem(in, cfg.opts)
		if err != nil {
			return nil, err
		}
		if p.B == nil {
			p.B, _ = makeRHS("ones", p.N, 1)
		}
		for _, col := range columns {
			for _, v := range cfg.variants {
				done++
				if !cfg.wantM[col.method] || !cfg.wantF[col.format] || !col.variants[v] {
					continue
				}
				// A long row shows its phase and progress in place until
				// its line is printed.
				stop := progress(os.Stderr, fmt.Sprintf("bench: [%d/%d] %s %s", done, total, col.label, v), false, cfg.devs[0])
				r := cfg.measure(p, in, col, v)
				stop()
				status := fmt.Sprintf("%.3f s", r.TimeS)
				switch {
				case r.Skipped != "":
					status = "skipped (" + r.Skipped + ")"
				case r.Error != "":
					status += " (" + r.Error + ")"
				}
				fmt.Fprintf(os.Stderr, "bench: [%d/%d] %s n=%d %s %s: %s\n", done, total, in, p.N, col.label, v, status)
				results = append(results, r)
			}
		}
	}
	return results, nil
}

// measure runs one column in one variant on p, or says why it is skipped.
func (cfg *benchThesis) measure(p *solveProblem, in string, col benchColumn, v string) benchResult {
	r := benchResult{System: in, N: p.N, NNZ: p.NNZ, Method: col.method, Format: col.format, Variant: v}
	if cfg.multi != nil && !multiDevice(col.method, col.format, v) {
		r.Skipped = "runs on one device only"
		return r
	}
	if info := cfg.devs[0].Info(); col.format == "dense" {
		need := int64(sparse.ThesisMemoryDense(p.N))
		if need > info.GlobalMemBytes || int64(p.N)*int64(p.N)*8 > info.MaxAllocBytes {
			r.Skipped = fmt.Sprintf("dense storage needs %.2f MB; the device has %.2f MB (max single allocation %.2f MB)",
				float64(need)/1e6, float64(info.GlobalMemBytes)/1e6, float64(info.MaxAllocBytes)/1e6)
			r.ThesisMemoryMB = float64(need) / 1e6
			return r
		}
	}
	x, rep, err := solver.Run(p.A, p.B, solver.Options{Method: solver.Method(col.method), Format: solver.Format(col.format),
		Variant: solver.Variant(v), Order: sparse.Ordering(cfg.opts.Order), Device: cfg.devs[0], Devices: cfg.multi})
	if rep != nil {
		r.Ordering = string(rep.Ordering)
		r.TimeS = (rep.FactorizeTime + rep.SolveTime).Seconds()
		r.UploadS, r.OrderingS, r.SymbolicS = rep.UploadTime.Seconds(), rep.OrderingTime.Seconds(), rep.SymbolicTime.Seconds()
		r.TotalS, r.ThesisMemoryMB, r.DeviceBytes = rep.TotalTime.Seconds(), rep.ThesisMemory/1e6, rep.DeviceBytes
		r.Launches, r.Iterations = rep.Launches, rep.Iterations
	}
	var nc *solver.NotConvergedError
	if err != nil {
		r.Error = err.Error()
	}
	if x != nil && (err == nil || errors.As(err, &nc)) {
		r.BackwardError = jsonFloat(backwardError(p, x))
	}
	return r
}

func splitSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		m[strings.TrimSpace(f)] = true
	}
	return m
}

func backwardError(p *solveProblem, x []float64) float64 {
	return sparse.BackwardError(p.normInf(), p.matVec(x), x, p.B)
}

// printBenchTables writes the time table (like Tables 11 and 13) and the
// memory table (like Tables 10 and 12), one row per system, one column per
// technique; with both variants a cell reads "thesis / fast".
func printBenchTables(w io.Writer, device string, results []benchResult, variants []string) {
	columns := benchColumns()
	type key struct{ system, format, method, variant string }
	cell := map[key]benchResult{}
	var systems []string
	seen := map[string]bool{}
	ns := map[string]int{}
	for _, r := range results {
		cell[key{r.System, r.Format, r.Method, r.Variant}] = r
		if !seen[r.System] {
			seen[r.System] = true
			systems = append(systems, r.System)
			ns[r.System] = r.N
		}
	}
	header := func(title string) {
		fmt.Fprintf(w, "\n### %s (%s; variant %s)\n\n| system | n |", title, device, strings.Join(variants, " / "))
		for _, c := range columns {
			fmt.Fprintf(w, " %s |", c.label)
		}
		fmt.Fprint(w, "\n|---|---:|")
		for range columns {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
	}
	table := func(title string, val func(benchResult) string) {
		header(title)
		for _, s := range systems {
			fmt.Fprintf(w, "| %s | %d |", s, ns[s])
			for _, c := range columns {
				var parts []string
				for _, v := range variants {
					r, ok := cell[key{s, c.format, c.method, v}]
					switch {
					case !ok:
						parts = append(parts, "")
					case r.Skipped != "":
						parts = append(parts, "skip")
					case r.Error != "" && r.BackwardError == 0:
						parts = append(parts, "err")
					default:
						parts = append(parts, val(r))
					}
				}
				fmt.Fprintf(w, " %s |", strings.Join(parts, " / "))
			}
			fmt.Fprintln(w)
		}
	}
	table("Execution time, s (factorization + solve; CG: all iterations)", func(r benchResult) string { return fmt.Sprintf("%.3f", r.TimeS) })
	table("Memory by the thesis's formulas, MB", func(r benchResult) string { return fmt.Sprintf("%.2f", r.ThesisMemoryMB) })
	table("Measured device memory, MB", func(r benchResult) string { return fmt.Sprintf("%.2f", float64(r.DeviceBytes)/1e6) })
	var notes []string
	for _, r := range results {
		if r.Skipped != "" {
			notes = append(notes, fmt.Sprintf("%s %s %s %s: skipped: %s", r.System, r.Format, r.Method, r.Variant, r.Skipped))
		} else if r.Error != "" {
			notes = append(notes, fmt.Sprintf("%s %s %s %s: %s", r.System, r.Format, r.Method, r.Variant, r.Error))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	var worst float64
	for _, r := range results {
		worst = math.Max(worst, float64(r.BackwardError))
	}
	fmt.Fprintf(w, "\nLargest backward error ||b-Ax||∞/(||A||∞||x||∞+||b||∞): %.2e\n", worst)
}
