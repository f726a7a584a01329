//go:build petsc

package petsc

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The engine's tests run under `mpiexec -n 2`: TestMain starts the test
// binary again through mpiexec (with the flags OpenMPI needs as root and on
// fewer cores than ranks) unless it already runs under it. Every test makes
// the same sequence of collective calls on every rank and never stops
// between two of them (Errorf, not Fatal), so a failure on one rank cannot
// leave the other waiting.

// MPIRanks is how many ranks the tests run on (OCLSOLVE_PETSC_RANKS
// overrides it).
const mpiRanks = "2"

func TestMain(m *testing.M) {
	if os.Getenv("OMPI_COMM_WORLD_SIZE") == "" && os.Getenv("PMI_SIZE") == "" {
		os.Exit(underMPIExec())
	}
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// underMPIExec runs this test binary with the same arguments under mpiexec
// and returns its exit status.
func underMPIExec() int {
	ranks := mpiRanks
	if r := os.Getenv("OCLSOLVE_PETSC_RANKS"); r != "" {
		ranks = r
	}
	mpiexec, err := exec.LookPath("mpiexec")
	if err != nil {
		fmt.Fprintln(os.Stderr, "petsc tests: mpiexec not found (make petsc installs OpenMPI):", err)
		return 1
	}
	args := append([]string{"-n", ranks}, MPIExecFlags()...)
	args = append(append(args, os.Args[0]), os.Args[1:]...)
	cmd := exec.Command(mpiexec, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), MPIExecEnv()...)
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "petsc tests:", err)
		return 1
	}
	return 0
}

func matrixDir() string {
	if d := os.Getenv("OCLSOLVE_MATRICES"); d != "" {
		return d
	}
	return "../../../../shared/matrices"
}

// loadShared reads a shared matrix on every rank; ok is false (on every
// rank alike) when the collection is absent.
func loadShared(t *testing.T, name string) (*sparse.COO, bool) {
	t.Helper()
	f, err := os.Open(filepath.Join(matrixDir(), name+".mtx"))
	if err != nil {
		t.Logf("%s not available: %v", name, err)
		return nil, false
	}
	defer f.Close()
	a, err := sparse.ReadMatrixMarket(f)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil, false
	}
	return a, true
}

func ones(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = 1
	}
	return b
}

