package solver

import (
	"errors"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// multiTestParts returns the current device split in k (sub-devices where
// PoCL can partition it, else instances), so CI runs the multi-device code
// on its one CPU device.
func multiTestParts(t *testing.T, k int) []*kernels.Device {
	t.Helper()
	d, err := afarray.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := d.Split(k)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// CG on two and three devices against CG on one: the same system solved to
// the backward-error bound, the iteration count within 2 of one-device CG
// (the reductions run in another order), halos that really cross devices.
func TestCGMultiMatchesOneDevice(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jacobi bool
		parts  int
	}{{"crystm01", false, 2}, {"mesh1e1", false, 3}, {"bcsstk16", true, 2}, {"bcsstk16", true, 3}} {
		a := runMatrix(t, tc.name)
		b := make([]float64, a.Rows)
		for i := range b {
			b[i] = 1 + float64(i%7)
		}
		opts := Options{Method: MethodCG, Format: FormatCSC, Tol: 1e-10, Jacobi: tc.jacobi}
		x1, rep1, err := Run(a, b, opts)
		if err != nil {
			t.Fatalf("%s on one device: %v", tc.name, err)
		}
		opts.Devices = multiTestParts(t, tc.parts)
		xk, repk, err := Run(a, b, opts)
		if err != nil {
			t.Fatalf("%s on %d devices: %v", tc.name, tc.parts, err)
		}
		if len(repk.Shares) != tc.parts {
			t.Fatalf("%s: %d shares, want %d", tc.name, len(repk.Shares), tc.parts)
		}
		rows, halo := 0, 0
		for _, s := range repk.Shares {
			rows += s.Rows
			halo += s.Halo
			if s.PeakBytes <= 0 {
				t.Errorf("%s: share %+v has no memory", tc.name, s)
			}
		}
		if rows != a.Rows || halo == 0 {
			t.Errorf("%s: shares cover %d rows of %d with %d halo entries", tc.name, rows, a.Rows, halo)
		}
		if d := repk.Iterations - rep1.Iterations; d < -2 || d > 2 {
			t.Errorf("%s: %d iterations on %d devices, %d on one", tc.name, repk.Iterations, tc.parts, rep1.Iterations)
		}
		be1, err1 := sparse.BackwardErrorOf(a, x1, b)
		bek, errk := sparse.BackwardErrorOf(a, xk, b)
		if err1 != nil || errk != nil || bek > max(10*be1, 1e-12) {
			t.Errorf("%s: backward error %g on %d devices, %g on one (%v %v)", tc.name, bek, tc.parts, be1, err1, errk)
		}
		t.Logf("%s jacobi=%v: %d iterations on one device, %d on %s; backward error %.2g / %.2g",
			tc.name, tc.jacobi, rep1.Iterations, repk.Iterations, kernels.Labels(opts.Devices), be1, bek)
	}
}

// The exchange and the host's fixed-order sums make a multi-device run
// deterministic: the same devices give the same x bit for bit.
func TestCGMultiDeterministic(t *testing.T) {
	a := runMatrix(t, "nos4")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = float64(i%5) - 2
	}
	devs := multiTestParts(t, 2)
	x1, r1, _, err := CGMulti(a, b, devs, CGOptions{Jacobi: true})
	if err != nil {
		t.Fatal(err)
	}
	x2, r2, _, err := CGMulti(a, b, devs, CGOptions{Jacobi: true})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Iterations != r2.Iterations {
		t.Fatalf("iterations %d then %d", r1.Iterations, r2.Iterations)
	}
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("x[%d] = %v then %v", i, x1[i], x2[i])
		}
	}
}

