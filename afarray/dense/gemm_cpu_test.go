package dense

import (
	"fmt"
	"github.com/oclsolve/oclsolve/kernels"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// packedConfigs are packed CPU geometries the tests run explicitly (the
// tuner may pick another form): a shallow KC and small chunks so that the
// shapes of gemmShapes cross depth slices and chunk edges.
var packedTestConfigs = []Config{
	{16, 16, -16, 8, 4},
	{64, 32, -256, 16, 8},
	{48, 16, -7, 24, 8},
}

func TestGemmPacked(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(5))
	defer func(v int) { packedLimit = v }(packedLimit)
	for _, limit := range []int{1 << 22, 700} {
		packedLimit = limit
		for _, dt := range dtypes {
			for _, cfg := range packedTestConfigs {
				g, err := buildPacked(dev, dt, cfg)
				if err != nil {
					t.Fatalf("%s %s: %v", dt, cfg, err)
				}
				checkPackedShapes(t, rng, dev, dt, g)
			}
		}
	}
	// Through an engine: Gemm, and Syrk (the lower triangle only).
	for _, dt := range dtypes {
		e, err := NewWithConfig(dev, dt, packedTestConfigs[0])
		if err != nil {
			t.Fatal(err)
		}
		if e.packed == nil {
			t.Fatalf("%s engine does not use the packed form", e.Config())
		}
		checkGemmShapes(t, rng, e)
		checkSyrk(t, rng, e)
	}
	// A direct engine packs deep products and those with A transposed
	// (usePacked); the shapes here reach the depth, gemmShapes the rest.
	defer func(s [][3]int) { gemmShapes = s }(gemmShapes)
	gemmShapes = [][3]int{{37, 29, packedDepth + 77}, {9, 130, packedDepth}, {1, 300, 2 * packedDepth}, {33, 20, packedDepth / 2}}
	for _, dt := range dtypes {
		e, err := NewWithConfig(dev, dt, Config{64, 64, 0, 16, 8})
		if err != nil {
			t.Fatal(err)
		}
		if e.packed == nil || !e.usePacked(false, 37, 29, packedDepth+77) || !e.usePacked(true, 65, 33, 129) || e.usePacked(false, 65, 33, 129) ||
			!e.usePacked(false, 33, 20, packedDepth/2) || e.usePacked(false, 64, 64, packedDepth/2) {
			t.Fatalf("%s engine: packed kernel %v, or the wrong products packed", e.Config(), e.packed != nil)
		}
		checkGemmShapes(t, rng, e)
	}
}

// checkPackedShapes compares g's product with the reference on gemmShapes
// in every transposition, alpha/beta both general and beta = 0.
func checkPackedShapes(t *testing.T, rng *rand.Rand, dev *kernels.Device, dt DType, g *packedGemm) {
	t.Helper()
	e := &Engine{dev: dev, dt: dt}
	for _, s := range gemmShapes {
		for _, tt := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			m, n, k := s[0], s[1], s[2]
			a, b, c := gemmOperands(t, rng, dev, dt, m, n, k, tt)
			alpha, beta := 1.5, -0.5
			if err := g.launch(nil, dt, tt[0], tt[1], e.scalar(alpha), e.scalar(beta), a.Mat, b.Mat, c.Mat, k, false); err != nil {
				t.Fatalf("%s %s %v %v: %v", dt, g.cfg, s, tt, err)
			}
			want := refGemm(tt[0], tt[1], alpha, a.host, b.host, beta, c.host, m, n)
			if m == 0 || n == 0 {
				continue
			}
			if d := relErr(c.download(t), want, m, n, false); d > tol(dt, k) {
				t.Errorf("%s %s m,n,k=%v trans=%v limit %d: error %.3g", dt, g.cfg, s, tt, packedLimit, d)
			}
		}
	}
}

// BenchmarkGemmCPU times GEMM configurations (the direct ones and
// packedBeside by default; OCLSOLVE_CONFIGS=a,b,... names others) through an
// engine on n x n x n float64 products (NN; n = 1024, 2048 or those of
// OCLSOLVE_SIZES), packing included, and reports the best and the median
// run.
func BenchmarkGemmCPU(b *testing.B) {
	dev := testDevice(b)
	cfgs := []Config{packedBeside}
	for _, c := range Configs {
		if c.Direct() {
			cfgs = append(cfgs, c)
		}
	}
	if s := os.Getenv("OCLSOLVE_CONFIGS"); s != "" {
		cfgs = nil
		for _, f := range strings.Split(s, ",") {
			c, err := ParseConfig(f)
			if err != nil {
				b.Fatal(err)
			}
			cfgs = append(cfgs, c)
		}
	}
	sizes := []int{1024, 2048}
	if s := os.Getenv("OCLSOLVE_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				b.Fatalf("OCLSOLVE_SIZES: %q", f)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		bufs := make([]*kernels.Buffer, 3)
		for i := range bufs {
			var err error
			if bufs[i], err = dev.Alloc(int64(n*n) * 8); err != nil {
				b.Fatal(err)
			}
			defer bufs[i].Release()
			if err := bufs[i].Fill(make([]byte, 8), 0, int64(n*n)*8); err != nil {
				b.Fatal(err)
			}
		}
		m := func(i int) Mat { return Mat{Buf: bufs[i], Rows: n, Cols: n, LD: n} }
		for _, cfg := range cfgs {
			e, err := NewWithConfig(dev, Float64, cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s_n=%d", strings.ReplaceAll(cfg.String(), "/", "_"), n), func(b *testing.B) {
				var runs []time.Duration
				for i := 0; i < b.N; i++ {
					start := time.Now()
					if err := e.Gemm(false, false, 1, m(0), m(1), 0, m(2)); err != nil {
						b.Fatal(err)
					}
					if err := dev.Finish(); err != nil {
						b.Fatal(err)
					}
					runs = append(runs, time.Since(start))
				}
				// The best and the median run: on a shared machine the
				// mean says more about the others' load.
				slices.Sort(runs)
				flop := 2 * float64(n) * float64(n) * float64(n)
				b.ReportMetric(flop/runs[0].Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(flop/runs[len(runs)/2].Seconds()/1e9, "median-GFLOP/s")
			})
		}
	}
}
