package afarray

import (
	_ "embed"
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// Conversions of a device COO to the CSC, SKS and CSR layouts, done on the
// device with memory proportional to the number of entries: no dense
// intermediate, so that an order-142k system converts in a few hundred MB
// instead of 162 GB (docs/thesis.md, §3.5).
//
// The pipeline (convert.cl, scan.cl), for a COO of nnz items:
//
//  1. map_count: each item is validated and mapped to a segment (a column
//     for CSC/SKS, a row for CSR) and a key (its row, or column); segment
//     sizes are counted with int32 atomics.
//  2. An exclusive scan of the counts gives every segment's start; bucket
//     drops the items into their segments with atomic slot counters.
//  3. rank_segments sorts each segment by (key, item index): an item's rank
//     is the number of smaller pairs in its segment. The order no longer
//     depends on the atomics, so the result is deterministic.
//  4. heads flags the first item of every run of equal keys; a scan of the
//     flags numbers the distinct entries, and sum_runs adds up each run in
//     increasing item order, exactly as the host's Compact does. The
//     results are therefore bit-identical to sparse.CSCFromCOO,
//     sparse.SKSFromCOO and sparse.CSRFromCOO.
//  5. A format pass: column counts and a scan for CSC (the diagonal always
//     stored), a running maximum of the last rows and a 64-bit scan of the
//     heights for SKS (the monotone rule), row starts for CSR.
//
// The host waits for the device once per conversion: it reads one status
// block (error flags, the number of distinct entries, the output size) to
// size the result arrays.

//go:embed convert.cl
var convertSource string

// convertPrograms holds the conversion kernels.
var convertPrograms = &kernels.ProgramSet{Sources: []kernels.Source{{Name: "scan.cl", Text: scanSource}, {Name: "convert.cl", Text: convertSource}}}

// convertProgram returns the conversion kernels built for dev.
func convertProgram(dev *kernels.Device) (*kernels.Program, error) { return convertPrograms.On(dev) }

// Mapping modes of map_count (MODE_* in convert.cl).
const (
	modeLower   = 0 // CSC and SKS: column of the lower-triangle position, key side*n + row
	modeRows    = 1 // CSR of a general COO: row, key column
	modeRowsSym = 2 // CSR of a Symmetric COO: every entry also stands for its mirror
)

// Words of the status block (ST_* and FLAG_* in convert.cl).
const (
	stFlags     = 0
	stBadIndex  = 1
	stBadValue  = 2
	stAsymCol   = 3
	stDistinct  = 4 // number of distinct entries
	stSize      = 5 // int32 output size (CSC elements)
	stSize64    = 6 // int64 output size (SKS elements), words 6 and 7
	statusWords = 8

	flagIndex = 1
	flagValue = 2
	flagAsym  = 4
)

// conversion is the state of one conversion: its program, its temporary
// buffers and the first error met, so that the pipeline reads as a list of
// steps. Every step after an error does nothing.
type conversion struct {
	coo    *COO
	dev    *kernels.Device
	prog   *kernels.Program
	status *kernels.Buffer
	temps  []*kernels.Buffer
	err    error
}

// newConversion checks the COO on the host (the indices are checked on the
// device) and prepares a conversion. square requires Rows == Cols.
func (m *COO) newConversion(square bool) (*conversion, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil COO", ErrReleased)
	}
	for _, a := range []*Array{m.I, m.J, m.V} {
		if err := a.usable(); err != nil {
			return nil, err
		}
	}
	if m.I.dtype != Int32 || m.J.dtype != Int32 || m.V.dtype != Float64 {
		return nil, fmt.Errorf("%w: COO needs int32 I and J and float64 V, got %s, %s, %s", ErrDType, m.I.dtype, m.J.dtype, m.V.dtype)
	}
	if m.I.dev != m.V.dev || m.J.dev != m.V.dev {
		return nil, ErrDevice
	}
	nnz := m.V.Len()
	if m.I.Len() != nnz || m.J.Len() != nnz {
		return nil, fmt.Errorf("%w: %w: COO arrays have lengths I=%d J=%d V=%d", ErrShape, sparse.ErrShape, m.I.Len(), m.J.Len(), nnz)
	}
	if m.Rows < 0 || m.Cols < 0 || m.Rows >= math.MaxInt32 || m.Cols >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %w: COO shape %dx%d", ErrShape, sparse.ErrShape, m.Rows, m.Cols)
	}
	if (square || m.Symmetric) && m.Rows != m.Cols {
		return nil, fmt.Errorf("%w: %w: %dx%d matrix is not square", ErrShape, sparse.ErrShape, m.Rows, m.Cols)
	}
	prog, err := convertProgram(m.V.dev)
	if err != nil {
		return nil, err
	}
	c := &conversion{coo: m, dev: m.V.dev, prog: prog}
	c.status = c.alloc(statusWords, 4)
	if c.err == nil {
		c.err = c.status.Write(0, []int32{0, math.MaxInt32, math.MaxInt32, math.MaxInt32, 0, 0, 0, 0})
	}
	if c.err != nil {
		c.free()
		return nil, c.err
	}
	return c, nil
}

