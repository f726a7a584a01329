package dense

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func testDevice(t testing.TB) *kernels.Device {
	t.Helper()
	dev, err := kernels.Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	return dev
}

var dtypes = []DType{Float64, Float32}

// tol is the relative accuracy expected of a product of depth k.
func tol(dt DType, k int) float64 {
	eps := 1e-15
	if dt == Float32 {
		eps = 1e-6
	}
	return eps * float64(10+k)
}

// devMat is a matrix uploaded with a leading-dimension pad and an offset,
// so that every kernel is tested on views, not only whole buffers.
type devMat struct {
	Mat
	host *mat.Dense // the values as the device holds them (rounded to float32 when dt is)
	dt   DType
}

const testPad, testOff = 3, 5

// upload puts h (r x c; empty when either is 0) on the device.
func upload(t *testing.T, dev *kernels.Device, dt DType, h *mat.Dense, r, c int) devMat {
	t.Helper()
	ld := r + testPad
	n := testOff + ld*max(c, 1)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.NaN() // padding poisoned: a kernel that reads it shows
	}
	rounded := mat.NewDense(max(r, 1), max(c, 1), nil)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			v := h.At(i, j)
			if dt == Float32 {
				v = float64(float32(v))
			}
			vals[testOff+i+ld*j] = v
			rounded.Set(i, j, v)
		}
	}
	buf, err := dev.Alloc(int64(n) * dt.Size())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buf.Release)
	writeVals(t, buf, dt, vals)
	return devMat{Mat: Mat{Buf: buf, Off: testOff, Rows: r, Cols: c, LD: ld}, host: rounded, dt: dt}
}

func writeVals(t *testing.T, buf *kernels.Buffer, dt DType, vals []float64) {
	t.Helper()
	if dt == Float32 {
		v := make([]float32, len(vals))
		for i, x := range vals {
			v[i] = float32(x)
		}
		if err := buf.Write(0, v); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := buf.Write(0, vals); err != nil {
		t.Fatal(err)
	}
}

func readVals(t *testing.T, buf *kernels.Buffer, dt DType) []float64 {
	t.Helper()
	n := int(buf.Size() / dt.Size())
	out := make([]float64, n)
	if dt == Float32 {
		v := make([]float32, n)
		if err := buf.Read(0, v); err != nil {
			t.Fatal(err)
		}
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	if err := buf.Read(0, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// download returns the view's values; every element outside the view must
// be untouched (still NaN padding), which it also checks.
func (d devMat) download(t *testing.T) *mat.Dense {
	t.Helper()
	vals := readVals(t, d.Buf, d.dt)
	out := mat.NewDense(max(d.Rows, 1), max(d.Cols, 1), nil)
	inside := map[int]bool{}
	for j := 0; j < d.Cols; j++ {
		for i := 0; i < d.Rows; i++ {
			k := int(d.Off) + i + d.LD*j
			out.Set(i, j, vals[k])
			inside[k] = true
		}
	}
	for k, v := range vals {
		if !inside[k] && !math.IsNaN(v) {
			t.Fatalf("element %d outside the %dx%d view was written (%g)", k, d.Rows, d.Cols, v)
		}
	}
	return out
}

// gemmOperands returns random device operands (their host values in
// .host) for a product of m x n by depth k with the transpositions tt (A
// stored k x m when tt[0], B n x k when tt[1]; C m x n).
func gemmOperands(t *testing.T, rng *rand.Rand, dev *kernels.Device, dt DType, m, n, k int, tt [2]bool) (a, b, c devMat) {
	t.Helper()
	ar, ac := m, k
	if tt[0] {
		ar, ac = k, m
	}
	br, bc := k, n
	if tt[1] {
		br, bc = n, k
	}
	ha, hb, hc := random(rng, ar, ac), random(rng, br, bc), random(rng, m, n)
	return upload(t, dev, dt, ha, ar, ac), upload(t, dev, dt, hb, br, bc), upload(t, dev, dt, hc, m, n)
}

func random(rng *rand.Rand, r, c int) *mat.Dense {
	if r == 0 || c == 0 {
		return &mat.Dense{}
	}
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, rng.Float64()*2-1)
		}
	}
	return m
}

// relErr returns max|got-want| / max(1, max|want|) over the r x c block,
// restricted to the lower triangle when lower is set.
func relErr(got, want *mat.Dense, r, c int, lower bool) float64 {
	var d, s float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if lower && i < j {
				continue
			}
			w := want.At(i, j)
			e := math.Abs(got.At(i, j) - w)
			if math.IsNaN(e) {
				return math.Inf(1)
			}
			d = max(d, e)
			s = max(s, math.Abs(w))
		}
	}
	return d / max(1, s)
}

