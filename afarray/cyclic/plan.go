package cyclic

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed tridiag.cl
var tridiagSource string

// Options choose the method and tune the launch geometry. The zero value
// means "crpcr" with device-dependent defaults.
type Options struct {
	// Method is "cr", "pcr", "crpcr" (the default) or "thomas" (the host
	// reference). For Poisson2D it names the solver of the line systems
	// ("thomas" is refused there).
	Method string
	// LocalSize caps the work-group size of the in-local-memory stage
	// (default 512, never beyond what the kernel allows).
	LocalSize int
	// MaxLocal caps the order of a system solved inside one work-group; larger
	// systems go through global cyclic-reduction levels first. The default is
	// what the device's local memory holds. Tests set it small to exercise the
	// global levels on small systems.
	MaxLocal int
	// Switch is the size below which the hybrid turns from CR to PCR (default
	// 128).
	Switch int
}

// Methods lists the method names Solve accepts.
var Methods = []string{"cr", "pcr", "crpcr", "thomas"}

func (o Options) method() (string, error) {
	m := strings.ToLower(strings.TrimSpace(o.Method))
	if m == "" {
		m = "crpcr"
	}
	for _, ok := range Methods {
		if m == ok {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: %q (want one of %s)", ErrMethod, o.Method, strings.Join(Methods, ", "))
}

// pcrRMax is the number of equations one work-item may own in a PCR stage
// (PCR_RMAX in tridiag.cl).
const pcrRMax = 8

// programs caches the built kernels of one device and precision.
type programs struct {
	reduce, backsub, cr, pcr, crpcr *kernels.Kernel
}

var (
	progMu    sync.Mutex
	progCache = map[progKey]*programs{}
)

type progKey struct {
	dev    *kernels.Device
	single bool
}

func loadPrograms(dev *kernels.Device, single bool) (*programs, error) {
	progMu.Lock()
	defer progMu.Unlock()
	key := progKey{dev, single}
	if p, ok := progCache[key]; ok {
		return p, nil
	}
	opts := fmt.Sprintf("-DREAL=double -DREAL_MIN=DBL_MIN -DPCR_RMAX=%d", pcrRMax)
	if single {
		opts = fmt.Sprintf("-DREAL=float -DREAL_MIN=FLT_MIN -DPCR_RMAX=%d", pcrRMax)
	}
	prog, err := dev.Build(opts, kernels.Source{Name: "tridiag.cl", Text: tridiagSource})
	if err != nil {
		return nil, err
	}
	p := &programs{}
	for name, dst := range map[string]**kernels.Kernel{"cr_reduce": &p.reduce, "cr_backsub": &p.backsub,
		"tri_cr": &p.cr, "tri_pcr": &p.pcr, "tri_crpcr": &p.crpcr} {
		if *dst, err = prog.Kernel(name); err != nil {
			return nil, err
		}
	}
	progCache[key] = p
	return p, nil
}

// Plan holds the kernels, launch geometry and workspace for solving batches
// of Count systems of order N on one device in one precision. A plan is
// reused across solves (benchmarks solve many times without allocating) and
// must be released. A Plan is not safe for concurrent use.
type Plan struct {
	dev      *kernels.Device
	method   string
	n, count int
	single   bool
	elem     int64
	progs    *programs
	local    *kernels.Kernel // the in-work-group solver
	wg       int             // its work-group size
	sw       int             // hybrid switch size
	orders   []int           // orders of the global levels: orders[0] = n, last solved in local memory
	levels   []levelBuffers  // workspace for levels 1..len(orders)-1
	flag     *kernels.Buffer
}

type levelBuffers struct{ a, b, c, d *kernels.Buffer }

// NewPlan prepares solving count systems of order n in double precision, or
// single precision when single is set, by opt.Method ("thomas" is not a
// device method and is refused here).
func NewPlan(dev *kernels.Device, n, count int, single bool, opt Options) (*Plan, error) {
	method, err := opt.method()
	if err != nil {
		return nil, err
	}
	if method == "thomas" {
		return nil, fmt.Errorf("%w: thomas runs on the host, not in a device plan", ErrMethod)
	}
	if err := validateShape(n, count, n*count, n*count, n*count, n*count); err != nil {
		return nil, err
	}
	progs, err := loadPrograms(dev, single)
	if err != nil {
		return nil, err
	}
	p := &Plan{dev: dev, method: method, n: n, count: count, single: single, elem: 8, progs: progs}
	if single {
		p.elem = 4
	}
	switch method {
	case "cr":
		p.local = progs.cr
	case "pcr":
		p.local = progs.pcr
	default:
		p.local = progs.crpcr
	}
	maxWG := opt.LocalSize
	if maxWG <= 0 {
		maxWG = 512
	}
	maxWG = min(maxWG, p.local.MaxWorkGroupSize())
	maxWG = 1 << (bitsLen(maxWG) - 1) // a power of two
	// Local memory holds four arrays of the in-work-group system; keep a
	// little back for the implementation's own use.
	capacity := int((dev.Info().LocalMemBytes - 1024) / (4 * p.elem))
	if opt.MaxLocal > 0 {
		capacity = min(capacity, opt.MaxLocal)
	}
	if method == "pcr" {
		capacity = min(capacity, pcrRMax*maxWG)
	}
	if capacity < 1 {
		return nil, fmt.Errorf("%w: device %s has too little local memory (%d bytes)", ErrShape, dev.Name(), dev.Info().LocalMemBytes)
	}
	p.orders = []int{n}
	for m := n; m > capacity; {
		m /= 2
		p.orders = append(p.orders, m)
	}
	last := p.orders[len(p.orders)-1]
	// Work-items needed: half the equations for CR's first level, all of
	// them for PCR.
	need := (last + 1) / 2
	if method == "pcr" {
		need = last
	}
	// At least 32 work-items (a warp on NVIDIA): fewer save nothing on a
	// GPU, and each distinct size costs a kernel compilation on PoCL.
	p.wg = min(maxWG, max(32, nextPow2(need)))
	p.sw = opt.Switch
	if p.sw <= 0 {
		p.sw = 128
	}
	p.sw = max(1, min(p.sw, pcrRMax*p.wg))

	if p.flag, err = dev.Alloc(4); err != nil {
		return nil, err
	}
	for _, m := range p.orders[1:] {
		var lb levelBuffers
		for _, dst := range []**kernels.Buffer{&lb.a, &lb.b, &lb.c, &lb.d} {
			if *dst, err = dev.Alloc(int64(m) * int64(count) * p.elem); err != nil {
				p.levels = append(p.levels, lb)
				p.Release()
				return nil, err
			}
		}
		p.levels = append(p.levels, lb)
	}
	return p, nil
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

func nextPow2(x int) int {
	p := 1
	for p < x {
		p *= 2
	}
	return p
}

// Release frees the plan's workspace. It is idempotent.
func (p *Plan) Release() {
	for _, l := range p.levels {
		l.a.Release()
		l.b.Release()
		l.c.Release()
		l.d.Release()
	}
	p.levels = nil
	p.flag.Release()
}

// Levels returns the number of global cyclic-reduction levels the plan runs
// before the in-work-group stage.
func (p *Plan) Levels() int { return len(p.orders) - 1 }

// LocalOrder returns the order of the systems solved inside one work-group.
func (p *Plan) LocalOrder() int { return p.orders[len(p.orders)-1] }

// WorkGroup returns the work-group size of the in-work-group stage.
func (p *Plan) WorkGroup() int { return p.wg }

// SolveTo solves the batch held in sys, which must match the plan, into x
// (N*Count elements of the plan's precision; x may be sys.RHS, which is then
// overwritten). It enqueues 2*Levels()+1 kernels, then waits for the device
// to read the breakdown flag: a breakdown returns ErrBreakdown, and x then
// holds no usable solution.
func (p *Plan) SolveTo(x *kernels.Buffer, sys *DeviceTridiag) error {
	if err := p.enqueue(x, sys, true); err != nil {
		return err
	}
	return p.check()
}

// enqueue launches the solve without waiting; reset clears the breakdown
// flag first (Poisson2D clears it once for many solves).
func (p *Plan) enqueue(x *kernels.Buffer, sys *DeviceTridiag, reset bool) error {
	if err := p.matches(x, sys); err != nil {
		return err
	}
	if reset {
		if err := p.flag.Fill([]byte{0, 0, 0, 0}, 0, 4); err != nil {
			return err
		}
	}
	return p.enqueueCount(x, sys.Sub, sys.Diag, sys.Sup, sys.RHS, p.count)
}

// enqueueCount solves the first count systems (count <= the plan's count),
// so that one plan serves batches of varying size.
func (p *Plan) enqueueCount(x, a, b, c, d *kernels.Buffer, count int) error {
	const L = 256
	ca, cb, cc, cd := a, b, c, d
	for li, m := range p.orders[1:] {
		n := p.orders[li]
		lv := p.levels[li]
		if err := p.progs.reduce.Launch([]int{kernels.RoundUp(m*count, L)}, []int{L},
			n, m, count, ca, cb, cc, cd, lv.a, lv.b, lv.c, lv.d, p.flag); err != nil {
			return err
		}
		ca, cb, cc, cd = lv.a, lv.b, lv.c, lv.d
	}
	last := p.orders[len(p.orders)-1]
	out := x
	if len(p.levels) > 0 {
		out = cd // the reduced system's solution overwrites its right-hand side
	}
	locals := []any{kernels.Local(int64(last) * p.elem), kernels.Local(int64(last) * p.elem),
		kernels.Local(int64(last) * p.elem), kernels.Local(int64(last) * p.elem)}
	var args []any
	if p.local == p.progs.crpcr {
		args = append([]any{last, p.sw, ca, cb, cc, cd, out, p.flag}, locals...)
	} else {
		args = append([]any{last, ca, cb, cc, cd, out, p.flag}, locals...)
	}
	if err := p.local.Launch([]int{count * p.wg}, []int{p.wg}, args...); err != nil {
		return err
	}
	for li := len(p.levels) - 1; li >= 0; li-- {
		n, m := p.orders[li], p.orders[li+1]
		var la, lb, lc, ld *kernels.Buffer
		dst := x
		if li == 0 {
			la, lb, lc, ld = a, b, c, d
		} else {
			lv := p.levels[li-1]
			la, lb, lc, ld = lv.a, lv.b, lv.c, lv.d
			dst = lv.d
		}
		e := n - m
		if err := p.progs.backsub.Launch([]int{kernels.RoundUp(e*count, L)}, []int{L},
			n, m, count, la, lb, lc, ld, p.levels[li].d, dst, p.flag); err != nil {
			return err
		}
	}
	return nil
}

// check waits for the device and turns the breakdown flag into an error.
func (p *Plan) check() error {
	flag := make([]int32, 1)
	if err := p.flag.Read(0, flag); err != nil {
		return err
	}
	return flagError(flag[0])
}

func flagError(f int32) error {
	switch {
	case f == 0:
		return nil
	case f&1 != 0:
		return fmt.Errorf("%w: zero or subnormal divisor during reduction", ErrBreakdown)
	default:
		return fmt.Errorf("%w: non-finite value in the solution", ErrBreakdown)
	}
}

func (p *Plan) matches(x *kernels.Buffer, sys *DeviceTridiag) error {
	if sys == nil {
		return fmt.Errorf("%w: nil system", ErrShape)
	}
	if sys.N != p.n || sys.Count != p.count || sys.Single != p.single {
		return fmt.Errorf("%w: plan for %d systems of order %d (single %v) given %d of order %d (single %v)",
			ErrShape, p.count, p.n, p.single, sys.Count, sys.N, sys.Single)
	}
	need := int64(p.n) * int64(p.count) * p.elem
	for _, b := range []*kernels.Buffer{sys.Sub, sys.Diag, sys.Sup, sys.RHS, x} {
		if b == nil || b.Size() < need {
			return fmt.Errorf("%w: device buffer smaller than %d bytes", ErrShape, need)
		}
	}
	return nil
}