// free releases the temporaries. Commands still queued on them complete
// first (OpenCL keeps the memory alive until then).
func (c *conversion) free() {
	for _, b := range c.temps {
		b.Release()
	}
	c.temps = nil
}

// alloc returns a temporary buffer of n elements of size bytes.
func (c *conversion) alloc(n int, size int64) *kernels.Buffer {
	if c.err != nil {
		return nil
	}
	b, err := c.dev.Alloc(int64(n) * size)
	if err != nil {
		c.err = fmt.Errorf("afarray: COO conversion: %w", err)
		return nil
	}
	c.temps = append(c.temps, b)
	return b
}

// zeros returns a temporary buffer of n zero int32s.
func (c *conversion) zeros(n int) *kernels.Buffer {
	b := c.alloc(n, 4)
	c.zero(b, n, 4)
	return b
}

// zero enqueues the clearing of n elements of size bytes.
func (c *conversion) zero(b *kernels.Buffer, n int, size int64) {
	if c.err == nil {
		c.err = b.Fill(make([]byte, size), 0, int64(n)*size)
	}
}

// launch enqueues kernel name over n work-items (none when n is 0).
func (c *conversion) launch(name string, n int, args ...any) {
	if c.err != nil || n == 0 {
		return
	}
	k, err := c.prog.Kernel(name)
	if err != nil {
		c.err = err
		return
	}
	local := min(localSize, k.MaxWorkGroupSize())
	c.err = k.Launch([]int{kernels.RoundUp(n, local)}, []int{local}, args...)
}

// scan returns a new temporary of n+1 elements holding the exclusive scan
// of the n elements of in (the total last).
func (c *conversion) scan(op scanOp, n int, in *kernels.Buffer) *kernels.Buffer {
	out := c.alloc(n+1, op.elemSize())
	if c.err == nil {
		c.err = scan(c.prog, op, n, in, out)
	}
	return out
}

// note copies element i (of size bytes) of src into the status block at
// word w.
func (c *conversion) note(src *kernels.Buffer, i int, size int64, w int) {
	if c.err == nil {
		c.err = src.CopyTo(c.status, int64(i)*size, int64(w)*4, size)
	}
}

// copyOut copies the first n elements (of size bytes) of src into dst.
func (c *conversion) copyOut(src, dst *kernels.Buffer, n int, size int64) {
	if c.err == nil {
		c.err = src.CopyTo(dst, 0, 0, int64(n)*size)
	}
}

// newOut allocates a result array; it is not a temporary. After an error it
// returns an empty array, which the steps that follow (doing nothing then)
// may name, and which converted releases with the rest of the result.
func (c *conversion) newOut(t DType, n int) *Array {
	if c.err == nil {
		a, err := newArray(c.dev, t, n, 1, true)
		if err == nil {
			return a
		}
		c.err = fmt.Errorf("afarray: COO conversion: %w", err)
	}
	return &Array{}
}

