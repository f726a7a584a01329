package solver

import (
	"fmt"
	"math"
	"strconv"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// Conjugate gradient on sliced ELLPACK storage (SELL-C, Kreutzer et al.
// 2014, without the row sorting): `oclsolve solve --method cg --format
// sell`, or Run with Options{Method: MethodCG, Format: "sell"}. It stores
// both triangles row by row in slices of sellC rows, so the product is one
// launch of an item per row with coalesced loads and no atomics; CG's fast
// iteration (cg.go, the generic operator path) and its Jacobi
// preconditioning (the diagonal kept at build time) do the rest. This
// file, sell.cl and sell_test.go are the whole solver: the registry takes
// the format, the entry, its default ordering and its report figures from
// init below.

var sellProgram = solverProgram("sell.cl")

// formatSELL is the sliced ELLPACK format (unexported: the registry and
// ParseFormat name it).
const formatSELL Format = "sell"

// sellC is the slice height: a warp of NVIDIA GPUs, a multiple of the
// vector widths PoCL uses on CPUs.
const sellC = 32

// sellLocal is the work-group size of the product (whole slices).
const sellLocal = 4 * sellC

func init() {
	// The ordering: RCM where it shortens the profile, as for CSC (nearby
	// column indices make the reads of x cache-friendly).
	registerFormat(&formatSpec{name: formatSELL, label: "SELL",
		defaultOrder: sparse.OrderAuto, autoOrder: sparse.OrderAutoProfile,
		upload: uploadSELL, thesisMemory: sellMemory})
	register(&entry{method: MethodCG, format: formatSELL, variant: Fast,
		newOperator: func(m any, _ Variant) (Operator, error) { return m.(*sellMatrix).operator() }})
}

// sellMemory is the format's own storage in bytes (the thesis has no
// formula for it): 12 per slot (value and column), 8 per row for the
// diagonal and 4 per slice pointer.
func sellMemory(n, slots int) float64 {
	return 12*float64(slots) + 8*float64(n) + 4*float64(n/sellC+2)
}

// sellHost is the layout built on the host.
type sellHost struct {
	n     int
	ptr   []int32 // slice s's slots are [ptr[s], ptr[s+1])
	col   []int32
	val   []float64
	diag  []float64
	nnz   int64 // stored entries of the whole matrix, without padding
	slots int64
}

// buildSELL lays a out in slices: both triangles of a one-triangle COO,
// duplicates kept (the product sums them, as COO.MulVec does). It refuses,
// before allocating the slots, a layout beyond int32 offsets or the
// device's largest allocation.
func buildSELL(a *sparse.COO, dev *kernels.Device) (*sellHost, error) {
	n := a.Rows
	if a.Cols != n || n == 0 {
		return nil, fmt.Errorf("%w: SELL storage of a %dx%d matrix", ErrShape, a.Rows, a.Cols)
	}
	h := &sellHost{n: n, diag: make([]float64, n)}
	rowLen := make([]int32, n+1)
	for k := range a.V {
		i, j := a.I[k], a.J[k]
		rowLen[i]++
		h.nnz++
		if a.Symmetric && i != j {
			rowLen[j]++
			h.nnz++
		}
		if i == j {
			h.diag[i] += a.V[k]
		}
	}
	slices := (n + sellC - 1) / sellC
	h.ptr = make([]int32, slices+1)
	for s := 0; s < slices; s++ {
		w := int32(0)
		for r := s * sellC; r < min(n, (s+1)*sellC); r++ {
			w = max(w, rowLen[r])
		}
		h.slots += int64(w) * sellC
		if h.slots > math.MaxInt32 {
			return nil, fmt.Errorf("%w: SELL storage of more than %d slots (order %d, %d entries)", ErrShape, math.MaxInt32, n, h.nnz)
		}
		h.ptr[s+1] = int32(h.slots)
	}
	info := dev.Info()
	if need := 8 * max(h.slots, 1); need > info.MaxAllocBytes || 12*h.slots > info.GlobalMemBytes {
		return nil, &kernels.OutOfMemoryError{Device: info.Name, Requested: need, Live: dev.MemoryStats().Live,
			Global: info.GlobalMemBytes, MaxAlloc: info.MaxAllocBytes, Reason: "the SELL values"}
	}
	// The padding can make the layout up to sellC times the entries: the
	// host must hold it too while it is built.
	if err := sparse.CheckHostMemory(fmt.Sprintf("SELL storage of order %d (%d slots)", n, h.slots), 12*h.slots); err != nil {
		return nil, err
	}
	h.col, h.val = make([]int32, h.slots), make([]float64, h.slots)
	// Padding: column of the row itself (a valid index), value 0.
	for r := 0; r < n; r++ {
		s := r / sellC
		for p := int(h.ptr[s]) + r%sellC; p < int(h.ptr[s+1]); p += sellC {
			h.col[p] = int32(r)
		}
	}
	clear(rowLen)
	put := func(i, j int32, v float64) {
		p := int64(h.ptr[i/sellC]) + int64(rowLen[i])*sellC + int64(i%sellC)
		h.col[p], h.val[p] = j, v
		rowLen[i]++
	}
	for k, v := range a.V {
		i, j := a.I[k], a.J[k]
		put(i, j, v)
		if a.Symmetric && i != j {
			put(j, i, v)
		}
	}
	return h, nil
}

// sellMatrix is the layout on the device: Run's device matrix for the
// format, and what the operator reads.
type sellMatrix struct {
	n, slices  int
	nnz, slots int64
	ptr, col   *kernels.Buffer
	val, diag  *afarray.Array
}

// uploadSELL is the format's upload (formatSpec.upload): build on the
// host, then copy the four arrays.
func uploadSELL(a *sparse.COO) (any, int, func(), error) {
	dev, err := afarray.CurrentDevice()
	if err != nil {
		return nil, 0, nil, err
	}
	h, err := buildSELL(a, dev)
	if err != nil {
		return nil, 0, nil, err
	}
	m := &sellMatrix{n: h.n, slices: len(h.ptr) - 1, nnz: h.nnz, slots: h.slots}
	if m.ptr, err = uploadInt32(dev, h.ptr); err == nil {
		if m.col, err = uploadInt32(dev, h.col); err == nil {
			if m.val, err = afarray.FromFloat64s(append(h.val, 0)); err == nil {
				m.diag, err = afarray.FromFloat64s(h.diag)
			}
		}
	}
	if err != nil {
		m.release()
		return nil, 0, nil, err
	}
	return m, int(h.slots), m.release, nil
}

func (m *sellMatrix) release() {
	for _, b := range []*kernels.Buffer{m.ptr, m.col} {
		if b != nil {
			b.Release()
		}
	}
	for _, a := range []*afarray.Array{m.val, m.diag} {
		if a != nil {
			a.Release()
		}
	}
}

// operator checks the values for NaN and Inf (one small read) and wraps
// the matrix as CG's operator.
func (m *sellMatrix) operator() (*sellOperator, error) {
	val, err := m.val.DeviceBuffer()
	if err != nil {
		return nil, err
	}
	if err := checkMatrixValues(m.val.Device(), val, int(m.slots)); err != nil {
		return nil, err
	}
	k, err := sellProgram.Kernel(m.val.Device(), "sell_spmv")
	if err != nil {
		return nil, err
	}
	return &sellOperator{m: m, val: val, k: k}, nil
}

// sellOperator is a SELL matrix as an Operator and Diagonaler. It does not
// own the matrix (Run releases it).
type sellOperator struct {
	m   *sellMatrix
	val *kernels.Buffer
	k   *kernels.Kernel
}

// N returns the order.
func (o *sellOperator) N() int { return o.m.n }

// MulVecTo sets dst = A x: one launch, no wait.
func (o *sellOperator) MulVecTo(dst, x *afarray.Array) error {
	if o.m.val.Released() {
		return fmt.Errorf("%w: SELL operator", ErrReleased)
	}
	d, xb, err := checkMulVec(o.m.val, o.m.n, dst, x)
	if err != nil {
		return err
	}
	return o.k.Launch([]int{groupsFor(o.m.n, sellLocal) * sellLocal}, []int{sellLocal},
		o.m.n, sellC, o.m.ptr, o.m.col, o.val, xb, d)
}

// DiagonalTo sets dst to the diagonal of A (kept from the build).
func (o *sellOperator) DiagonalTo(dst *afarray.Array) error {
	if o.m.diag.Released() {
		return fmt.Errorf("%w: SELL operator", ErrReleased)
	}
	d, err := checkVector(o.m.val, dst, o.m.n, "diagonal")
	if err != nil {
		return err
	}
	src, err := o.m.diag.DeviceBuffer()
	if err != nil {
		return err
	}
	return src.CopyTo(d, 0, 0, 8*int64(o.m.n))
}

// reportStats gives Run's report the layout's figures: slices, stored
// slots and the share of them that is padding.
func (o *sellOperator) reportStats() []Stat {
	pad := 0.0
	if o.m.slots > 0 {
		pad = 100 * float64(o.m.slots-o.m.nnz) / float64(o.m.slots)
	}
	return []Stat{
		{Key: "sell_slices", Value: o.m.slices, Group: "storage", Format: "%d slices of " + strconv.Itoa(sellC) + " rows"},
		{Key: "sell_slots", Value: o.m.slots, Group: "storage", Format: "%d slots"},
		{Key: "sell_padding_pct", Value: pad, Group: "storage", Format: "%.1f%% padding"},
	}
}