// denseSolve is the independent reference for small systems: gonum's
// Cholesky of the dense matrix.
func denseSolve(a *sparse.COO, b []float64) ([]float64, error) {
	n := a.Rows
	d := mat.NewSymDense(n, nil)
	for k, v := range a.V {
		i, j := int(a.I[k]), int(a.J[k])
		if a.Symmetric || i <= j {
			d.SetSym(min(i, j), max(i, j), d.At(i, j)+v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(d) {
		return nil, errors.New("dense reference: not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(n, b)); err != nil {
		return nil, err
	}
	return x.RawVector().Data, nil
}

func relDiff(x, y []float64) float64 {
	var num, den float64
	for i := range x {
		num += (x[i] - y[i]) * (x[i] - y[i])
		den += y[i] * y[i]
	}
	return math.Sqrt(num / den)
}

// TestMUMPSShared solves shared SPD matrices with MUMPS Cholesky and LDLᵀ,
// A given on every rank, and checks the backward error and agreement with
// gonum's dense Cholesky or the device's skyline Cholesky to 1e-10
// relative (measured: 6e-12 at worst, msc04515, cond₂ 2.3e6).
func TestMUMPSShared(t *testing.T) {
	// cond₂ (INDEX.md) from 5 to 1.1e10.
	for _, name := range []string{"mesh1e1", "bcsstk02", "nos4", "nos3", "bcsstk13", "crystm01", "msc04515"} {
		a, ok := loadShared(t, name)
		if !ok {
			continue
		}
		b := ones(a.Rows)
		// The reference: gonum's dense Cholesky where it is quick, the
		// single-device skyline Cholesky (solver.Run) above.
		var ref []float64
		if Rank() == 0 {
			var err error
			if a.Rows <= 2500 {
				ref, err = denseSolve(a, b)
			} else {
				ref, _, err = solver.Run(a, b, solver.Options{Method: solver.MethodCholesky, Format: solver.FormatSKS})
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, method := range []string{MethodCholesky, MethodLDLT} {
			x, rep, err := Solve(a, b, Options{Method: method})
			if err != nil {
				t.Errorf("%s %s: %v", name, method, err)
				continue
			}
			if rep.BackwardError > 1e-14 {
				t.Errorf("%s %s: backward error %.2e > 1e-14", name, method, rep.BackwardError)
			}
			if method == MethodCholesky && rep.NegativePivots != 0 {
				t.Errorf("%s: %d negative pivots", name, rep.NegativePivots)
			}
			if Rank() == 0 && ref != nil {
				if d := relDiff(x, ref); d > 1e-10 {
					t.Errorf("%s %s: ||x - x_ref|| / ||x_ref|| = %.2e > 1e-10", name, method, d)
				}
				t.Logf("%s %s: ||x - x_ref|| / ||x_ref|| = %.2e", name, method, relDiff(x, ref))
			}
			if Rank() != 0 && x != nil {
				t.Errorf("%s: x returned on rank %d without GatherAll", name, Rank())
			}
			t.Logf("%s %s: n %d, %d ranks, backward error %.2e, factor entries %d, times %v %v %v", name, method, rep.N, rep.Ranks, rep.BackwardError, rep.FactorEntries, rep.SymbolicTime, rep.FactorizeTime, rep.SolveTime)
		}
	}
}

// TestRootScatter gives A and b on rank 0 only; PETSc scatters the rows.
// The answer must be the one of the every-rank distribution, and x comes
// back on every rank with GatherAll.
func TestRootScatter(t *testing.T) {
	a, ok := loadShared(t, "bcsstk16")
	if !ok {
		return
	}
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = math.Sin(float64(i))
	}
	xAll, _, err := Solve(a, b, Options{GatherAll: true})
	if err != nil {
		t.Errorf("every rank: %v", err)
	}
	var a0 *sparse.COO
	var b0 []float64
	if Rank() == 0 {
		a0, b0 = a, b
	}
	x0, rep, err := Solve(a0, b0, Options{GatherAll: true})
	if err != nil {
		t.Errorf("rank 0 only: %v", err)
		return
	}
	if rep.BackwardError > 1e-14 {
		t.Errorf("backward error %.2e", rep.BackwardError)
	}
	if len(x0) != a.Rows || len(xAll) != a.Rows {
		t.Errorf("x has %d and %d entries, want %d on every rank", len(x0), len(xAll), a.Rows)
		return
	}
	if d := relDiff(x0, xAll); d > 1e-12 {
		t.Errorf("scattered and local distributions differ by %.2e", d)
	}
}

// TestNotPositiveDefinite: nasa1824 (corrupted, indefinite) must fail
// Cholesky with ErrNotPositiveDefinite on every rank, and LDLᵀ must solve
// it and count its negative pivots.
func TestNotPositiveDefinite(t *testing.T) {
	a, ok := loadShared(t, "nasa1824")
	if !ok {
		return
	}
	b := ones(a.Rows)
	_, _, err := Solve(a, b, Options{Method: MethodCholesky})
	if !errors.Is(err, solver.ErrNotPositiveDefinite) {
		t.Errorf("cholesky of nasa1824: %v, want ErrNotPositiveDefinite", err)
	}
	_, rep, err := Solve(a, b, Options{Method: MethodLDLT})
	if err != nil {
		t.Errorf("ldlt of nasa1824: %v", err)
		return
	}
	if rep.NegativePivots == 0 || rep.BackwardError > 1e-14 {
		t.Errorf("ldlt of nasa1824: %d negative pivots, backward error %.2e", rep.NegativePivots, rep.BackwardError)
	}
}

// TestErrors checks the typed errors of bad input, agreed on every rank.
func TestErrors(t *testing.T) {
	a := &sparse.COO{Rows: 2, Cols: 2, I: []int32{0, 1}, J: []int32{0, 1}, V: []float64{1, 1}}
	if _, _, err := Solve(a, []float64{1}, Options{}); err == nil {
		t.Errorf("short b: no error")
	}
	if _, _, err := Solve(a, []float64{1, math.NaN()}, Options{}); !errors.Is(err, solver.ErrNonFinite) {
		t.Errorf("NaN in b: %v", err)
	}
	if _, _, err := Solve(a, []float64{1, 1}, Options{Method: "qr"}); !errors.Is(err, solver.ErrUnknown) {
		t.Errorf("unknown method: %v", err)
	}
	if _, _, err := Solve(a, []float64{1, 1}, Options{Method: MethodCG, PC: "nosuchpc"}); !errors.Is(err, solver.ErrUnknown) {
		t.Errorf("unknown PC: %v", err)
	}
	if _, _, err := Solve(a, []float64{1, 1}, Options{PETScOptions: "pc_type jacobi"}); !errors.Is(err, solver.ErrUnknown) {
		t.Errorf("options without a dash: %v", err)
	}
	// A on rank 1 only.
	var a1 *sparse.COO
	if Rank() == 1 {
		a1 = a
	}
	if _, _, err := Solve(a1, []float64{1, 1}, Options{}); !errors.Is(err, ErrDistribution) {
		t.Errorf("A on rank 1 only: %v", err)
	}
	// Agree: an error on rank 1 stops every rank.
	var mine error
	if Rank() == 1 {
		mine = errors.New("rank 1 failed")
	}
	if err := Agree(mine); err == nil {
		t.Errorf("Agree on rank %d: no error", Rank())
	}
	if err := Agree(nil); err != nil {
		t.Errorf("Agree without errors: %v", err)
	}
	// Singular for LDLᵀ: a zero row.
	z := &sparse.COO{Rows: 3, Cols: 3, I: []int32{0, 1}, J: []int32{0, 1}, V: []float64{1, 1}}
	if _, _, err := Solve(z, ones(3), Options{Method: MethodLDLT}); !errors.Is(err, solver.ErrZeroPivot) {
		t.Errorf("singular LDLT: %v", err)
	}
	// CG stopped by its iteration limit.
	p, ok := loadShared(t, "bcsstk16")
	if ok {
		x, rep, err := Solve(p, ones(p.Rows), Options{Method: MethodCG, PC: "none", MaxIter: 5})
		var nc *solver.NotConvergedError
		if !errors.As(err, &nc) || nc.Iterations != 5 || rep == nil || (Rank() == 0 && x == nil) {
			t.Errorf("CG with 5 iterations: %v", err)
		}
	}
}

// femSystem builds a small Model 1 or Model 2 system on every rank.
func femSystem(t *testing.T, model string, order int) *fem.System {
	t.Helper()
	var sys *fem.System
	var err error
	switch model {
	case "model1":
		nx, ny, nz, _, e := fem.Model1ForOrder(order)
		if e != nil {
			t.Fatal(e)
		}
		sys, err = fem.Model1(fem.Model1Options{NX: nx, NY: ny, NZ: nz})
	case "model2":
		a, b, c, _, e := fem.Model2ForOrder(order)
		if e != nil {
			t.Fatal(e)
		}
		sys, err = fem.Model2(fem.Model2Options{A: a, B: b, C: c})
	}
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestModels solves Model 1 and Model 2 with MUMPS and compares with the
// single-device solver (solver.Run, skyline Cholesky on the default OpenCL
// device, rank 0), then with CG+GAMG with and without the rigid-body modes.
func TestModels(t *testing.T) {
	for _, c := range []struct {
		model string
		order int
	}{{"model1", 1500}, {"model2", 3534}} {
		sys := femSystem(t, c.model, c.order)
		x, rep, err := Solve(sys.K, sys.F, Options{Method: MethodCholesky, Coords: sys.Mesh.Coords, Equation: sys.Equation})
		if err != nil {
			t.Errorf("%s mumps: %v", c.model, err)
			continue
		}
		if rep.BackwardError > 1e-14 || rep.BlockSize != 3 {
			t.Errorf("%s mumps: backward error %.2e, block size %d", c.model, rep.BackwardError, rep.BlockSize)
		}
		if Rank() == 0 {
			ref, _, err := solver.Run(sys.K, sys.F, solver.Options{Method: solver.MethodCholesky, Format: solver.FormatSKS})
			if err != nil {
				t.Errorf("%s single-device reference: %v", c.model, err)
			} else if d := relDiff(x, ref); d > 1e-10 {
				t.Errorf("%s: ||x_mumps - x_sks|| / ||x_sks|| = %.2e > 1e-10", c.model, d)
			} else {
				t.Logf("%s n=%d: MUMPS backward error %.2e, agreement with SKS Cholesky %.2e", c.model, sys.NumDOF, rep.BackwardError, d)
			}
		}
		const tol = 1e-8
		its := map[bool]int{}
		for _, nns := range []bool{true, false} {
			_, rep, err := Solve(sys.K, sys.F, Options{Method: MethodCG, Tol: tol, Coords: sys.Mesh.Coords, Equation: sys.Equation, NoNearNullSpace: !nns})
			if err != nil {
				t.Errorf("%s cg+gamg (near-null space %v): %v", c.model, nns, err)
				continue
			}
			if rep.RelativeResidual > 1.01*tol || rep.PC != PCGAMG || rep.KSP != MethodCG {
				t.Errorf("%s %s+%s: relative residual %.2e > %g", c.model, rep.KSP, rep.PC, rep.RelativeResidual, tol)
			}
			if want := map[bool]int{true: 6, false: 0}[nns]; rep.NearNullSpace != want {
				t.Errorf("%s: near-null space of %d vectors, want %d", c.model, rep.NearNullSpace, want)
			}
			its[nns] = rep.Iterations
		}
		t.Logf("%s n=%d: CG+GAMG iterations to %g: %d with the rigid-body modes, %d without", c.model, sys.NumDOF, tol, its[true], its[false])
		if its[true] > its[false] {
			t.Errorf("%s: the rigid-body modes made GAMG worse (%d > %d iterations)", c.model, its[true], its[false])
		}
	}
}

// TestLocalRows: every rank assembles only the rows LocalRows gives it
// (fem.AssembleRows), its share of PETSc's row split in whole nodes; MUMPS
// and CG+GAMG then give the same x as from the whole matrix on every rank.
func TestLocalRows(t *testing.T) {
	for _, c := range []struct {
		model string
		order int
	}{{"model1", 1500}, {"model2", 3534}} {
		whole := femSystem(t, c.model, c.order)
		a, b, cc, _, _ := fem.Model2ForOrder(c.order)
		var part *fem.System
		var err error
		if c.model == "model1" {
			nx, ny, nz, _, _ := fem.Model1ForOrder(c.order)
			part, err = fem.Model1(fem.Model1Options{NX: nx, NY: ny, NZ: nz, Rows: LocalRows})
		} else {
			part, err = fem.Model2(fem.Model2Options{A: a, B: b, C: cc, Rows: LocalRows})
		}
		if err != nil {
			t.Fatal(err) // on every rank alike: the generation is deterministic
		}
		lo, hi := ownership(whole.NumDOF, 3, Rank(), Size())
		if part.RowLo != lo || part.RowHi != hi || Size() > 1 && part.K.NNZ() >= whole.K.NNZ() {
			t.Errorf("%s: rank %d holds rows [%d, %d) (%d entries of %d), want [%d, %d)",
				c.model, Rank(), part.RowLo, part.RowHi, part.K.NNZ(), whole.K.NNZ(), lo, hi)
		}
		for _, m := range []string{MethodCholesky, MethodCG} {
			o := Options{Method: m, Tol: 1e-10, Coords: whole.Mesh.Coords, Equation: whole.Equation, GatherAll: true}
			xw, _, err1 := Solve(whole.K, whole.F, o)
			xp, rep, err2 := Solve(part.K, part.F, o)
			if err1 != nil || err2 != nil {
				t.Errorf("%s %s: whole %v, own rows %v", c.model, m, err1, err2)
				continue
			}
			// MUMPS on several ranks is not bit-reproducible (the order of
			// its parallel sums varies), so the two agree as two MUMPS
			// solves of one matrix do.
			d := relDiff(xp, xw)
			if d > 1e-10 || rep.BackwardError > 1e-14 && m == MethodCholesky || rep.BlockSize != 3 {
				t.Errorf("%s %s: ||x_rows - x_whole|| / ||x_whole|| = %.2e, backward error %.2e, block size %d", c.model, m, d, rep.BackwardError, rep.BlockSize)
			}
			t.Logf("%s %s n=%d, rank %d rows [%d, %d): ||x_rows - x_whole|| / ||x_whole|| = %.2e", c.model, m, whole.NumDOF, Rank(), part.RowLo, part.RowHi, d)
		}
	}
}
