package dense

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// thinEngine returns an engine whose every non-SYRK product of depth up to
// maxK takes the thin path (on PoCL too, with a GPU's pair loads). On PoCL
// its tiled kernel is TestGemmPairs's (built once for both), and float32
// products take the wide geometry whatever their shape: float32 shares
// gemm.cl's source with float64, which runs both geometries, and each
// geometry costs PoCL about 20 s cold (the build, then the work-group
// compile at the first launch). A GPU runs both in both types.
func thinEngine(t *testing.T, dev *kernels.Device, dt DType, maxK int) *Engine {
	t.Helper()
	defer func(s, p bool) { smallOnCPU, pairsOnCPU = s, p }(smallOnCPU, pairsOnCPU)
	smallOnCPU, pairsOnCPU = true, true
	t.Setenv("OCLSOLVE_GEMM_SMALL", "")
	cfg := Configs[0]
	if !isGPU(dev) {
		cfg = pairsTestConfig[dt]
	}
	e, err := NewWithConfig(dev, dt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e.small == nil {
		t.Fatal("no thin path")
	}
	e.small.pol.maxK, e.small.pol.groups = maxK, math.MaxInt32
	if dt == Float32 && !isGPU(dev) {
		e.small.pol.tall = e.small.pol.wide
	}
	for _, c := range []Config{e.small.pol.wide, e.small.pol.tall} {
		if _, err := e.small.get(c, false); err != nil {
			t.Fatalf("%s %s: %v", dt, c, err)
		}
	}
	return e
}

// The thin path against gonum on edge shapes: depths around the staged
// slice of 32 (1, 31, 32, 33, 65: one slice, a partial one, two), odd
// rows and columns on both sides of the wide/tall choice, every
// transposition, both types (on PoCL float32 through the wide geometry
// only: thinEngine); beta = 0 with NaN in C.
func TestGemmSmall(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(11))
	for _, dt := range dtypes {
		e := thinEngine(t, dev, dt, 1000)
		for _, mn := range [][2]int{{1, 1}, {31, 67}, {33, 129}, {97, 33}, {70, 17}, {32, 32}} {
			for _, k := range []int{1, 31, 32, 33, 65} {
				for _, tt := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
					m, n := mn[0], mn[1]
					if _, ok := e.small.pick(e.tiled, m, n, k, false); !ok {
						t.Fatalf("%dx%dx%d not on the thin path", m, n, k)
					}
					a, b, c := gemmOperands(t, rng, dev, dt, m, n, k, tt)
					alpha, beta := -1.25, 0.5
					if k == 31 {
						beta = 0
						nan := mat.NewDense(m, n, nil)
						for i := range nan.RawMatrix().Data {
							nan.RawMatrix().Data[i] = math.NaN()
						}
						c = upload(t, dev, dt, nan, m, n)
					}
					if err := e.Gemm(tt[0], tt[1], alpha, a.Mat, b.Mat, beta, c.Mat); err != nil {
						t.Fatal(err)
					}
					want := refGemm(tt[0], tt[1], alpha, a.host, b.host, 0, mat.NewDense(m, n, nil), m, n)
					if beta != 0 {
						want = refGemm(tt[0], tt[1], alpha, a.host, b.host, beta, c.host, m, n)
					}
					if d := relErr(c.download(t), want, m, n, false); d > tol(dt, k) {
						t.Errorf("%s %dx%dx%d trans=%v beta=%g: error %.3g", dt, m, n, k, tt, beta, d)
					}
				}
			}
		}
	}
}

// The blocked LU's inner update on its transposed view: a few rows of C,
// many columns, depth 32, views into one matrix with a large leading
// dimension (the wide tile), and the TRSM's update (the tall tile).
func TestGemmSmallLUViews(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(12))
	e := thinEngine(t, dev, Float64, 64)
	const n = 301
	h := random(rng, n, n)
	for _, s := range []struct{ i0, rows, cols, k int }{{40, 224, 237, 32}, {5, 63, 291, 32}, {0, 269, 32, 32}, {1, 250, 64, 64}} {
		a, b := upload(t, dev, Float64, h.Slice(0, s.rows, 0, s.k).(*mat.Dense), s.rows, s.k), upload(t, dev, Float64, h.Slice(0, s.k, 0, s.cols).(*mat.Dense), s.k, s.cols)
		c := upload(t, dev, Float64, h.Slice(s.i0, s.i0+s.rows, n-s.cols, n).(*mat.Dense), s.rows, s.cols)
		if err := e.Gemm(false, false, -1, a.Mat, b.Mat, 1, c.Mat); err != nil {
			t.Fatal(err)
		}
		want := refGemm(false, false, -1, a.host, b.host, 1, c.host, s.rows, s.cols)
		if d := relErr(c.download(t), want, s.rows, s.cols, false); d > tol(Float64, s.k) {
			t.Errorf("%+v: error %.3g", s, d)
		}
	}
	// Trsm's updates take the thin path as well.
	for _, side := range []Side{Left, Right} {
		m, nn := 70, 97
		order := m
		if side == Right {
			order = nn
		}
		ht, hb := triangular(rng, order, Upper), random(rng, m, nn)
		tm, b := upload(t, dev, Float64, ht, order, order), upload(t, dev, Float64, hb, m, nn)
		if err := e.Trsm(side, Upper, false, NonUnit, 1, tm.Mat, b.Mat); err != nil {
			t.Fatal(err)
		}
		tri := mat.NewDense(order, order, nil) // the triangle without its junk
		for i := 0; i < order; i++ {
			for j := i; j < order; j++ {
				tri.Set(i, j, tm.host.At(i, j))
			}
		}
		var got mat.Dense
		if side == Left {
			got.Mul(tri, b.download(t))
		} else {
			got.Mul(b.download(t), tri)
		}
		if d := relErr(&got, hb, m, nn, false); d > 10*tol(Float64, order) {
			t.Errorf("Trsm side %d: residual %.3g", side, d)
		}
	}
}

