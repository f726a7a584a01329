package dense

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// Config is a GEMM tile configuration: each work-group computes an MT x NT
// tile of C from KT-deep slices of op(A) and op(B) staged in local memory,
// and each of its (MT/TM) x (NT/TN) work-items keeps a TM x TN block of
// outputs in registers. KT = 0 is the direct form for CPUs (gemm_direct in
// gemm.cl): no local memory, each work-item multiplies over the whole
// depth from global memory (the caches) with vectors of 8 along A's
// columns, TM a multiple of 8; products with A transposed, and batches,
// then run the tiled kernel of Config.Tiled.
//
// KT < 0 marks the packed form for CPUs (gemm_cpu.cl; written with a
// trailing "p" and the depth -KT): op(A) and op(B) are first copied into
// micro-panels, then each launch multiplies a depth slice of -KT, each
// work-item a TM x TN block (TM a multiple of 8) in vector registers, in
// groups of (MT/TM) x (NT/TN) items; every transposition runs it, batches
// and small products run the tiled kernel of Config.Tiled. The sign keeps
// Config the five comparable ints that tuning records and literals use.
type Config struct {
	MT, NT, KT, TM, TN int
}

// Packed reports whether c is the packed (CPU) form, KT < 0.
func (c Config) Packed() bool { return c.KT < 0 }

// Direct reports whether c is the direct (CPU) form, KT = 0.
func (c Config) Direct() bool { return c.KT == 0 }

// Tiled returns the configuration of the tiled kernel an engine with c
// runs: c itself, or for a direct or packed configuration its tiled
// companion.
func (c Config) Tiled() Config {
	if c.Direct() || c.Packed() {
		return directFallback
	}
	return c
}

// directFallback is the tiled configuration beside a direct one: the one
// tuning chose on PoCL before the direct form existed.
var directFallback = Config{64, 64, 8, 8, 8}

func (c Config) String() string {
	if c.Packed() {
		return fmt.Sprintf("%dx%dx%d/%dx%dp", c.MT, c.NT, -c.KT, c.TM, c.TN)
	}
	return fmt.Sprintf("%dx%dx%d/%dx%d", c.MT, c.NT, c.KT, c.TM, c.TN)
}

// ParseConfig reads the form String writes, e.g. "64x64x16/4x4".
func ParseConfig(s string) (Config, error) {
	var c Config
	body, packed := strings.CutSuffix(s, "p")
	if _, err := fmt.Sscanf(body, "%dx%dx%d/%dx%d", &c.MT, &c.NT, &c.KT, &c.TM, &c.TN); err != nil {
		return Config{}, fmt.Errorf("dense: %w: configuration %q (want MTxNTxKT/TMxTN, p after a packed one)", ErrArgument, s)
	}
	for i, v := range []int{c.MT, c.NT, c.KT, c.TM, c.TN} {
		if v > 4096 || v < 1 && !(i == 2 && v == 0) { // no device has work-groups or tiles beyond this
			return Config{}, fmt.Errorf("dense: %w: configuration %q has a size outside 1..4096 (KT: 0..4096)", ErrArgument, s)
		}
	}
	if packed {
		if c.KT == 0 || c.TM%8 != 0 || c.MT%c.TM != 0 || c.NT%c.TN != 0 {
			return Config{}, fmt.Errorf("dense: %w: packed configuration %s needs KT > 0, TM a multiple of 8 dividing MT and TN dividing NT", ErrArgument, s)
		}
		c.KT = -c.KT
		return c, nil
	}
	if c.Direct() && c.TM%8 != 0 {
		return Config{}, fmt.Errorf("dense: %w: configuration %s: the direct form (KT 0) needs TM a multiple of 8", ErrArgument, s)
	}
	if c.MT%c.TM != 0 || c.NT%c.TN != 0 ||
		(c.MT*c.KT)%c.WorkGroup() != 0 || (c.KT*c.NT)%c.WorkGroup() != 0 {
		return Config{}, fmt.Errorf("dense: %w: configuration %s does not divide evenly", ErrArgument, s)
	}
	return c, nil
}

// WorkGroup returns the work-items per group.
func (c Config) WorkGroup() int { return (c.MT / c.TM) * (c.NT / c.TN) }

func (c Config) localBytes(dt DType) int64 {
	if c.Direct() || c.Packed() {
		return 0
	}
	return 2 * int64(c.KT) * int64(c.MT+2+c.NT+2) * dt.Size()
}

func (c Config) options(dt DType, pairs bool) string {
	if c.Packed() {
		return directFallback.options(dt, pairs)
	}
	if c.Direct() {
		return directFallback.options(dt, pairs) + fmt.Sprintf(" -DDMR=%d -DDNR=%d -DDWX=%d -DDWY=%d", c.TM, c.TN, c.MT/c.TM, c.NT/c.TN)
	}
	o := fmt.Sprintf("-DT=%s -DMT=%d -DNT=%d -DKT=%d -DTM=%d -DTN=%d", dt.clType(), c.MT, c.NT, c.KT, c.TM, c.TN)
	if pairs {
		o += " -DPAIRS -DSPECIALIZE" // see gemm.cl: GPUs only
	}
	// OCLSOLVE_GEMM_DEFINES adds build options to the GEMM program, for
	// experiments with the kernel's switches (e.g. -DPU=2).
	if x := os.Getenv("OCLSOLVE_GEMM_DEFINES"); x != "" {
		o += " " + x
	}
	return o
}