func TestCGMultiErrors(t *testing.T) {
	devs := multiTestParts(t, 2)
	a := runMatrix(t, "nos4")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1
	}
	// Not converged: x and the result still come back.
	x, res, _, err := CGMulti(a, b, devs, CGOptions{MaxIter: 3})
	var nc *NotConvergedError
	if !errors.As(err, &nc) || x == nil || res == nil || res.Iterations != 3 || len(res.History) != 4 {
		t.Errorf("MaxIter 3: %v, x %v, result %+v", err, x != nil, res)
	}
	// A non-positive diagonal under Jacobi.
	neg := &sparse.COO{Rows: 2, Cols: 2, I: []int32{0, 1}, J: []int32{0, 1}, V: []float64{1, -1}, Symmetric: true}
	if _, _, _, err := CGMulti(neg, []float64{1, 1}, devs, CGOptions{Jacobi: true}); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("negative diagonal with Jacobi: %v", err)
	}
	// Indefinite without Jacobi: p'Ap <= 0 is caught, never a NaN.
	if _, _, _, err := CGMulti(neg, []float64{1, 1}, devs, CGOptions{}); !errors.Is(err, ErrNotPositiveDefinite) && !errors.Is(err, ErrNonFinite) {
		t.Errorf("indefinite: %v", err)
	}
	if _, _, _, err := CGMulti(a, b[:3], devs, CGOptions{}); !errors.Is(err, ErrShape) {
		t.Errorf("short b: %v", err)
	}
	if _, _, _, err := CGMulti(a, b, []*kernels.Device{devs[0], devs[0]}, CGOptions{}); !errors.Is(err, ErrDevice) {
		t.Errorf("device twice: %v", err)
	}
	// Entries without a multi-device implementation say which have one.
	_, _, err = Run(a, b, Options{Method: MethodCholesky, Format: FormatSKS, Devices: devs})
	if !errors.Is(err, ErrUnknown) {
		t.Errorf("cholesky on two devices: %v", err)
	}
	// A canceled device stops the solve with its error (the others'
	// goroutines finish; the buffers are released).
	devs[1].Cancel()
	_, _, _, err = CGMulti(a, b, devs, CGOptions{})
	if rerr := devs[1].Resume(); rerr != nil {
		t.Fatal(rerr)
	}
	if !errors.Is(err, kernels.ErrCanceled) {
		t.Errorf("canceled device: %v", err)
	}
	if live := devs[0].MemoryStats().Live + devs[1].MemoryStats().Live; live != 0 {
		t.Errorf("%d bytes still live after the canceled solve", live)
	}
	// More devices than rows: the extra ones stay idle.
	one := &sparse.COO{Rows: 1, Cols: 1, I: []int32{0}, J: []int32{0}, V: []float64{4}, Symmetric: true}
	x, _, st, err := CGMulti(one, []float64{2}, devs, CGOptions{})
	if err != nil || x[0] != 0.5 || len(st.Shares) != 1 {
		t.Errorf("1x1 on two devices: %v %v", x, err)
	}
}

func TestPartitionRows(t *testing.T) {
	// Row lengths 1, 1, 10, 1, 1, 1, 1: two blocks of about equal entries.
	rowptr := []int32{0, 1, 2, 12, 13, 14, 15, 16}
	for k := 1; k <= 7; k++ {
		bs := partitionRows(rowptr, k)
		if bs[0] != 0 || bs[k] != 7 {
			t.Fatalf("k=%d: bounds %v", k, bs)
		}
		for i := 0; i < k; i++ {
			if bs[i+1] <= bs[i] {
				t.Fatalf("k=%d: empty block in %v", k, bs)
			}
		}
	}
	if bs := partitionRows(rowptr, 2); bs[1] != 3 {
		t.Errorf("two blocks: %v, want the split after the long row", bs)
	}
}

func TestRegistryMultiEntries(t *testing.T) {
	if len(MultiDevice()) != len(multiEntries) {
		t.Errorf("multi-device entries %v do not all name registered entries (%d registered)", MultiDevice(), len(multiEntries))
	}
}