var gemmShapes = [][3]int{{0, 0, 0}, {1, 1, 1}, {0, 3, 2}, {3, 2, 0}, {1, 7, 5}, {7, 1, 3}, {17, 13, 11}, {37, 70, 19}, {65, 33, 129}, {130, 129, 64}}

func refGemm(ta, tb bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense, m, n int) *mat.Dense {
	out := mat.NewDense(max(m, 1), max(n, 1), nil)
	if m == 0 || n == 0 {
		return out
	}
	out.Copy(c)
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if (ta && ra > 0 || !ta && ca > 0) && !a.IsEmpty() && !b.IsEmpty() {
		tA, tB := blas.NoTrans, blas.NoTrans
		if ta {
			tA = blas.Trans
		}
		if tb {
			tB = blas.Trans
		}
		_, _ = rb, cb
		blas64.Gemm(tA, tB, alpha, a.RawMatrix(), b.RawMatrix(), beta, out.RawMatrix())
	} else {
		out.Scale(beta, out)
	}
	return out
}

func TestGemmAllConfigs(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(1))
	for _, dt := range dtypes {
		tuned, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range Configs {
			// Every configuration in float64; float32 shares the source, so
			// the tuned and the default configurations suffice there.
			if cfg.fits(dev, dt) != nil || dt == Float32 && cfg != tuned.Config() && cfg != Configs[0] {
				continue
			}
			if !isGPU(dev) && cfg.WorkGroup() > 64 && cfg != Configs[1] {
				// GPU-sized groups take PoCL long to compile (the whole
				// test: 138 s with all of them, cold): one of them
				// (128x128x8/8x8) stands for the rest here; a GPU run
				// tests them all.
				continue
			}
			e, err := NewWithConfig(dev, dt, cfg)
			if errors.Is(err, ErrDevice) {
				// Only the built kernel knows its work-group limit (the
				// registers it needs): on an H100 128x128x8/8x4's 512
				// items exceed the 256 its kernel allows. The tuner skips
				// it likewise.
				t.Logf("%s %s: %v", dt, cfg, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", dt, cfg, err)
			}
			checkGemmShapes(t, rng, e)
		}
	}
}

// TestGemmBuildLog prints the compiler's log for every configuration
// built with the given extra options, e.g. OCLSOLVE_GEMM_BUILDLOG=
// -cl-nv-verbose on NVIDIA (registers and spills of each kernel). It only
// runs when that variable is set.
func TestGemmBuildLog(t *testing.T) {
	opts, ok := os.LookupEnv("OCLSOLVE_GEMM_BUILDLOG")
	if !ok {
		t.Skip("OCLSOLVE_GEMM_BUILDLOG not set")
	}
	dev := testDevice(t)
	for _, cfg := range Configs {
		if cfg.fits(dev, Float64) != nil {
			continue
		}
		p, err := dev.Build(cfg.options(Float64, isGPU(dev))+" "+opts, kernels.Source{Name: "gemm.cl", Text: gemmSource})
		if err != nil {
			t.Errorf("%s: %v", cfg, err)
			continue
		}
		t.Logf("%s:\n%s", cfg, p.Log())
	}
}

// The pair loads GPUs use (PAIRS in gemm.cl) give the same products on
// PoCL, in both types, every transposition and the edge shapes.
func TestGemmPairs(t *testing.T) {
	dev := testDevice(t)
	if isGPU(dev) {
		t.Skip("a GPU runs the pair loads in TestGemmAllConfigs")
	}
	defer func(v bool) { pairsOnCPU = v }(pairsOnCPU)
	pairsOnCPU = true
	rng := rand.New(rand.NewSource(3))
	for _, dt := range dtypes {
		e, err := NewWithConfig(dev, dt, pairsTestConfig[dt])
		if err != nil {
			t.Fatalf("%s %s: %v", dt, pairsTestConfig[dt], err)
		}
		checkGemmShapes(t, rng, e)
	}
}

// pairsTestConfig is the geometry per type that TestGemmPairs runs with
// the pair loads on PoCL; thinEngine takes it too, so that its tiled
// program is one already built (each costs PoCL seconds, cold).
var pairsTestConfig = map[DType]Config{Float64: {32, 32, 16, 4, 4}, Float32: {64, 32, 16, 8, 4}}

// checkGemmShapes compares e's Gemm with the reference on gemmShapes in
// every transposition.
func checkGemmShapes(t *testing.T, rng *rand.Rand, e *Engine) {
	t.Helper()
	dev, dt, cfg := e.Device(), e.DType(), e.Config()
	for _, s := range gemmShapes {
		for _, tt := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			m, n, k := s[0], s[1], s[2]
			a, b, c := gemmOperands(t, rng, dev, dt, m, n, k, tt)
			alpha, beta := 1.5, -0.5
			if err := e.Gemm(tt[0], tt[1], alpha, a.Mat, b.Mat, beta, c.Mat); err != nil {
				t.Fatalf("%s %s %v %v: %v", dt, cfg, s, tt, err)
			}
			want := refGemm(tt[0], tt[1], alpha, a.host, b.host, beta, c.host, m, n)
			if m == 0 || n == 0 {
				continue
			}
			if d := relErr(c.download(t), want, m, n, false); d > tol(dt, k) {
				t.Errorf("%s %s m,n,k=%v trans=%v: error %.3g", dt, cfg, s, tt, d)
			}
		}
	}
}

