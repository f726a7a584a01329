package solver

import (
	"slices"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// splitSum is the sum of the parts of a Report's time split.
func splitSum(r *Report) time.Duration {
	return r.OrderingTime + r.UploadTime + r.ConvertTime + r.CompileTime + r.SymbolicTime +
		r.FactorizeTime + r.SolveTime + r.DownloadTime + r.OtherTime
}

// TestRunDeviceBuiltEqualsHostBuilt: Run builds CSC, SKS and dense storage on the device
// from the uploaded entries; the factors, and so the solutions, are bit for
// bit those of the host-built path. The time split adds up to the total,
// every part non-negative, and only the device path has a conversion.
func TestRunDeviceBuiltEqualsHostBuilt(t *testing.T) {
	a := runMatrix(t, "nos3")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1 + float64(i%5)
	}
	for _, c := range []struct {
		m Method
		f Format
	}{{MethodCholesky, FormatSKS}, {MethodCholesky, FormatCSC}, {MethodLDLT, FormatSKS}, {MethodLDLT, FormatCSC},
		{MethodCholesky, FormatDense}, {MethodLDLT, FormatDense}, {MethodGaussJordan, FormatDense}} {
		xd, rd, err := Run(a, b, Options{Method: c.m, Format: c.f, Order: sparse.OrderRCM, Build: BuildDevice})
		if err != nil {
			t.Fatalf("%s/%s device-built: %v", c.m, c.f, err)
		}
		xh, rh, err := Run(a, b, Options{Method: c.m, Format: c.f, Order: sparse.OrderRCM, Build: BuildHost})
		if err != nil {
			t.Fatalf("%s/%s host-built: %v", c.m, c.f, err)
		}
		if !slices.Equal(xd, xh) {
			t.Errorf("%s/%s: device-built and host-built solutions differ", c.m, c.f)
		}
		for _, r := range []*Report{rd, rh} {
			parts := []time.Duration{r.OrderingTime, r.UploadTime, r.ConvertTime, r.CompileTime, r.SymbolicTime, r.FactorizeTime, r.SolveTime, r.DownloadTime, r.OtherTime}
			for k, p := range parts {
				if p < 0 {
					t.Errorf("%s/%s: part %d of the split is negative: %v", c.m, c.f, k, p)
				}
			}
			if splitSum(r) != r.TotalTime {
				t.Errorf("%s/%s: split sums to %v, total %v", c.m, c.f, splitSum(r), r.TotalTime)
			}
		}
		if rd.ConvertTime == 0 || rh.ConvertTime != 0 {
			t.Errorf("%s/%s: convert %v (device) and %v (host)", c.m, c.f, rd.ConvertTime, rh.ConvertTime)
		}
	}
}

// TestRunDenseNeverOrders: dense storage holds n² entries whatever the
// numbering, so no ordering runs for it, whatever --order asks.
func TestRunDenseNeverOrders(t *testing.T) {
	a := runMatrix(t, "bcsstk03")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1
	}
	for _, order := range []sparse.Ordering{"", sparse.OrderAuto, sparse.OrderRCM} {
		for _, m := range []Method{MethodCholesky, MethodGaussJordan} {
			x, rep, err := Run(a, b, Options{Method: m, Format: FormatDense, Order: order})
			if err != nil {
				t.Fatalf("%s dense, order %q: %v", m, order, err)
			}
			if rep.Ordering != sparse.OrderNatural || len(x) != a.Rows {
				t.Errorf("%s dense, order %q: ordering %q", m, order, rep.Ordering)
			}
			if splitSum(rep) != rep.TotalTime {
				t.Errorf("%s dense: split does not add up", m)
			}
		}
	}
	if _, _, err := Run(a, b, Options{Method: MethodCholesky, Format: FormatDense, Order: "bogus"}); err == nil {
		t.Error("an unknown ordering is accepted for dense storage")
	}
}

// TestFactorizeCOO: the factor types built from a device COO solve exactly
// as they do from the host-built format.
func TestFactorizeCOO(t *testing.T) {
	for _, tc := range []struct {
		v    Variant
		name string
	}{{Fast, "nos3"}, {Thesis, "lund_a"}} {
		factorizeCOOCase(t, tc.v, tc.name)
	}
}

func factorizeCOOCase(t *testing.T, v Variant, name string) {
	h := runMatrix(t, name)
	a, err := afarray.UploadCOO(h)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	bh := make([]float64, h.Rows)
	for i := range bh {
		bh[i] = float64(i%3) - 1
	}
	b, _ := afarray.FromFloat64s(bh)
	defer b.Release()
	hs, _ := sparse.SKSFromCOO(h)
	hc, _ := sparse.CSCFromCOO(h)
	type factor interface {
		Solve(*afarray.Array) (*afarray.Array, error)
		Release()
	}
	solve := func(f factor) []float64 {
		x, err := f.Solve(b)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Release()
		xs, _ := x.Float64s()
		return xs
	}
	ds, _ := afarray.UploadSKS(hs)
	dc, _ := afarray.UploadCSC(hc)
	defer ds.Release()
	defer dc.Release()
	var c1, c2 SKSCholesky
	var l1, l2 CSCLDLT
	if err := c1.FactorizeCOO(a, v); err != nil {
		t.Fatal(err)
	}
	if err := c2.FactorizeInPlace(ds, v); err != nil {
		t.Fatal(err)
	}
	if err := l1.FactorizeCOO(a, v); err != nil {
		t.Fatal(err)
	}
	if err := l2.Factorize(dc, v); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(solve(&c1), solve(&c2)) || !slices.Equal(solve(&l1), solve(&l2)) {
		t.Errorf("%s %s: FactorizeCOO solutions differ from the host-built ones", name, v)
	}
	for _, f := range []factor{&c1, &c2, &l1, &l2} {
		f.Release()
	}
}