func TestSmallPolicy(t *testing.T) {
	p, ok, err := parseSmallPolicy("")
	if err != nil || !ok || p != defaultSmall {
		t.Errorf("empty: %+v %v %v", p, ok, err)
	}
	if _, ok, err := parseSmallPolicy("off"); err != nil || ok {
		t.Errorf("off: %v %v", ok, err)
	}
	p, ok, err = parseSmallPolicy("wide=32x128x32/4x8, tall=128x32x32/8x4,maxk=256,groups=2,cpre=0,cpu=1")
	want := smallPolicy{wide: Config{32, 128, 32, 4, 8}, tall: Config{128, 32, 32, 8, 4}, maxK: 256, groups: 2, noPre: true, cpu: true}
	if err != nil || !ok || p != want {
		t.Errorf("got %+v %v %v, want %+v", p, ok, err, want)
	}
	for _, bad := range []string{"maxk", "maxk=-1", "size=3", "wide=64x64x0/16x8", "tall=1x2", "groups=x"} {
		if _, _, err := parseSmallPolicy(bad); !errors.Is(err, ErrArgument) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	s := &smallGemms{pol: defaultSmall, units: 132}
	main := Config{128, 64, 8, 8, 8}
	for _, c := range []struct {
		m, n, k int
		lower   bool
		want    Config
		ok      bool
	}{
		{480, 8160, 32, false, defaultSmall.wide, true}, // LU inner update (transposed view): 4 x 128 tuned groups
		{7680, 64, 64, false, defaultSmall.tall, true},  // a TRSM update
		{7680, 256, 256, false, Config{}, false},        // deeper than maxK
		{7680, 128, 128, false, defaultSmall.tall, true},
		{480, 8160, 32, true, Config{}, false},   // SYRK keeps the tuned kernel
		{4096, 4096, 32, false, Config{}, false}, // enough tuned groups
		{32, 32, 32, false, defaultSmall.wide, true},
		{1024, 1023, 1, false, defaultSmall.tall, true},
	} {
		got, ok := s.pick(main, c.m, c.n, c.k, c.lower)
		if ok != c.ok || got != c.want {
			t.Errorf("%+v: got %s %v", c, got, ok)
		}
	}
}

// TestGemmThinTimed prints the device time per launch of the thin
// products of the blocked LU and TRSM for the tuned kernel and thin-path
// configurations (OCLSOLVE_GEMM_THIN="cfg,cfg,..."; with OCLSOLVE_PROFILE=1
// the kernel profile's mean, else the host's time over a chain of
// launches). Only a measurement: it runs when that variable is set.
func TestGemmThinTimed(t *testing.T) {
	list, ok := os.LookupEnv("OCLSOLVE_GEMM_THIN")
	if !ok {
		t.Skip("OCLSOLVE_GEMM_THIN not set")
	}
	dev := testDevice(t)
	base, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewWithConfig(dev, Float64, base.Config())
	if err != nil {
		t.Fatal(err)
	}
	s := e.small
	if s == nil {
		s = &smallGemms{dev: dev, dt: Float64, pairs: isGPU(dev), pol: defaultSmall, units: dev.Info().ComputeUnits,
			kernel: map[smallKey]*kernels.Kernel{}, failed: map[smallKey]error{}}
	}
	type variant struct {
		name  string
		kern  *kernels.Kernel
		cfg   Config
		kname string
	}
	vs := []variant{{"tuned " + e.tiled.String(), e.gemmK, e.tiled, "gemm"}}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		noPre := strings.HasSuffix(f, "-nopre")
		c, err := ParseConfig(strings.TrimSuffix(f, "-nopre"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		k, err := s.get(c, noPre)
		if err != nil {
			t.Logf("%s: %v", f, err)
			continue
		}
		t.Logf("%s built in %v", f, time.Since(start).Round(time.Millisecond))
		vs = append(vs, variant{f, k, c, "gemm_small"})
	}
	ld := 8192
	if !isGPU(dev) {
		ld = 1024 // a check that it runs: the shapes that fit
	}
	bufs := make([]*kernels.Buffer, 3)
	for i := range bufs {
		if bufs[i], err = dev.Alloc(int64(ld) * int64(ld) * 8); err != nil {
			t.Fatal(err)
		}
		defer bufs[i].Release()
		if err := bufs[i].Fill(make([]byte, 8), 0, int64(ld)*int64(ld)*8); err != nil {
			t.Fatal(err)
		}
	}
	reps := 20
	if r, err := strconv.Atoi(os.Getenv("OCLSOLVE_GEMM_THIN_REPS")); err == nil && r > 0 {
		reps = r
	}
	shapes := [][3]int{ // C m x n, depth k
		{32, 8160, 32}, {96, 8000, 32}, {224, 6000, 32}, {480, 8160, 32}, {480, 4000, 32}, {480, 1500, 32},
		{224, 1800, 32}, {32, 1800, 32}, {448, 8000, 64}, {192, 4000, 64},
		{7680, 32, 32}, {7680, 64, 64}, {7680, 128, 128}, {7680, 256, 256},
		{1791, 32, 32}, {1791, 64, 64}, {1791, 128, 128}, {512, 32, 32},
		{1791, 1791, 256}, {767, 767, 256},
	}
	sum := make([][2]float64, len(vs)) // per variant: us over the wide and tall shapes of depth <= 64
	out := os.Stdout                   // row by row: a run cut short keeps what it measured
	fmt.Fprintf(out, "%-16s", "m x n x k")
	for _, v := range vs {
		fmt.Fprintf(out, " %22s", v.name)
	}
	out.WriteString("   (us per launch; GFLOP/s)\n")
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		if max(m, n, k) > ld {
			continue
		}
		a := Mat{Buf: bufs[0], Rows: m, Cols: k, LD: ld}
		b := Mat{Buf: bufs[1], Rows: k, Cols: n, LD: ld}
		c := Mat{Buf: bufs[2], Rows: m, Cols: n, LD: ld}
		fmt.Fprintf(out, "%-16s", fmt.Sprintf("%dx%dx%d", m, n, k))
		for vi, v := range vs {
			run := func() error { return e.launchTiled(v.kern, v.cfg, false, false, -1, a, b, 1, c, k, false) }
			if err := run(); err != nil {
				t.Fatal(err)
			}
			if _, err := dev.Profile(); err != nil { // waits, and drops what came before
				t.Fatal(err)
			}
			start := time.Now()
			for i := 0; i < reps; i++ {
				if err := run(); err != nil {
					t.Fatal(err)
				}
			}
			if err := dev.Finish(); err != nil {
				t.Fatal(err)
			}
			per := time.Since(start) / time.Duration(reps)
			if dev.Profiling() {
				p, err := dev.Profile()
				if err != nil {
					t.Fatal(err)
				}
				for _, kt := range p.Kernels {
					if kt.Name == v.kname {
						per = kt.Mean()
					}
				}
			}
			us := per.Seconds() * 1e6
			if k <= 64 {
				sum[vi][b2i(m > n)] += us
			}
			fmt.Fprintf(out, " %13.1f %8.0f", us, 2*float64(m)*float64(n)*float64(k)/per.Seconds()/1e9)
		}
		out.WriteString("\n")
	}
	// OCLSOLVE_GEMM_THIN_PICK names a file for the policy of the fastest
	// thin configurations (with CPRE) on the shapes of depth <= 64, wide
	// and tall apart, as OCLSOLVE_GEMM_SMALL reads it.
	if path := os.Getenv("OCLSOLVE_GEMM_THIN_PICK"); path != "" {
		best := [2]int{-1, -1}
		for vi, v := range vs {
			for side := 0; side < 2; side++ {
				if vi > 0 && !strings.HasSuffix(v.name, "-nopre") && (best[side] < 0 || sum[vi][side] < sum[best[side]][side]) {
					best[side] = vi
				}
			}
		}
		if best[0] > 0 && best[1] > 0 {
			pick := fmt.Sprintf("wide=%s,tall=%s", vs[best[0]].cfg, vs[best[1]].cfg)
			fmt.Printf("pick: %s (wide %.1f us, tall %.1f us; tuned %.1f, %.1f)\n", pick, sum[best[0]][0], sum[best[1]][1], sum[0][0], sum[0][1])
			if err := os.WriteFile(path, []byte(pick), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
