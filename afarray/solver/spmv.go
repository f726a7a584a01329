package solver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// cgProgram holds the products of every format and the CG kernels.
var cgProgram = solverProgram("dense_common.cl", "cg_common.cl", "spmv.cl", "cg.cl")

// Formats of row_sum in spmv.cl.
const (
	fmtCSC = 1
	fmtSKS = 2
)

// rowProduct describes a format to the fused row kernels: the value buffer,
// up to five index buffers (unused ones repeat a valid buffer), the number
// of stored values and the team size.
type rowProduct struct {
	fmt  int
	n    int
	le   int
	val  *kernels.Buffer
	idx  [5]*kernels.Buffer
	team int
}

// teamSize is the number of items that share a row. On a GPU it is the
// average number of entries a row touches, rounded up to a power of two in
// [1, 32], so that long rows are split over a warp's lanes (coalesced
// loads of column runs) and short rows do not leave most of it idle. On a
// CPU device it is 1: PoCL runs a group's items as vector lanes, so an item
// per row vectorizes across rows, while a team's barrier-separated
// reduction costs more than it saves. forceTeam (tests) overrides both.
func teamSize(dev *kernels.Device, entriesPerRow float64) int {
	if forceTeam > 0 {
		return forceTeam
	}
	if strings.Contains(strings.ToUpper(dev.Info().Type), "CPU") {
		return 1
	}
	t := 1
	for float64(t) < entriesPerRow && t < 32 {
		t *= 2
	}
	return t
}

// forceTeam, when positive, fixes the team size (tests use it to cover
// every path on any device).
var forceTeam int

// args returns the kernel arguments val, ia..ie.
func (p *rowProduct) args() []any {
	a := []any{p.val}
	for _, b := range p.idx {
		if b == nil {
			b = p.val
		}
		a = append(a, b)
	}
	return a
}

// rowsGroups is the number of work-groups of a row kernel with local items.
func (p *rowProduct) rowsGroups(local int) int {
	return groupsFor(p.n, local/p.team)
}

// mulVec enqueues y = A x with spmv_rows.
func (p *rowProduct) mulVec(dev *kernels.Device, x, y *kernels.Buffer) error {
	k, err := cgProgram.Kernel(dev, "spmv_rows")
	if err != nil {
		return err
	}
	local := max(p.team, pow2Below(min(cgLocal, k.MaxWorkGroupSize())))
	args := append([]any{p.fmt, p.n, p.le}, p.args()...)
	args = append(args, x, y, p.team, kernels.Local(8*local))
	return k.Launch([]int{p.rowsGroups(local) * local}, []int{local}, args...)
}

// uploadInt32 copies v into a new device buffer (at least one word).
func uploadInt32(dev *kernels.Device, v []int32) (*kernels.Buffer, error) {
	b, err := dev.Alloc(4 * int64(max(1, len(v))))
	if err != nil {
		return nil, err
	}
	if len(v) > 0 {
		if err := b.Write(0, v); err != nil {
			b.Release()
			return nil, err
		}
	}
	return b, nil
}

// The CSC and skyline operators implement both variants here; CSC is CG's
// default format (priority 1).
func init() {
	registerOperator(FormatCSC, 1, func(m any, v Variant) (Operator, error) { return NewCSCOperator(m.(*afarray.CSC), v) })
	registerOperator(FormatSKS, 0, func(m any, v Variant) (Operator, error) { return NewSKSOperator(m.(*afarray.SKS), v) })
}

// sparseOperator is what the CSC and skyline operators share: the values
// and indices as the row kernels see them, the variant, the thesis
// product's kernel, its launches per product and its matrix arguments, and
// the index buffers the fast variant made.
type sparseOperator struct {
	name       string // in errors
	elements   *afarray.Array
	v          Variant
	p          rowProduct
	thesis     string
	phases     int
	thesisArgs []any
	owned      []*kernels.Buffer
}

