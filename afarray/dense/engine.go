package dense

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/oclsolve/oclsolve/kernels"
)

var (
	//go:embed gemm.cl
	gemmSource string
	//go:embed trsm.cl
	trsmSource string
	//go:embed potrf.cl
	potrfSource string
	//go:embed trinv.cl
	trinvSource string
)

// Fixed geometry of the TRSM and POTRF kernels (TB, TV, PB, PL in their
// sources): triangles are cut into TB-wide blocks, TV right-hand-side
// vectors per work-group, diagonal blocks of up to PB factored in local
// memory by PL items.
const (
	trsmBlock   = 32
	trsmVectors = 64
	potrfLocal  = 256
)

// Engine runs the dense kernels of one element type on one device. Get the
// shared, tuned one with For; every method only enqueues work (none waits
// for the device) and is safe for concurrent use.
type Engine struct {
	dev *kernels.Device
	dt  DType
	cfg Config

	gemmK, gemmBatchedK                             *kernels.Kernel
	gemmDirectK                                     *kernels.Kernel // with a direct configuration
	packed                                          *packedGemm     // with a packed configuration
	tiled                                           Config          // geometry of gemmK: cfg, or cfg.Tiled() when direct
	small                                           *smallGemms     // thin products (GPUs); nil: none
	trsmBlockK, trsmBatchedK, potrfBlockK, potrfBat *kernels.Kernel
	potrfPanelK                                     *kernels.Kernel // nil where potrf.cl's register form does not build
	trinvPrepK, trinvLevelK, trinvMaxK              *kernels.Kernel // TrsmInverse (trinv.cl); nil: none, Trsm instead

	pb int // PB: largest diagonal block factored in local memory
	mu sync.Mutex
	nb int // outer block of Potrf; 0: recursive

	// q is the queue the unbatched operations launch on (nil: the
	// device's main queue); side is the engine's twin on the device's
	// side queue, made at first use by Potrf's look-ahead.
	q         *kernels.Queue
	side      *Engine
	lookahead bool // Potrf factors the next block column on the side queue

	// Source says how the GEMM configuration was chosen: "tuned" (measured
	// now), "disk" (a measurement remembered from an earlier process),
	// "default" (tuning disabled) or "fixed" (NewWithConfig).
	Source string
}

type engineKey struct {
	dev *kernels.Device
	dt  DType
}

var (
	enginesMu sync.Mutex
	engines   = map[engineKey]*Engine{}
)

// For returns the engine for dtype dt on dev, created at first use with
// the GEMM tile configuration tuned for the device (see Tune); later calls
// return the same engine.
func For(dev *kernels.Device, dt DType) (*Engine, error) {
	if dev == nil {
		return nil, fmt.Errorf("dense: %w: nil device", ErrDevice)
	}
	enginesMu.Lock()
	defer enginesMu.Unlock()
	if e, ok := engines[engineKey{dev, dt}]; ok {
		return e, nil
	}
	cfg, src, err := tune(dev, dt)
	if err != nil {
		return nil, err
	}
	e, err := NewWithConfig(dev, dt, cfg)
	if err != nil {
		return nil, err
	}
	e.Source = src
	if e.small != nil {
		// Built now rather than inside the first factorization that needs
		// them (engines made by NewWithConfig, e.g. the tuner's, build
		// them at first use).
		e.small.prepare()
	}
	engines[engineKey{dev, dt}] = e
	return e, nil
}