// fits reports whether the configuration can run on dev at all.
func (c Config) fits(dev *kernels.Device, dt DType) error {
	info := dev.Info()
	if c.WorkGroup() > info.MaxWorkGroupSize {
		return fmt.Errorf("dense: %w: configuration %s needs %d work-items, %s allows %d", ErrDevice, c, c.WorkGroup(), info.Name, info.MaxWorkGroupSize)
	}
	if c.Direct() || c.Packed() {
		if err := directFallback.fits(dev, dt); err != nil {
			return err
		}
	} else if isGPU(dev) && (c.TM%2 != 0 || c.TN%2 != 0) {
		return fmt.Errorf("dense: %w: configuration %s: a GPU reads pairs, TM and TN must be even", ErrDevice, c)
	}
	if c.localBytes(dt) > info.LocalMemBytes {
		return fmt.Errorf("dense: %w: configuration %s needs %s of local memory, %s has %s", ErrDevice, c,
			kernels.FormatBytes(c.localBytes(dt)), info.Name, kernels.FormatBytes(info.LocalMemBytes))
	}
	return nil
}

// Configs are the GEMM tile configurations the tuner tries, the safe
// default first. Larger register blocks need fewer local-memory reads per
// multiply-add (8x8: one word per four), which a GPU's FP64 rate demands;
// small groups suit CPU devices, whose compilers loop over the work-items.
// The last ones are the direct form (KT 0) that CPUs run: 16 x 8 blocks
// per work-item (16 vector accumulators of 8 doubles) measured 35-115
// GFLOP/s for n = 1024 under PoCL on two (shared, busy) AVX-512 cores,
// against 8-16 for the tiled configurations there.
var Configs = []Config{
	{64, 64, 16, 4, 4},
	{128, 128, 8, 8, 8},
	{64, 128, 8, 4, 8},
	{128, 64, 8, 8, 4},
	{64, 64, 8, 8, 8},
	{32, 32, 16, 4, 4},
	{64, 32, 16, 8, 4},
	{64, 128, 8, 8, 8},
	{128, 64, 8, 8, 8},
	{256, 64, 8, 8, 8},
	{64, 256, 8, 8, 8},
	{128, 128, 8, 8, 4},
	{128, 64, 8, 4, 8},
	{64, 64, 0, 16, 8},
	{32, 64, 0, 16, 8},
	{128, 64, 0, 16, 8},
}

// candidates returns the configurations worth timing on dev. On a CPU
// device the wide groups of the GPU configurations compile slowly and run
// badly (PoCL loops over the work-items; measured 0.3 to 10 GFLOP/s against
// 11 to 17 for the 64-item groups), so only the default and the 64-item
// groups are tried there.
//
// The direct configurations (KT = 0) are for CPUs only: a GPU needs the
// reuse that local memory gives. Packed ones are not tuned: a direct
// engine packs its deep and A-transposed products itself (usePacked).
func candidates(dev *kernels.Device) []Config {
	var out []Config
	for i, c := range Configs {
		if isGPU(dev) != (c.KT <= 0) && (isGPU(dev) || i == 0 || c.WorkGroup() <= 64) {
			out = append(out, c)
		}
	}
	return out
}

// The tuning record is a small JSON file per device and driver next to the
// program cache (kernels.CacheDir's parent, folder "tuning"): the chosen
// configuration of each element type and the rates measured for it.
type tuningRecord struct {
	Device  string                        `json:"device"`
	Driver  string                        `json:"driver"`
	Choice  map[string]string             `json:"choice"`            // dtype -> configuration
	GFLOPS  map[string]map[string]float64 `json:"gflops,omitempty"`  // dtype -> configuration -> measured rate
	Size    map[string]int                `json:"size,omitempty"`    // dtype -> order of the timed product
	Elapsed map[string]string             `json:"elapsed,omitempty"` // dtype -> tuning time
}

var tuneMu sync.Mutex

// TuningPath returns the file that remembers dev's tuned configurations, or
// "" when the program cache is disabled.
func TuningPath(dev *kernels.Device) string {
	dir := kernels.CacheDir()
	if dir == "" {
		return ""
	}
	info := dev.Info()
	h := sha256.New()
	for _, s := range []string{"oclsolve-dense-tuning-v5", info.Platform, info.PlatformVersion, info.Name, info.Vendor, info.DriverVersion, info.DeviceVersion} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return filepath.Join(filepath.Dir(dir), "tuning", "dense-"+hex.EncodeToString(h.Sum(nil))[:24]+".json")
}

