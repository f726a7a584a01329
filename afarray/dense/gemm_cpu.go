package dense

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed gemm_cpu.cl
var gemmCPUSource string

// packedGemm is the packed product for CPU devices (gemm_cpu.cl): op(A)
// and op(B) copied into micro-panels, then one launch per KC-deep slice in
// which each work-item keeps an MR x NR block of C in vector registers.
type packedGemm struct {
	dev                *kernels.Device
	cfg                Config // MT = GX*MR, NT = GY*NR, KT = -KC, TM = MR, TN = NR
	packA, packB, gemm *kernels.Kernel
}

// packedLimit bounds each packed operand (elements): larger products are
// cut into chunks of C's rows and columns, each packed in turn, so the
// scratch stays a fixed few tens of MB whatever the order.
var packedLimit = 1 << 22

func buildPacked(dev *kernels.Device, dt DType, cfg Config) (*packedGemm, error) {
	opts := fmt.Sprintf("-DT=%s -DMR=%d -DNR=%d -DKC=%d -DGX=%d -DGY=%d",
		dt.clType(), cfg.TM, cfg.TN, -cfg.KT, cfg.MT/cfg.TM, cfg.NT/cfg.TN)
	p, err := dev.Build(opts, kernels.Source{Name: "gemm_cpu.cl", Text: gemmCPUSource})
	if err != nil {
		return nil, err
	}
	g := &packedGemm{dev: dev, cfg: cfg}
	for _, k := range []struct {
		name string
		dst  **kernels.Kernel
	}{{"pack_a", &g.packA}, {"pack_b", &g.packB}, {"gemm_cpu", &g.gemm}} {
		if *k.dst, err = p.Kernel(k.name); err != nil {
			return nil, err
		}
	}
	if g.gemm.MaxWorkGroupSize() < cfg.WorkGroup() {
		return nil, fmt.Errorf("dense: %w: configuration %s needs %d work-items, the kernel allows %d on %s",
			ErrDevice, cfg, cfg.WorkGroup(), g.gemm.MaxWorkGroupSize(), dev.Info().Name)
	}
	return g, nil
}

// launch enqueues C = alpha*op(A)*op(B) + beta*C (lower: C's lower
// triangle only) on checked operands, on queue q (nil: the device's): per chunk of C, the two
// packing launches and one product launch per depth slice. The scratch
// buffers are released at the end; OpenCL frees them once the queued
// launches that use them have run.
func (g *packedGemm) launch(q *kernels.Queue, dt DType, transA, transB bool, alpha, beta any, a, b Mat, c Mat, k int, lower bool) error {
	mr, nr, kc := g.cfg.TM, g.cfg.TN, -g.cfg.KT
	gx, gy := g.cfg.MT/mr, g.cfg.NT/nr
	dev, m, n := g.dev, c.Rows, c.Cols
	if m == 0 || n == 0 {
		return nil
	}
	kk := max(k, 1)
	mc := min(roundUp(m, mr), max(mr, packedLimit/kk/mr*mr))
	nc := min(roundUp(n, nr), max(nr, packedLimit/kk/nr*nr))
	ap, bp := c.Buf, c.Buf // with k == 0 never read: no slices
	if k > 0 {
		var err error
		if ap, err = dev.Alloc(int64(mc) * int64(k) * dt.Size()); err != nil {
			return err
		}
		defer ap.Release()
		if bp, err = dev.Alloc(int64(nc) * int64(k) * dt.Size()); err != nil {
			return err
		}
		defer bp.Release()
	}
	nkb := (k + kc - 1) / kc
	packedA := -1 // the row chunk ap holds
	for j0 := 0; j0 < n; j0 += nc {
		nj := min(nc, n-j0)
		if k > 0 {
			offb := b.Off + int64(j0)*int64(b.LD)
			if transB {
				offb = b.Off + int64(j0)
			}
			if err := g.packB.LaunchOn(q, []int{(nj + nr - 1) / nr, nkb}, []int{1, 1},
				int32(nj), int32(k), b2i(transB), b.Buf, offb, b.ld(), bp); err != nil {
				return err
			}
		}
		for i0 := 0; i0 < m; i0 += mc {
			mi := min(mc, m-i0)
			if lower && j0 > i0+mi-1 {
				continue // the chunk lies above the diagonal
			}
			if k > 0 && packedA != i0 {
				offa := a.Off + int64(i0)
				if transA {
					offa = a.Off + int64(i0)*int64(a.LD)
				}
				if err := g.packA.LaunchOn(q, []int{(mi + mr - 1) / mr, nkb}, []int{1, 1},
					int32(mi), int32(k), b2i(transA), a.Buf, offa, a.ld(), ap); err != nil {
					return err
				}
				packedA = i0
			}
			mp, np := roundUp(mi, mr), roundUp(nj, nr)
			global := []int{roundUp(mp/mr, gx), roundUp(np/nr, gy)}
			offc := c.Off + int64(i0) + int64(j0)*int64(c.LD)
			for s := 0; s < max(nkb, 1); s++ {
				p0 := s * kc
				kb := min(kc, k-p0)
				bt := beta
				if s > 0 {
					bt = one(dt)
				}
				if err := g.gemm.LaunchOn(q, global, []int{gx, gy},
					int32(mi), int32(nj), int32(kb), alpha, ap, int64(p0)*int64(mp), bp, int64(p0)*int64(np),
					bt, c.Buf, offc, c.ld(), b2i(lower), int32(i0-j0)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

func one(dt DType) any {
	if dt == Float32 {
		return float32(1)
	}
	return 1.0
}

// packedMinWork is the smallest product (m*n*k) an engine packs: below it
// the packing launches and copies cost more than they save, and the tiled
// or direct kernel does it in one launch.
const packedMinWork = 1 << 18

// packedDepth is the depth from which an engine with a direct
// configuration packs even untransposed products: a group of the direct
// kernel streams (MT+NT) x k elements, which at k = 2048 no longer stay in
// a core's L2 cache. On the 2 AVX-512 cores of the dev machine (PoCL 3.1)
// the direct 128x64x0/16x8 ran n = 2048 at 0.43-0.50 of numpy/OpenBLAS,
// the packed forms at 0.9-1.0; at n = 768 the direct one was faster (~100
// against ~60-80 GFLOP/s), at 1024 about even. From half that depth the
// direct engine also packs products whose C has edge blocks (m not a
// multiple of TM, or n of TN), which its kernel computes with scalar
// loops: n = 767 ran at 32-38 GFLOP/s direct, 58-83 packed (768: 100-105
// direct), n = 1000 at 59-66 against 77-88.
const packedDepth = 1024

// packedBeside is the packed geometry a direct engine uses (usePacked):
// 128x32x512/16x8p ran n = 1024 and 2048 at 143 and 164 GFLOP/s on the
// idle dev machine, the other geometries tried at 128-165.
var packedBeside = Config{128, 32, -512, 16, 8}

// usePacked reports whether e runs a product of op(A) m x k through the
// packed kernel (e.packed != nil): a packed engine packs every product
// large enough, a direct one those its kernel cannot take (A transposed,
// which would go to the slow tiled kernel) or does badly (deep ones, and
// moderately deep ones with edge blocks).
func (e *Engine) usePacked(transA bool, m, n, k int) bool {
	if int64(m)*int64(n)*int64(k) < packedMinWork {
		return false
	}
	edges := m%e.cfg.TM != 0 || n%e.cfg.TN != 0
	return e.cfg.Packed() || transA || k >= packedDepth || edges && k >= packedDepth/2
}
