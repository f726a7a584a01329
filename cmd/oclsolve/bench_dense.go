package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/afarray/gauss"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// `oclsolve bench dense` measures the dense kernel core (afarray/dense) and
// the factorizations built on it on the current device: GEMM, SYRK, TRSM,
// POTRF on device-resident matrices, the fast dense Cholesky solver
// (factor + solve) and the blocked LU with partial pivoting (factor +
// solve). Each timing is the best of --reps runs, each ended by waiting for
// the device; rates are the nominal flop counts over that time.

// denseBenchResult is one row of `oclsolve bench dense --json`.
type denseBenchResult struct {
	Op    string `json:"op"` // gemm, syrk, trsm, potrf, cholesky, lu, tune
	DType string `json:"dtype"`
	N     int    `json:"n"`
	Block int    `json:"block,omitempty"` // potrf outer block (absent: recursive)
	// Lookahead (potrf): "on" when the next block column was factored on
	// the side queue beside the trailing update, "off" when not.
	Lookahead string  `json:"lookahead,omitempty"`
	Config    string  `json:"config,omitempty"` // GEMM tile configuration
	TimeS     float64 `json:"time_s"`
	GFLOPS    float64 `json:"gflops"`
	FactorS   float64 `json:"factor_s,omitempty"` // cholesky and lu: the factorization alone
	SolveS    float64 `json:"solve_s,omitempty"`  // cholesky and lu: the solve alone
	// BackwardError is ||b - A x||inf / (||A||inf ||x||inf + ||b||inf),
	// the worst of every run (cholesky and lu), computed on the host.
	BackwardError float64 `json:"backward_error,omitempty"`
	// Steps (potrf with an outer block): milliseconds in the diagonal
	// blocks, the panel solves and the trailing updates of one extra run
	// that waits after every step (dense.PotrfTimed).
	Steps map[string]float64 `json:"steps_ms,omitempty"`
	Error string             `json:"error,omitempty"`
}

type denseBenchReport struct {
	Device  string             `json:"device"`
	Configs map[string]string  `json:"configs"` // dtype -> tuned configuration and its source
	Results []denseBenchResult `json:"results"`

	pivoting []gauss.Pivoting // the LU's pivoting (--pivoting)
	luBlocks []int            // the LU's panel widths besides the default (--lu-nb)
	tune     []dense.Config   // the configurations --ops tune measures
}

// denseBenchFlags are the flags of `oclsolve bench dense`.
type denseBenchFlags struct {
	sizes, ops, dtypes, blocks, look, configs string
	luBlocks, pivoting                        string
	reps                                      int
	asJSON                                    bool
}