// beta = 0 must not read C: NaN in C stays out of the result.
func TestGemmBetaZeroIgnoresC(t *testing.T) {
	dev := testDevice(t)
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(2))
		ha, hb := random(rng, 9, 4), random(rng, 4, 11)
		a, b := upload(t, dev, dt, ha, 9, 4), upload(t, dev, dt, hb, 4, 11)
		nan := mat.NewDense(9, 11, nil)
		for i := 0; i < 9; i++ {
			for j := 0; j < 11; j++ {
				nan.Set(i, j, math.NaN())
			}
		}
		c := upload(t, dev, dt, nan, 9, 11)
		if err := e.Gemm(false, false, 1, a.Mat, b.Mat, 0, c.Mat); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(a.host, b.host)
		if d := relErr(c.download(t), &want, 9, 11, false); d > tol(dt, 4) {
			t.Errorf("%s: error %.3g", dt, d)
		}
	}
}

func TestSyrk(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(3))
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		checkSyrk(t, rng, e)
	}
}

// checkSyrk compares e's Syrk with the reference in both transpositions on
// edge and odd shapes, and checks that the strict upper triangle stays.
func checkSyrk(t *testing.T, rng *rand.Rand, e *Engine) {
	t.Helper()
	dev, dt := e.Device(), e.DType()
	for _, s := range [][2]int{{0, 3}, {1, 1}, {5, 0}, {13, 7}, {70, 33}, {129, 65}} {
		for _, trans := range []bool{false, true} {
			n, k := s[0], s[1]
			ar, ac := n, k
			if trans {
				ar, ac = k, n
			}
			ha, hc := random(rng, ar, ac), random(rng, n, n)
			a, c := upload(t, dev, dt, ha, ar, ac), upload(t, dev, dt, hc, n, n)
			if err := e.Syrk(trans, -1, a.Mat, 2, c.Mat); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				continue
			}
			want := refGemm(trans, !trans, -1, a.host, a.host, 2, c.host, n, n)
			got := c.download(t)
			if d := relErr(got, want, n, n, true); d > tol(dt, k) {
				t.Errorf("%s Syrk n=%d k=%d trans=%v: error %.3g", dt, n, k, trans, d)
			}
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					if got.At(i, j) != c.host.At(i, j) {
						t.Fatalf("%s Syrk n=%d: upper (%d,%d) changed", dt, n, i, j)
					}
				}
			}
		}
	}
}

// triangular returns a well-conditioned triangle (the other triangle holds
// junk that must not be read).
func triangular(rng *rand.Rand, n int, uplo Uplo) *mat.Dense {
	if n == 0 {
		return &mat.Dense{}
	}
	m := random(rng, n, n)
	for i := 0; i < n; i++ {
		m.Set(i, i, 2+rng.Float64())
		for j := 0; j < n; j++ {
			if (uplo == Lower && j < i) || (uplo == Upper && j > i) {
				m.Set(i, j, m.At(i, j)/math.Sqrt(float64(n)))
			} else if i != j {
				m.Set(i, j, 1e30) // junk, never to be read
			}
		}
	}
	return m
}

func TestTrsm(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(4))
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range [][2]int{{0, 4}, {4, 0}, {1, 1}, {5, 3}, {33, 7}, {70, 65}, {97, 130}} {
			for _, side := range []Side{Left, Right} {
				for _, uplo := range []Uplo{Lower, Upper} {
					for _, trans := range []bool{false, true} {
						for _, diag := range []Diag{NonUnit, Unit} {
							m, n := s[0], s[1]
							order := m
							if side == Right {
								order = n
							}
							ht, hb := triangular(rng, order, uplo), random(rng, m, n)
							tm, b := upload(t, dev, dt, ht, order, order), upload(t, dev, dt, hb, m, n)
							alpha := 0.75
							if err := e.Trsm(side, uplo, trans, diag, alpha, tm.Mat, b.Mat); err != nil {
								t.Fatal(err)
							}
							if m == 0 || n == 0 {
								continue
							}
							// Check op(T) X = alpha B (or X op(T)) with the clean triangle.
							tri := mat.NewDense(order, order, nil)
							for i := 0; i < order; i++ {
								for j := 0; j < order; j++ {
									if i == j && diag == Unit {
										tri.Set(i, j, 1)
									} else if i == j || (uplo == Lower) == (i > j) {
										tri.Set(i, j, tm.host.At(i, j))
									}
								}
							}
							var op mat.Matrix = tri
							if trans {
								op = tri.T()
							}
							x := b.download(t)
							var got mat.Dense
							if side == Left {
								got.Mul(op, x)
							} else {
								got.Mul(x, op)
							}
							var want mat.Dense
							want.Scale(alpha, b.host)
							if d := relErr(&got, &want, m, n, false); d > 10*tol(dt, order) {
								t.Errorf("%s Trsm %dx%d side=%d uplo=%d trans=%v diag=%d: residual %.3g", dt, m, n, side, uplo, trans, diag, d)
							}
						}
					}
				}
			}
		}
	}
}

