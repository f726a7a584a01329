package solver

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// snMultiSystem returns a named test matrix (a shared matrix or a small
// Model 2) with its host CSC.
func snMultiSystem(t *testing.T, name string) (*sparse.COO, *sparse.CSC) {
	t.Helper()
	var c *sparse.COO
	if name == "model2" {
		ga, gb, gc, _, err := fem.Model2ForOrder(10000)
		if err != nil {
			t.Fatal(err)
		}
		sys, err := fem.Model2(fem.Model2Options{A: ga, B: gb, C: gc})
		if err != nil {
			t.Fatal(err)
		}
		c = sys.K
	} else {
		c = runMatrix(t, name)
	}
	h, err := sparse.CSCFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, h
}

func snMultiRHS(n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = 1 + float64(i%7) - 0.25*float64(i%3)
	}
	return b
}

// relDiff is ||x - y||∞ / ||y||∞.
func relDiff(x, y []float64) float64 {
	d, m := 0.0, 0.0
	for i := range y {
		d = max(d, math.Abs(x[i]-y[i]))
		m = max(m, math.Abs(y[i]))
	}
	return d / m
}

// The split factorization on two and three devices gives one device's
// answer to 1e-12 and a backward error within 1e-14, with the tree really
// split: every device factors columns and the top receives update matrices
// from more than one device.
func TestSupernodalMultiMatchesOneDevice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		order sparse.Ordering
		parts int
		ldlt  bool
	}{
		{"bcsstk16", sparse.OrderND, 2, false},
		{"bcsstk16", sparse.OrderND, 3, false},
		{"msc04515", sparse.OrderAMD, 2, false},
		{"crystm01", sparse.OrderND, 2, true},
		{"model2", sparse.OrderND, 2, false},
	} {
		label := fmt.Sprintf("%s %s on %d devices (ldlt %v)", tc.name, tc.order, tc.parts, tc.ldlt)
		c, h := snMultiSystem(t, tc.name)
		b := snMultiRHS(h.N)
		x1, _, err := snSolve(t, c, tc.ldlt, tc.order, b)
		if err != nil {
			t.Fatalf("%s: one device: %v", label, err)
		}
		devs := multiTestParts(t, tc.parts)
		m := &snMulti{ldlt: tc.ldlt}
		if err := m.factorize(h, devs, tc.order); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		xk, err := m.solve(b)
		if err != nil {
			m.release()
			t.Fatalf("%s: solve: %v", label, err)
		}
		// A second solve reuses the factor and its workspaces.
		xk2, err := m.solve(b)
		st := m.stats
		senders := map[int]bool{}
		for _, s := range m.sends {
			senders[s.dev] = true
		}
		m.release()
		if err != nil {
			t.Fatalf("%s: second solve: %v", label, err)
		}
		if d := relDiff(xk2, xk); d != 0 {
			t.Errorf("%s: second solve differs by %g", label, d)
		}
		if d := relDiff(xk, x1); !(d <= 1e-12) {
			t.Errorf("%s: differs from one device by %g", label, d)
		}
		be, err := sparse.BackwardErrorOf(c, xk, b)
		if err != nil || !(be <= 1e-14) {
			t.Errorf("%s: backward error %g (%v)", label, be, err)
		}
		if len(st.Shares) != tc.parts {
			t.Fatalf("%s: %d shares", label, len(st.Shares))
		}
		cols := 0
		for _, s := range st.Shares {
			cols += s.Rows
			if s.Rows == 0 || s.NNZ == 0 || s.PeakBytes <= 0 {
				t.Errorf("%s: idle share %+v", label, s)
			}
		}
		if cols != h.N || len(senders) < 2 {
			t.Errorf("%s: shares cover %d columns of %d; %d devices send to the top", label, cols, h.N, len(senders))
		}
		t.Logf("%s: |x-x1|/|x1| %.2g, backward error %.2g, shares %+v", label, relDiff(xk, x1), be, st.Shares)
	}
}