func runBenchDense(args []string) error {
	fs := newFlagSet("bench dense")
	var f denseBenchFlags
	fs.StringVar(&f.sizes, "sizes", "", "matrix orders (default 1024,2048,4096 on a GPU, 256,512,1024 elsewhere)")
	fs.StringVar(&f.ops, "ops", "gemm,syrk,trsm,potrf,cholesky,lu", "what to measure: gemm,syrk,trsm,trsminv,potrf,cholesky,lu,tune,latency (trsminv: trsm's solve by the triangle's inverse, TrsmInverse; tune: every GEMM configuration at each size; latency: the time per launch of n chained 1x1 products)")
	fs.StringVar(&f.dtypes, "dtype", "float64", "float64, float32 or both")
	fs.StringVar(&f.blocks, "nb", "", "POTRF outer block widths to compare besides the engine's (0: recursive)")
	fs.StringVar(&f.configs, "configs", "", "GEMM configurations for --ops tune (default: all of dense.Configs), e.g. 128x128x8/8x8,64x128x8/8x8")
	fs.StringVar(&f.look, "lookahead", "on", "POTRF look-ahead on the side queue: on, off or both")
	fs.StringVar(&f.luBlocks, "lu-nb", "", "LU panel widths to compare besides the default")
	fs.StringVar(&f.pivoting, "pivoting", "auto", "the LU's pivoting, a list of auto, partial, tournament")
	fs.IntVar(&f.reps, "reps", 3, "runs per measurement (the best counts)")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON instead of a table")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) > 0 || f.reps < 1 {
		return errUsage
	}
	dev, err := kernels.Default()
	if err != nil {
		return err
	}
	ns, err := denseBenchSizes(dev, f.sizes)
	if err != nil {
		return err
	}
	var nbs []int
	if f.blocks != "" {
		if nbs, err = parseInts(f.blocks); err != nil {
			return err
		}
	}
	dts, err := denseBenchDTypes(f.dtypes)
	if err != nil {
		return err
	}
	looks, ok := map[string][]bool{"on": {true}, "off": {false}, "both": {true, false}}[f.look]
	if !ok {
		return fmt.Errorf("%w: --lookahead on|off|both", errUsage)
	}
	pivs, err := denseBenchPivoting(f.pivoting)
	if err != nil {
		return err
	}
	cfgs := dense.Configs
	if f.configs != "" {
		cfgs = nil
		for _, c := range strings.Split(f.configs, ",") {
			cfg, err := dense.ParseConfig(strings.TrimSpace(c))
			if err != nil {
				return fmt.Errorf("%w: --configs: %v", errUsage, err)
			}
			cfgs = append(cfgs, cfg)
		}
	}
	rep := &denseBenchReport{Device: dev.Name(), Configs: map[string]string{}, pivoting: pivs, tune: cfgs}
	if f.luBlocks != "" {
		if rep.luBlocks, err = parseInts(f.luBlocks); err != nil {
			return err
		}
	}
	for _, dt := range dts {
		e, err := dense.For(dev, dt)
		if err != nil {
			return err
		}
		rep.Configs[dt.String()] = e.Config().String() + " (" + e.Source + ")"
		for _, op := range strings.Split(f.ops, ",") {
			for _, n := range ns {
				if err := profiled(dev, fmt.Sprintf("%s %s n=%d, every run (%d)", op, dt, n, f.reps+1), func() error {
					return rep.measure(dev, e, op, n, nbs, looks, f.reps)
				}); err != nil {
					return err
				}
			}
		}
	}
	failed := rep.check()
	if f.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printDenseBench(os.Stdout, *rep)
	}
	if failed > 0 {
		return fmt.Errorf("bench dense: %d of %d measurements failed (see the error column)", failed, len(rep.Results))
	}
	return nil
}

// profiled runs f and, when the device profiles its kernels
// (OCLSOLVE_PROFILE=1), prints to standard error the device times of the
// launches f made, under the heading what.
func profiled(dev *kernels.Device, what string, f func() error) error {
	if !dev.Profiling() {
		return f()
	}
	if _, err := dev.Profile(); err != nil { // drop what came before
		return err
	}
	if err := f(); err != nil {
		return err
	}
	p, err := dev.Profile()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s\n%s\n", what, p)
	return nil
}

// denseBenchSizes returns the orders of --sizes (default by device type),
// refusing those whose n x n matrices the device cannot hold before
// anything is allocated (the solves also hold one on the host).
func denseBenchSizes(dev *kernels.Device, sizes string) ([]int, error) {
	gpu := strings.Contains(strings.ToUpper(dev.Info().Type), "GPU")
	ns := []int{256, 512, 1024}
	if gpu {
		ns = []int{1024, 2048, 4096}
	}
	if sizes != "" {
		var err error
		if ns, err = parseInts(sizes); err != nil {
			return nil, err
		}
	}
	for _, n := range ns {
		if n < 1 || n > 1<<20 || int64(n)*int64(n)*8 > dev.Info().MaxAllocBytes {
			return nil, fmt.Errorf("%w: order %d: an n x n matrix of doubles must fit %s's largest allocation (%s)",
				errUsage, n, dev.Name(), kernels.FormatBytes(dev.Info().MaxAllocBytes))
		}
	}
	return ns, nil
}