func spd(rng *rand.Rand, n int) *mat.Dense {
	g := random(rng, n, n)
	a := mat.NewDense(n, n, nil)
	a.Mul(g, g.T())
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+float64(n))
	}
	return a
}

func TestPotrf(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(5))
	for _, dt := range dtypes {
		base, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewWithConfig(dev, dt, base.Config())
		if err != nil {
			t.Fatal(err)
		}
		info, err := NewInfo(dev)
		if err != nil {
			t.Fatal(err)
		}
		defer info.Release()
		// nb 32 without look-ahead: the one-queue blocked form; with it
		// (the default) the side queue factors every block column after
		// the first.
		for _, run := range []struct {
			nb   int
			look bool
		}{{0, true}, {32, false}, {32, true}, {128, true}, {defaultBlock, true}} {
			nb := run.nb
			if err := e.SetBlockSize(nb); err != nil {
				t.Fatal(err)
			}
			e.SetLookahead(run.look)
			sizes := []int{1, 2, 7, 32, 65, 150, 257}
			if nb == defaultBlock {
				sizes = append(sizes, defaultBlock+77) // more than one outer block
			}
			if nb == 128 {
				sizes = append(sizes, 1100) // potrf_panel over several groups, 8 look-ahead steps
			}
			for _, n := range sizes {
				h := spd(rng, n)
				// junk in the strict upper triangle: never read
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						h.Set(i, j, math.Inf(1))
					}
				}
				a := upload(t, dev, dt, h, n, n)
				if err := info.Reset(); err != nil {
					t.Fatal(err)
				}
				if err := e.Potrf(a.Mat, info); err != nil {
					t.Fatal(err)
				}
				col, err := info.Column()
				if err != nil {
					t.Fatal(err)
				}
				if col != -1 {
					t.Fatalf("%s n=%d nb=%d: reported column %d of an SPD matrix", dt, n, nb, col)
				}
				got := a.download(t)
				l := mat.NewTriDense(n, mat.Lower, nil)
				sym := mat.NewSymDense(n, nil)
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						l.SetTri(i, j, got.At(i, j))
						sym.SetSym(i, j, a.host.At(i, j))
					}
					for j := i + 1; j < n; j++ {
						if !math.IsInf(got.At(j, i)+got.At(i, j), 1) {
							if got.At(i, j) != math.Inf(1) {
								t.Fatalf("%s n=%d: upper (%d,%d) changed", dt, n, i, j)
							}
						}
					}
				}
				var ch mat.Cholesky
				if !ch.Factorize(sym) {
					t.Fatal("gonum: not SPD")
				}
				var want mat.TriDense
				ch.LTo(&want)
				if d := relErr(denseOf(l), denseOf(&want), n, n, true); d > 10*tol(dt, n) {
					t.Errorf("%s Potrf n=%d nb=%d: error %.3g", dt, n, nb, d)
				}
			}
		}
		// A matrix that is not positive definite at column bad: in one
		// block, and with look-ahead in the second block column, which
		// the side queue factors; an even and an odd column (the leaf
		// may factor two columns per step, see chol64_2).
		for _, run := range []struct{ nb, bad int }{{defaultBlock, 40}, {32, 40}, {defaultBlock, 41}, {32, 41}} {
			nb, bad := run.nb, run.bad
			if err := e.SetBlockSize(nb); err != nil {
				t.Fatal(err)
			}
			e.SetLookahead(true)
			n := 90
			h := spd(rng, n)
			h.Set(bad, bad, -h.At(bad, bad))
			a := upload(t, dev, dt, h, n, n)
			if err := info.Reset(); err != nil {
				t.Fatal(err)
			}
			if err := e.Potrf(a.Mat, info); err != nil {
				t.Fatal(err)
			}
			col, err := info.Column()
			if err != nil {
				t.Fatal(err)
			}
			if col != bad {
				t.Fatalf("%s nb=%d: first failing column %d, want %d", dt, nb, col, bad)
			}
			if p := a.download(t).At(bad, bad); !(p <= 0) {
				t.Errorf("%s nb=%d: failing pivot left as %g, want its non-positive value", dt, nb, p)
			}
		}
	}
}

