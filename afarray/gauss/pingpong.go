package gauss

import (
	_ "embed"
	"fmt"
	"math"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

//go:embed buffer.cl
var bufferSource string

//go:embed vec4.cl
var vec4Source string

//go:embed image.cl
var imageSource string

//go:embed argmax.cl
var argmaxSource string

// storage is the memory layout of a ping-pong variant.
type storage int

const (
	bufferStorage storage = iota // double, row stride n+1
	vec4Storage                  // double4, row stride n+1 rounded up to a multiple of 4
	imageStorage                 // float image, (n+1) x n texels
)

func (s storage) name() string {
	return [...]string{VariantBuffer, VariantVec4, VariantImage}[s]
}

// Elimination work-group: 16 x 16 work-items, columns along the first
// dimension so that neighbouring work-items touch neighbouring values.
const (
	elimLocal0, elimLocal1 = 16, 16
	elimLocalSize          = elimLocal0 * elimLocal1

	elimGroupsPerCU      = 32 // work-groups per compute unit without pivoting (GPU)
	elimPivotGroupsPerCU = 4  // with pivoting, or on a CPU
)

// program builds (once per process) the program holding the storage's
// elimination kernels and the triangular solves.
func (s storage) program(dev *kernels.Device) (*kernels.Program, error) {
	if s == imageStorage {
		return dev.Build("-DIMAGE_ROWS -DPIV_T=float", kernels.Source{Name: "argmax.cl", Text: argmaxSource},
			kernels.Source{Name: "image.cl", Text: imageSource},
			kernels.Source{Name: "trsv.cl", Text: trsvSource})
	}
	return bufferProgram(dev)
}

func bufferProgram(dev *kernels.Device) (*kernels.Program, error) {
	return dev.Build("", kernels.Source{Name: "argmax.cl", Text: argmaxSource}, kernels.Source{Name: "buffer.cl", Text: bufferSource},
		kernels.Source{Name: "vec4.cl", Text: vec4Source}, kernels.Source{Name: "trsv.cl", Text: trsvSource})
}

// stride returns the number of values per row of the augmented n x (n+1)
// matrix in this storage.
func (s storage) stride(n int) int {
	if s == vec4Storage {
		return kernels.RoundUp(n+1, 4)
	}
	return n + 1
}

// pingPong is the pair of memory objects of one solve.
type pingPong struct {
	st     storage
	n      int
	stride int
	mem    [2]any  // *kernels.Buffer or *kernels.Image
	tol    float64 // pivots of at most this magnitude count as zero
}

func (pp *pingPong) release() {
	for _, m := range pp.mem {
		switch m := m.(type) {
		case *kernels.Buffer:
			m.Release()
		case *kernels.Image:
			m.Release()
		}
	}
}

// upload allocates the pair and writes [A | b] into the first object; the
// padding columns of the vec4 layout are zero.
func (pp *pingPong) upload(dev *kernels.Device, a mat.Matrix, b []float64) error {
	n, stride := pp.n, pp.stride
	if pp.st == imageStorage {
		host := make([]float32, n*stride)
		amax := packRows(n, func(i0, i1 int) float64 {
			m := 0.0
			row64 := make([]float64, n)
			for i := i0; i < i1; i++ {
				m = math.Max(m, copyRow(row64, a, i, n))
				row := host[i*stride : (i+1)*stride]
				for j, v := range row64 {
					row[j] = float32(v)
				}
				row[n] = float32(b[i])
			}
			return m
		})
		if err := checkEntries(amax); err != nil {
			return err
		}
		pp.tol = pivotTolerance(n, epsilon32, amax)
		for k := range pp.mem {
			im, err := dev.AllocImage2D(stride, n, 1)
			if err != nil {
				return err
			}
			pp.mem[k] = im
		}
		return pp.mem[0].(*kernels.Image).Write(host)
	}
	host := make([]float64, n*stride)
	amax := packRows(n, func(i0, i1 int) float64 {
		m := 0.0
		for i := i0; i < i1; i++ {
			row := host[i*stride : (i+1)*stride]
			m = math.Max(m, copyRow(row, a, i, n))
			row[n] = b[i]
		}
		return m
	})
	if err := checkEntries(amax); err != nil {
		return err
	}
	pp.tol = pivotTolerance(n, epsilon64, amax)
	for k := range pp.mem {
		buf, err := dev.Alloc(int64(8 * n * stride))
		if err != nil {
			return err
		}
		pp.mem[k] = buf
	}
	return pp.mem[0].(*kernels.Buffer).Write(0, host)
}

// eliminate enqueues the n-1 pivot steps, one launch each, reading from
// mem[p%2] and writing to mem[(p+1)%2].
func (pp *pingPong) eliminate(dev *kernels.Device, prog *kernels.Program, pivot bool, status *kernels.Buffer) error {
	name := "gauss_" + pp.st.name() + "_nopivot"
	if pivot {
		name = "gauss_" + pp.st.name() + "_pivot"
	}
	k, err := prog.Kernel(name)
	if err != nil {
		return err
	}
	// Every work-group of the pivoting kernels repeats the pivot search, so
	// they get few work-groups, each walking many elements. A CPU device
	// (PoCL) also runs few large work-groups much faster than many.
	cu := max(1, dev.Info().ComputeUnits)
	maxGroups := elimGroupsPerCU * cu
	if pivot || !isGPU(dev) {
		maxGroups = elimPivotGroupsPerCU * cu
	}
	n := pp.n
	local := []int{elimLocal0, elimLocal1}
	for p := 0; p < n-1; p++ {
		in, out := pp.mem[p%2], pp.mem[(p+1)%2]
		cols := n - p // columns p+1..n
		if pp.st == vec4Storage {
			cols = pp.stride/4 - p/4 // quads from the one holding column p
		}
		global := grid(cols, n-1-p, maxGroups)
		switch {
		case pp.st == bufferStorage && !pivot:
			err = k.Launch(global, local, n, n+1, pp.stride, p, in, out, status, pp.tol)
		case pp.st == bufferStorage:
			err = k.Launch(global, local, n, n+1, pp.stride, p, in, out, status, pp.tol,
				kernels.Local(8*elimLocalSize), kernels.Local(4*elimLocalSize))
		case pp.st == vec4Storage && !pivot:
			err = k.Launch(global, local, n, pp.stride/4, p, in, out, status, pp.tol)
		case pp.st == vec4Storage:
			err = k.Launch(global, local, n, pp.stride/4, p, in, out, status, pp.tol,
				kernels.Local(8*elimLocalSize), kernels.Local(4*elimLocalSize))
		case !pivot:
			err = k.Launch(global, local, p, in, out, status, float32(pp.tol))
		default:
			err = k.Launch(global, local, p, in, out, status, float32(pp.tol),
				kernels.Local(4*elimLocalSize), kernels.Local(4*elimLocalSize))
		}
		if err != nil {
			return errKernel(name, err)
		}
	}
	return nil
}

// grid returns the global size covering cols x rows work-items with 16 x 16
// work-groups, at most maxGroups of them (the kernels loop over the rest).
func grid(cols, rows, maxGroups int) []int {
	g0 := (cols + elimLocal0 - 1) / elimLocal0
	g1 := (rows + elimLocal1 - 1) / elimLocal1
	g0 = max(1, min(g0, maxGroups))
	g1 = max(1, min(g1, maxGroups/g0))
	return []int{g0 * elimLocal0, g1 * elimLocal1}
}

// solvePingPong runs a ping-pong variant end to end.
func solvePingPong(dev *kernels.Device, a mat.Matrix, b []float64, n int, opts Options, st storage) ([]float64, *Report, error) {
	start := time.Now()
	clock := newPhaseClock(dev)
	launches0 := dev.Launches()
	rep := &Report{Device: dev.Name(), Variant: st.name(), Pivot: opts.Pivot, N: n}
	prog, err := st.program(dev)
	if err != nil {
		return nil, nil, err
	}
	pp := &pingPong{st: st, n: n, stride: st.stride(n)}
	if int64(n)*int64(pp.stride) > math.MaxInt32 {
		// The ping-pong kernels index with 32-bit ints, as the documents do.
		return nil, nil, fmt.Errorf("%w: order %d is too large for the %s variant (use %s)", ErrShape, n, st.name(), VariantBlocked)
	}
	defer pp.release()
	if err := pp.upload(dev, a, b); err != nil {
		return nil, nil, err
	}
	status, err := newStatus(dev)
	if err != nil {
		return nil, nil, err
	}
	defer status.Release()
	if err := dev.Finish(); err != nil {
		return nil, nil, err
	}
	rep.Upload = clock.lap()

	if err := pp.eliminate(dev, prog, opts.Pivot, status); err != nil {
		return nil, nil, err
	}
	if err := dev.Finish(); err != nil {
		return nil, nil, err
	}
	rep.Eliminate = clock.lap()

	tri := triangle{even: pp.mem[0], odd: pp.mem[1], stride: pp.stride, mode: rowsByParity, n: n, elem: 8, tol: pp.tol}
	if opts.Pivot {
		tri.mode = rowsByParityShift
	}
	if st == imageStorage {
		tri.elem = 4
		tri.stride = 0
	}
	xb, err := dev.Alloc(int64(tri.elem * n))
	if err != nil {
		return nil, nil, err
	}
	defer xb.Release()
	if err := tri.gather(prog, n, xb); err != nil {
		return nil, nil, errKernel("trsv_gather", err)
	}
	tile := tileRows(dev, n, tri.elem, opts.BackSubTile)
	if rep.BackSubTiles, err = tri.solve(dev, prog, xb, status, true, false, tile, false); err != nil {
		return nil, nil, errKernel("back-substitution", err)
	}
	x := make([]float64, n)
	if st == imageStorage {
		xf := make([]float32, n)
		if err := xb.Read(0, xf); err != nil {
			return nil, nil, err
		}
		for i, v := range xf {
			x[i] = float64(v)
		}
	} else if err := xb.Read(0, x); err != nil {
		return nil, nil, err
	}
	rep.BackSubstitution = clock.lap()
	rep.Compile = clock.compile
	if err := readStatus(status, opts.Pivot); err != nil {
		return nil, nil, err
	}
	if err := checkFinite(x); err != nil {
		return nil, nil, err
	}
	rep.finish(start, launches0, dev)
	return x, rep, nil
}