// denseBenchDTypes reads --dtype.
func denseBenchDTypes(s string) ([]dense.DType, error) {
	switch s {
	case "float64":
		return []dense.DType{dense.Float64}, nil
	case "float32":
		return []dense.DType{dense.Float32}, nil
	case "both":
		return []dense.DType{dense.Float64, dense.Float32}, nil
	}
	return nil, fmt.Errorf("%w: --dtype float64|float32|both", errUsage)
}

// add records a result and prints it as a progress line.
func (rep *denseBenchReport) add(r denseBenchResult) {
	rep.Results = append(rep.Results, r)
	steps := ""
	if r.Lookahead != "" {
		steps = fmt.Sprintf("(nb %d, look-ahead %s) ", r.Block, r.Lookahead)
	}
	if r.Steps != nil {
		steps = fmt.Sprintf("(nb %d, waiting per step: diagonal %.1f ms, panel %.1f ms, update %.1f ms) ",
			r.Block, r.Steps["diagonal"], r.Steps["panel"], r.Steps["update"])
	}
	fmt.Fprintf(os.Stderr, "%-8s %-7s n=%-6d %9.3f ms %9.1f GFLOP/s %s %s%s\n", r.Op, r.DType, r.N, r.TimeS*1e3, r.GFLOPS, r.Config, steps, r.Error)
}

// measure runs one --ops entry at order n.
func (rep *denseBenchReport) measure(dev *kernels.Device, e *dense.Engine, op string, n int, nbs []int, looks []bool, reps int) error {
	dt := e.DType()
	switch op {
	case "tune":
		rates, err := dense.Measure(dev, dt, n, rep.tune)
		if err != nil {
			rep.add(denseBenchResult{Op: op, DType: dt.String(), N: n, Error: err.Error()})
			return nil
		}
		names := make([]string, 0, len(rates))
		for c := range rates {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			rep.add(denseBenchResult{Op: op, DType: dt.String(), N: n, Config: c, GFLOPS: rates[c],
				TimeS: 2 * float64(n) * float64(n) * float64(n) / rates[c] / 1e9})
		}
	case "potrf":
		var vs []potrfVariant
		for _, nb := range append([]int{-1}, nbs...) {
			for _, la := range looks {
				vs = append(vs, potrfVariant{nb, la})
			}
		}
		for _, r := range benchDenseKernel(e, op, n, vs, reps) {
			rep.add(r)
		}
	case "gemm", "syrk", "trsm", "trsminv":
		for _, r := range benchDenseKernel(e, op, n, nil, reps) {
			rep.add(r)
		}
	case "latency":
		rep.add(benchDenseLatency(e, n))
	case "cholesky":
		if dt == dense.Float64 {
			rep.add(benchDenseCholesky(n, reps))
		}
	case "lu":
		if dt == dense.Float64 {
			for _, piv := range rep.pivoting {
				for _, nb := range append([]int{0}, rep.luBlocks...) {
					rep.add(benchDenseLU(dev, n, nb, piv, reps))
				}
			}
		}
	default:
		return fmt.Errorf("%w: unknown --ops entry %q", errUsage, op)
	}
	return nil
}

// check marks the results whose backward error exceeds the limit and
// returns how many failed.
func (rep *denseBenchReport) check() int {
	failed := 0
	for i, r := range rep.Results {
		if r.Error == "" && !(r.BackwardError <= maxBackwardError) {
			rep.Results[i].Error = fmt.Sprintf("backward error %.2e exceeds %.0e", r.BackwardError, maxBackwardError)
		}
		if rep.Results[i].Error != "" {
			failed++
		}
	}
	return failed
}

// maxBackwardError bounds the backward error of a solve that counts as
// right: a wrong answer makes the benchmark fail, not just look slow.
const maxBackwardError = 1e-10

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: %q is not a non-negative integer", errUsage, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// potrfVariant is one POTRF setting to time: the outer block (-1: the
// engine's) and look-ahead.
type potrfVariant struct {
	nb        int
	lookahead bool
}