// NewWithConfig returns an engine that uses the GEMM tile configuration
// cfg instead of the tuned one (for tests and tuning). Its programs are
// built (or taken from the program cache) at once.
func NewWithConfig(dev *kernels.Device, dt DType, cfg Config) (*Engine, error) {
	if dev == nil {
		return nil, fmt.Errorf("dense: %w: nil device", ErrDevice)
	}
	info := dev.Info()
	if dt == Float64 && !info.FP64 {
		return nil, fmt.Errorf("dense: %w: %s has no double precision", ErrDevice, info.Name)
	}
	if err := cfg.fits(dev, dt); err != nil {
		return nil, err
	}
	e := &Engine{dev: dev, dt: dt, cfg: cfg, tiled: cfg.Tiled(), Source: "fixed"}
	gp, err := dev.Build(cfg.options(dt, isGPU(dev) || pairsOnCPU), kernels.Source{Name: "gemm.cl", Text: gemmSource})
	if err != nil {
		return nil, err
	}
	// PB: the largest power-of-two diagonal block whose square fits the
	// local memory with room to spare, at most 64.
	e.pb = 64
	for e.pb > 8 && int64(e.pb*e.pb)*dt.Size() > info.LocalMemBytes-4096 {
		e.pb /= 2
	}
	pl := min(potrfLocal, info.MaxWorkGroupSize)
	aux := fmt.Sprintf("-DT=%s -DTB=%d -DTV=%d -DPB=%d -DPL=%d", dt.clType(), trsmBlock, trsmVectors, e.pb, pl)
	ap, err := dev.Build(aux, kernels.Source{Name: "trsm.cl", Text: trsmSource}, kernels.Source{Name: "potrf.cl", Text: potrfSource})
	if err != nil {
		return nil, err
	}
	for _, k := range []struct {
		p    *kernels.Program
		name string
		dst  **kernels.Kernel
	}{
		{gp, "gemm", &e.gemmK}, {gp, "gemm_batched", &e.gemmBatchedK},
		{ap, "trsm_block", &e.trsmBlockK}, {ap, "trsm_batched", &e.trsmBatchedK},
		{ap, "potrf_block", &e.potrfBlockK}, {ap, "potrf_batched", &e.potrfBat},
	} {
		if *k.dst, err = k.p.Kernel(k.name); err != nil {
			return nil, err
		}
	}
	e.buildTrinv(aux)
	if e.pb == 64 && pl == potrfLocal {
		// The register form of potrf.cl, with its one-launch block column.
		k, err := ap.Kernel("potrf_panel")
		if err != nil {
			return nil, err
		}
		if k.MaxWorkGroupSize() >= potrfLocal {
			e.potrfPanelK = k
		}
	}
	if e.small, err = newSmallGemms(dev, dt, isGPU(dev) || pairsOnCPU); err != nil {
		return nil, err
	}
	e.nb = defaultBlock
	e.lookahead = true
	if cfg.Packed() || cfg.Direct() {
		// A direct engine packs what its kernel does badly (usePacked).
		pc := cfg
		if cfg.Direct() {
			pc = packedBeside
		}
		if e.packed, err = buildPacked(dev, dt, pc); err != nil {
			return nil, err
		}
	}
	if cfg.Direct() {
		if e.gemmDirectK, err = gp.Kernel("gemm_direct"); err != nil {
			return nil, err
		}
		if e.gemmDirectK.MaxWorkGroupSize() < cfg.WorkGroup() {
			return nil, fmt.Errorf("dense: %w: configuration %s needs %d work-items, the kernel allows %d on %s",
				ErrDevice, cfg, cfg.WorkGroup(), e.gemmDirectK.MaxWorkGroupSize(), info.Name)
		}
	}
	if e.gemmK.MaxWorkGroupSize() < e.tiled.WorkGroup() {
		return nil, fmt.Errorf("dense: %w: configuration %s needs %d work-items, the kernel allows %d on %s",
			ErrDevice, e.tiled, e.tiled.WorkGroup(), e.gemmK.MaxWorkGroupSize(), info.Name)
	}
	return e, nil
}

// buildTrinv builds trinv.cl (TrsmInverse) as a program of its own, with
// the aux program's options: trinv_prep requires work-groups of 4*PB items
// (256 where PB is 64), which a device may not take, and a failed build
// there must not take Trsm, Potrf and the Cholesky with it, as it did in
// the aux program. Where the build fails or a kernel does not take its
// work-group, the trinv kernels stay nil and TrsmInverse solves by Trsm.
func (e *Engine) buildTrinv(opts string) {
	p, err := e.dev.Build(opts, kernels.Source{Name: "trinv.cl", Text: trinvSource})
	if err != nil {
		return
	}
	var ks [3]*kernels.Kernel
	for i, name := range []string{"trinv_prep", "trinv_level", "trinv_maxabs"} {
		if ks[i], err = p.Kernel(name); err != nil {
			return
		}
	}
	if ks[0].MaxWorkGroupSize() < 4*e.pb || ks[1].MaxWorkGroupSize() < 256 {
		return
	}
	e.trinvPrepK, e.trinvLevelK, e.trinvMaxK = ks[0], ks[1], ks[2]
}

// pairsOnCPU builds the GPU's pair-load GEMM on every device, so that tests
// on PoCL check it too.
var pairsOnCPU = false