func denseOf(m mat.Matrix) *mat.Dense {
	var d mat.Dense
	d.CloneFrom(m)
	return &d
}

// batchOf packs matrices into one buffer (with padding between them and a
// leading-dimension pad) and describes them.
func batchOf(t *testing.T, e *Engine, hs []*mat.Dense, dims [][2]int) (*Batch, []float64) {
	t.Helper()
	var vals []float64
	var mats []Mat
	for q, h := range hs {
		r, c := dims[q][0], dims[q][1]
		ld := r + 2
		off := len(vals) + 3
		vals = append(vals, make([]float64, 3+ld*max(c, 1))...)
		for i := range vals[off-3:] {
			vals[off-3+i] = math.NaN()
		}
		for j := 0; j < c; j++ {
			for i := 0; i < r; i++ {
				vals[off+i+ld*j] = h.At(i, j)
			}
		}
		mats = append(mats, Mat{Off: int64(off), Rows: r, Cols: c, LD: ld})
	}
	buf, err := e.dev.Alloc(int64(max(len(vals), 1)) * e.dt.Size())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buf.Release)
	if len(vals) > 0 {
		writeVals(t, buf, e.dt, vals)
	}
	b, err := e.NewBatch(buf, mats)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Release)
	return b, vals
}

func batchMat(t *testing.T, b *Batch, dt DType, q int) *mat.Dense {
	vals := readVals(t, b.buf, dt)
	m := b.mats[q]
	out := mat.NewDense(max(m.Rows, 1), max(m.Cols, 1), nil)
	for j := 0; j < m.Cols; j++ {
		for i := 0; i < m.Rows; i++ {
			out.Set(i, j, vals[int(m.Off)+i+m.LD*j])
		}
	}
	return out
}

func rounded(dt DType, h *mat.Dense) *mat.Dense {
	if h.IsEmpty() {
		return h
	}
	var o mat.Dense
	o.CloneFrom(h)
	if dt == Float32 {
		o.Apply(func(_, _ int, v float64) float64 { return float64(float32(v)) }, &o)
	}
	return &o
}