// benchDenseKernel times one kernel-core operation on n x n device
// matrices, for POTRF once per variant on the same matrices. POTRF
// refactors a pristine SPD copy each run (the copy is not timed).
func benchDenseKernel(e *dense.Engine, op string, n int, variants []potrfVariant, reps int) []denseBenchResult {
	dev, dt := e.Device(), e.DType()
	r0 := denseBenchResult{Op: op, DType: dt.String(), N: n, Config: e.Config().String()}
	fail := func(err error) []denseBenchResult { r0.Error = err.Error(); return []denseBenchResult{r0} }
	bufs, err := denseBenchBuffers(dev, dt, n)
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	if err != nil {
		return fail(err)
	}
	m := func(i int) dense.Mat { return dense.Mat{Buf: bufs[i], Rows: n, Cols: n, LD: n} }
	fn := float64(n)
	var flops float64
	var run func() error
	prepare := func() error { return nil }
	switch op {
	case "gemm":
		flops = 2 * fn * fn * fn
		run = func() error { return e.Gemm(false, false, 1, m(0), m(1), 0, m(2)) }
	case "syrk":
		flops = fn * fn * fn
		run = func() error { return e.Syrk(false, 1, m(0), 0, m(2)) }
	case "trsm":
		flops = fn * fn * fn
		run = func() error { return e.Trsm(dense.Left, dense.Lower, false, dense.NonUnit, 1, m(0), m(1)) }
	case "trsminv":
		flops = fn * fn * fn // trsm's count, so that the rates compare
		work, err := dev.Alloc(dense.TrsmInverseWorkspace(n, n) * dt.Size())
		if err != nil {
			return fail(err)
		}
		defer work.Release()
		run = func() error {
			return e.TrsmInverse(dense.Left, dense.Lower, false, dense.NonUnit, 1, m(0), m(1), work)
		}
	case "potrf":
		return benchDensePotrf(e, n, variants, reps, bufs)
	}
	best, err := denseBenchBest(dev, reps, prepare, run)
	if err != nil {
		return fail(err)
	}
	r0.TimeS = best.Seconds()
	r0.GFLOPS = flops / best.Seconds() / 1e9
	return []denseBenchResult{r0}
}

// benchDensePotrf times Potrf in each variant on the buffers of
// benchDenseKernel (the SPD matrix made once), restoring the engine's
// settings afterwards.
func benchDensePotrf(e *dense.Engine, n int, variants []potrfVariant, reps int, bufs []*kernels.Buffer) []denseBenchResult {
	dev, dt := e.Device(), e.DType()
	bytes := int64(n) * int64(n) * dt.Size()
	fn := float64(n)
	m := func(i int) dense.Mat { return dense.Mat{Buf: bufs[i], Rows: n, Cols: n, LD: n} }
	base := denseBenchResult{Op: "potrf", DType: dt.String(), N: n, Config: e.Config().String()}
	fail := func(err error) []denseBenchResult { base.Error = err.Error(); return []denseBenchResult{base} }
	if err := denseBenchSPD(e, bufs, n); err != nil {
		return fail(err)
	}
	info, err := dense.NewInfo(dev)
	if err != nil {
		return fail(err)
	}
	defer info.Release()
	oldNB, oldLA := e.BlockSize(), e.Lookahead()
	defer func() {
		e.SetBlockSize(oldNB)
		e.SetLookahead(oldLA)
	}()
	prepare := func() error {
		if err := bufs[3].CopyTo(bufs[2], 0, 0, bytes); err != nil {
			return err
		}
		return info.Reset()
	}
	var out []denseBenchResult
	for _, v := range variants {
		r := base
		r.Block = oldNB
		if v.nb >= 0 {
			r.Block = v.nb
		}
		if err := e.SetBlockSize(r.Block); err != nil {
			r.Error = err.Error()
			out = append(out, r)
			continue
		}
		e.SetLookahead(v.lookahead)
		r.Lookahead = map[bool]string{true: "on", false: "off"}[v.lookahead]
		best, err := denseBenchBest(dev, reps, prepare, func() error { return e.Potrf(m(2), info) })
		if err == nil {
			if col, cerr := info.Column(); cerr != nil || col >= 0 {
				err = fmt.Errorf("factorization failed at column %d (%v)", col, cerr)
			}
		}
		if err == nil && r.Block > 0 && !v.lookahead {
			var st dense.PotrfSteps
			if err = prepare(); err == nil {
				st, err = e.PotrfTimed(m(2), info)
			}
			r.Steps = map[string]float64{"diagonal": ms(st.Diagonal), "panel": ms(st.Panel), "update": ms(st.Update)}
		}
		if err != nil {
			r.Error = err.Error()
		} else {
			r.TimeS = best.Seconds()
			r.GFLOPS = fn * fn * fn / 3 / best.Seconds() / 1e9
		}
		out = append(out, r)
	}
	return out
}