// readStatus waits for the device, reads the status block and turns its
// flags into the error the host conversion would return.
func (c *conversion) readStatus() ([]int32, error) {
	if c.err != nil {
		return nil, c.err
	}
	st := make([]int32, statusWords)
	if err := c.status.Read(0, st); err != nil {
		return nil, err
	}
	flags := st[stFlags]
	m := c.coo
	// Like sparse.COO.Validate, report the first bad entry.
	if flags&flagIndex != 0 && (flags&flagValue == 0 || st[stBadIndex] < st[stBadValue]) {
		k := int64(st[stBadIndex])
		ij := make([]int32, 2)
		if err := m.I.buf.Read(4*k, ij[:1]); err != nil {
			return nil, err
		}
		if err := m.J.buf.Read(4*k, ij[1:]); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w: COO entry %d at (%d,%d) outside %dx%d", ErrIndex, sparse.ErrIndex, k, ij[0], ij[1], m.Rows, m.Cols)
	}
	if flags&flagValue != 0 {
		k := int64(st[stBadValue])
		v := make([]float64, 1)
		if err := m.V.buf.Read(8*k, v); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: COO entry %d is %v", sparse.ErrNaN, k, v[0])
	}
	if flags&flagAsym != 0 {
		return nil, fmt.Errorf("%w: the lower and upper triangles differ (relative tolerance 1e-12), first in column %d", sparse.ErrNotSymmetric, st[stAsymCol])
	}
	return st, nil
}

// compacted holds the distinct entries of a COO grouped by segment and
// sorted by key within each, duplicates summed; all on the device.
type compacted struct {
	items int             // items mapped (nnz, or 2·nnz for modeRowsSym)
	start *kernels.Buffer // nseg+1: first bucketed item of each segment
	// hpos (items+1) numbers the distinct entries: segment s's entries are
	// hpos[start[s]] .. hpos[start[s+1]]-1, and hpos[items] counts them.
	hpos       *kernels.Buffer
	useg, ukey *kernels.Buffer // int32 segment and key of each distinct entry
	uval       *kernels.Buffer // float64 summed value of each distinct entry
}

// compact runs steps 1 to 4 of the pipeline and notes the number of
// distinct entries in the status block.
func (c *conversion) compact(mode, nseg int) *compacted {
	m := c.coo
	nnz := m.V.Len()
	items := nnz
	if mode == modeRowsSym {
		items = 2 * nnz
	}
	if int64(items) >= math.MaxInt32 {
		c.err = fmt.Errorf("%w: %w: %d COO entries exceed int32 indexing", ErrShape, sparse.ErrShape, nnz)
		return nil
	}
	sym := 0
	if m.Symmetric {
		sym = 1
	}
	g := &compacted{items: items}
	segOf, keyOf := c.alloc(items, 4), c.alloc(items, 4)
	count := c.zeros(nseg)
	c.launch("map_count", items, int32(items), int32(mode), int32(sym), int32(m.Rows), int32(m.Cols),
		m.I.buf, m.J.buf, m.V.buf, segOf, keyOf, count, c.status)
	g.start = c.scan(scanAddInt32, nseg, count)
	c.zero(count, nseg, 4) // reused as the slot counters
	item, key := c.alloc(items, 4), c.alloc(items, 4)
	c.launch("bucket", items, int32(items), segOf, keyOf, g.start, count, item, key)
	sortedItem, sortedKey := c.alloc(items, 4), c.alloc(items, 4)
	c.launch("rank_segments", items, int32(nseg), segOf, g.start, item, key, sortedItem, sortedKey)
	// Buffers that are dead by now are reused: this cuts the peak from 48
	// to 36 bytes per item, and on a CPU device the first-touch cost of
	// fresh memory.
	head := item
	c.launch("heads", items, int32(items), int32(nseg), segOf, g.start, sortedItem, sortedKey, head)
	g.hpos = c.scan(scanAddInt32, items, head)
	g.useg, g.ukey, g.uval = key, keyOf, c.alloc(items, 8)
	c.launch("sum_runs", items, int32(nseg), int32(mode), g.start, head, g.hpos, segOf, sortedItem, sortedKey,
		m.V.buf, g.useg, g.ukey, g.uval)
	c.note(g.hpos, items, 4, stDistinct)
	return g
}

