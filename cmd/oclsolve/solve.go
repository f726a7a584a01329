package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// `oclsolve solve` is one pipeline for every solver family: load or generate
// the system, run the method, then measure the answer the same way for all
// (relative residual and normwise backward error on the host, comparison
// with a reference solution). Each family registers its methods from its own
// file (solve_thesis.go, solve_gauss.go, solve_cyclic.go) and its problem
// generators with registerGenerator.

// solveMethod is one value of --method.
type solveMethod struct {
	name     string
	formats  []string // accepted --format values, the first is the default
	variants []string // accepted --variant values, the first is the default
	run      func(p *solveProblem, o *solveOptions) (*solveOutcome, error)
	// has, when set, says which format x variant pairs exist (the solver
	// registry has no thesis variant of the supernodal or SELL formats);
	// nil means every pair.
	has func(format, variant string) bool
	// prepare, when set, does the host work of run that needs no device
	// (checks, ordering) while the device's context is being created.
	prepare func(p *solveProblem, o *solveOptions) error
}

var solveMethods = map[string]*solveMethod{}

func registerSolveMethod(m *solveMethod) {
	if _, dup := solveMethods[m.name]; dup {
		panic("oclsolve: duplicate solve method " + m.name)
	}
	solveMethods[m.name] = m
}

// solveOptions are the parsed flags of `oclsolve solve`.
type solveOptions struct {
	Method, Format, Variant, Order string
	Tol                            float64
	MaxIt                          int
	Jacobi                         bool
	// Symmetric says that a file storing one triangle stores one triangle
	// of a symmetric matrix (applyTriangleRule).
	Symmetric bool
	Seed      uint64
	Build     string // where the format is built: auto, host or device
	Device    *kernels.Device
	// Devices is the --devices list when it names more than one device
	// (Device is then its first); nil for one device.
	Devices []*kernels.Device
	// Engine is opencl (the device solvers) or petsc (solve_petsc.go);
	// PC and PETScOptions configure the PETSc engine.
	Engine, PC, PETScOptions string
	// rows, when set, makes the model generators (model1:, model2:)
	// assemble only the rows it chooses: a PETSc rank's own
	// (loadDistributed).
	rows fem.RowRange
}

// solveProblem is a system A x = b. A is a COO matrix (file or generator);
// generators of structured problems that should never be assembled (a 4095 x
// 4095 Poisson grid) leave A nil and set Spec, MatVec and NormInf instead.
type solveProblem struct {
	Source string      // file path or generator spec
	A      *sparse.COO // nil for matrix-free generated problems
	Spec   any         // a generator's own description, for methods that use it
	N      int
	// NNZ counts the entries of the lower triangle, diagonal included, and
	// NNZFull those of the whole matrix, whichever triangles the input
	// stores (a symmetric file one, an OpenFEM set both).
	NNZ, NNZFull int
	B            []float64
	Ref          []float64 // reference solution, nil if none
	// Model is the generated finite-element system (model1:, model2:),
	// whose nodes the PETSc engine uses; nil for files.
	Model *fem.System
	Notes []string // about the problem, for the report

	missingB string // the OpenFEM set's absent .fzs, when it has none
	// prepared is the solver's host work done while the device was
	// created (solveMethod.prepare), or nil.
	prepared *solver.Prepared

	// MatVec computes A x on the host and NormInf returns ||A||∞; both are
	// derived from A when nil.
	MatVec  func(x []float64) []float64
	NormInf float64
}

// timeSplit is the time of each phase, in seconds. Phases a method does not
// have stay zero. The parts add up to Total, the wall time from reading the
// input to having x on the host: Read (reading or generating A, b and the
// reference), Ordering, Upload (entries and b to the device), Convert
// (building the format on the device), Compile (first use of a program on
// the device), Symbolic, Factorize, Solve, Download (x back) and Other
// (validation and bookkeeping: the rest).
type timeSplit struct {
	Read      float64 `json:"read"`
	Upload    float64 `json:"upload"`
	Ordering  float64 `json:"ordering"`
	Convert   float64 `json:"convert"`
	Compile   float64 `json:"compile"`
	Symbolic  float64 `json:"symbolic"`
	Factorize float64 `json:"factorize"`
	Solve     float64 `json:"solve"`
	Download  float64 `json:"download"`
	Other     float64 `json:"other"`
	Total     float64 `json:"total"`
}