// benchDenseLatency times n launches of a 1 x 1 x 1 GEMM in a row, each
// reading the previous one's output, and reports the time per launch:
// the floor under every latency-bound step (diagonal blocks, panels).
func benchDenseLatency(e *dense.Engine, n int) (r denseBenchResult) {
	dev, dt := e.Device(), e.DType()
	r = denseBenchResult{Op: "latency", DType: dt.String(), N: n, Config: e.Config().String()}
	b, err := dev.Alloc(2 * dt.Size())
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer b.Release()
	if err := writeTyped(b, dt, []float64{1, 1}); err != nil {
		r.Error = err.Error()
		return r
	}
	x, y := dense.Mat{Buf: b, Rows: 1, Cols: 1, LD: 1}, dense.Mat{Buf: b, Off: 1, Rows: 1, Cols: 1, LD: 1}
	run := func() error {
		for i := 0; i < n; i++ {
			if err := e.Gemm(false, false, 1, x, x, 0.5, y); err != nil {
				return err
			}
		}
		return nil
	}
	best, err := denseBenchBest(dev, 2, func() error { return nil }, run)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.TimeS = best.Seconds() / float64(n)
	return r
}

// denseBenchBuffers allocates four n x n matrices, the first three filled
// with seeded values in [-0.5, 0.5) (the first with a diagonal of n, a
// well-conditioned triangle for TRSM). It returns those it allocated, also
// on an error, for the caller to release.
func denseBenchBuffers(dev *kernels.Device, dt dense.DType, n int) ([]*kernels.Buffer, error) {
	bytes := int64(n) * int64(n) * dt.Size()
	var bufs []*kernels.Buffer
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 4; i++ {
		b, err := dev.Alloc(bytes)
		if err != nil {
			return bufs, err
		}
		bufs = append(bufs, b)
		if i == 3 {
			break
		}
		vals := make([]float64, n*n)
		for j := range vals {
			vals[j] = rng.Float64() - 0.5
		}
		if i == 0 { // a well-conditioned triangle for TRSM
			for j := 0; j < n; j++ {
				vals[j+n*j] = float64(n)
			}
		}
		if err := writeTyped(b, dt, vals); err != nil {
			return bufs, err
		}
	}
	return bufs, nil
}

// denseBenchSPD makes buffer 3 SPD for POTRF: S = G G^T + n I (lower
// triangle) with G buffer 1.
func denseBenchSPD(e *dense.Engine, bufs []*kernels.Buffer, n int) error {
	m := func(i int) dense.Mat { return dense.Mat{Buf: bufs[i], Rows: n, Cols: n, LD: n} }
	if err := e.Syrk(false, 1, m(1), 0, m(3)); err != nil {
		return err
	}
	dt := e.DType()
	diag := make([]float64, n*n)
	if err := readTyped(bufs[3], dt, diag); err != nil {
		return err
	}
	for j := 0; j < n; j++ {
		diag[j+n*j] += float64(n)
	}
	return writeTyped(bufs[3], dt, diag)
}

