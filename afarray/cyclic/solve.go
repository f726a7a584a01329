package cyclic

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/oclsolve/oclsolve/kernels"
)

// DeviceTridiag is a batch of tridiagonal systems resident on a device, in
// the layout of Tridiag: four buffers of N*Count elements, float64 or, when
// Single is set, float32.
type DeviceTridiag struct {
	N, Count            int
	Single              bool
	Sub, Diag, Sup, RHS *kernels.Buffer
}

// Release frees the four buffers.
func (t *DeviceTridiag) Release() {
	for _, b := range []*kernels.Buffer{t.Sub, t.Diag, t.Sup, t.RHS} {
		b.Release()
	}
}

// Upload copies a double-precision batch to the device.
func Upload(dev *kernels.Device, t *Tridiag) (*DeviceTridiag, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return upload(dev, t.N, t.Count, false, t.Sub, t.Diag, t.Sup, t.RHS)
}

// Upload32 copies a single-precision batch to the device.
func Upload32(dev *kernels.Device, t *Tridiag32) (*DeviceTridiag, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return upload(dev, t.N, t.Count, true, t.Sub, t.Diag, t.Sup, t.RHS)
}

func upload(dev *kernels.Device, n, count int, single bool, slices ...any) (*DeviceTridiag, error) {
	elem := int64(8)
	if single {
		elem = 4
	}
	size := int64(n) * int64(count) * elem
	d := &DeviceTridiag{N: n, Count: count, Single: single}
	dst := []**kernels.Buffer{&d.Sub, &d.Diag, &d.Sup, &d.RHS}
	for i, s := range slices {
		b, err := dev.Alloc(size)
		if err != nil {
			d.Release()
			return nil, err
		}
		*dst[i] = b
		if err := b.Write(0, s); err != nil {
			d.Release()
			return nil, err
		}
	}
	return d, nil
}

// Report describes one solve.
type Report struct {
	Method    string
	Precision string // "double" or "float"
	N, Count  int
	// Levels is the number of global cyclic-reduction levels before the
	// in-work-group stage, LocalOrder the order of the systems that stage
	// solves and WorkGroup its work-group size.
	Levels, LocalOrder, WorkGroup int
	Launches                      int64 // kernels enqueued
	// Upload, Compute and Download split Elapsed: host-to-device copies
	// (with allocation), the solve until the device finished, and reading
	// the solution back.
	Upload, Compute, Download, Elapsed time.Duration
	// BackwardError is the largest normwise backward error over the batch
	// (see Tridiag.BackwardError), measured on the host against the input.
	BackwardError float64
}

func (r *Report) String() string {
	return fmt.Sprintf("%s (%s): %d x n=%d, %d global levels, local order %d (work-group %d), %d launches, upload %v, compute %v, download %v, backward error %.2e",
		r.Method, r.Precision, r.Count, r.N, r.Levels, r.LocalOrder, r.WorkGroup, r.Launches, r.Upload, r.Compute, r.Download, r.BackwardError)
}

// Solve solves every system of the batch by opt.Method and returns the
// solutions in the layout of the right-hand sides. The data stay on the
// device during the solve; the report separates transfers from compute. A
// breakdown returns ErrBreakdown and no solution.
func Solve(dev *kernels.Device, t *Tridiag, opt Options) ([]float64, *Report, error) {
	return solveBatch(dev, t, opt, func() (*DeviceTridiag, error) { return Upload(dev, t) })
}

// Solve32 is Solve in single precision.
func Solve32(dev *kernels.Device, t *Tridiag32, opt Options) ([]float32, *Report, error) {
	return solveBatch(dev, t, opt, func() (*DeviceTridiag, error) { return Upload32(dev, t) })
}

// hostBatch is a batch of either precision, Tridiag or Tridiag32, as
// solveBatch uses it.
type hostBatch[T real] interface {
	Validate() error
	dims() (n, count int)
	Thomas() ([]T, error)
	BackwardError(x []T) (float64, error)
}

// solveBatch is Solve in T's precision: upload copies t to the device; the
// host method is t's Thomas; the backward error is measured against t.
func solveBatch[T real](dev *kernels.Device, t hostBatch[T], opt Options, upload func() (*DeviceTridiag, error)) ([]T, *Report, error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	n, count := t.dims()
	x := make([]T, n*count)
	single := unsafe.Sizeof(x[0]) == 4
	rep, err := solve(dev, n, count, single, opt, x, upload,
		func() error { y, err := t.Thomas(); copy(x, y); return err })
	if err != nil {
		return nil, rep, err
	}
	rep.BackwardError, err = t.BackwardError(x)
	return x, rep, err
}

func solve(dev *kernels.Device, n, count int, single bool, opt Options, x any,
	upload func() (*DeviceTridiag, error), host func() error) (*Report, error) {
	method, err := opt.method()
	if err != nil {
		return nil, err
	}
	rep := &Report{Method: method, Precision: "double", N: n, Count: count}
	if single {
		rep.Precision = "float"
	}
	start := time.Now()
	if method == "thomas" {
		err := host()
		rep.Compute = time.Since(start)
		rep.Elapsed = rep.Compute
		return rep, err
	}
	p, err := NewPlan(dev, n, count, single, opt)
	if err != nil {
		return rep, err
	}
	defer p.Release()
	rep.Levels, rep.LocalOrder, rep.WorkGroup = p.Levels(), p.LocalOrder(), p.WorkGroup()
	sys, err := upload()
	if err != nil {
		return rep, err
	}
	defer sys.Release()
	xb, err := dev.Alloc(sys.RHS.Size())
	if err != nil {
		return rep, err
	}
	defer xb.Release()
	if err := dev.Finish(); err != nil {
		return rep, err
	}
	rep.Upload = time.Since(start)
	t0 := time.Now()
	l0 := dev.Launches()
	if err := p.SolveTo(xb, sys); err != nil {
		return rep, err
	}
	rep.Launches = dev.Launches() - l0
	rep.Compute = time.Since(t0)
	t1 := time.Now()
	if err := xb.Read(0, x); err != nil {
		return rep, err
	}
	rep.Download = time.Since(t1)
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// SolveDevice solves a batch already resident on the device into x, for
// callers that keep their data there (and benchmarks that leave transfers
// out). It builds a plan for the call; reuse a Plan to avoid that.
func SolveDevice(dev *kernels.Device, sys *DeviceTridiag, x *kernels.Buffer, opt Options) (*Report, error) {
	if sys == nil {
		return nil, fmt.Errorf("%w: nil system", ErrShape)
	}
	p, err := NewPlan(dev, sys.N, sys.Count, sys.Single, opt)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	rep := &Report{Method: p.method, Precision: "double", N: sys.N, Count: sys.Count,
		Levels: p.Levels(), LocalOrder: p.LocalOrder(), WorkGroup: p.WorkGroup()}
	if sys.Single {
		rep.Precision = "float"
	}
	t0, l0 := time.Now(), dev.Launches()
	err = p.SolveTo(x, sys)
	rep.Launches = dev.Launches() - l0
	rep.Compute = time.Since(t0)
	rep.Elapsed = rep.Compute
	return rep, err
}