func TestBatched(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(6))
	sizes := []int{0, 1, 5, 33, 70, 100} // 70 and 100 exceed the local-memory POTRF block
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		// GEMM NT and SYRK on fronts of different sizes.
		var ha, hb, hc, hs, hl, hr []*mat.Dense
		var da, db, dc, ds, dr, dq [][2]int
		for i, n := range sizes {
			k := 1 + i*7
			da, db, dc = append(da, [2]int{n, k}), append(db, [2]int{n + 3, k}), append(dc, [2]int{n, n + 3})
			ds, dr, dq = append(ds, [2]int{n + 1, n + 1}), append(dr, [2]int{2*n + 1, n + 1}), append(dq, [2]int{n, n})
			ha = append(ha, rounded(dt, random(rng, n, k)))
			hb = append(hb, rounded(dt, random(rng, n+3, k)))
			hc = append(hc, rounded(dt, random(rng, n, n+3)))
			hs = append(hs, rounded(dt, spd(rng, n+1)))
			hl = append(hl, rounded(dt, triangular(rng, n+1, Lower)))
			hr = append(hr, rounded(dt, random(rng, 2*n+1, n+1)))
		}
		a, _ := batchOf(t, e, ha, da)
		b, _ := batchOf(t, e, hb, db)
		c, _ := batchOf(t, e, hc, dc)
		if err := e.GemmBatched(false, true, -1, a, b, 1, c); err != nil {
			t.Fatal(err)
		}
		for q, n := range sizes {
			if n == 0 {
				continue
			}
			want := refGemm(false, true, -1, ha[q], hb[q], 1, hc[q], n, n+3)
			if d := relErr(batchMat(t, c, dt, q), want, n, n+3, false); d > tol(dt, 50) {
				t.Errorf("%s GemmBatched %d (n=%d): error %.3g", dt, q, n, d)
			}
		}
		s, _ := batchOf(t, e, hs, ds)
		infos, err := dev.Alloc(4 * int64(len(sizes)))
		if err != nil {
			t.Fatal(err)
		}
		defer infos.Release()
		if err := e.PotrfBatched(s, infos); err != nil {
			t.Fatal(err)
		}
		iv := make([]int32, len(sizes))
		if err := infos.Read(0, iv); err != nil {
			t.Fatal(err)
		}
		for q, n := range sizes {
			if iv[q] != math.MaxInt32 {
				t.Fatalf("%s PotrfBatched %d: info %d", dt, q, iv[q])
			}
			got := batchMat(t, s, dt, q)
			sym := mat.NewSymDense(n+1, nil)
			for i := 0; i <= n; i++ {
				for j := 0; j <= i; j++ {
					sym.SetSym(i, j, hs[q].At(i, j))
				}
			}
			var ch mat.Cholesky
			ch.Factorize(sym)
			var l mat.TriDense
			ch.LTo(&l)
			if d := relErr(got, denseOf(&l), n+1, n+1, true); d > 10*tol(dt, n) {
				t.Errorf("%s PotrfBatched %d (n=%d): error %.3g", dt, q, n+1, d)
			}
		}
		// TRSM right, lower, transposed: L21 = A21 L^-T.
		l, _ := batchOf(t, e, hl, ds)
		r, _ := batchOf(t, e, hr, dr)
		if err := e.TrsmBatched(Right, Lower, true, NonUnit, 2, l, r); err != nil {
			t.Fatal(err)
		}
		for q, n := range sizes {
			x := batchMat(t, r, dt, q)
			tri := mat.NewDense(n+1, n+1, nil)
			for i := 0; i <= n; i++ {
				for j := 0; j <= i; j++ {
					tri.Set(i, j, hl[q].At(i, j))
				}
			}
			var got, want mat.Dense
			got.Mul(x, tri.T())
			want.Scale(2, hr[q])
			if d := relErr(&got, &want, 2*n+1, n+1, false); d > 10*tol(dt, n) {
				t.Errorf("%s TrsmBatched %d: residual %.3g", dt, q, d)
			}
		}
		// SYRK batched on the GEMM operands' A (n x k) into fresh squares.
		var hq []*mat.Dense
		for _, n := range sizes {
			hq = append(hq, rounded(dt, random(rng, n, n)))
		}
		sq, _ := batchOf(t, e, hq, dq)
		if err := e.SyrkBatched(false, 1, a, 0, sq); err != nil {
			t.Fatal(err)
		}
		for q, n := range sizes {
			if n == 0 {
				continue
			}
			want := refGemm(false, true, 1, ha[q], ha[q], 0, hq[q], n, n)
			if d := relErr(batchMat(t, sq, dt, q), want, n, n, true); d > tol(dt, 50) {
				t.Errorf("%s SyrkBatched %d: error %.3g", dt, q, d)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	dev := testDevice(t)
	e, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := dev.Alloc(8 * 10)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	a := Mat{Buf: buf, Rows: 3, Cols: 3, LD: 3}
	big := Mat{Buf: buf, Rows: 4, Cols: 4, LD: 4} // 16 elements in a 10-element buffer
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"shape", e.Gemm(false, false, 1, a, Mat{Buf: buf, Rows: 2, Cols: 3, LD: 2}, 0, a), ErrShape},
		{"outside", e.Gemm(false, false, 1, big, big, 0, big), ErrShape},
		{"ld", e.Gemm(false, false, 1, Mat{Buf: buf, Rows: 3, Cols: 1, LD: 2}, Mat{Buf: buf, Rows: 1, Cols: 1, LD: 1}, 0, Mat{Buf: buf, Rows: 3, Cols: 1, LD: 3}), ErrShape},
		{"negative", e.Syrk(false, 1, Mat{Buf: buf, Rows: -1, Cols: 1, LD: 1}, 0, a), ErrShape},
		{"side", e.Trsm(Side(7), Lower, false, NonUnit, 1, a, a), ErrArgument},
		{"nonsquare", e.Potrf(Mat{Buf: buf, Rows: 2, Cols: 3, LD: 2}, nil), ErrShape},
		{"noinfo", e.Potrf(a, nil), ErrArgument},
		{"blocksize", e.SetBlockSize(33), ErrArgument},
		{"alias", e.Gemm(false, false, 1, a, a, 0, Mat{Buf: buf, Off: 1, Rows: 3, Cols: 3, LD: 3}), ErrArgument},
		{"alias syrk", e.Syrk(false, 1, Mat{Buf: buf, Rows: 2, Cols: 2, LD: 3}, 0, Mat{Buf: buf, Off: 1, Rows: 2, Cols: 2, LD: 3}), ErrArgument},
		{"alias trsm", e.Trsm(Left, Lower, false, NonUnit, 1, a, a), ErrArgument},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	if _, err := ParseConfig("64x64x16/4x5"); !errors.Is(err, ErrArgument) {
		t.Errorf("ParseConfig: %v", err)
	}
	if _, err := e.NewBatch(buf, []Mat{{Off: 5, Rows: 3, Cols: 2, LD: 3}}); !errors.Is(err, ErrShape) {
		t.Errorf("NewBatch outside the buffer: %v", err)
	}
	// A batch checked for float32 elements covers half the bytes a float64
	// engine would read: refused, never launched.
	if e32, err := For(dev, Float32); err != nil {
		t.Errorf("float32 engine: %v", err)
	} else if b32, err := e32.NewBatch(buf, []Mat{{Off: 0, Rows: 4, Cols: 4, LD: 4}}); err != nil {
		t.Errorf("float32 batch: %v", err)
	} else if err := e.PotrfBatched(b32, buf); !errors.Is(err, ErrArgument) {
		t.Errorf("float32 batch given to the float64 engine: %v", err)
	}
	released, _ := dev.Alloc(8)
	released.Release()
	if err := e.Gemm(false, false, 1, Mat{Buf: released, Rows: 1, Cols: 1, LD: 1}, Mat{Buf: buf, Rows: 1, Cols: 1, LD: 1}, 0, Mat{Buf: buf, Rows: 1, Cols: 1, LD: 1}); !errors.Is(err, kernels.ErrReleased) {
		t.Errorf("released buffer: %v", err)
	}
}