// denseBenchBest runs prepare (untimed) and run reps+1 times and returns
// the best time, the first run only warming up (lazy compilers, caches).
func denseBenchBest(dev *kernels.Device, reps int, prepare, run func() error) (time.Duration, error) {
	best := time.Duration(1 << 62)
	for i := 0; i <= reps; i++ {
		if err := prepare(); err != nil {
			return 0, err
		}
		if err := dev.Finish(); err != nil {
			return 0, err
		}
		t := time.Now()
		if err := run(); err != nil {
			return 0, err
		}
		if err := dev.Finish(); err != nil {
			return 0, err
		}
		if d := time.Since(t); i > 0 && d < best {
			best = d
		}
	}
	return best, nil
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

func writeTyped(b *kernels.Buffer, dt dense.DType, v []float64) error {
	if dt == dense.Float32 {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		return b.Write(0, f)
	}
	return b.Write(0, v)
}

func readTyped(b *kernels.Buffer, dt dense.DType, v []float64) error {
	if dt == dense.Float32 {
		f := make([]float32, len(v))
		if err := b.Read(0, f); err != nil {
			return err
		}
		for i, x := range f {
			v[i] = float64(x)
		}
		return nil
	}
	return b.Read(0, v)
}

// spdHost returns a random symmetric matrix with entries in [-0.5, 0.5)
// and n on the diagonal: strictly diagonally dominant, hence SPD, and made
// in O(n^2) (a product G G^T on the host took minutes at n = 16384).
func spdHost(n int, rng *rand.Rand) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := rng.Float64() - 0.5
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
		a.Set(i, i, float64(n))
	}
	return a
}