// Every form of the iteration (Chronopoulos and Gear's, the default, with
// its product on sliced ELLPACK or CSR and its exchanges from one
// goroutine or one per device; pipelined, with its exchanges on the
// device's queue or one of their own; the textbook one) solves the system
// in about as many iterations, on two and three devices and on one, to the
// backward error of the first (the default on two devices).
func TestCGMultiForms(t *testing.T) {
	defer func() { mcgDefault, mcgCopyQueue, mcgSELL, mcgExchange = mcgOneSync, false, true, true }()
	for _, name := range []string{"bcsstk16", "mesh1e1", "crystm01"} {
		a := runMatrix(t, name)
		b := make([]float64, a.Rows)
		for i := range b {
			b[i] = 1 + float64(i%7)
		}
		ref, refBE := -1, 0.0
		for _, k := range []int{2, 1, 3} {
			for _, c := range []struct {
				form                mcgForm
				copyQ, csr, blocked bool
				jacobi              bool
			}{{mcgOneSync, false, false, false, true}, {mcgOneSync, false, true, true, true}, {mcgOneSync, false, false, true, true},
				{mcgPipelined, false, false, false, true}, {mcgPipelined, true, false, false, true}, {mcgTextbook, false, false, false, true},
				{mcgPipelined, false, false, false, false}, {mcgOneSync, false, false, false, false}} {
				mcgDefault, mcgCopyQueue, mcgSELL, mcgExchange = c.form, c.copyQ, !c.csr, !c.blocked
				devs := multiTestParts(t, 3)[:k]
				x, res, st, err := CGMulti(a, b, devs, CGOptions{Tol: 1e-10, Jacobi: c.jacobi})
				if err != nil {
					t.Fatalf("%s %+v on %d: %v", name, c, k, err)
				}
				be, err := sparse.BackwardErrorOf(a, x, b)
				if c.jacobi && ref < 0 {
					ref, refBE = res.Iterations, be
				}
				d := res.Iterations - ref
				if err != nil || !(be <= max(10*refBE, 1e-12)) || c.jacobi && (d < -2 || d > 2) || len(st.Shares) != k {
					t.Errorf("%s %+v on %d: %d iterations (one-sync %d), backward error %g (%v), %d shares",
						name, c, k, res.Iterations, ref, be, err, len(st.Shares))
				}
				t.Logf("%s %+v on %d: %d iterations, backward error %.2g", name, c, k, res.Iterations, be)
			}
		}
	}
}

