package dense

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/oclsolve/oclsolve/kernels"
)

// Thin products: the blocked LU's inner updates (A22 -= L21 U12 with depth
// 32, the panel width: on its transposed view C has 32..480 rows and up to
// n columns) and the recursive TRSM's updates (C with n rows, 32..256
// columns and as deep). The tuned configuration (128x64x8/8x8 on an H100)
// gives them few work-groups, each with 255 registers (two per compute
// unit), half-empty tiles where a side is 32, and a chain of 4 or more
// slices per group: in the kernel profile of main (27c2194) on an H100
// they took 14-110 us a launch, ~12 ms of an n = 8192 factorization.
//
// gemm_small (gemm.cl built with NBUF=1, CPRE and KT = 32) runs them with
// small tiles fitted to the thin side (32 rows or columns), 4x4 outputs per
// work-item, the whole panel depth staged in local memory at once and C
// read before the products; many groups per compute unit hide each
// other's latencies. Device time per launch on an H100 (2026-11-23,
// TestGemmThinTimed, tuned -> thin): C 480x8160 depth 32 54.3 -> 43.1 us,
// 224x1800x32 20.0 -> 11.5, 32x8160x32 15.5 -> 9.4, 7680x64x64 20.3 ->
// 13.8, 1791x128x128 28.4 -> 13.6, 7680x128x128 28.1 -> 27.2; deeper ones
// lose (7680x256x256 71.9 -> 86.6, 1791x1791x256 106 -> 128), hence
// maxK. Reading C first (CPRE) was worth 480x8160x32 61.7 -> 43.1 us.
// Tiles 32x64 and 64x32 ran alike; 32x32 was 0-15 % slower, 32x128/4x8
// and 128x32/8x4 twice as slow. In the blocked LU (tournament, bench
// dense, best of 2): n = 2047 factor 10.79 -> 9.84 ms (maxK 64) and 9.56 /
// 9.67 (maxK 256, two runs); n = 8192 69.0 -> 65.9 (64) and 64.9 / 65.8
// (256), its GEMM device time 28.1 -> 24.0 ms (thin ones 12.1 -> 8.1).
// DGEMM n = 8192 (22.9 TFLOP/s) and POTRF n = 16384 (91.4 against 92.0
// ms) do not change.

// smallPolicy says which products take the thin path and with which tiles.
type smallPolicy struct {
	wide Config // C with at most as many rows as columns
	tall Config // C with more rows than columns
	// maxK: deeper products stay on the tuned kernel, whose 8x8 blocks
	// then win (see above: depth 256 lost, 128 won or tied).
	maxK int
	// groups: a product takes the thin path only while the tuned
	// configuration gives it fewer than groups work-groups per compute
	// unit (under ~2 waves at its occupancy of 2 groups per unit).
	groups int
	noPre  bool // build without CPRE (experiments)
	cpu    bool // on CPU devices too (tests of the callers on PoCL)
}

// defaultSmall is the policy on GPUs.
var defaultSmall = smallPolicy{
	wide:   Config{32, 64, 32, 4, 4},
	tall:   Config{64, 32, 32, 4, 4},
	maxK:   128,
	groups: 4,
}

// parseSmallPolicy reads OCLSOLVE_GEMM_SMALL: "off", or a comma-separated
// list of wide=CFG, tall=CFG, maxk=N, groups=N, cpre=0|1, cpu=0|1 changing
// the default policy (for measurements; cpu=1 runs the thin path on CPU
// devices too, e.g. to test the blocked LU with it on PoCL). ok is false
// for "off".
func parseSmallPolicy(s string) (p smallPolicy, ok bool, err error) {
	p = defaultSmall
	s = strings.TrimSpace(s)
	if s == "" {
		return p, true, nil
	}
	if s == "off" {
		return p, false, nil
	}
	for _, kv := range strings.Split(s, ",") {
		key, val, found := strings.Cut(strings.TrimSpace(kv), "=")
		if !found {
			return p, false, fmt.Errorf("dense: %w: OCLSOLVE_GEMM_SMALL entry %q is not key=value", ErrArgument, kv)
		}
		switch key {
		case "wide", "tall":
			c, err := ParseConfig(val)
			if err != nil {
				return p, false, err
			}
			if c.Direct() || c.Packed() {
				return p, false, fmt.Errorf("dense: %w: OCLSOLVE_GEMM_SMALL %s=%s is not a tiled configuration", ErrArgument, key, val)
			}
			if key == "wide" {
				p.wide = c
			} else {
				p.tall = c
			}
		case "maxk", "groups", "cpre", "cpu":
			v, err := strconv.Atoi(val)
			if err != nil || v < 0 {
				return p, false, fmt.Errorf("dense: %w: OCLSOLVE_GEMM_SMALL %s=%q", ErrArgument, key, val)
			}
			switch key {
			case "maxk":
				p.maxK = v
			case "groups":
				p.groups = v
			case "cpu":
				p.cpu = v != 0
			default:
				p.noPre = v == 0
			}
		default:
			return p, false, fmt.Errorf("dense: %w: OCLSOLVE_GEMM_SMALL key %q (want wide, tall, maxk, groups, cpre, cpu)", ErrArgument, key)
		}
	}
	return p, true, nil
}

// smallGemms holds an engine's thin-product kernels, built at first use
// and shared with its side-queue twin.
type smallGemms struct {
	dev   *kernels.Device
	dt    DType
	pairs bool
	pol   smallPolicy
	units int // compute units

	mu     sync.Mutex
	kernel map[smallKey]*kernels.Kernel
	failed map[smallKey]error // a configuration that does not build or fit: the tuned kernel runs instead
}

