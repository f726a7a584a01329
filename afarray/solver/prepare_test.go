package solver

import (
	"errors"
	"slices"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestPrepare: a Run given Prepare's result answers exactly as a Run
// without it (same x bit for bit, same ordering, a split that still adds
// up), one prepared for another system is ignored, and Prepare refuses
// what Run refuses.
func TestPrepare(t *testing.T) {
	a := sparseLoad(t, "bcsstk13", sparse.OrderNatural)
	b := sparseRHS(t, a, 1)
	opts := Options{Method: MethodCholesky, Format: FormatSKS, Variant: Fast, Order: sparse.OrderRCM}
	want, wrep, err := Run(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := Prepare(a, b, opts)
	if err != nil || pre == nil {
		t.Fatalf("Prepare: %v, %v", pre, err)
	}
	opts.Prepared = pre
	got, rep, err := Run(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || rep.Ordering != wrep.Ordering || rep.Ordering != sparse.OrderRCM || rep.NNZ != wrep.NNZ {
		t.Errorf("prepared Run differs: ordering %s/%s, nnz %d/%d", rep.Ordering, wrep.Ordering, rep.NNZ, wrep.NNZ)
	}
	parts := rep.OrderingTime + rep.UploadTime + rep.ConvertTime + rep.CompileTime + rep.SymbolicTime +
		rep.FactorizeTime + rep.SolveTime + rep.DownloadTime + rep.OtherTime
	if rep.OrderingTime <= 0 || parts != rep.TotalTime || rep.OtherTime < 0 {
		t.Errorf("split: ordering %v, parts %v, total %v, other %v", rep.OrderingTime, parts, rep.TotalTime, rep.OtherTime)
	}
	// Prepared for another right-hand side: ignored, and the answer is
	// that of the b given.
	b2 := slices.Clone(b)
	b2[0] += 1
	x2, _, err := Run(a, b2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if be := BackwardError(a, x2, b2); be > 1e-12 {
		t.Errorf("a Prepared for another b was used: backward error %g", be)
	}
	// Nothing to prepare when Run chooses the method.
	if p, err := Prepare(a, b, Options{}); p != nil || err != nil {
		t.Errorf("Prepare without a method: %v, %v", p, err)
	}
	// Run's refusals.
	upper := &sparse.COO{Rows: 2, Cols: 2, I: []int32{0, 0, 1}, J: []int32{0, 1, 1}, V: []float64{2, 1, 2}}
	_, _, errRun := Run(upper, nil, Options{Method: MethodCholesky})
	if _, err := Prepare(upper, nil, Options{Method: MethodCholesky}); err == nil || !errors.Is(err, sparse.ErrNotSymmetric) || err.Error() != errRun.Error() {
		t.Errorf("Prepare of a non-symmetric matrix: %v (Run: %v)", err, errRun)
	}
}