func TestOverlaps(t *testing.T) {
	var b1, b2 kernels.Buffer
	m := func(b *kernels.Buffer, off int64, r, c, ld int) Mat {
		return Mat{Buf: b, Off: off, Rows: r, Cols: c, LD: ld}
	}
	cases := []struct {
		a, b Mat
		want bool
	}{
		{m(&b1, 0, 4, 4, 10), m(&b2, 0, 4, 4, 10), false},  // different buffers
		{m(&b1, 0, 4, 4, 10), m(&b1, 4, 6, 4, 10), false},  // side by side in rows: interleaved spans, no shared element
		{m(&b1, 0, 4, 4, 10), m(&b1, 40, 4, 4, 10), false}, // below in columns
		{m(&b1, 0, 4, 4, 10), m(&b1, 33, 4, 4, 10), true},  // (3,3) shared
		{m(&b1, 0, 4, 4, 10), m(&b1, 5, 4, 2, 7), true},    // different ld: spans overlap
		{m(&b1, 0, 4, 4, 10), m(&b1, 34, 4, 2, 7), false},  // different ld, disjoint spans
		{m(&b1, 0, 0, 4, 10), m(&b1, 0, 4, 4, 10), false},  // empty
	}
	for i, c := range cases {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("case %d: overlaps = %v, want %v", i, got, c.want)
		}
		if got := overlaps(c.b, c.a); got != c.want {
			t.Errorf("case %d reversed: overlaps = %v, want %v", i, got, c.want)
		}
	}
	// Against brute force on random views of one buffer, wrapping ones
	// (offset rows + rows > ld) included.
	rng := rand.New(rand.NewSource(9))
	elems := func(v Mat) map[int64]bool {
		s := map[int64]bool{}
		for j := 0; j < v.Cols; j++ {
			for i := 0; i < v.Rows; i++ {
				s[v.Off+int64(i)+int64(j)*int64(v.LD)] = true
			}
		}
		return s
	}
	for k := 0; k < 20000; k++ {
		ld := 1 + rng.Intn(8)
		ld2 := ld
		if rng.Intn(4) == 0 {
			ld2 = 1 + rng.Intn(8)
		}
		a := m(&b1, int64(rng.Intn(40)), rng.Intn(ld+1), rng.Intn(5), ld)
		b := m(&b1, int64(rng.Intn(40)), rng.Intn(ld2+1), rng.Intn(5), ld2)
		want := false
		eb := elems(b)
		for x := range elems(a) {
			if eb[x] {
				want = true
			}
		}
		got := overlaps(a, b)
		if got != want && (got == false || a.LD == b.LD) {
			// Different leading dimensions may report a span overlap
			// without a shared element (conservative), never the reverse.
			t.Fatalf("overlaps(%+v, %+v) = %v, brute force %v", a, b, got, want)
		}
	}
}

// The tuner measures once and later engines read the remembered choice.
func TestTuningRemembered(t *testing.T) {
	dev := testDevice(t)
	dir := t.TempDir()
	t.Setenv("OCLSOLVE_CACHE", dir+"/programs")
	cfg, src, err := tune(dev, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if src != "tuned" {
		t.Fatalf("first tuning came from %q", src)
	}
	if _, err := os.Stat(TuningPath(dev)); err != nil {
		t.Fatalf("no tuning record: %v", err)
	}
	cfg2, src2, err := tune(dev, Float32)
	if err != nil {
		t.Fatal(err)
	}
	if src2 != "disk" || cfg2 != cfg {
		t.Fatalf("second tuning: %s from %q, want %s from disk", cfg2, src2, cfg)
	}
	fmt.Println("tuned float32 GEMM on", dev.Name(), ":", cfg)
}

// FuzzParseConfig: any string either parses into a configuration that
// prints back to an equivalent one, or fails with ErrArgument; none panics.
func FuzzParseConfig(f *testing.F) {
	for _, c := range Configs {
		f.Add(c.String())
	}
	for _, s := range []string{"", "0x0x0/0x0", "64x64x16/4x5", "-64x64x16/4x4", "64x64x16/4x4x", "999999999x1x1/1x1", "64x64x0/12x8", "64x64x0/0x8", "8x8x0/8x0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			if !errors.Is(err, ErrArgument) {
				t.Fatalf("%q: %v does not match ErrArgument", s, err)
			}
			return
		}
		if c.WorkGroup() <= 0 || c.MT%c.TM != 0 || c.NT%c.TN != 0 {
			t.Fatalf("%q parsed into an invalid %+v", s, c)
		}
		if c2, err := ParseConfig(c.String()); err != nil || c2 != c {
			t.Fatalf("%q: %s does not round-trip (%v)", s, c, err)
		}
	})
}