// A nil or repeated device in the list is ErrDevice from every public
// entry, before anything uses the devices (a nil one used to panic).
func TestMultiRefusesBadDevices(t *testing.T) {
	devs := multiTestParts(t, 2)
	d := devs[0]
	one := &sparse.COO{Rows: 1, Cols: 1, I: []int32{0}, J: []int32{0}, V: []float64{4}, Symmetric: true}
	h, err := sparse.CSCFromCOO(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range [][]*kernels.Device{{nil}, {nil, d}, {d, nil}, {d, d}} {
		_, _, _, err := CGMulti(one, []float64{1}, list, CGOptions{})
		if !errors.Is(err, ErrDevice) {
			t.Errorf("CGMulti %v: %v, want ErrDevice", list, err)
		}
		var f SupernodalCholeskyMulti
		if err := f.Factorize(h, list, sparse.OrderAMD); !errors.Is(err, ErrDevice) {
			t.Errorf("SupernodalCholeskyMulti %v: %v, want ErrDevice", list, err)
		}
		f.Release()
		if len(list) < 2 {
			continue
		}
		for _, o := range []Options{
			{Method: MethodCG, Format: FormatCSC},
			{Method: MethodCholesky, Format: FormatSupernodal},
			{Method: MethodLDLT, Format: FormatSupernodal},
			{},
		} {
			o.Devices = list
			if _, _, err := Run(one, []float64{1}, o); !errors.Is(err, ErrDevice) {
				t.Errorf("Run %s/%s on %v: %v, want ErrDevice", o.Method, o.Format, list, err)
			}
		}
	}
}

// The one-sync iteration gives the same x bit for bit, the same iteration
// count and the same residual history whether each iteration is enqueued
// ahead behind gates, enqueued once the host has its scalars (the
// default), or run with a goroutine and blocking reads per device: only
// when the host enqueues changes, not the arithmetic, and the iteration
// enqueued ahead when the run ends (converged, or at the limit) changes
// nothing.
func TestCGMultiGatesChangeNothing(t *testing.T) {
	defer func() { mcgGate, mcgExchange = false, true }()
	for _, tc := range []struct {
		name    string
		jacobi  bool
		parts   int
		maxIter int
	}{{"bcsstk16", true, 2, 0}, {"mesh1e1", false, 3, 0}, {"bcsstk16", true, 3, 7}, {"nos4", true, 1, 0}} {
		a := runMatrix(t, tc.name)
		b := make([]float64, a.Rows)
		for i := range b {
			b[i] = 1 + float64(i%7)
		}
		devs := multiTestParts(t, 3)[:tc.parts]
		var ref []float64
		var refRes *CGResult
		for _, c := range []struct{ gate, exchange bool }{{true, true}, {false, true}, {false, false}} {
			mcgGate, mcgExchange = c.gate, c.exchange
			x, res, _, err := CGMulti(a, b, devs, CGOptions{Tol: 1e-10, Jacobi: tc.jacobi, MaxIter: tc.maxIter})
			if tc.maxIter > 0 {
				var nc *NotConvergedError
				if !errors.As(err, &nc) || res == nil || res.Iterations != tc.maxIter {
					t.Fatalf("%s %+v, limit %d: %v %+v", tc.name, c, tc.maxIter, err, res)
				}
			} else if err != nil {
				t.Fatalf("%s %+v on %d: %v", tc.name, c, tc.parts, err)
			}
			if ref == nil {
				ref, refRes = x, res
				continue
			}
			if res.Iterations != refRes.Iterations || len(res.History) != len(refRes.History) {
				t.Fatalf("%s %+v on %d: %d iterations, %d with gates", tc.name, c, tc.parts, res.Iterations, refRes.Iterations)
			}
			for i := range res.History {
				if res.History[i] != refRes.History[i] {
					t.Fatalf("%s %+v on %d: residual %d is %v, %v with gates", tc.name, c, tc.parts, i, res.History[i], refRes.History[i])
				}
			}
			for i := range x {
				if x[i] != ref[i] {
					t.Fatalf("%s %+v on %d: x[%d] = %v, %v with gates", tc.name, c, tc.parts, i, x[i], ref[i])
				}
			}
		}
		t.Logf("%s on %d: %d iterations, the same three ways", tc.name, tc.parts, refRes.Iterations)
	}
}

// A multi-device CG solve on two parts releases every OpenCL event it
// holds (kernels.LiveEvents ends where it started once the devices have
// finished): the exchanges' transfers, the gates, the copy queue's
// markers, with the default iteration, with gates, with a copy queue,
// without the exchange, and stopped at an iteration limit with the next
// iteration enqueued ahead behind its gates. An Exchange.Wait that does
// not release (4126ce4) leaves thousands. No test of this package runs in
// parallel (they switch package variables), so the counter sees this
// solve's events alone.
func TestCGMultiReleasesEvents(t *testing.T) {
	defer func() { mcgGate, mcgCopyQueue, mcgExchange = false, false, true }()
	a := runMatrix(t, "bcsstk16")
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = 1 + float64(i%7)
	}
	devs := multiTestParts(t, 2)
	finish := func() {
		t.Helper()
		for _, d := range devs {
			if err := d.Finish(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name                  string
		gate, copyQ, exchange bool
		maxIter               int
	}{
		{"default", false, false, true, 0},
		{"gates", true, false, true, 0},
		{"copy queue", false, true, true, 0},
		{"gates, copy queue", true, true, true, 0},
		{"no exchange", false, false, false, 0},
		{"gates, limit", true, false, true, 7},
	} {
		mcgGate, mcgCopyQueue, mcgExchange = c.gate, c.copyQ, c.exchange
		finish()
		before := kernels.LiveEvents()
		_, res, _, err := CGMulti(a, b, devs, CGOptions{Tol: 1e-10, Jacobi: true, MaxIter: c.maxIter})
		if c.maxIter > 0 {
			var nc *NotConvergedError
			if !errors.As(err, &nc) {
				t.Fatalf("%s: %v, want not converged", c.name, err)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		finish()
		if d := kernels.LiveEvents() - before; d != 0 {
			t.Errorf("%s: %d OpenCL events left after %d iterations on 2 parts", c.name, d, res.Iterations)
		}
	}
}
