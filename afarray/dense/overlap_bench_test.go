package dense

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// BenchmarkQueueOverlap asks whether the device runs a chain of small
// launches on the side queue beside a large GEMM on the main queue, the
// premise of a factorization's look-ahead. The shapes are the blocked
// LU's at order OCLSOLVE_BENCH_N (default 8192): the main queue's GEMM is
// an outer block's trailing update (n-512 square, 512 inner columns), the
// side queue's chain 16 panel updates (480 x n-512, 32 inner columns,
// each on its own output so that the chain has no data hazard with the
// GEMM). Each iteration enqueues and waits for:
//
//	gemm       the GEMM alone;
//	chain      the chain alone (side queue);
//	both       the GEMM, then the chain, each on its queue;
//	chunks=c   as both, the GEMM in c launches over column ranges.
//
// Where both takes about gemm + chain, the queues did not overlap; about
// max(gemm, chain), they did. With OCLSOLVE_PROFILE=timeline the
// sub-benchmarks also report side-in-main: the share of the chain's device
// time that fell within the main queue's launches (from the launches'
// event times). OCLSOLVE_SIDE_PRIORITY (kernels/queue.go) sets the side
// queue's priority hint: run the benchmark once with each.
//
// Measured on an H100 (2026-11-23, best of 10 unprofiled, ms per
// iteration), n = 8192: gemm 2.835, chain 0.714, both 3.471 (0.08 ms of
// overlap: the sum is 3.549), chunks=4 3.558, chunks=16 3.927; with the
// side queue's high priority hint (NVIDIA does not list
// cl_khr_priority_hints but accepts it) 2.835, 0.722, 3.487, 3.549,
// 3.902. The timeline showed 81% of the chain's device time within the
// GEMM, but the chain's launches took 3.4 ms instead of 0.7 there: they
// had started by the events' clock yet waited for compute units until the
// GEMM's last wave of work-groups. Only that tail overlaps, about 0.1 ms
// per GEMM whatever its size: at n = 2048 (profiled) gemm 0.199, chain
// 0.383, both 0.443, chunks=4 0.535, chunks=16 1.400. Column chunks add a
// tail per chunk and lose more than they let through.
//
// A GEMM on a persistent grid that leaves compute units free (code not
// kept on main: (units - free) * per work-groups, each looping over tiles
// of the tuned kernel) let the chain through, but lost more than the
// chain's time itself. H100, 2026-11-23, n = 8192, ms per iteration: the
// GEMM alone with one group per unit 4.52 (free 8) to 6.62 (free 48),
// two per unit 3.31 (free 4) to 4.22 (free 32), three 3.42 to 4.32, four
// 3.25 to 4.10, against 2.84 on the full grid; GEMM and chain together
// 0.02-0.29 ms more than that GEMM alone (the chain alone 0.71), at best
// 3.51 (four per unit, free 4) against 3.46 for both on the full grid.
// Within one launch the same idea paid: gauss's tournament pivoting runs
// the bulk of a panel's update in tile groups beside the tournament's few
// work-groups (gauss/lu_tournament.go, fuseUpdate).
func BenchmarkQueueOverlap(b *testing.B) {
	dev := testDevice(b)
	e, err := For(dev, Float64)
	if err != nil {
		b.Fatal(err)
	}
	side, err := e.onSide()
	if err != nil {
		b.Fatal(err)
	}
	n := 8192
	if v, err := fmt.Sscan(os.Getenv("OCLSOLVE_BENCH_N"), &n); v != 1 || err != nil {
		n = 8192
	}
	const inner, panel, steps = 512, 32, 16
	if n <= inner {
		b.Skipf("OCLSOLVE_BENCH_N=%d: the shapes need an order above %d", n, inner)
	}
	m, w := n-inner, inner-panel
	alloc := func(rows, cols int) Mat {
		buf, err := dev.Alloc(int64(rows) * int64(cols) * 8)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(buf.Release)
		if err := buf.Fill(make([]byte, 8), 0, int64(rows)*int64(cols)*8); err != nil {
			b.Fatal(err)
		}
		return Mat{Buf: buf, Rows: rows, Cols: cols, LD: rows}
	}
	ga, gb, gc := alloc(m, inner), alloc(inner, m), alloc(m, m)
	pa, pb := alloc(w, panel), alloc(panel, m)
	pc := make([]Mat, steps)
	for i := range pc {
		pc[i] = alloc(w, m)
	}
	gemm := func(chunks int) error {
		cw := (m + chunks - 1) / chunks
		for c0 := 0; c0 < m; c0 += cw {
			c1 := min(m, c0+cw)
			if err := e.Gemm(false, false, -1, ga, gb.Sub(0, c0, inner, c1-c0), 1, gc.Sub(0, c0, m, c1-c0)); err != nil {
				return err
			}
		}
		return dev.Flush()
	}
	chain := func() error {
		for _, c := range pc {
			if err := side.Gemm(false, false, -1, pa, pb, 1, c); err != nil {
				return err
			}
		}
		return nil
	}
	variants := []struct {
		name        string
		gemm, chain bool
		chunks      int
	}{
		{"gemm", true, false, 1}, {"chain", false, true, 1}, {"both", true, true, 1},
		{"chunks=4", true, true, 4}, {"chunks=16", true, true, 16},
	}
	for _, v := range variants {
		b.Run(fmt.Sprintf("n=%d/%s/side=%s", n, v.name, dev.SidePriority()), func(b *testing.B) {
			if err := dev.Finish(); err != nil {
				b.Fatal(err)
			}
			if _, err := dev.Profile(); err != nil { // drop what came before
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if v.gemm {
					if err := gemm(v.chunks); err != nil {
						b.Fatal(err)
					}
				}
				if v.chain {
					if err := chain(); err != nil {
						b.Fatal(err)
					}
				}
				if err := dev.Finish(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			p, err := dev.Profile()
			if err != nil {
				b.Fatal(err)
			}
			if len(p.Timeline) > 0 {
				in, total := sideInMain(p.Timeline)
				b.ReportMetric(float64(total.Microseconds())/float64(b.N), "side-us/op")
				if total > 0 {
					b.ReportMetric(100*float64(in)/float64(total), "side-in-main-%")
				}
			}
		})
	}
}

// sideInMain is how much of the side queue's launch time lies within the
// main queue's launches (in), of the side queue's total.
func sideInMain(tl []kernels.LaunchTime) (in, total time.Duration) {
	for _, s := range tl {
		if !s.Side {
			continue
		}
		total += s.End - s.Start
		for _, m := range tl {
			if !m.Side {
				in += max(0, min(s.End, m.End)-max(s.Start, m.Start))
			}
		}
	}
	return in, total
}
