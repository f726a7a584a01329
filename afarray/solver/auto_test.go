package solver

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// autoCheck solves a x = ones with the automatic choice and compares x
// with gonum's dense LU solution of the same system.
func autoCheck(t *testing.T, a *sparse.COO, wantChoice string) *Report {
	t.Helper()
	return autoCheckOn(t, a, Options{}, wantChoice)
}

// autoCheckOn is autoCheck through Run with opts (devices).
func autoCheckOn(t *testing.T, a *sparse.COO, opts Options, wantChoice string) *Report {
	t.Helper()
	x, rep, err := Run(a, nil, opts)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if !strings.Contains(rep.Choice, wantChoice) {
		t.Fatalf("choice %q, want it to say %q", rep.Choice, wantChoice)
	}
	d, err := a.ToDense()
	if err != nil {
		t.Fatal(err)
	}
	var ref mat.VecDense
	if err := ref.SolveVec(d, mat.NewVecDense(a.Rows, Ones(a.Rows))); err != nil {
		t.Fatal(err)
	}
	scale := mat.Norm(&ref, math.Inf(1))
	for i, v := range x {
		if math.Abs(v-ref.AtVec(i)) > 1e-8*scale {
			t.Fatalf("x[%d] = %g, gonum %g", i, v, ref.AtVec(i))
		}
	}
	return rep
}

func TestSolveChoosesTheMethod(t *testing.T) {
	// SPD: a real stiffness matrix gets the fast Cholesky.
	rep := autoCheck(t, denseTestLoad(t, "bcsstk01"), "positive definite")
	if rep.BackwardError <= 0 || rep.BackwardError > 1e-14 {
		t.Errorf("backward error %g", rep.BackwardError)
	}
	if rep.Method != MethodCholesky || rep.NNZ != 224 || rep.NNZFull != 400 {
		t.Errorf("bcsstk01: %s, nnz %d / %d, want cholesky and 224 / 400", rep.Method, rep.NNZ, rep.NNZFull)
	}
	// The split adds up: the phases never exceed the total, and what
	// String and HTML show is bounded.
	var sum time.Duration
	for _, p := range rep.phases() {
		sum += p.d
	}
	if d := sum - rep.TotalTime; d > time.Millisecond || d < -rep.TotalTime/100-time.Millisecond {
		t.Errorf("phases add to %v of a %v total", sum, rep.TotalTime)
	}
	if s := rep.String(); !strings.Contains(s, "nnz = 224 (lower triangle; 400 in the full matrix)") || strings.Count(s, "\n") > 6 {
		t.Errorf("report text:\n%s", s)
	}
	if h := rep.HTML(); !strings.Contains(h, "time split") || !strings.Contains(h, "factorize") {
		t.Errorf("report HTML: %s", h)
	}
	// Symmetric indefinite: Cholesky fails, LDLᵀ solves it.
	ind := &sparse.COO{Rows: 3, Cols: 3, Symmetric: true,
		I: []int32{0, 1, 1, 2, 2}, J: []int32{0, 0, 1, 1, 2}, V: []float64{1, 2, 1, 1, 3}}
	if rep := autoCheck(t, ind, "indefinite"); rep.Method != MethodLDLT {
		t.Errorf("indefinite: %s", rep.Method)
	}
	// General: dense LU with pivoting (its first pivot is zero).
	gen := &sparse.COO{Rows: 3, Cols: 3,
		I: []int32{1, 0, 2, 1, 2, 0}, J: []int32{0, 1, 1, 1, 2, 2}, V: []float64{4, 2, 1, 3, 5, -1}}
	if rep := autoCheck(t, gen, "not symmetric"); rep.Method != MethodLU {
		t.Errorf("general: %s", rep.Method)
	}
	// One triangle not marked symmetric: the triangular matrix, and the
	// choice says so and how to mark it; so does the refusal of an order
	// too large for dense LU.
	tri := &sparse.COO{Rows: 3, Cols: 3, I: []int32{0, 1, 1, 2, 2}, J: []int32{0, 0, 1, 1, 2}, V: []float64{2, -1, 2, -1, 2}}
	if rep := autoCheck(t, tri, "only the lower triangle"); rep.Method != MethodLU || !strings.Contains(rep.Choice, "COO.Symmetric") {
		t.Errorf("lower triangle: %s, %q", rep.Method, rep.Choice)
	}
	big := &sparse.COO{Rows: 50000, Cols: 50000, I: []int32{0, 0}, J: []int32{0, 1}, V: []float64{1, 1}}
	for i := 1; i < big.Rows; i++ {
		big.I, big.J, big.V = append(big.I, int32(i)), append(big.J, int32(i)), append(big.V, 1)
	}
	if _, _, err := Solve(big, nil); err == nil || !strings.Contains(err.Error(), "only the upper triangle") || !strings.Contains(err.Error(), "COO.Symmetric") {
		t.Errorf("large upper triangle: %v", err)
	}
	// Run with empty Options is Solve; a singular general matrix is an error.
	sing := &sparse.COO{Rows: 2, Cols: 2, I: []int32{0, 1}, J: []int32{1, 1}, V: []float64{1, 2}}
	if _, _, err := Run(sing, nil, Options{}); err == nil {
		t.Error("a singular matrix solved")
	}
	if _, _, err := Solve(nil, nil); !errors.Is(err, ErrShape) {
		t.Errorf("nil matrix: %v", err)
	}
}

// With several devices the automatic choice stays on methods that run on
// them: an indefinite matrix falls back to the supernodal LDLᵀ spread over
// the devices (LDLᵀ on sks runs on one device and refused the list), and
// dense LU, which runs on one device, runs on the first and says so.
func TestSolveChoosesTheMethodOnDevices(t *testing.T) {
	devs := multiTestParts(t, 2)
	opts := Options{Devices: devs}
	if rep := autoCheckOn(t, denseTestLoad(t, "bcsstk01"), opts, "positive definite"); rep.Method != MethodCholesky || len(rep.Shares) != 2 {
		t.Errorf("SPD on two devices: %s/%s, %d shares", rep.Method, rep.Format, len(rep.Shares))
	}
	ind := &sparse.COO{Rows: 3, Cols: 3, Symmetric: true,
		I: []int32{0, 1, 1, 2, 2}, J: []int32{0, 0, 1, 1, 2}, V: []float64{1, 2, 1, 1, 3}}
	if rep := autoCheckOn(t, ind, opts, "ldlt on supernodal"); rep.Method != MethodLDLT || rep.Format != FormatSupernodal || len(rep.Shares) != 2 {
		t.Errorf("indefinite on two devices: %s/%s, %d shares", rep.Method, rep.Format, len(rep.Shares))
	}
	gen := &sparse.COO{Rows: 3, Cols: 3,
		I: []int32{1, 0, 2, 1, 2, 0}, J: []int32{0, 1, 1, 1, 2, 2}, V: []float64{4, 2, 1, 3, 5, -1}}
	if rep := autoCheckOn(t, gen, opts, "on the first device"); rep.Method != MethodLU {
		t.Errorf("general on two devices: %s", rep.Method)
	}
}