// lowerColumns starts the conversion of a square m to a layout of its lower
// triangle, what ToCSC and ToSKS build from: it compacts the entries by
// columns of the lower triangle, checks a full m for symmetry, and returns
// the conversion (the caller frees it), the grouping, and per column the
// number of CSC entries and the last stored row. With csc the CSC of m must
// fit int32 indexing too, checked before any work.
func (m *COO) lowerColumns(csc bool) (c *conversion, g *compacted, cscCount, lastRow *kernels.Buffer, err error) {
	if c, err = m.newConversion(true); err != nil {
		return nil, nil, nil, nil, err
	}
	n := m.Rows
	switch {
	case csc && int64(m.V.Len())+int64(n) >= math.MaxInt32:
		c.err = fmt.Errorf("%w: %w: CSC of %d entries and order %d exceeds int32 indexing", ErrShape, sparse.ErrShape, m.V.Len(), n)
	case !m.Symmetric && n >= math.MaxInt32/2:
		// The key side*n + row must fit an int32.
		c.err = fmt.Errorf("%w: %w: order %d too large for the symmetry check of a full COO", ErrShape, sparse.ErrShape, n)
	default:
		g = c.compact(modeLower, n)
	}
	if c.err == nil {
		if !m.Symmetric {
			c.launch("symcheck", g.items, int32(g.items), int32(n), g.start, g.hpos, g.useg, g.ukey, g.uval, c.status)
		}
		cscCount, lastRow = c.alloc(n, 4), c.alloc(n, 4)
		c.launch("lower_columns", n, int32(n), g.start, g.hpos, g.ukey, cscCount, lastRow)
	}
	if c.err != nil {
		c.free()
		return nil, nil, nil, nil, c.err
	}
	return c, g, cscCount, lastRow, nil
}

// ToCSC converts the matrix to the thesis's lower CSC layout on the device,
// with the same result, bit for bit, as sparse.CSCFromCOO on the host copy:
// entries in any order, duplicates summed in entry order, the diagonal
// always stored, explicit zeros kept. m may hold one triangle (Symmetric,
// either one) or both (checked for symmetry, error wrapping
// sparse.ErrNotSymmetric). An index outside the matrix gives an error
// wrapping ErrIndex and sparse.ErrIndex, a NaN or infinite value one
// wrapping sparse.ErrNaN. m is not modified.
func (m *COO) ToCSC() (*CSC, error) {
	c, g, cscCount, _, err := m.lowerColumns(true)
	if err != nil {
		return nil, err
	}
	defer c.free()
	n := m.Rows
	colPtr := c.scan(scanAddInt32, n, cscCount)
	c.note(colPtr, n, 4, stSize)
	st, err := c.readStatus()
	if err != nil {
		return nil, err
	}
	le, nu := int(st[stSize]), int(st[stDistinct])
	out := &CSC{N: n, DiagPos: c.newOut(Int32, n), Elements: c.newOut(Float64, le), RowIdx: c.newOut(Int32, le-n)}
	c.copyOut(colPtr, out.DiagPos.buf, n, 4)
	c.launch("csc_fill", nu, int32(nu), int32(n), g.start, g.hpos, g.useg, g.ukey, g.uval, colPtr, out.Elements.buf, out.RowIdx.buf)
	c.launch("csc_zero_diag", n, int32(n), g.start, g.hpos, g.ukey, colPtr, out.Elements.buf)
	return converted(c, out)
}

// ToSKS converts the matrix to the thesis's skyline layout on the device,
// with the same result, bit for bit, as sparse.SKSFromCOO on the host copy:
// every stored entry (explicit zeros too) extends its column's run, and
// columns are padded to the monotone last row. Input rules and errors are
// those of ToCSC; a skyline longer than int32 indexing allows gives an error
// wrapping ErrShape and sparse.ErrShape. m is not modified.
func (m *COO) ToSKS() (*SKS, error) {
	c, g, _, lastRow, err := m.lowerColumns(false)
	if err != nil {
		return nil, err
	}
	defer c.free()
	n := m.Rows
	lastMax := c.scan(scanMaxInt32, n, lastRow)
	height := c.alloc(n, 8)
	c.launch("sks_heights", n, int32(n), lastMax, height)
	index64 := c.scan(scanAddInt64, n, height)
	c.note(index64, n, 8, stSize64)
	st, err := c.readStatus()
	if err != nil {
		return nil, err
	}
	// Devices and hosts that run OpenCL are little-endian.
	total := int64(uint32(st[stSize64])) | int64(st[stSize64+1])<<32
	if total >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: %w: skyline of %d entries exceeds int32 indexing", ErrShape, sparse.ErrShape, total)
	}
	nu := int(st[stDistinct])
	out := &SKS{N: n, Index: c.newOut(Int32, n), Elements: c.newOut(Float64, int(total))}
	c.launch("to_int32", n, int32(n), index64, out.Index.buf)
	c.zero(out.Elements.buf, int(total), 8)
	c.launch("sks_fill", nu, int32(nu), int32(n), g.useg, g.ukey, g.uval, out.Index.buf, out.Elements.buf)
	return converted(c, out)
}