func loadRecord(path string) tuningRecord {
	var r tuningRecord
	if path != "" {
		if data, err := os.ReadFile(path); err == nil {
			_ = json.Unmarshal(data, &r) // a damaged record is retuned
		}
	}
	return r
}

// saveRecord writes the record atomically; failures only cost a retune.
func saveRecord(path string, r tuningRecord) {
	if path == "" || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// tune returns the configuration for dt on dev: the remembered one, else
// (unless OCLSOLVE_TUNE=off) the fastest of Configs on a timed product,
// remembered for later processes, else the first configuration that fits.
func tune(dev *kernels.Device, dt DType) (Config, string, error) {
	tuneMu.Lock()
	defer tuneMu.Unlock()
	path := TuningPath(dev)
	rec := loadRecord(path)
	if s, ok := rec.Choice[dt.String()]; ok {
		if c, err := ParseConfig(s); err == nil && c.fits(dev, dt) == nil {
			return c, "disk", nil
		}
	}
	if os.Getenv("OCLSOLVE_TUNE") == "off" {
		for _, c := range Configs {
			if c.fits(dev, dt) == nil {
				return c, "default", nil
			}
		}
		return Config{}, "", fmt.Errorf("dense: %w: no GEMM configuration fits %s", ErrDevice, dev.Name())
	}
	start := time.Now()
	n := 256
	if isGPU(dev) {
		n = 2048
	}
	rates, err := Measure(dev, dt, n, candidates(dev))
	if err != nil {
		return Config{}, "", err
	}
	best, bestRate := Config{}, -1.0
	for _, c := range Configs {
		if r, ok := rates[c.String()]; ok && r > bestRate {
			best, bestRate = c, r
		}
	}
	if bestRate < 0 {
		return Config{}, "", fmt.Errorf("dense: %w: no GEMM configuration runs on %s", ErrDevice, dev.Name())
	}
	info := dev.Info()
	rec = loadRecord(path) // another process may have added the other type meanwhile
	rec.Device, rec.Driver = info.Name, info.DriverVersion
	if rec.Choice == nil {
		rec.Choice, rec.GFLOPS, rec.Size, rec.Elapsed = map[string]string{}, map[string]map[string]float64{}, map[string]int{}, map[string]string{}
	}
	rec.Choice[dt.String()] = best.String()
	if rec.GFLOPS == nil {
		rec.GFLOPS, rec.Size, rec.Elapsed = map[string]map[string]float64{}, map[string]int{}, map[string]string{}
	}
	rec.GFLOPS[dt.String()] = rates
	rec.Size[dt.String()] = n
	rec.Elapsed[dt.String()] = time.Since(start).Round(time.Millisecond).String()
	saveRecord(path, rec)
	return best, "tuned", nil
}

// Measure times an n x n x n GEMM (NN) with each configuration that builds
// and fits dev and returns GFLOP/s by configuration name. A configuration
// that fails to build or run is left out.
func Measure(dev *kernels.Device, dt DType, n int, cfgs []Config) (map[string]float64, error) {
	bytes := int64(n) * int64(n) * dt.Size()
	bufs := make([]*kernels.Buffer, 3)
	for i := range bufs {
		b, err := dev.Alloc(bytes)
		if err != nil {
			for _, x := range bufs[:i] {
				x.Release()
			}
			return nil, err
		}
		bufs[i] = b
	}
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	rng := rand.New(rand.NewSource(1))
	for _, b := range bufs {
		if dt == Float32 {
			v := make([]float32, n*n)
			for i := range v {
				v[i] = float32(rng.Float64() - 0.5)
			}
			if err := b.Write(0, v); err != nil {
				return nil, err
			}
		} else {
			v := make([]float64, n*n)
			for i := range v {
				v[i] = rng.Float64() - 0.5
			}
			if err := b.Write(0, v); err != nil {
				return nil, err
			}
		}
	}
	a := Mat{Buf: bufs[0], Rows: n, Cols: n, LD: n}
	b, c := a, a
	b.Buf, c.Buf = bufs[1], bufs[2]
	rates := map[string]float64{}
	for _, cfg := range cfgs {
		if cfg.fits(dev, dt) != nil {
			continue
		}
		e, err := NewWithConfig(dev, dt, cfg)
		if err != nil {
			continue
		}
		e.small = nil // time the configuration itself on every product
		if e.Gemm(false, false, 1, a, b, 0, c) != nil || dev.Finish() != nil {
			continue // the first run also makes lazy compilers compile
		}
		reps, elapsed := 0, time.Duration(0)
		start := time.Now()
		for reps < 20 && (reps < 2 || elapsed < 200*time.Millisecond) {
			if err := e.Gemm(false, false, 1, a, b, 0, c); err != nil {
				break
			}
			if err := dev.Finish(); err != nil {
				break
			}
			reps++
			elapsed = time.Since(start)
		}
		if reps > 0 {
			rates[cfg.String()] = 2 * float64(n) * float64(n) * float64(n) * float64(reps) / elapsed.Seconds() / 1e9
		}
	}
	return rates, nil
}