// finish sets Read, makes Total the whole (read + the method's total) and
// Other the rest, so that the parts add up to Total.
func (t *timeSplit) finish(read float64) {
	t.Read = read
	t.Total += read
	t.Other = t.Total - (t.Read + t.Upload + t.Ordering + t.Convert + t.Compile + t.Symbolic + t.Factorize + t.Solve + t.Download)
}

// solveOutcome is what a method returns.
type solveOutcome struct {
	X               []float64
	Format, Variant string // as actually run
	Ordering        string
	Times           timeSplit
	DeviceBytes     int64   // peak device bytes of the solve
	ThesisMemory    float64 // bytes, by the thesis's formula for the format
	Iterations      int
	ResidualHistory []float64
	Notes           []string
	// Converged is set by iterative methods; Failure is why the answer
	// must not be trusted (CG stopped at its limit), reported after it.
	Converged *bool
	Failure   error
	// Single is set when the method computed in single precision, which
	// bounds its accuracy (see accuracyLimit).
	Single bool
	Shares []solver.DeviceShare // one per device of a multi-device run
	// Stats are the solver's own figures (solver.Report.Stats).
	Stats []solver.Stat
}

// solveReport is what `oclsolve solve --json` prints. The field names are
// stable:
//
//	n, nnz, nnz_full         order of A, entries of its lower triangle (diagonal included) and of the whole matrix
//	method, format, variant  what ran ("ordering": natural or rcm)
//	device                   the OpenCL device (devices: comma-separated labels)
//	devices                  multi-device runs: each device's rows, nnz, halo, send and peak_bytes
//	times_s                  read, ordering, upload, convert, compile, symbolic, factorize, solve,
//	                         download, other and total (seconds); the parts add up to total;
//	                         compile is the OpenCL program builds (a first run's compiler, later the
//	                         disk cache), taken out of the phase that built them
//	device_bytes             peak device memory of the solve, measured
//	thesis_memory_mb         the thesis's memory formula for the format, MB = 1e6 B
//	kernel_launches          kernels enqueued during the solve
//	iterations, residual_history  for iterative methods
//	relative_residual        ||b - A x||₂ / ||b||₂
//	backward_error           normwise backward error ||b - A x||∞ / (||A||∞ ||x||∞ + ||b||∞)
//	ref_max_abs_diff, ref_norm2_diff  max|x - xref| and ||x - xref||₂ when --ref is given
//	ref_rel_diff             ||x - xref||₂ / ||xref||₂ when --ref is given
//	converged                iterative methods: whether the tolerance was reached
//	error                    why the answer must not be trusted (the command then
//	                         exits 3 for CG that did not converge, 4 for a direct
//	                         method whose backward error exceeds its limit)
//	nnz_l, flops, supernodes, levels  supernodal format: nnz(L), Σ c_j², supernodes, assembly-tree levels
//
// The last four, and whatever figures another solver adds, come from the
// registry's entry (solver.Report.Stats): each is a field named by its key
// after the fields above, omitted when zero.
type solveReport struct {
	Source           string              `json:"source"`
	N                int                 `json:"n"`
	NNZ              int                 `json:"nnz"`
	NNZFull          int                 `json:"nnz_full"`
	Method           string              `json:"method"`
	Format           string              `json:"format"`
	Variant          string              `json:"variant"`
	Ordering         string              `json:"ordering"`
	Device           string              `json:"device"`
	Times            timeSplit           `json:"times_s"`
	DeviceBytes      int64               `json:"device_bytes"`
	ThesisMemoryMB   float64             `json:"thesis_memory_mb"`
	KernelLaunches   int64               `json:"kernel_launches"`
	Iterations       int                 `json:"iterations"`
	ResidualHistory  []jsonFloat         `json:"residual_history,omitempty"`
	RelativeResidual jsonFloat           `json:"relative_residual"`
	BackwardError    jsonFloat           `json:"backward_error"`
	RefMaxAbsDiff    *jsonFloat          `json:"ref_max_abs_diff,omitempty"`
	RefNorm2Diff     *jsonFloat          `json:"ref_norm2_diff,omitempty"`
	RefRelDiff       *jsonFloat          `json:"ref_rel_diff,omitempty"`
	Converged        *bool               `json:"converged,omitempty"`
	Error            string              `json:"error,omitempty"`
	Notes            []string            `json:"notes,omitempty"`
	Devices          []deviceShareReport `json:"devices,omitempty"`
	// PETSc describes a run of --engine petsc (solve_petsc.go).
	PETSc *petscReport `json:"petsc,omitempty"`
	// Stats are the solver's own figures, printed by MarshalJSON after the
	// fields above.
	Stats []solver.Stat `json:"-"`
}