// compactRows starts a conversion that groups m's entries by row (both
// triangles of a Symmetric m), columns increasing, duplicates summed in
// entry order: what ToCSR and ToDense build from. It returns the
// conversion (the caller frees it), the grouping and the number of distinct
// entries.
func (m *COO) compactRows() (*conversion, *compacted, int, error) {
	c, err := m.newConversion(false)
	if err != nil {
		return nil, nil, 0, err
	}
	mode := modeRows
	if m.Symmetric {
		mode = modeRowsSym
	}
	g := c.compact(mode, m.Rows)
	st, err := c.readStatus()
	if err != nil {
		c.free()
		return nil, nil, 0, err
	}
	return c, g, int(st[stDistinct]), nil
}

// ToCSR converts the matrix to compressed sparse rows on the device, with
// the same result, bit for bit, as sparse.CSRFromCOO on the host copy:
// columns increasing in each row, duplicates summed in entry order, a
// Symmetric m expanded to both triangles, explicit zeros kept. A general m
// may be rectangular. Index and value errors are those of ToCSC. m is not
// modified.
func (m *COO) ToCSR() (*CSR, error) {
	c, g, nu, err := m.compactRows()
	if err != nil {
		return nil, err
	}
	defer c.free()
	out := &CSR{Rows: m.Rows, Cols: m.Cols, RowPtr: c.newOut(Int32, m.Rows+1), ColIdx: c.newOut(Int32, nu), Values: c.newOut(Float64, nu)}
	c.launch("csr_rowptr", m.Rows+1, int32(m.Rows), g.start, g.hpos, out.RowPtr.buf)
	c.copyOut(g.ukey, out.ColIdx.buf, nu, 4)
	c.copyOut(g.uval, out.Values.buf, nu, 8)
	return converted(c, out)
}

// ToDense converts the matrix to a dense column-major Rows x Cols array on
// the device, so that only the entries cross the bus (8n² bytes built on
// the host and uploaded otherwise: 537 MB at n = 8192). The result is the
// same, bit for bit, as sparse.COO.ToDense on the host copy: duplicates
// summed in entry order, a Symmetric m expanded to both triangles, explicit
// zeros kept. A general m may be rectangular. Index and value errors are
// those of ToCSC; a matrix of more than 2^31-1 elements gives an error
// wrapping ErrShape. m is not modified.
func (m *COO) ToDense() (*Array, error) {
	if int64(m.Rows)*int64(m.Cols) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %w: dense %dx%d has more than 2^31-1 elements", ErrShape, sparse.ErrShape, m.Rows, m.Cols)
	}
	c, g, nu, err := m.compactRows()
	if err != nil {
		return nil, err
	}
	defer c.free()
	out, err := newArray(c.dev, Float64, m.Rows, m.Cols, false)
	if err != nil {
		return nil, fmt.Errorf("afarray: COO conversion: %w", err)
	}
	c.zero(out.buf, m.Rows*m.Cols, 8)
	c.launch("dense_fill", nu, int32(nu), int32(m.Rows), g.useg, g.ukey, g.uval, out.buf)
	if c.err != nil {
		out.Release()
		return nil, c.err
	}
	out.touch()
	return out, nil
}

// converted ends a conversion: out, or, after the conversion's first
// error, nothing (out released) and that error.
func converted[T interface{ Release() }](c *conversion, out T) (T, error) {
	if c.err != nil {
		out.Release()
		var none T
		return none, c.err
	}
	return out, nil
}