func isGPU(dev *kernels.Device) bool {
	return strings.Contains(strings.ToUpper(dev.Info().Type), "GPU")
}

// Device returns the engine's device.
func (e *Engine) Device() *kernels.Device { return e.dev }

// DType returns the engine's element type.
func (e *Engine) DType() DType { return e.dt }

// Config returns the GEMM tile configuration in use.
func (e *Engine) Config() Config { return e.cfg }

// defaultBlock is Potrf's default outer block. On an H100 (with the
// one-launch potrf_panel leaves and look-ahead) n = 16384 took 117.9,
// 114.7 and 112.8 ms in blocks of 512, 768 and 1024 columns, n = 8192 26.2,
// 26.0 and 25.9 ms: wider blocks make the trailing updates fewer and
// larger, and a block column costs about its 64-column leaves whatever its
// width. (Before those leaves, 512 beat the fully recursive form: 8.1
// against 7.1 TFLOP/s at 16384.)
const defaultBlock = 1024

// BlockSize returns the outer block width of Potrf (0: recursive).
func (e *Engine) BlockSize() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nb
}

// SetBlockSize sets the outer block width of Potrf: a positive multiple of
// 32 (the default is 1024), or 0 for the fully recursive factorization.
func (e *Engine) SetBlockSize(nb int) error {
	if nb < 0 || nb%trsmBlock != 0 {
		return fmt.Errorf("dense: %w: block size %d is neither 0 nor a positive multiple of %d", ErrArgument, nb, trsmBlock)
	}
	e.mu.Lock()
	e.nb = nb
	e.mu.Unlock()
	return nil
}

// Lookahead reports whether Potrf uses look-ahead (see SetLookahead).
func (e *Engine) Lookahead() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lookahead
}

// SetLookahead turns Potrf's look-ahead on (the default) or off. With it,
// each step first updates only the next block column, and the device's
// side queue factors that column's diagonal block and solves its panel
// while the main queue updates the rest of the trailing matrix; the queues
// meet through events, never through the host.
func (e *Engine) SetLookahead(on bool) {
	e.mu.Lock()
	e.lookahead = on
	e.mu.Unlock()
}

// onSide returns the engine's twin that launches on the device's side
// queue (same programs and configuration).
func (e *Engine) onSide() (*Engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.side != nil {
		return e.side, nil
	}
	q, err := e.dev.Side()
	if err != nil {
		return nil, err
	}
	e.side = &Engine{dev: e.dev, dt: e.dt, cfg: e.cfg, tiled: e.tiled, small: e.small,
		gemmK: e.gemmK, gemmBatchedK: e.gemmBatchedK, gemmDirectK: e.gemmDirectK, packed: e.packed,
		trsmBlockK: e.trsmBlockK, trsmBatchedK: e.trsmBatchedK, potrfBlockK: e.potrfBlockK, potrfBat: e.potrfBat,
		potrfPanelK: e.potrfPanelK, trinvPrepK: e.trinvPrepK, trinvLevelK: e.trinvLevelK, trinvMaxK: e.trinvMaxK,
		pb: e.pb, nb: e.nb, q: q, Source: e.Source}
	return e.side, nil
}

// scalar converts a coefficient to the kernel argument of the engine's type.
func (e *Engine) scalar(v float64) any {
	if e.dt == Float32 {
		return float32(v)
	}
	return v
}

// checkAll validates views and that they live on the engine's device.
func (e *Engine) checkAll(op string, ms ...namedMat) error {
	for _, m := range ms {
		if err := m.m.check(e.dt, op+" "+m.name); err != nil {
			return err
		}
		if m.m.Rows > 0 && m.m.Cols > 0 && m.m.Buf.Device() != e.dev {
			return fmt.Errorf("dense: %s %s: %w: buffer lives on %s, engine on %s", op, m.name, ErrDevice, m.m.Buf.Device().Name(), e.dev.Name())
		}
	}
	return nil
}

// checkDisjoint rejects an output view that shares elements with an input:
// the kernels read inputs while other work-groups write the output.
func checkDisjoint(op string, out namedMat, ins ...namedMat) error {
	for _, in := range ins {
		if overlaps(out.m, in.m) {
			return fmt.Errorf("dense: %s: %w: %s overlaps %s", op, ErrArgument, out.name, in.name)
		}
	}
	return nil
}

type namedMat struct {
	name string
	m    Mat
}
