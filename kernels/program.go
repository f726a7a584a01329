package kernels

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unsafe"
)

//go:embed common.cl
var commonHeader string

// BaseOptions are passed to every program build: OpenCL C 1.2, which is what
// every target driver offers (NVIDIA's included).
const BaseOptions = "-cl-std=CL1.2"

// Source is one OpenCL C source file, usually embedded beside the Go code
// that launches its kernels.
type Source struct {
	Name string // file name, for error messages
	Text string
}

// Program is a built OpenCL program for one device. Programs are built once
// per process and device (Device.Build returns the cached one) and reused by
// every launch.
type Program struct {
	dev     *Device
	raw     rawProgram
	name    string
	options string
	log     string

	mu      sync.Mutex
	kernels map[string]*Kernel

	// FromDiskCache reports that the binary came from the on-disk cache.
	FromDiskCache bool
	// BuildTime is the time spent creating and building the program.
	BuildTime time.Duration
}

type programCache struct {
	mu    sync.Mutex
	byKey map[string]*Program
}

// ptxFence reports whether device_fence (common.cl) is PTX's membar.gl on
// the device: NVIDIA GPUs on NVIDIA's CUDA platform, whose OpenCL compiler
// takes PTX inline assembly. OCLSOLVE_PTX_FENCE=off keeps OpenCL's
// mem_fence there (to compare, or should a driver refuse the assembly).
func ptxFence(info DeviceInfo) bool {
	if os.Getenv("OCLSOLVE_PTX_FENCE") == "off" {
		return false
	}
	up := strings.ToUpper
	return strings.Contains(up(info.Type), "GPU") && strings.Contains(up(info.Vendor), "NVIDIA") &&
		strings.Contains(up(info.Platform), "NVIDIA CUDA")
}

// Build returns the program made of the common header and sources, compiled
// with BaseOptions plus options (for example "-DREAL=double"). A program is
// built once per process; its binary is kept on disk (see the cache) so that
// later processes skip the compiler. A compile failure returns a *BuildError
// holding the full log.
func (d *Device) Build(options string, sources ...Source) (*Program, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	opts := strings.TrimSpace(BaseOptions + " " + options)
	if d.info.Int64Atomics {
		opts += " -DOCLSOLVE_INT64_ATOMICS"
	}
	if ptxFence(d.info) {
		opts += " -DOCLSOLVE_PTX_FENCE"
	}
	names := make([]string, len(sources))
	var text strings.Builder
	text.WriteString(commonHeader)
	for i, s := range sources {
		names[i] = s.Name
		fmt.Fprintf(&text, "\n// ---- %s ----\n", s.Name)
		text.WriteString(s.Text)
	}
	name := strings.Join(names, "+")
	key := d.cacheKey(opts, text.String())

	d.programs.mu.Lock()
	defer d.programs.mu.Unlock()
	if p, ok := d.programs.byKey[key]; ok {
		return p, nil
	}
	start := time.Now()
	defer func() { d.compile.add(time.Since(start)) }()
	p := &Program{dev: d, name: name, options: opts, kernels: map[string]*Kernel{}}
	if bin := diskCacheLoad(key); bin != nil {
		if raw, err := createProgramFromBinary(d.ctx, d.dev, bin); err == nil {
			if log, err := raw.build(d.dev, opts); err == nil {
				p.raw, p.log, p.FromDiskCache = raw, log, true
			} else {
				raw.release()
				diskCacheRemove(key) // corrupt or stale entry: rebuild below
			}
		} else {
			diskCacheRemove(key)
		}
	}
	if !p.FromDiskCache {
		raw, err := createProgramFromSource(d.ctx, text.String())
		if err != nil {
			return nil, err
		}
		// The notice times the whole source path: PoCL does much of its
		// compiling when the binary is asked for, not in clBuildProgram.
		stopNotice := d.compile.noticeAfter(d)
		log, err := raw.build(d.dev, opts)
		if err != nil {
			stopNotice()
			raw.release()
			return nil, &BuildError{Source: name, Device: d.info.Name, Options: opts, Log: log, Err: err}
		}
		p.raw, p.log = raw, log
		if bin, err := raw.binary(); err == nil && len(bin) > 0 {
			diskCacheStore(key, bin) // best effort: a read-only cache only costs time
		}
		stopNotice()
	}
	p.BuildTime = time.Since(start)
	if d.programs.byKey == nil {
		d.programs.byKey = map[string]*Program{}
	}
	d.programs.byKey[key] = p
	return p, nil
}