// MarshalJSON writes the report's fields, then each of Stats that is not
// zero as a field named by its key (a key that names a field of the report,
// present in this output or omitted as empty, is left out: the fixed fields
// keep their meaning, and "error" never appears on an answer that passed).
func (r *solveReport) MarshalJSON() ([]byte, error) {
	type fixed solveReport // without this method
	out, err := json.Marshal((*fixed)(r))
	if err != nil {
		return nil, err
	}
	out = bytes.TrimSuffix(out, []byte("}"))
	taken := maps.Clone(solveReportKeys())
	for _, st := range r.Stats {
		if taken[st.Key] || st.Value == nil || reflect.ValueOf(st.Value).IsZero() {
			continue
		}
		k, err := json.Marshal(st.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(st.Value)
		if f, ok := st.Value.(float64); ok {
			v, err = marshalFinite(f)
		}
		if err != nil {
			return nil, err
		}
		taken[st.Key] = true
		out = append(append(append(append(out, ','), k...), ':'), v...)
	}
	return append(out, '}'), nil
}

// solveReportKeys are the JSON names of solveReport's fields, from their
// tags (a field without a tag goes by its name, as encoding/json does).
var solveReportKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[solveReport]()
	for i := range t.NumField() {
		fl := t.Field(i)
		name, _, _ := strings.Cut(fl.Tag.Get("json"), ",")
		switch {
		case !fl.IsExported() || name == "-":
		case name == "":
			keys[fl.Name] = true
		default:
			keys[name] = true
		}
	}
	return keys
})

func init() {
	register(&command{
		name:    "solve",
		usage:   "[--method M] [--format F] [--variant V] [--order O] [--tol T] [--maxit N] [--jacobi] [--symmetric] [--devices all|LIST] [--rhs ones|random] [--ref FILE] [--seed S] [--json] [-o x.mtx|x.npy|-] A [b]",
		summary: "solve A x = b with any method, format and variant; report time, memory and accuracy",
		run:     runSolve,
	})
}

// generators build problems from specs like "poisson1d:1024" in place of a
// file name.
var generators = map[string]func(arg string, o *solveOptions) (*solveProblem, error){}

func registerGenerator(name string, f func(arg string, o *solveOptions) (*solveProblem, error)) {
	generators[name] = f
}