// rowOperator is CSCOperator and SKSOperator: the matrix m, kept as given
// (the operator uses its arrays), and the product.
type rowOperator[M operandMatrix] struct {
	m M
	sparseOperator
}

// operandMatrix is what the row operators take: a device matrix in the
// thesis's CSC or skyline layout.
type operandMatrix interface{ *afarray.CSC | *afarray.SKS }

// operatorFormat is what newSparseOperator needs to know of a format: its
// name in errors, row_sum's format code, the thesis product's kernel and
// launches, a matrix's order, values and index arrays (the first idx slots
// of the product), the lengths the index arrays must have, and what the
// fast variant adds to the product.
type operatorFormat[M operandMatrix] struct {
	name, thesis string
	code, phases int
	arrays       func(m M) (n int, elements *afarray.Array, index []*afarray.Array)
	indexLen     func(n, le int) []int
	fast         func(o *sparseOperator, m M, dev *kernels.Device) error
}

// newSparseOperator is NewCSCOperator and NewSKSOperator: the variant, m's
// arrays (not released, of consistent lengths), the elements' buffer,
// checked for NaN and Inf, the index arrays' buffers (the first slots of
// the product's idx, and after the values the thesis kernel's arguments);
// then the thesis variant's need for atomics, or the fast variant's
// additions.
func newSparseOperator[O ~struct{ rowOperator[M] }, M operandMatrix](v Variant, f operatorFormat[M], m M) (*O, error) {
	v, err := normVariant(v)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%w: %s operator", ErrReleased, f.name)
	}
	n, elements, index := f.arrays(m)
	if elements.Released() || slices.ContainsFunc(index, (*afarray.Array).Released) {
		return nil, fmt.Errorf("%w: %s operator", ErrReleased, f.name)
	}
	lens := make([]int, len(index))
	for i, a := range index {
		lens[i] = a.Len()
	}
	if want := f.indexLen(n, elements.Len()); n <= 0 || !slices.Equal(lens, want) {
		return nil, fmt.Errorf("%w: %s operator: n=%d with %d values and index arrays of %v entries, want %v",
			ErrShape, f.name, n, elements.Len(), lens, want)
	}
	val, err := float64Buffer(elements, f.name+" elements")
	if err != nil {
		return nil, err
	}
	dev := elements.Device()
	if err := checkMatrixValues(dev, val, elements.Len()); err != nil {
		return nil, err
	}
	so := &sparseOperator{name: f.name + " operator", elements: elements, v: v,
		p:      rowProduct{fmt: f.code, n: n, le: elements.Len(), val: val},
		thesis: f.thesis, phases: f.phases, thesisArgs: []any{val}}
	for i, a := range index {
		if so.p.idx[i], err = a.DeviceBuffer(); err != nil {
			return nil, err
		}
		so.thesisArgs = append(so.thesisArgs, so.p.idx[i])
	}
	if v == Thesis {
		err = needAtomics(dev, v, f.name)
	} else {
		err = f.fast(so, m, dev)
	}
	if err != nil {
		return nil, err
	}
	return &O{rowOperator[M]{m, *so}}, nil
}

// N returns the order.
func (o *sparseOperator) N() int { return o.p.n }

// Variant returns the operator's variant.
func (o *sparseOperator) Variant() Variant { return o.v }

// MulVecTo sets dst = A x.
func (o *sparseOperator) MulVecTo(dst, x *afarray.Array) error {
	if o.p.val == nil || o.elements.Released() {
		return fmt.Errorf("%w: %s", ErrReleased, o.name)
	}
	d, xb, err := checkMulVec(o.elements, o.p.n, dst, x)
	if err != nil {
		return err
	}
	dev := o.elements.Device()
	if o.v == Fast {
		return o.p.mulVec(dev, xb, d)
	}
	k, err := cgProgram.Kernel(dev, o.thesis)
	if err != nil {
		return err
	}
	g, l := thesisGeometry(k)
	for step := 0; step < o.phases; step++ {
		args := slices.Concat([]any{step, o.p.n, o.p.le}, o.thesisArgs, []any{xb, d, kernels.Local(8 * l[0])})
		if err := k.Launch(g, l, args...); err != nil {
			return err
		}
	}
	return nil
}