// Run and oclsolve solve --devices reach the split factorization through
// the registry, with a report of every device's share.
func TestSupernodalMultiRun(t *testing.T) {
	c, h := snMultiSystem(t, "bcsstk16")
	b := snMultiRHS(h.N)
	for _, m := range []Method{MethodCholesky, MethodLDLT} {
		opts := Options{Method: m, Format: FormatSupernodal, Order: sparse.OrderND}
		x1, _, err := Run(c, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Devices = multiTestParts(t, 2)
		x2, rep, err := Run(c, b, opts)
		if err != nil {
			t.Fatalf("%s on 2 devices: %v", m, err)
		}
		if nnzL, _ := rep.Stat("nnz_l"); len(rep.Shares) != 2 || nnzL == nil || nnzL == int64(0) || rep.FactorizeTime <= 0 || !(rep.BackwardError <= 1e-14) {
			t.Errorf("%s: report %v", m, rep)
		}
		if d := relDiff(x2, x1); !(d <= 1e-12) {
			t.Errorf("%s: differs from one device by %g", m, d)
		}
	}
}

// A matrix that is not positive definite fails on whichever device meets
// the bad pivot (one device's subtrees, another's, the top) with the column
// one device names, in the caller's numbering.
func TestSupernodalMultiNotPositiveDefinite(t *testing.T) {
	c, h := snMultiSystem(t, "bcsstk16")
	devs := multiTestParts(t, 2)
	m := &snMulti{}
	if err := m.factorize(h, devs, sparse.OrderND); err != nil {
		t.Fatal(err)
	}
	// A column of each part, in the caller's numbering: the last of each
	// device's subtrees and the top's first.
	picks := map[string]int{}
	for d, l := range m.subLoc {
		if l != nil {
			picks[fmt.Sprintf("device %d", d)] = m.g.Perm[l.sym.Perm[l.own-1]]
		}
	}
	if m.topLoc == nil || len(picks) != 2 {
		t.Fatalf("split: %d subtree parts, top %v", len(picks), m.topLoc != nil)
	}
	picks["top"] = m.g.Perm[m.topLoc.sym.Perm[0]]
	m.release()
	for where, col := range picks {
		bad := h.Elements
		h.Elements = append([]float64(nil), bad...)
		h.Elements[h.DiagPos[col]] = -1e3
		one := &SupernodalCholesky{}
		err1 := one.Factorize(cscUpload(t, cscToCOO(t, h)), sparse.OrderND)
		one.Release()
		m := &snMulti{}
		err := m.factorize(h, devs, sparse.OrderND)
		m.release()
		h.Elements = bad
		var npd1, npd *NotPositiveDefiniteError
		if !errors.As(err1, &npd1) || !errors.As(err, &npd) {
			t.Fatalf("%s column %d: errors %v / %v", where, col, err1, err)
		}
		if npd.Column != npd1.Column || npd.Column != col {
			t.Errorf("%s column %d: multi-device names column %d, one device %d", where, col, npd.Column, npd1.Column)
		}
	}
	// A NaN is refused before anything runs.
	h.Elements = append([]float64(nil), h.Elements...)
	h.Elements[5] = math.NaN()
	m = &snMulti{}
	if err := m.factorize(h, devs, sparse.OrderND); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN matrix: %v", err)
	}
	_ = c
}

