package gauss

import (
	"fmt"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Benchmarks at the documents' sizes (1023 and 2047 unknowns, i.e.
// augmented 1023 x 1024 and 2047 x 2048 matrices) and beyond. The
// documents' best published times on a GTX 1060 are 31.2 ms and 178 ms.
// Run on a GPU with, for example,
//
//	go test -c -o gauss.test ./afarray/gauss
//	./gauss.test -test.run '^$' -test.bench 'Solve|LUFactorize' -test.benchtime 3x
//
// Every benchmark reports the phases of the last solve (upload, eliminate,
// back-substitution, in ms), the launches per solve and GFLOP/s of the
// nominal 2/3 n^3 + 2 n^2 operations over the whole solve.
//
// Measured on an NVIDIA H200 (OpenCL 3.0 CUDA, 2026-11-21), ms on the
// device: eliminate (or factorize) + back-substitution; a whole solve adds
// the upload (1.5-2 ms at n = 1023, 5-6 ms at 2047, 55 ms at 8192):
//
//	variant          n = 1023      n = 2047       n = 4095/4096    n = 8192
//	buffer           5.0 + 1.7     19.2 + 5.7     131 + 14
//	buffer pivot     6.6 + 1.9     30.2 + 6.1     215 + 14
//	vec4             4.5 + 1.7     15.7 + 5.6     105 + 14
//	vec4 pivot       6.0 + 1.9     22.6 + 6.0     129 + 14
//	image            7.4 + 1.7     20.0 + 4.7     116 + 17
//	image pivot      7.4 + 1.8     24.8 + 5.1     190 + 18
//	blocked          6.7 + 2.0     13.2 + 3.9     38 + 8.1         87 + 16
//	blocked pivot    9.1 + 1.9     18.7 + 3.8     42 + 8.1         111 + 17
//
// Whole solves: buffer 9.2 / 33 ms, buffer pivot 10.8 / 46 ms, blocked pivot
// 12.9 / 28 / 60 / 185 ms at n = 1023 / 2047 / 4096 / 8192. The blocked
// factorization alone (BenchmarkLUFactorize, panel width 64) reaches 3.3
// TFLOP/s at n = 8192 and 6.9 TFLOP/s at n = 16384; its panel (one launch
// per column then) takes about 60% of the time at n = 8192, the tiled GEMM
// runs at about 10 TFLOP/s. Since then (H100, `oclsolve bench dense`,
// factor + solve, pivoting): the panel is one launch whose groups meet at a
// grid barrier per column and the update runs the dense core's GEMM
// (17-18 TFLOP/s): n = 2047 16.2 + 4.1 ms (was 26.6 + 4.2) with 64 groups;
// n = 8192 138 + 17 ms (was 114 + 17) with 256 groups, whose barrier cost
// more than the launches it replaced, hence the cap of 64 groups (not
// measured at 8192 since). On PoCL (2 CPU cores, shared) at n = 1023: blocked
// 0.2 s, buffer and vec4 about 1 s, image 5-8 s (software image sampling).

var (
	pingPongSizes = []int{1023, 2047, 4095}
	blockedSizes  = []int{1023, 2047, 4096, 8192}
)

func BenchmarkSolve(b *testing.B) {
	for _, variant := range Variants() {
		sizes := pingPongSizes
		if variant == VariantBlocked {
			sizes = blockedSizes
		}
		for _, pivot := range []bool{false, true} {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("%s/pivot=%v/n=%d", variant, pivot, n), func(b *testing.B) {
					benchSolve(b, n, Options{Variant: variant, Pivot: pivot})
				})
			}
		}
	}
}