// benchDenseCholesky times solver.DenseCholesky (fast): factor (including
// its copy of A and the NaN scan) and one solve, on a device-resident SPD
// matrix.
func benchDenseCholesky(n, reps int) (r denseBenchResult) {
	r = denseBenchResult{Op: "cholesky", DType: "float64", N: n}
	fail := func(err error) denseBenchResult { r.Error = err.Error(); return r }
	host := spdHost(n, rand.New(rand.NewSource(2)))
	a, err := afarray.FromDense(host)
	if err != nil {
		return fail(err)
	}
	defer a.Release()
	b, err := afarray.Constant(1, afarray.Float64, n)
	if err != nil {
		return fail(err)
	}
	defer b.Release()
	x, err := afarray.Zeros(n)
	if err != nil {
		return fail(err)
	}
	defer x.Release()
	dev := a.Device()
	bestF, bestS := time.Duration(1<<62), time.Duration(1<<62)
	for i := 0; i <= reps; i++ {
		var c solver.DenseCholesky
		if err := dev.Finish(); err != nil {
			return fail(err)
		}
		t := time.Now()
		if err := c.Factorize(a, solver.Fast); err != nil { // reads its status: waits
			return fail(err)
		}
		t1 := time.Now()
		if err := c.SolveTo(x, b); err != nil {
			c.Release()
			return fail(err)
		}
		t2 := time.Now()
		c.Release()
		xs, err := x.Float64s()
		if err != nil {
			return fail(err)
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		r.BackwardError = worse(r.BackwardError, hostBackwardError(host, xs, ones))
		if i > 0 {
			bestF, bestS = min(bestF, t1.Sub(t)), min(bestS, t2.Sub(t1))
		}
	}
	fn := float64(n)
	r.FactorS, r.SolveS, r.TimeS = bestF.Seconds(), bestS.Seconds(), (bestF + bestS).Seconds()
	r.GFLOPS = (fn*fn*fn/3 + 2*fn*fn) / r.TimeS / 1e9
	return r
}

// benchDenseLU times the blocked LU with partial pivoting (gauss.Solve,
// variant blocked): factorization (excluding the host packing and upload,
// as its report separates them) plus the solve.
func benchDenseLU(dev *kernels.Device, n, nb int, piv gauss.Pivoting, reps int) (r denseBenchResult) {
	r = denseBenchResult{Op: "lu", DType: "float64", N: n}
	rng := rand.New(rand.NewSource(3))
	a := mat.NewDense(n, n, nil)
	for i := range a.RawMatrix().Data {
		a.RawMatrix().Data[i] = rng.Float64() - 0.5
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = 1
	}
	bestF, bestS := time.Duration(1<<62), time.Duration(1<<62)
	for i := 0; i <= reps; i++ {
		x, rp, err := gauss.Solve(dev, a, b, gauss.Options{Pivot: true, Variant: gauss.VariantBlocked, BlockSize: nb, Pivoting: piv})
		if err != nil {
			r.Error = err.Error()
			return r
		}
		r.Block, r.Config = rp.BlockSize, gauss.PivotingPartial.String()
		if rp.Tournament {
			r.Config = gauss.PivotingTournament.String()
		}
		r.BackwardError = worse(r.BackwardError, hostBackwardError(a, x, b))
		if i > 0 {
			bestF, bestS = min(bestF, rp.Eliminate), min(bestS, rp.BackSubstitution)
		}
	}
	fn := float64(n)
	r.FactorS, r.SolveS, r.TimeS = bestF.Seconds(), bestS.Seconds(), (bestF + bestS).Seconds()
	r.GFLOPS = (2*fn*fn*fn/3 + 2*fn*fn) / r.TimeS / 1e9
	return r
}

// denseBenchPivoting parses --pivoting.
func denseBenchPivoting(list string) ([]gauss.Pivoting, error) {
	var ps []gauss.Pivoting
	for _, w := range strings.Split(list, ",") {
		found := false
		for _, p := range []gauss.Pivoting{gauss.PivotingAuto, gauss.PivotingPartial, gauss.PivotingTournament} {
			if w == p.String() {
				ps, found = append(ps, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: unknown --pivoting entry %q", errUsage, w)
		}
	}
	return ps, nil
}

// worse returns the larger backward error, NaN if either is: every run of
// a measurement is checked, not only the last, so that a wrong solve in
// any run fails the benchmark.
func worse(a, b float64) float64 {
	if math.IsNaN(a) || b <= a {
		return a
	}
	return b
}

// hostBackwardError returns ||b - A x||inf / (||A||inf ||x||inf + ||b||inf).
func hostBackwardError(a *mat.Dense, x, b []float64) float64 {
	n, _ := a.Dims()
	var rmax, anorm, xmax, bmax float64
	for i := 0; i < n; i++ {
		row := a.RawRowView(i)
		s, rs := b[i], 0.0
		for j, v := range row {
			s -= v * x[j]
			rs += math.Abs(v)
		}
		rmax, anorm = math.Max(rmax, math.Abs(s)), math.Max(anorm, rs)
		xmax, bmax = math.Max(xmax, math.Abs(x[i])), math.Max(bmax, math.Abs(b[i]))
	}
	return rmax / (anorm*xmax + bmax)
}

func printDenseBench(w io.Writer, rep denseBenchReport) {
	fmt.Fprintf(w, "Dense kernels on %s\n", rep.Device)
	for dt, c := range rep.Configs {
		fmt.Fprintf(w, "GEMM tiles %s: %s\n", dt, c)
	}
	fmt.Fprintf(w, "\n| op | dtype | n | block | config | time (ms) | GFLOP/s | factor (ms) | solve (ms) | backward error |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(w, "| %s | %s | %d | | | error: %s | | | | |\n", r.Op, r.DType, r.N, r.Error)
			continue
		}
		blk := ""
		if r.Block > 0 {
			blk = strconv.Itoa(r.Block)
			if r.Lookahead == "on" {
				blk += " look-ahead"
			}
		} else if r.Op == "potrf" {
			blk = "rec"
		}
		fs, ss, be := "", "", ""
		if r.FactorS > 0 {
			fs, ss, be = fmt.Sprintf("%.3f", r.FactorS*1e3), fmt.Sprintf("%.3f", r.SolveS*1e3), fmt.Sprintf("%.1e", r.BackwardError)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.3f | %.1f | %s | %s | %s |\n", r.Op, r.DType, r.N, blk, r.Config, r.TimeS*1e3, r.GFLOPS, fs, ss, be)
	}
}