func cscToCOO(t *testing.T, h *sparse.CSC) *sparse.COO {
	t.Helper()
	c, err := h.ToCOO()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Bad calls fail with typed errors.
func TestSupernodalMultiErrors(t *testing.T) {
	_, h := snMultiSystem(t, "bcsstk01")
	devs := multiTestParts(t, 2)
	var f SupernodalCholeskyMulti
	if err := f.Factorize(h, nil, sparse.OrderAMD); !errors.Is(err, ErrDevice) {
		t.Errorf("no device: %v", err)
	}
	if err := f.Factorize(h, []*kernels.Device{devs[0], devs[0]}, sparse.OrderAMD); !errors.Is(err, ErrDevice) {
		t.Errorf("device twice: %v", err)
	}
	if _, err := f.Solve(make([]float64, h.N)); err == nil {
		t.Error("solve without a factor")
	}
	if err := f.Factorize(h, devs, sparse.OrderAMD); err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if _, err := f.Solve(make([]float64, h.N+1)); !errors.Is(err, ErrShape) {
		t.Errorf("short b: %v", err)
	}
	b := make([]float64, h.N)
	b[3] = math.Inf(1)
	if _, err := f.Solve(b); !errors.Is(err, ErrNonFinite) {
		t.Errorf("Inf in b: %v", err)
	}
}

// splitTree gives whole subtrees to devices and closes the top upwards,
// and balances the two halves of nested dissection.
func TestSplitTree(t *testing.T) {
	_, h := snMultiSystem(t, "bcsstk16")
	perm, _, _, _, err := sparse.FillOrder(h, sparse.OrderND)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sparse.AnalyzeSupernodalPerm(h, perm)
	if err != nil {
		t.Fatal(err)
	}
	for ndev := 1; ndev <= 4; ndev++ {
		owner, load, top := splitTree(g, ndev, 0)
		total := top
		for _, l := range load {
			total += l
		}
		var w float64
		for k := 0; k < g.NS; k++ {
			w += snFrontWork(g, k)
			p := g.SParent[k]
			switch {
			case owner[k] < -1 || owner[k] >= ndev:
				t.Fatalf("%d devices: owner[%d] = %d", ndev, k, owner[k])
			case p >= 0 && owner[k] == -1 && owner[p] != -1:
				t.Errorf("%d devices: top supernode %d under subtree supernode %d", ndev, k, p)
			case p >= 0 && owner[k] >= 0 && owner[p] >= 0 && owner[p] != owner[k]:
				t.Errorf("%d devices: supernode %d on %d, its parent on %d", ndev, k, owner[k], owner[p])
			}
		}
		if math.Abs(total-w) > 1e-9*w {
			t.Errorf("%d devices: loads %v + top %g != work %g", ndev, load, top, w)
		}
		if ndev == 1 && top != 0 {
			t.Errorf("one device: top work %g", top)
		}
		if ndev == 2 && !(max(load[0], load[1])+top < 0.8*w) {
			t.Errorf("two devices: loads %v top %g of %g", load, top, w)
		}
		t.Logf("%d devices: loads %v, top %.3g of %.3g", ndev, load, top, w)
	}
	// When moving an update matrix costs more than any factorization, no
	// tree is cut (whole trees of a forest may still go anywhere).
	owner, _, top := splitTree(g, 2, 1e15)
	for k, o := range owner {
		if p := g.SParent[k]; top != 0 || p >= 0 && owner[p] != o {
			t.Fatalf("costly moves: supernode %d on %d, top %g", k, o, top)
		}
	}
}

// Edge cases of the split: a forest (two disconnected blocks, whose trees
// go whole to the devices with nothing on top), a system of order one (a
// device with nothing to do) and three devices for two trees.
func TestSupernodalMultiShapes(t *testing.T) {
	one := sparseRandomSPD(300, 20, 7)
	two := &sparse.COO{Rows: 600, Cols: 600, Symmetric: true}
	for blk := int32(0); blk < 2; blk++ {
		for k := range one.V {
			two.I = append(two.I, one.I[k]+300*blk)
			two.J = append(two.J, one.J[k]+300*blk)
			two.V = append(two.V, one.V[k]*float64(1+blk))
		}
	}
	tiny := &sparse.COO{Rows: 1, Cols: 1, I: []int32{0}, J: []int32{0}, V: []float64{4}, Symmetric: true}
	for _, tc := range []struct {
		name  string
		c     *sparse.COO
		parts int
		top   bool
	}{{"forest", two, 2, false}, {"forest", two, 3, false}, {"order 1", tiny, 2, false}} {
		h, err := sparse.CSCFromCOO(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		b := snMultiRHS(h.N)
		x1, _, err := snSolve(t, tc.c, false, sparse.OrderAMD, b)
		if err != nil {
			t.Fatal(err)
		}
		m := &snMulti{}
		if err := m.factorize(h, multiTestParts(t, tc.parts), sparse.OrderAMD); err != nil {
			t.Fatalf("%s on %d: %v", tc.name, tc.parts, err)
		}
		x, err := m.solve(b)
		top := m.top != nil
		m.release()
		if err != nil {
			t.Fatalf("%s on %d: solve: %v", tc.name, tc.parts, err)
		}
		if d := relDiff(x, x1); !(d <= 1e-12) || top != tc.top {
			t.Errorf("%s on %d: differs by %g from one device; top %v", tc.name, tc.parts, d, top)
		}
	}
}

// LDLᵀ names a zero pivot's column on the device that meets it.
func TestSupernodalMultiZeroPivot(t *testing.T) {
	_, h := snMultiSystem(t, "bcsstk16")
	devs := multiTestParts(t, 2)
	m := &snMulti{ldlt: true}
	if err := m.factorize(h, devs, sparse.OrderND); err != nil {
		t.Fatal(err)
	}
	l := m.subLoc[1]
	if l == nil {
		t.Fatal("no subtree on the second device")
	}
	// The first column of the second device's first supernode, whose
	// pivot is its diagonal entry alone: zero it, and its row and column.
	col := m.g.Perm[l.sym.Perm[0]]
	m.release()
	c := cscToCOO(t, h)
	z := &sparse.COO{Rows: c.Rows, Cols: c.Cols, Symmetric: true}
	for k := range c.V {
		if int(c.I[k]) != col && int(c.J[k]) != col {
			z.I, z.J, z.V = append(z.I, c.I[k]), append(z.J, c.J[k]), append(z.V, c.V[k])
		}
	}
	z.I, z.J, z.V = append(z.I, int32(col)), append(z.J, int32(col)), append(z.V, 0)
	hz, err := sparse.CSCFromCOO(z)
	if err != nil {
		t.Fatal(err)
	}
	var f SupernodalLDLTMulti
	err = f.Factorize(hz, devs, sparse.OrderND)
	f.Release()
	var zp *ZeroPivotError
	if !errors.As(err, &zp) {
		t.Fatalf("zero pivot: %v", err)
	}
	one := &SupernodalLDLT{}
	err1 := one.Factorize(cscUpload(t, z), sparse.OrderND)
	one.Release()
	var zp1 *ZeroPivotError
	if !errors.As(err1, &zp1) || zp1.Column != zp.Column {
		t.Errorf("zero pivot at column %d on two devices; one device: %v", zp.Column, err1)
	}
}

// A part's update storage beyond the device's largest allocation (the
// top's grows by its phantoms after newPart checked it) is a typed
// out-of-memory error with the sizes, before anything is allocated.
func TestSnCheckUpdates(t *testing.T) {
	dev := multiTestParts(t, 2)[0]
	info := dev.Info()
	s := &sparse.Supernodal{LPtr: []int64{0}}
	if err := snCheckUpdates(s, &snSchedule{uLen: 1 << 10}, dev); err != nil {
		t.Fatalf("8 KiB of updates: %v", err)
	}
	for _, sc := range []*snSchedule{{uLen: info.MaxAllocBytes/8 + 1}, {uLen: info.GlobalMemBytes / 8}} {
		if sc.uLen <= 1<<10 {
			continue
		}
		err := snCheckUpdates(&sparse.Supernodal{LPtr: []int64{1 << 20}}, sc, dev)
		var oom *kernels.OutOfMemoryError
		if !errors.As(err, &oom) || !errors.Is(err, kernels.ErrOutOfMemory) || oom.Requested != 8*sc.uLen || oom.MaxAlloc != info.MaxAllocBytes {
			t.Errorf("%d doubles of updates: %v", sc.uLen, err)
		}
	}
}

// A failed re-Factorize leaves no Stats of the factorization before it;
// the other devices' Send counts the packed triangles they send, m(m+1)/2
// each, the first device's the m² it copies on the device.
func TestSupernodalMultiStatsAndSend(t *testing.T) {
	_, h := snMultiSystem(t, "bcsstk16")
	devs := multiTestParts(t, 2)
	var f SupernodalCholeskyMulti
	if err := f.Factorize(h, devs, sparse.OrderND); err != nil {
		t.Fatal(err)
	}
	want := make([]int, len(devs))
	for _, s := range f.m.sends {
		if s.dev == 0 {
			want[0] += s.m * s.m
		} else {
			want[s.dev] += s.m * (s.m + 1) / 2
		}
	}
	st := f.Stats()
	if st.Factor == nil || len(st.Shares) != 2 || want[1] == 0 {
		t.Fatalf("stats %+v, sends %v", st, want)
	}
	for d, sh := range st.Shares {
		if sh.Send != want[d] {
			t.Errorf("device %d sends %d doubles, want %d", d, sh.Send, want[d])
		}
	}
	if err := f.Factorize(nil, devs, sparse.OrderND); err == nil {
		t.Fatal("nil matrix factored")
	}
	if st := f.Stats(); st.Factor != nil || st.Shares != nil {
		t.Errorf("stats after a failed Factorize: %+v", st)
	}
	f.Release()
}

// A device canceled during the factorization (the first: the others stop
// sending; or another) is kernels.ErrCanceled, and Release frees every
// device's memory.
func TestSupernodalMultiCanceled(t *testing.T) {
	_, h := snMultiSystem(t, "bcsstk16")
	devs := multiTestParts(t, 2)
	for which := range devs {
		devs[which].Cancel()
		var f SupernodalCholeskyMulti
		err := f.Factorize(h, devs, sparse.OrderND)
		if rerr := devs[which].Resume(); rerr != nil {
			t.Fatal(rerr)
		}
		f.Release()
		live := devs[0].MemoryStats().Live + devs[1].MemoryStats().Live
		if live != 0 || !errors.Is(err, kernels.ErrCanceled) {
			t.Errorf("device %d canceled: %v, %d bytes live after Release", which, err, live)
		}
	}
}