func methodNames() string {
	names := make([]string, 0, len(solveMethods))
	for n := range solveMethods {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// solveFlags are the parsed command line of `oclsolve solve`: the options
// the methods read, and what runSolve itself uses.
type solveFlags struct {
	o                 solveOptions
	devices, rhs, ref string
	outPath           string
	asJSON, rhsSet    bool
	posArgs           []string // A and optionally b
}

// runSolve is `oclsolve solve`: parse, pick the engine and method, load
// the system while the devices come up, solve, measure, report.
func runSolve(args []string) error {
	f, err := parseSolveFlags(args)
	if err != nil {
		return err
	}
	o := &f.o
	switch o.Engine {
	case engineOpenCL:
		if o.PC != "" || o.PETScOptions != "" {
			return fmt.Errorf("%w: --pc and --petsc-options need --engine petsc", errUsage)
		}
	case enginePETSc:
		if err := checkPETScFlags(o); err != nil {
			return err
		}
		return solvePETSc(f.posArgs, o, f.rhs, f.rhsSet, f.ref, f.outPath, f.asJSON)
	default:
		return fmt.Errorf("%w: --engine opencl|petsc, not %q", errUsage, o.Engine)
	}
	m, err := resolveSolveMethod(o)
	if err != nil {
		return err
	}
	p, devs, read, err := loadOnDevices(f, m)
	if err != nil {
		return err
	}
	launches := deviceLaunches(devs)
	out, err := runSolveMethod(m, p, o, f.asJSON, read)
	if err != nil {
		return err
	}
	rep := solveReportOf(p, o, m, out, devs, launches)
	// The answer is checked before it is reported as one: the report is
	// printed either way, the exit status tells whether to trust it.
	failure := answerFailure(rep, out, m, o)
	if failure != nil {
		rep.Error = failure.Error()
		removeStaleSolution(f.outPath, rep)
	} else if f.outPath != "" {
		// Only an answer that passed the checks is written.
		if err := writeSolution(f.outPath, out.X); err != nil {
			return err
		}
	}
	if err := emitSolveReport(rep, f); err != nil {
		return err
	}
	return failure
}

// parseSolveFlags reads the command line.
func parseSolveFlags(args []string) (*solveFlags, error) {
	fs := newFlagSet("solve")
	f := &solveFlags{}
	o := &f.o
	fs.StringVar(&o.Method, "method", "cholesky", "solution method: "+methodNames())
	fs.StringVar(&o.Format, "format", "", "storage format (default or auto: the method's first)")
	fs.StringVar(&o.Variant, "variant", "", "implementation variant (default: the method's first)")
	fs.StringVar(&o.Order, "order", "auto", "symmetric reordering: "+orderNames()+" (none is natural; auto the better of natural and rcm)")
	fs.Float64Var(&o.Tol, "tol", 0, "CG: tolerance (default 1e-8 on ||r||/||b|| for fast, 1e-6 on ||r|| for thesis)")
	fs.IntVar(&o.MaxIt, "maxit", 0, "CG: maximum iterations (default 10n for fast, n for thesis)")
	fs.BoolVar(&o.Jacobi, "jacobi", false, "CG: Jacobi (diagonal) preconditioning")
	fs.BoolVar(&o.Symmetric, "symmetric", false, "A stores one triangle of a symmetric matrix (a .npz of scipy.sparse.tril, a general Matrix Market file of one triangle); without it such a file is the triangular matrix it stores")
	fs.StringVar(&o.Build, "build", "auto", "where CSC and SKS are built: auto (on a GPU from the uploaded entries, on the host for a CPU device), host or device")
	fs.StringVar(&f.devices, "devices", "", devicesHelp)
	fs.StringVar(&f.rhs, "rhs", "ones", "right-hand side when no b file is given: ones or random")
	fs.StringVar(&f.ref, "ref", "", "reference solution (Matrix Market vector or OpenFEM .def) to compare with")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed for random right-hand sides and matrices")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&o.Engine, "engine", engineOpenCL, "opencl (the device solvers) or petsc (MUMPS, GAMG, ... under mpiexec; bin/oclsolve-petsc)")
	fs.StringVar(&o.PC, "pc", "", "petsc: preconditioner of cg (gamg, the default, or any PETSc PC type); mumps for cholesky and ldlt")
	fs.StringVar(&o.PETScOptions, "petsc-options", "", "petsc: PETSc options passed through (\"-ksp_monitor -pc_gamg_threshold 0.05\")")
	fs.StringVar(&f.outPath, "o", "", "write the solution x (original numbering): FILE.mtx (Matrix Market array), FILE.npy (NumPy), or - (Matrix Market on standard output; the report goes to standard error)")
	posArgs, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, errUsage
	}
	if len(posArgs) < 1 || len(posArgs) > 2 {
		return nil, fmt.Errorf("%w: want A and optionally b", errUsage)
	}
	if err := checkOutPath(f.outPath); err != nil {
		return nil, err
	}
	f.posArgs = posArgs
	fs.Visit(func(fl *flag.Flag) { f.rhsSet = f.rhsSet || fl.Name == "rhs" })
	return f, nil
}

// resolveSolveMethod finds the method and fills in its default format and
// variant, checking them and the ordering.
func resolveSolveMethod(o *solveOptions) (*solveMethod, error) {
	m, ok := solveMethods[o.Method]
	if !ok {
		return nil, fmt.Errorf("%w: unknown method %q (want %s)", errUsage, o.Method, methodNames())
	}
	if o.Format == "" || o.Format == "auto" {
		o.Format = m.formats[0]
	}
	if o.Variant == "" {
		o.Variant = m.variants[0]
	}
	if !contains(m.formats, o.Format) {
		return nil, fmt.Errorf("%w: method %s takes --format %s, not %q", errUsage, m.name, strings.Join(m.formats, "|"), o.Format)
	}
	if !contains(m.variants, o.Variant) {
		return nil, fmt.Errorf("%w: method %s takes --variant %s, not %q", errUsage, m.name, strings.Join(m.variants, "|"), o.Variant)
	}
	order, err := sparse.ParseOrdering(o.Order)
	if err != nil {
		return nil, fmt.Errorf("%w: --order %s, not %q", errUsage, orderNames(), o.Order)
	}
	o.Order = string(order)
	return m, nil
}

// loadOnDevices reads the system while the devices are found, sets
// o.Device (and o.Devices for several) and checks that the system fits.
// It returns the read time in seconds: reading, and the fit check.
func loadOnDevices(f *solveFlags, m *solveMethod) (*solveProblem, []*kernels.Device, float64, error) {
	o := &f.o
	// The device is found and its context created (a few hundred
	// milliseconds with a GPU driver) while the input is read.
	type devResult struct {
		devs []*kernels.Device
		err  error
	}
	devReady := make(chan devResult, 1)
	go func() {
		devs, err := selectDevices(f.devices, o.Method, o.Format, o.Variant)
		trace("devices found")
		if err == nil {
			err = devs[0].Finish()
		}
		trace("context ready")
		devReady <- devResult{devs, err}
	}()
	readStart := time.Now()
	p, err := loadSystem(f.posArgs, o, f.rhs, f.rhsSet, f.ref)
	readTime := time.Since(readStart)
	trace("input read")
	if err == nil && m.prepare != nil && f.devices == "" {
		// The method's host work overlaps the rest of the context's
		// creation; its time is in the method's own split.
		if err = m.prepare(p, o); err != nil {
			return nil, nil, 0, err
		}
		trace("prepared")
	}
	dr := <-devReady
	trace("device ready")
	if dr.err != nil {
		return nil, nil, 0, dr.err
	}
	o.Device = dr.devs[0]
	if len(dr.devs) > 1 {
		o.Devices = dr.devs
	}
	if err != nil {
		return nil, nil, 0, err
	}
	afterWait := time.Now()
	if err := checkDeviceFits(p, o); err != nil {
		return nil, nil, 0, err
	}
	return p, dr.devs, (readTime + time.Since(afterWait)).Seconds(), nil
}

// runSolveMethod runs the method with the progress line and completes its
// time split: the total, compile time a method did not account, and read.
func runSolveMethod(m *solveMethod, p *solveProblem, o *solveOptions, asJSON bool, read float64) (*solveOutcome, error) {
	dev := o.Device
	dev.ResetPeak()
	start := time.Now()
	compile0 := dev.CompileTime()
	stopProgress := progress(os.Stderr, "solving", asJSON, dev)
	trace("solve starts")
	out, err := m.run(p, o)
	trace("solve ends")
	stopProgress()
	if err != nil {
		return nil, err
	}
	if out.Times.Total == 0 {
		out.Times.Total = time.Since(start).Seconds()
	}
	if out.Times.Compile == 0 {
		// A method that does not account its program builds built them
		// while uploading (the cyclic-reduction suites do).
		c := (dev.CompileTime() - compile0).Seconds()
		out.Times.Compile = c
		if out.Times.Upload >= c {
			out.Times.Upload -= c
		}
	}
	out.Times.finish(read)
	return out, nil
}

// solveReportOf measures the answer and describes the run: notes, device,
// launches since launches0, each device's share, peak memory.
func solveReportOf(p *solveProblem, o *solveOptions, m *solveMethod, out *solveOutcome, devs []*kernels.Device, launches0 int64) *solveReport {
	dev := devs[0]
	if note, ok := p.Spec.(string); ok && note != "" {
		out.Notes = append([]string{note}, out.Notes...)
	}
	out.Notes = append(p.Notes, out.Notes...)
	rep := makeReport(p, o, m, out)
	trace("answer checked")
	rep.Device = dev.Name()
	if len(devs) > 1 {
		rep.Device = kernels.Labels(devs)
	}
	rep.KernelLaunches = deviceLaunches(devs) - launches0
	for _, s := range out.Shares {
		rep.Devices = append(rep.Devices, deviceShareReport{Device: s.Device, Rows: s.Rows, NNZ: s.NNZ,
			Halo: s.Halo, Send: s.Send, PeakBytes: s.PeakBytes})
	}
	if out.DeviceBytes == 0 {
		rep.DeviceBytes = dev.MemoryStats().Peak
	}
	return rep
}

// answerFailure says why the answer must not be trusted, as the exit
// status that tells it, or nil.
func answerFailure(rep *solveReport, out *solveOutcome, m *solveMethod, o *solveOptions) error {
	switch {
	case out.Failure != nil:
		return &exitError{exitNotConverged, out.Failure}
	case out.Converged == nil && !(float64(rep.BackwardError) <= accuracyLimit(out)):
		return &exitError{exitInaccurate, inaccurate(m.name, o.Variant, float64(rep.BackwardError), accuracyLimit(out))}
	}
	return nil
}

// emitSolveReport prints the report, as JSON with --json, on standard
// output (standard error when x goes to standard output).
func emitSolveReport(rep *solveReport, f *solveFlags) error {
	report := io.Writer(os.Stdout)
	if f.outPath == "-" {
		report = os.Stderr
	}
	if f.asJSON {
		enc := json.NewEncoder(report)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
		trace("report printed")
		return nil
	}
	printReport(report, rep)
	trace("report printed")
	return nil
}

// accuracyLimit is the largest backward error a direct method's answer may
// have: solver.MaxBackwardError in double precision, 1e-4 for the single
// precision variants (unit roundoff 6e-8 times the growth of elimination).
func accuracyLimit(out *solveOutcome) float64 {
	if out.Single {
		return 1e-4
	}
	return solver.MaxBackwardError
}

// inaccurate says how inaccurate a direct method's answer is and what to
// try instead.
func inaccurate(method, variant string, be, limit float64) error {
	hint := "the matrix is singular or too ill-conditioned for this precision"
	switch method {
	case "cholesky":
		hint = "the matrix may not be positive definite, or is ill-conditioned: try --method ldlt, or --method gauss-pivot (partial pivoting)"
	case "ldlt":
		hint = "LDLᵀ without pivoting is unstable on indefinite or nearly singular matrices: try --method gauss-pivot (partial pivoting)"
	case "gj", "gauss":
		hint = "elimination without pivoting is unstable on this matrix: try --method gauss-pivot (partial pivoting)"
	case "cr", "pcr", "crpcr", "bcr":
		hint = "cyclic reduction does not pivot and needs a diagonally dominant matrix: try --method gauss-pivot"
	}
	return fmt.Errorf("the solution is inaccurate: %s (%s) normwise backward error %.3g exceeds %.0e; %s", method, variant, be, limit, hint)
}

// orderNames lists the orderings --order accepts, from the sparse package's
// registry.
func orderNames() string {
	names := []string{"none"}
	for _, o := range sparse.Orderings() {
		names = append(names, string(o))
	}
	return strings.Join(names, "|")
}

// loadSystem loads A (file or generator), b (file, or --rhs) and the
// reference solution of --ref.
func loadSystem(posArgs []string, o *solveOptions, rhs string, rhsSet bool, ref string) (*solveProblem, error) {
	p, err := loadProblem(posArgs[0], o)
	if err != nil {
		return nil, err
	}
	if len(posArgs) == 2 {
		if p.B, err = readVector(posArgs[1]); err != nil {
			return nil, err
		}
	} else if p.B == nil {
		if p.missingB != "" && !rhsSet {
			// An OpenFEM set's load vector is part of the problem; a
			// made-up one is only used when asked for.
			return nil, fmt.Errorf("%s is missing, so the OpenFEM set has no load vector: give b as a second argument, or --rhs ones|random to solve with a made-up one", p.missingB)
		}
		if p.missingB != "" {
			p.Notes = append(p.Notes, fmt.Sprintf("%s is missing: b = %s (--rhs)", p.missingB, rhs))
		}
		if p.B, err = makeRHS(rhs, p.N, o.Seed); err != nil {
			return nil, err
		}
	}
	if len(p.B) != p.N {
		return nil, fmt.Errorf("right-hand side has %d entries, the matrix has order %d", len(p.B), p.N)
	}
	if ref != "" {
		if p.Ref, err = readVector(ref); err != nil {
			return nil, err
		}
		if len(p.Ref) != p.N {
			return nil, fmt.Errorf("reference solution has %d entries, the matrix has order %d", len(p.Ref), p.N)
		}
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// loadProblem reads A from a Matrix Market file, an OpenFEM set (its prefix
// or its .nz file), or builds it from a generator spec NAME:ARG.
func loadProblem(src string, o *solveOptions) (*solveProblem, error) {
	if name, arg, ok := strings.Cut(src, ":"); ok {
		if g, ok := generators[name]; ok {
			p, err := g(arg, o)
			if err != nil {
				return nil, fmt.Errorf("generating %s: %w", src, err)
			}
			p.Source = src
			p.countNNZ()
			return p, nil
		}
	}
	p := &solveProblem{Source: src}
	var err error
	// A set with one of its files missing is reported as such, not as a
	// Matrix Market file that does not exist.
	if strings.HasSuffix(strings.ToLower(src), ".npz") {
		if p.A, err = sparse.ReadNPZ(src); err != nil {
			return nil, err
		}
	} else if prefix, ok := sparse.OpenFEMPrefix(src); ok {
		set, err := sparse.ReadOpenFEM(prefix)
		if err != nil {
			return nil, err
		}
		p.A, p.B, p.Ref = set.A, set.F, set.Def
		if set.F == nil {
			p.missingB = prefix + sparse.OpenFEMForce
		}
	} else {
		data, err := sparse.ReadMatrixMarketFile(src)
		if err != nil {
			return nil, err
		}
		if data.COO != nil {
			p.A = data.COO
		} else if data.Dense != nil {
			if p.A, err = sparse.COOFromDense(data.Dense); err != nil {
				return nil, err
			}
		} else {
			return nil, fmt.Errorf("%s holds no matrix", src)
		}
	}
	if p.A.Rows != p.A.Cols {
		return nil, fmt.Errorf("%s: the matrix is %dx%d, not square", src, p.A.Rows, p.A.Cols)
	}
	// O(nnz) before anything of the declared order (a right-hand side, an
	// ordering) is allocated: a header may claim an order of billions.
	if err := p.A.CheckStructure(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := applyTriangleRule(p, o); err != nil {
		return nil, err
	}
	p.N = p.A.Rows
	p.countNNZ()
	return p, nil
}

// countNNZ sets NNZ and NNZFull from A: the same counts whichever triangles
// the input stores.
func (p *solveProblem) countNNZ() {
	if m := p.Model; m != nil && (m.RowLo != 0 || m.RowHi != m.NumDOF) {
		// A holds some rows only; the model counted the whole K, which
		// stores both triangles and every diagonal entry.
		p.NNZFull = int(m.NNZ)
		p.NNZ = (p.NNZFull + p.N) / 2
		return
	}
	if p.A != nil {
		p.NNZ, p.NNZFull = p.A.NNZLower(), p.A.NNZFull()
	}
}

// readVector reads a NumPy .npy vector, a Matrix Market array/coordinate
// vector or an OpenFEM one-number-per-line file (.fzs, .def).
func readVector(path string) ([]float64, error) {
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		return sparse.ReadNPY(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 14)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if strings.HasPrefix(string(head[:n]), "%%MatrixMarket") || (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		return sparse.ReadMatrixMarketVector(f)
	}
	return sparse.ReadOpenFEMVector(path)
}

// makeRHS returns ones or seeded uniform values in [-1, 1).
func makeRHS(kind string, n int, seed uint64) ([]float64, error) {
	b := make([]float64, n)
	switch kind {
	case "ones":
		for i := range b {
			b[i] = 1
		}
	case "random":
		s := seed
		for i := range b {
			s += 0x9E3779B97F4A7C15
			z := s
			z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
			z = (z ^ (z >> 27)) * 0x94D049BB133111EB
			z ^= z >> 31
			b[i] = float64(z>>11)/(1<<53)*2 - 1
		}
	default:
		return nil, fmt.Errorf("%w: --rhs ones|random, not %q", errUsage, kind)
	}
	return b, nil
}

// makeReport measures the solution on the host.
func makeReport(p *solveProblem, o *solveOptions, m *solveMethod, out *solveOutcome) *solveReport {
	rep := &solveReport{
		Source: p.Source, N: p.N, NNZ: p.NNZ, NNZFull: p.NNZFull, Method: m.name, Format: o.Format, Variant: o.Variant,
		Ordering: out.Ordering, Times: out.Times, DeviceBytes: out.DeviceBytes,
		ThesisMemoryMB: out.ThesisMemory / 1e6, Iterations: out.Iterations,
		ResidualHistory: jsonFloats(out.ResidualHistory), Notes: out.Notes, Converged: out.Converged,
		Stats: out.Stats,
	}
	if out.Format != "" {
		rep.Format = out.Format
	}
	if out.Variant != "" {
		rep.Variant = out.Variant
	}
	if rep.Ordering == "" {
		rep.Ordering = string(sparse.OrderNatural)
	}
	ax := p.matVec(out.X)
	var r2, b2 float64
	for i := range ax {
		r := p.B[i] - ax[i]
		r2 += r * r
		b2 += p.B[i] * p.B[i]
	}
	rep.RelativeResidual = jsonFloat(math.Sqrt(r2) / math.Max(math.Sqrt(b2), math.SmallestNonzeroFloat64))
	rep.BackwardError = jsonFloat(sparse.BackwardError(p.normInf(), ax, out.X, p.B))
	rep.compareRef(out.X, p.Ref)
	return rep
}

// compareRef sets the report's differences from the reference solution
// ref (nothing when ref is nil): max|x - xref|, ||x - xref||₂ and
// ||x - xref||₂ / ||xref||₂, the figure to compare two engines' answers by.
func (rep *solveReport) compareRef(x, ref []float64) {
	if ref == nil {
		return
	}
	var mx, s, r float64
	for i, v := range x {
		d := math.Abs(v - ref[i])
		mx = math.Max(mx, d)
		s += d * d
		r += ref[i] * ref[i]
	}
	s = math.Sqrt(s)
	rel := s / math.Max(math.Sqrt(r), math.SmallestNonzeroFloat64)
	mxf, sf, relf := jsonFloat(mx), jsonFloat(s), jsonFloat(rel)
	rep.RefMaxAbsDiff, rep.RefNorm2Diff, rep.RefRelDiff = &mxf, &sf, &relf
}

func (p *solveProblem) matVec(x []float64) []float64 {
	if p.MatVec != nil {
		return p.MatVec(x)
	}
	y, _ := p.A.MulVec(x) // x has p.N entries
	return y
}

func (p *solveProblem) normInf() float64 {
	if p.NormInf > 0 || p.A == nil {
		return p.NormInf
	}
	p.NormInf = p.A.NormInf()
	return p.NormInf
}

func printReport(w io.Writer, r *solveReport) {
	fmt.Fprintf(w, "system        %s: n = %d, nnz = %d (lower triangle; %d in the full matrix)\n", r.Source, r.N, r.NNZ, r.NNZFull)
	fmt.Fprintf(w, "method        %s, format %s, variant %s, ordering %s\n", r.Method, r.Format, r.Variant, r.Ordering)
	fmt.Fprintf(w, "device        %s (%d kernel launches)\n", r.Device, r.KernelLaunches)
	t := r.Times
	fmt.Fprintf(w, "time (s)      read %.4f  ordering %.4f  upload %.4f  convert %.4f  compile %.4f  symbolic %.4f\n",
		t.Read, t.Ordering, t.Upload, t.Convert, t.Compile, t.Symbolic)
	fmt.Fprintf(w, "              factorize %.4f  solve %.4f  download %.4f  other %.4f  total %.4f\n",
		t.Factorize, t.Solve, t.Download, t.Other, t.Total)
	fmt.Fprintf(w, "memory        device peak %.2f MB, thesis formula %.2f MB\n", float64(r.DeviceBytes)/1e6, r.ThesisMemoryMB)
	printSolverStats(w, r.Stats)
	for _, d := range r.Devices {
		fmt.Fprintf(w, "  on          %s: rows %d, nnz %d, halo %d, send %d, peak %.2f MB\n",
			d.Device, d.Rows, d.NNZ, d.Halo, d.Send, float64(d.PeakBytes)/1e6)
	}
	if r.Iterations > 0 {
		fmt.Fprintf(w, "iterations    %d\n", r.Iterations)
	}
	fmt.Fprintf(w, "residual      ||b-Ax||/||b|| = %.3e, backward error = %.3e\n", r.RelativeResidual, r.BackwardError)
	if r.RefMaxAbsDiff != nil {
		fmt.Fprintf(w, "vs reference  max|x-xref| = %.3e, ||x-xref|| = %.3e, ||x-xref||/||xref|| = %.3e\n", *r.RefMaxAbsDiff, *r.RefNorm2Diff, *r.RefRelDiff)
	}
	if r.Converged != nil {
		fmt.Fprintf(w, "converged     %v\n", *r.Converged)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note          %s\n", n)
	}
}

// printSolverStats prints the solver's own figures that are not zero, one
// line per group (solver.StatLines: "factor        nnz(L) 147631, 5.53e+07
// flops, ...").
func printSolverStats(w io.Writer, stats []solver.Stat) {
	for _, l := range solver.StatLines(stats) {
		fmt.Fprintf(w, "%-13s %s\n", l[0], l[1])
	}
}

// finiteOrError checks a solution before it is reported: a solver never
// returns NaN silently.
func finiteOrError(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("solution has %v at index %d", v, i)
		}
	}
	return nil
}