func BenchmarkGemm(b *testing.B) {
	dev := testDevice(b)
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{256, 512} {
			b.Run(fmt.Sprintf("%s/n=%d", dt, n), func(b *testing.B) {
				bufs := make([]*kernels.Buffer, 3)
				for i := range bufs {
					if bufs[i], err = dev.Alloc(int64(n*n) * dt.Size()); err != nil {
						b.Fatal(err)
					}
					defer bufs[i].Release()
					if err := bufs[i].Fill(make([]byte, 8), 0, int64(n*n)*dt.Size()); err != nil {
						b.Fatal(err)
					}
				}
				m := func(i int) Mat { return Mat{Buf: bufs[i], Rows: n, Cols: n, LD: n} }
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := e.Gemm(false, false, 1, m(0), m(1), 0, m(2)); err != nil {
						b.Fatal(err)
					}
					if err := dev.Finish(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// PotrfTimed computes exactly Potrf's factor (the same launches, with
// waits between them) and accounts its time to the steps it runs.
func TestPotrfTimed(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(9))
	base, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewWithConfig(dev, Float64, base.Config())
	if err != nil {
		t.Fatal(err)
	}
	info, err := NewInfo(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer info.Release()
	for _, nb := range []int{0, 64} {
		if err := e.SetBlockSize(nb); err != nil {
			t.Fatal(err)
		}
		n := 150
		h := spd(rng, n)
		a, b := upload(t, dev, Float64, h, n, n), upload(t, dev, Float64, h, n, n)
		if err := e.Potrf(a.Mat, info); err != nil {
			t.Fatal(err)
		}
		st, err := e.PotrfTimed(b.Mat, info)
		if err != nil {
			t.Fatal(err)
		}
		if col, err := info.Column(); err != nil || col != -1 {
			t.Fatalf("nb=%d: column %d, %v", nb, col, err)
		}
		if d := relErr(b.download(t), a.download(t), n, n, true); d != 0 {
			t.Errorf("nb=%d: PotrfTimed differs from Potrf by %.3g", nb, d)
		}
		fused := e.potrfPanelK != nil // block columns in one step: no panel time
		if st.Diagonal <= 0 || (nb > 0) != (st.Update > 0) || (nb > 0 && !fused) != (st.Panel > 0) {
			t.Errorf("nb=%d: steps %+v", nb, st)
		}
	}
	if _, err := e.PotrfTimed(Mat{}, nil); !errors.Is(err, ErrArgument) {
		t.Errorf("no Info: %v", err)
	}
}

// BenchmarkPotrfBlockColumn times the pieces of a block column of a
// factorization of order OCLSOLVE_BENCH_N (default 2048): one 64-column
// potrf_panel leaf over all rows, and a whole 512-column block column
// (potrfTall: leaves and the GEMM updates between them), each launched
// b.N times in a row (the values are not a factorization after the first:
// only the time counts).
func BenchmarkPotrfBlockColumn(b *testing.B) {
	dev := testDevice(b)
	e, err := For(dev, Float64)
	if err != nil {
		b.Fatal(err)
	}
	if e.potrfPanelK == nil {
		b.Skip("no register potrf_panel on this device")
	}
	n := 2048
	if v, err := fmt.Sscan(os.Getenv("OCLSOLVE_BENCH_N"), &n); v != 1 || err != nil {
		n = 2048
	}
	buf, err := dev.Alloc(int64(n) * 512 * 8)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Release()
	vals := make([]float64, n*512)
	for j := 0; j < 512; j++ {
		for i := 0; i < n; i++ {
			vals[i+n*j] = 1 / float64(1+i+j)
		}
		vals[j+n*j] = float64(n)
	}
	if err := buf.Write(0, vals); err != nil {
		b.Fatal(err)
	}
	info, err := NewInfo(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer info.Release()
	count, err := e.panelCounters(n)
	if err != nil {
		b.Fatal(err)
	}
	defer count.Release()
	a := Mat{Buf: buf, Rows: n, Cols: 512, LD: n}
	for _, w := range []int{64, 512} {
		b.Run(fmt.Sprintf("n=%d/width=%d", n, w), func(b *testing.B) {
			if err := dev.Finish(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.potrfTall(a, 0, w, n, info, count); err != nil {
					b.Fatal(err)
				}
			}
			if err := dev.Finish(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/column")
		})
	}
}