type smallKey struct {
	cfg   Config
	noPre bool
}

// smallOnCPU gives CPU engines the thin path too, so that tests on PoCL
// run it (on GPUs it is on unless OCLSOLVE_GEMM_SMALL=off).
var smallOnCPU = false

// newSmallGemms returns the thin-product set of a new engine, nil where
// the engine runs none (CPUs, OCLSOLVE_GEMM_SMALL=off).
func newSmallGemms(dev *kernels.Device, dt DType, pairs bool) (*smallGemms, error) {
	pol, ok, err := parseSmallPolicy(os.Getenv("OCLSOLVE_GEMM_SMALL"))
	if err != nil || !ok || !isGPU(dev) && !smallOnCPU && !pol.cpu {
		return nil, err
	}
	return &smallGemms{dev: dev, dt: dt, pairs: pairs, pol: pol, units: max(1, dev.Info().ComputeUnits),
		kernel: map[smallKey]*kernels.Kernel{}, failed: map[smallKey]error{}}, nil
}

// smallLocalBytes is the local memory of cfg's single-buffered tiles.
func smallLocalBytes(cfg Config, dt DType) int64 {
	return int64(cfg.KT) * int64(cfg.MT+2+cfg.NT+2) * dt.Size()
}

// pick returns the configuration for a product with C m x n and depth k,
// ok false where the tuned kernel (geometry main) should run it.
func (s *smallGemms) pick(main Config, m, n, k int, lower bool) (Config, bool) {
	if lower || k > s.pol.maxK {
		return Config{}, false
	}
	groups := int64((m+main.MT-1)/main.MT) * int64((n+main.NT-1)/main.NT)
	if groups >= int64(s.pol.groups)*int64(s.units) {
		return Config{}, false
	}
	if m > n {
		return s.pol.tall, true
	}
	return s.pol.wide, true
}

// get returns the built kernel of cfg, nil where it does not build or fit
// the device (remembered: the tuned kernel runs those products).
func (s *smallGemms) get(cfg Config, noPre bool) (*kernels.Kernel, error) {
	key := smallKey{cfg, noPre}
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.kernel[key]; ok {
		return k, nil
	}
	if err, ok := s.failed[key]; ok {
		return nil, err
	}
	k, err := s.build(cfg, noPre)
	if err != nil {
		s.failed[key] = err
		return nil, err
	}
	s.kernel[key] = k
	return k, nil
}

func (s *smallGemms) build(cfg Config, noPre bool) (*kernels.Kernel, error) {
	info := s.dev.Info()
	if cfg.Direct() || cfg.Packed() || cfg.WorkGroup() > info.MaxWorkGroupSize || smallLocalBytes(cfg, s.dt) > info.LocalMemBytes ||
		s.pairs && (cfg.TM%2 != 0 || cfg.TN%2 != 0) {
		return nil, fmt.Errorf("dense: %w: thin-product configuration %s does not fit %s", ErrDevice, cfg, info.Name)
	}
	opts := cfg.options(s.dt, s.pairs) + " -DNBUF=1 -DSMALL_ONLY -DGEMM_NAME=gemm_small"
	if !noPre {
		opts += " -DCPRE"
	}
	p, err := s.dev.Build(opts, kernels.Source{Name: "gemm.cl", Text: gemmSource})
	if err != nil {
		return nil, err
	}
	k, err := p.Kernel("gemm_small")
	if err != nil {
		return nil, err
	}
	if k.MaxWorkGroupSize() < cfg.WorkGroup() {
		return nil, fmt.Errorf("dense: %w: thin-product configuration %s needs %d work-items, the kernel allows %d on %s",
			ErrDevice, cfg, cfg.WorkGroup(), k.MaxWorkGroupSize(), info.Name)
	}
	return k, nil
}

// prepare builds the policy's kernels ahead of the first thin product;
// one that fails is left to the tuned kernel.
func (s *smallGemms) prepare() {
	for _, c := range []Config{s.pol.wide, s.pol.tall} {
		_, _ = s.get(c, s.pol.noPre)
	}
}

// launchTiled enqueues gemm.cl's tiled kernel k of geometry cfg on checked
// operands (C m x n, depth k).
func (e *Engine) launchTiled(kern *kernels.Kernel, cfg Config, transA, transB bool, alpha float64, a, b Mat, beta float64, c Mat, k int, lower bool) error {
	m, n := c.Rows, c.Cols
	wx, wy := cfg.MT/cfg.TM, cfg.NT/cfg.TN
	gm, gn := (m+cfg.MT-1)/cfg.MT, (n+cfg.NT-1)/cfg.NT
	return kern.LaunchOn(e.q, []int{gm * wx, gn * wy}, []int{wx, wy},
		int32(m), int32(n), int32(k), b2i(transA), b2i(transB), e.scalar(alpha),
		bufOf(a, c), a.Off, a.ld(), bufOf(b, c), b.Off, b.ld(),
		e.scalar(beta), c.Buf, c.Off, c.ld(), b2i(lower))
}

// launchSmall runs a product on the thin path when the policy picks it
// and its kernel builds; done false leaves it to the other kernels.
func (e *Engine) launchSmall(transA, transB bool, alpha float64, a, b Mat, beta float64, c Mat, k int, lower bool) (done bool, err error) {
	s := e.small
	cfg, ok := s.pick(e.tiled, c.Rows, c.Cols, k, lower)
	if !ok {
		return false, nil
	}
	kern, berr := s.get(cfg, s.pol.noPre)
	if berr != nil {
		return false, nil // the tuned kernel runs it (the failure is remembered, not retried)
	}
	return true, e.launchTiled(kern, cfg, transA, transB, alpha, a, b, beta, c, k, lower)
}