// cacheKey identifies a program binary: the same source and options on the
// same device and driver give the same binary.
func (d *Device) cacheKey(options, text string) string {
	h := sha256.New()
	for _, s := range []string{"oclsolve-program-v1", d.info.Platform, d.info.PlatformVersion, d.info.Name,
		d.info.Vendor, d.info.DriverVersion, d.info.DeviceVersion, options, text} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Log returns the compiler's log, which holds warnings even for a
// successful build.
func (p *Program) Log() string { return p.log }

// Name names the program's sources.
func (p *Program) Name() string { return p.name }

// Kernel is one entry point of a program.
type Kernel struct {
	prog *Program
	name string
	raw  rawKernel
	wg   int // CL_KERNEL_WORK_GROUP_SIZE
}

// Kernel returns the kernel called name, created once per program.
func (p *Program) Kernel(name string) (*Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k, ok := p.kernels[name]; ok {
		return k, nil
	}
	raw, err := p.raw.createKernel(name)
	if err != nil {
		return nil, fmt.Errorf("%w: kernel %q in %s: %v", ErrBuild, name, p.name, err)
	}
	wg, err := raw.workGroupSize(p.dev.dev)
	if err != nil {
		wg = p.dev.info.MaxWorkGroupSize
	}
	k := &Kernel{prog: p, name: name, raw: raw, wg: wg}
	p.kernels[name] = k
	return k, nil
}

// Kernels returns the kernels called names, in that order (Kernel for
// each).
func (p *Program) Kernels(names ...string) ([]*Kernel, error) {
	ks := make([]*Kernel, len(names))
	for i, name := range names {
		k, err := p.Kernel(name)
		if err != nil {
			return nil, err
		}
		ks[i] = k
	}
	return ks, nil
}

// MaxWorkGroupSize is the largest local size this kernel can be launched
// with on its device.
func (k *Kernel) MaxWorkGroupSize() int { return k.wg }

// Name returns the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Local is a kernel argument that reserves bytes of local memory.
type Local int

// maxGroupsYZ is the most work-groups a launch may have in dimensions 1
// and 2.
const maxGroupsYZ = 65535

// Launch sets the kernel's arguments and enqueues it with the given global
// and local sizes (1 to 3 dimensions, global a multiple of local in each). It
// does not wait for the device. Arguments may be *Buffer, Local, int32,
// uint32, int64, uint64, int (passed as int32), float64, float32 and
// [16]uint64 (a ulong16).
func (k *Kernel) Launch(global, local []int, args ...any) error {
	return k.launch(nil, global, local, args)
}

// launch enqueues on q's queue (nil: the main queue, paced).
func (k *Kernel) launch(q *Queue, global, local []int, args []any) error {
	d := k.prog.dev
	if len(global) == 0 || len(global) > 3 || len(local) != len(global) {
		return fmt.Errorf("%w: %s: global %v and local %v sizes", ErrLaunch, k.name, global, local)
	}
	size := 1
	for i := range global {
		if local[i] <= 0 || global[i] <= 0 || global[i]%local[i] != 0 {
			return fmt.Errorf("%w: %s: global size %v is not a positive multiple of local size %v", ErrLaunch, k.name, global, local)
		}
		size *= local[i]
	}
	if size > k.wg {
		return fmt.Errorf("%w: %s: local size %v exceeds the kernel's maximum work-group size %d on %s", ErrLaunch, k.name, local, k.wg, d.info.Name)
	}
	// NVIDIA's grids hold at most 65,535 work-groups in dimensions 1 and 2
	// (2^31 - 1 in dimension 0), a limit OpenCL cannot query; beyond it
	// the enqueue fails with an unnamed error there. It is refused on
	// every device, so that what runs on PoCL also runs on a GPU.
	for i := 1; i < len(global); i++ {
		if g := global[i] / local[i]; g > maxGroupsYZ {
			return fmt.Errorf("%w: %s: %d work-groups in dimension %d, more than %d (NVIDIA's limit)", ErrLaunch, k.name, g, i, maxGroupsYZ)
		}
	}
	if d.canceled.Load() {
		return fmt.Errorf("%s on %s: %w", k.name, d.info.Name, ErrCanceled)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, a := range args {
		if err := k.setArg(i, a); err != nil {
			return fmt.Errorf("%w: %s argument %d (%T): %v", ErrLaunch, k.name, i, a, err)
		}
	}
	raw := d.queue
	if q != nil {
		raw = q.raw()
	}
	if d.prof != nil {
		ev, err := enqueueTimed(raw, k.raw, global, local)
		if err != nil {
			return fmt.Errorf("%s: %w", k.name, err)
		}
		d.prof.record(k.name, q != nil && q.side, ev, d.closed.Load() > 0)
	} else if err := enqueue(raw, k.raw, global, local); err != nil {
		return fmt.Errorf("%s: %w", k.name, err)
	}
	d.launches.Add(1)
	if q != nil && q.side {
		return nil
	}
	return d.paced()
}

func (k *Kernel) setArg(i int, a any) error {
	switch v := a.(type) {
	case *Buffer:
		if err := v.usable(); err != nil {
			return err
		}
		if v.dev != k.prog.dev {
			return fmt.Errorf("buffer lives on %s", v.dev.info.Name)
		}
		return k.raw.setMemArg(i, v.mem)
	case *Image:
		if err := v.usable(); err != nil {
			return err
		}
		return k.raw.setMemArg(i, v.mem)
	case Local:
		return k.raw.setLocalArg(i, int(v))
	case int:
		x := int32(v)
		if int(x) != v {
			return fmt.Errorf("int %d does not fit int32", v)
		}
		return k.raw.setArg(i, 4, unsafe.Pointer(&x))
	case int32:
		return k.raw.setArg(i, 4, unsafe.Pointer(&v))
	case uint32:
		return k.raw.setArg(i, 4, unsafe.Pointer(&v))
	case int64:
		return k.raw.setArg(i, 8, unsafe.Pointer(&v))
	case uint64:
		return k.raw.setArg(i, 8, unsafe.Pointer(&v))
	case float64:
		return k.raw.setArg(i, 8, unsafe.Pointer(&v))
	case float32:
		return k.raw.setArg(i, 4, unsafe.Pointer(&v))
	case [16]uint64: // a ulong16
		return k.raw.setArg(i, 128, unsafe.Pointer(&v))
	}
	return fmt.Errorf("unsupported argument type")
}

// Launches returns how many kernels were enqueued on the device so far.
func (d *Device) Launches() int64 { return d.launches.Load() }

// RoundUp returns the smallest multiple of local that is >= n (and at least
// local), the global size that covers n work-items.
func RoundUp(n, local int) int {
	if n <= 0 {
		return local
	}
	return (n + local - 1) / local * local
}