// DiagonalTo sets dst to the diagonal of A.
func (o *sparseOperator) DiagonalTo(dst *afarray.Array) error {
	return diagonalIndexed(o.elements, o.p.val, o.p.idx[0], o.p.n, dst)
}

// Release frees the index the fast variant built (not the matrix).
func (o *sparseOperator) Release() {
	for _, b := range o.owned {
		b.Release()
	}
	o.owned, o.p.val = nil, nil
}

// fused returns the row product the fast CG fuses into its iteration (nil
// for the thesis variant, whose product stays separate).
func (o *sparseOperator) fused() *rowProduct {
	if o.v == Fast {
		return &o.p
	}
	return nil
}

// needAtomics rejects, for the thesis variant, a device without the 64-bit
// atomics its scatter needs.
func needAtomics(dev *kernels.Device, v Variant, what string) error {
	if v == Thesis && !dev.Info().Int64Atomics {
		return fmt.Errorf("%w: the thesis %s product needs 64-bit atomics, which %s lacks", ErrDevice, what, dev.Name())
	}
	return nil
}

// CSCOperator is a symmetric matrix in the thesis's lower CSC layout
// (afarray.CSC) as an Operator.
//
// Thesis variant (§4.7): three launches of the thesis's geometry per
// product: Lᵀx gathered by a group per column with a local reduction, Lx
// scattered by a group per column with the compare-and-swap double atomic
// add (it needs a device with 64-bit atomics), then Dx. (The thesis also
// rebuilt the program and copied x on every call; here the program is
// cached.)
//
// Fast variant: one launch without atomics. NewCSCOperator builds, once, a
// transposed index of the strict lower triangle (for each row, the element
// positions and columns of its entries left of the diagonal; 8 bytes per
// off-diagonal entry plus 4(n+1)), so that a team of items sized to the
// average row computes each row completely: column i's entries directly,
// the rest through the index. No atomics, no second pass over the vector,
// each result written once.
type CSCOperator struct{ rowOperator[*afarray.CSC] }

// NewCSCOperator wraps m (not copied; it must outlive the operator). It
// checks the values for NaN and Inf; the fast variant also downloads the
// index vectors once (m.Host, cached by m) to build the transposed index.
// Release frees that index.
func NewCSCOperator(m *afarray.CSC, v Variant) (*CSCOperator, error) {
	return newSparseOperator[CSCOperator](v, cscOperator, m)
}

// SKSOperator is a symmetric matrix in the thesis's skyline layout
// (afarray.SKS) as an Operator.
//
// Thesis variant (§4.10): two launches of the thesis's geometry per
// product: (D + Lᵀ)x gathered by a group per row, strict Lx scattered by a
// group per column with the double atomic add.
//
// Fast variant: one launch without atomics. NewSKSOperator computes on the
// device, once, first[i], the first column whose run reaches row i (4n
// bytes); by the monotone last-row rule row i's strict lower part is then
// the contiguous column range first[i]..i-1, so a team of items computes
// each row whole: its own column's run (contiguous, coalesced) plus that
// range.
type SKSOperator struct{ rowOperator[*afarray.SKS] }

// NewSKSOperator wraps m (not copied; it must outlive the operator) and
// checks its values for NaN and Inf. Release frees the fast variant's
// first-row index.
func NewSKSOperator(m *afarray.SKS, v Variant) (*SKSOperator, error) {
	return newSparseOperator[SKSOperator](v, sksOperator, m)
}