func benchSolve(b *testing.B, n int, opts Options) {
	dev := testDevice(b)
	a, rhs := randomSystem(n, uint64(n), !opts.Pivot)
	// One untimed solve builds the program and warms the caches.
	if _, _, err := Solve(dev, a, rhs, opts); err != nil {
		b.Fatal(err)
	}
	var rep *Report
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if _, rep, err = Solve(dev, a, rhs, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(rep.Upload), "upload-ms")
	b.ReportMetric(ms(rep.Eliminate), "eliminate-ms")
	b.ReportMetric(ms(rep.BackSubstitution), "backsub-ms")
	b.ReportMetric(float64(rep.Launches), "launches")
	b.ReportMetric(rep.GFlops, "GFLOP/s")
}

// BenchmarkLUFactorize times the blocked factorization alone (the matrix
// already packed on the host; upload excluded) for several block sizes.
func BenchmarkLUFactorize(b *testing.B) {
	for _, nb := range []int{32, 64} {
		for _, n := range []int{2048, 4096, 8192, 16384} {
			b.Run(fmt.Sprintf("nb=%d/n=%d", nb, n), func(b *testing.B) {
				dev := testDevice(b)
				if int64(8*n*n) > dev.Info().MaxAllocBytes {
					b.Skipf("%d x %d exceeds the device's largest allocation", n, n)
				}
				a, _ := randomSystem(n, uint64(n), false)
				lu := LU{BlockSize: nb}
				if err := lu.Factorize(dev, a); err != nil {
					b.Fatal(err)
				}
				var total time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := lu.Factorize(dev, a); err != nil {
						b.Fatal(err)
					}
					total += lu.factor
				}
				b.StopTimer()
				lu.Release()
				per := total.Seconds() / float64(b.N)
				b.ReportMetric(per*1e3, "factor-ms")
				b.ReportMetric(2.0/3.0*float64(n)*float64(n)*float64(n)/per/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkLUTournament times the factorization with tournament and with
// partial pivoting for panel widths and outer blocks (luOuterBlock; the
// panel width itself is one level).
func BenchmarkLUTournament(b *testing.B) {
	defer func(v int) { luOuterBlock = v }(luOuterBlock)
	for _, n := range []int{2048, 8192} {
		a, _ := randomSystem(n, uint64(n), false)
		for _, piv := range []Pivoting{PivotingPartial, PivotingTournament} {
			// Panel width and outer block.
			cs := [][2]int{{64, 256}, {64, 512}}
			if piv == PivotingTournament {
				cs = [][2]int{{32, 128}, {32, 256}, {32, 512}, {64, 512}}
			}
			for _, c := range cs {
				nb, ow := c[0], c[1]
				b.Run(fmt.Sprintf("%v/nb=%d/outer=%d/n=%d", piv, nb, ow, n), func(b *testing.B) {
					luOuterBlock = ow
					dev := testDevice(b)
					lu := LU{BlockSize: nb, Pivoting: piv}
					var total time.Duration
					for i := 0; i <= b.N; i++ {
						if err := lu.Factorize(dev, a); err != nil {
							b.Fatal(err)
						}
						if i > 0 {
							total += lu.factor
						}
					}
					lu.Release()
					b.ReportMetric(total.Seconds()*1e3/float64(b.N), "factor-ms")
				})
			}
		}
	}
}

// BenchmarkLUPhases splits the blocked factorization's time by kernel,
// waiting for the device after every launch (so the total exceeds the
// factorization's own time by the synchronisation).
//
// H100, 2026-11-23, warp shuffles on, before the column-oriented solves
// (ms: panel / exchanges + solves / GEMM, summed over the panels):
//
//	tournament nb=32  n=2048   5.8 /  4.2 /  3.1   (factor alone 10.0)
//	tournament nb=32  n=8192  31.7 / 19.7 / 32.6   (factor alone 70.4)
//	partial    nb=64  n=2048  12.9 /  3.4 /  1.9
//	partial    nb=64  n=8192  53.0 / 17.3 / 28.2
//
// With the shuffles off the tournament's panels took 10.7 and 55.7 ms.
// Per 32-column tournament panel that is about 90 us at n = 2048 for two
// tree levels of 32 column steps (about 1 us a step with the waits) and
// 65 us for lu_tapply, whose per-item work (the exchanges, a 32-step
// solve) should take far less: the next place to look.
func BenchmarkLUPhases(b *testing.B) {
	for _, mode := range []panelMode{panelPartial, panelTournament} {
		for _, nb := range []int{32, 64} {
			for _, n := range []int{2048, 8192} {
				benchLUPhases(b, mode, nb, n)
			}
		}
	}
}

func benchLUPhases(b *testing.B, mode panelMode, nb, n int) {
	name := map[panelMode]string{panelPartial: "partial", panelTournament: "tournament"}[mode]
	b.Run(fmt.Sprintf("%s/nb=%d/n=%d", name, nb, n), func(b *testing.B) {
		dev := testDevice(b)
		a, _ := randomSystem(n, uint64(n), false)
		prog, err := luProgram(dev, nb)
		if err != nil {
			b.Fatal(err)
		}
		host := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				host[i*n+j] = a.At(i, j)
			}
		}
		buf, _ := dev.Alloc(int64(8 * n * n))
		defer buf.Release()
		ipiv, _ := dev.Alloc(int64(4 * n))
		defer ipiv.Release()
		status, _ := newStatus(dev)
		defer status.Release()
		var times [3]time.Duration
		last := time.Now()
		phase := func(i int) error {
			err := dev.Finish()
			now := time.Now()
			times[i] += now.Sub(last)
			last = now
			return err
		}
		b.ResetTimer()
		for it := 0; it < b.N; it++ {
			b.StopTimer()
			if err := buf.Write(0, host); err != nil {
				b.Fatal(err)
			}
			if err := dev.Finish(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			last = time.Now()
			if err := factorBlocked(dev, prog, buf, ipiv, status, nil, n, nb, mode, 0, false, phase); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		per := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
		b.ReportMetric(per(times[0]), "panel-ms")
		b.ReportMetric(per(times[1]), "swap-trsm-ms")
		b.ReportMetric(per(times[2]), "gemm-ms")
	})
}

// BenchmarkTriangularSolve compares the back-substitution's work-group size
// (the documents: larger should be faster) on the ping-pong buffer variant,
// and the tile height of the blocked LU's triangular solves.
func BenchmarkTriangularSolve(b *testing.B) {
	defer func(v int) { trsvBlockLocal = v }(trsvBlockLocal)
	for _, local := range []int{128, 256, 512, 1024} {
		b.Run(fmt.Sprintf("pingpong/local=%d/n=2047", local), func(b *testing.B) {
			trsvBlockLocal = local
			benchSolve(b, 2047, Options{Variant: VariantBuffer, Pivot: true})
		})
	}
	for _, local := range []int{128, 256, 512} {
		for _, tile := range []int{64, 128, 256, 512, 2048} {
			b.Run(fmt.Sprintf("blocked/local=%d/tile=%d/n=8192", local, tile), func(b *testing.B) {
				trsvBlockLocal = local
				dev := testDevice(b)
				a, rhs := randomSystem(8192, 8192, false)
				lu := LU{SolveTile: tile}
				if err := lu.Factorize(dev, a); err != nil {
					b.Fatal(err)
				}
				defer lu.Release()
				x := make([]float64, len(rhs))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := lu.SolveVecTo(x, rhs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLaunchOverhead measures what one launch costs the host (enqueue)
// and the device (enqueue through completion) for a kernel that does almost
// nothing: the floor under the one-launch-per-step designs.
func BenchmarkLaunchOverhead(b *testing.B) {
	dev := testDevice(b)
	prog, err := luProgram(dev, 16)
	if err != nil {
		b.Fatal(err)
	}
	k, err := prog.Kernel("lu_swap_panel")
	if err != nil {
		b.Fatal(err)
	}
	const n = 16
	a, _ := dev.Alloc(8 * n * n)
	defer a.Release()
	ipiv, _ := dev.Alloc(4 * n)
	defer ipiv.Release()
	id := make([]int32, n)
	for i := range id {
		id[i] = int32(i)
	}
	if err := ipiv.Write(0, id); err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	var enqueue time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		for j := 0; j < batch; j++ {
			if err := k.Launch([]int{64}, []int{64}, n, 0, a, ipiv); err != nil {
				b.Fatal(err)
			}
		}
		enqueue += time.Since(t)
		if err := dev.Finish(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(enqueue.Microseconds())/float64(b.N*batch), "enqueue-us/launch")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*batch), "total-us/launch")
}

// BenchmarkPanelShape compares the work-group shape of the panel column
// steps (the factorization's launch-bound part) at n = 8192.
func BenchmarkPanelShape(b *testing.B) {
	defer func(l, g, r int) { luPanelLocal, luPanelGroupsPerCU, luPanelRowsPerGroup = l, g, r }(luPanelLocal, luPanelGroupsPerCU, luPanelRowsPerGroup)
	const n = 8192
	// Measured on an H200: 64 work-items 145 ms, 128: 121 ms, 256 and up
	// (with 2-8 groups per compute unit, 16-32 rows each): 110-112 ms.
	for _, local := range []int{64, 128, 256} {
		for _, perCU := range []int{1, 2, 4} {
			for _, rows := range []int{32, 128} {
				b.Run(fmt.Sprintf("local=%d/groupsPerCU=%d/rows=%d", local, perCU, rows), func(b *testing.B) {
					luPanelLocal, luPanelGroupsPerCU, luPanelRowsPerGroup = local, perCU, rows
					dev := testDevice(b)
					a, _ := randomSystem(n, n, false)
					lu := LU{}
					var total time.Duration
					for i := 0; i < b.N; i++ {
						if err := lu.Factorize(dev, a); err != nil {
							b.Fatal(err)
						}
						total += lu.factor
					}
					lu.Release()
					b.ReportMetric(total.Seconds()*1e3/float64(b.N), "factor-ms")
				})
			}
		}
	}
}

// BenchmarkLUSolveVec times the blocked LU's solves alone on one
// factorization: SolveVecTo (after a first solve, which also inverts the
// diagonal blocks) and SolveTo with 16 right-hand sides (one write, 16
// launches, one read; reported per column).
func BenchmarkLUSolveVec(b *testing.B) {
	for _, n := range []int{2047, 8192} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dev := testDevice(b)
			a, rhs := randomSystem(n, uint64(n), false)
			lu := LU{}
			if err := lu.Factorize(dev, a); err != nil {
				b.Fatal(err)
			}
			defer lu.Release()
			x := make([]float64, n)
			if err := lu.SolveVecTo(x, rhs); err != nil {
				b.Fatal(err)
			}
			b.Run("vec", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := lu.SolveVecTo(x, rhs); err != nil {
						b.Fatal(err)
					}
				}
			})
			const k = 16
			bs := mat.NewDense(n, k, nil)
			for j := 0; j < k; j++ {
				bs.SetCol(j, rhs)
			}
			xs := mat.NewDense(n, k, nil)
			b.Run(fmt.Sprintf("cols=%d", k), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if err := lu.SolveTo(xs, bs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*k), "us/column")
			})
		})
	}
}

// BenchmarkLUFirstSolve times the first SolveVecTo after each Factorize
// (what bench dense's solve column measures), with the chained solves'
// scratch allocated by Factorize (the default) or by the solve.
func BenchmarkLUFirstSolve(b *testing.B) {
	defer func(v bool) { solverAtFactorize = v }(solverAtFactorize)
	for _, n := range []int{2047, 8192} {
		for _, at := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/at-factorize=%v", n, at), func(b *testing.B) {
				solverAtFactorize = at
				dev := testDevice(b)
				a, rhs := randomSystem(n, uint64(n), false)
				x := make([]float64, n)
				var lu LU
				defer lu.Release()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if err := lu.Factorize(dev, a); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := lu.SolveVecTo(x, rhs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