// The two formats' operators: for CSC the index arrays are the diagonal
// positions (n) and the rows of the off-diagonal entries (le - n); for the
// skyline the diagonal positions (n).
var (
	cscOperator = operatorFormat[*afarray.CSC]{name: "CSC", code: fmtCSC, thesis: "csc_spmv_thesis", phases: 3,
		arrays: func(m *afarray.CSC) (int, *afarray.Array, []*afarray.Array) {
			return m.N, m.Elements, []*afarray.Array{m.DiagPos, m.RowIdx}
		},
		indexLen: func(n, le int) []int { return []int{n, le - n} }, fast: cscRowIndex}
	sksOperator = operatorFormat[*afarray.SKS]{name: "SKS", code: fmtSKS, thesis: "sks_spmv_thesis", phases: 2,
		arrays: func(m *afarray.SKS) (int, *afarray.Array, []*afarray.Array) {
			return m.N, m.Elements, []*afarray.Array{m.Index}
		},
		indexLen: func(n, le int) []int { return []int{n} }, fast: sksFirstRows}
)

// cscRowIndex builds the fast CSC product's transposed index of the strict
// lower triangle (idx slots 2-4) and sets its team size.
func cscRowIndex(o *sparseOperator, m *afarray.CSC, dev *kernels.Device) error {
	h, err := m.Host()
	if err != nil {
		return err
	}
	if err := h.Validate(); err != nil {
		return fmt.Errorf("solver: CSC operator: %w", err)
	}
	n := h.N
	rp := make([]int32, n+1)
	for j := 0; j < n; j++ {
		rows, _ := h.ColRows(j)
		for _, r := range rows {
			rp[r+1]++
		}
	}
	for i := 0; i < n; i++ {
		rp[i+1] += rp[i]
	}
	pos := make([]int32, rp[n])
	cols := make([]int32, rp[n])
	next := append([]int32(nil), rp[:n]...)
	for j := 0; j < n; j++ {
		rows, _ := h.ColRows(j)
		first := h.DiagPos[j] + 1
		for k, r := range rows {
			pos[next[r]], cols[next[r]] = first+int32(k), int32(j)
			next[r]++
		}
	}
	bufs := make([]*kernels.Buffer, 0, 3)
	for _, s := range [][]int32{rp, pos, cols} {
		b, err := uploadInt32(dev, s)
		if err != nil {
			for _, b := range bufs {
				b.Release()
			}
			return err
		}
		bufs = append(bufs, b)
	}
	o.p.idx[2], o.p.idx[3], o.p.idx[4] = bufs[0], bufs[1], bufs[2]
	o.owned = bufs
	o.p.team = teamSize(dev, float64(2*o.p.le-n)/float64(n))
	return nil
}

// sksFirstRows computes the fast skyline product's first-row index (idx
// slot 1) on the device and sets its team size.
func sksFirstRows(o *sparseOperator, m *afarray.SKS, dev *kernels.Device) error {
	first, err := dev.Alloc(4 * int64(m.N))
	if err != nil {
		return err
	}
	k, err := cgProgram.Kernel(dev, "sks_first_rows")
	if err != nil {
		first.Release()
		return err
	}
	if err := k.Launch([]int{groupsFor(m.N, denseLocal) * denseLocal}, []int{denseLocal}, m.N, o.p.le, o.p.idx[0], first); err != nil {
		first.Release()
		return err
	}
	o.owned, o.p.idx[1] = []*kernels.Buffer{first}, first
	o.p.team = teamSize(dev, float64(2*o.p.le-m.N)/float64(m.N))
	return nil
}

// diagonalIndexed sets dst[i] = elements[pos[i]].
func diagonalIndexed(ref *afarray.Array, val, pos *kernels.Buffer, n int, dst *afarray.Array) error {
	if val == nil {
		return fmt.Errorf("%w: operator", ErrReleased)
	}
	d, err := checkVector(ref, dst, n, "diagonal")
	if err != nil {
		return err
	}
	k, err := cgProgram.Kernel(ref.Device(), "diag_indexed")
	if err != nil {
		return err
	}
	return k.Launch([]int{groupsFor(n, denseLocal) * denseLocal}, []int{denseLocal}, n, val, pos, d)
}
