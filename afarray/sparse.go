package afarray

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// The sparse storage formats, resident on the device. Each is a small set of
// Arrays (values as Float64, indices as Int32, 0-based, in exactly the host
// layouts of package sparse), so they share Array's semantics: the data stays
// on the device, Host downloads it only when asked and caches it, transfers
// are counted, and Release frees the memory at once.

// CSC is a symmetric matrix in the thesis's lower CSC layout (see
// sparse.CSC) on the device.
type CSC struct {
	N        int
	Elements *Array // Float64, le values
	DiagPos  *Array // Int32, N: the position of each column's diagonal in Elements (the thesis's colIdx)
	RowIdx   *Array // Int32, le-N off-diagonal rows
}

// SKS is a symmetric matrix in the thesis's skyline layout (see sparse.SKS)
// on the device.
type SKS struct {
	N        int
	Elements *Array // Float64, le values
	Index    *Array // Int32, N diagonal positions
}

// COO is a sparse matrix in coordinate form on the device.
type COO struct {
	Rows, Cols int
	Symmetric  bool
	I, J       *Array // Int32
	V          *Array // Float64
}

// CSR is a general sparse matrix in compressed sparse row form on the device.
type CSR struct {
	Rows, Cols int
	RowPtr     *Array // Int32, Rows+1
	ColIdx     *Array // Int32
	Values     *Array // Float64
}

// Tridiag is a tridiagonal matrix on the device.
type Tridiag struct {
	N                int
	Sub, Diag, Super *Array // Float64; N-1, N, N-1 elements
}

// uploadAll makes arrays from host slices, without host copies
// (uploadUncached), and releases what was made if one fails, so a failed
// upload leaks nothing.
func uploadAll(parts ...any) ([]*Array, error) {
	out := make([]*Array, 0, len(parts))
	for _, p := range parts {
		var a *Array
		var err error
		switch s := p.(type) {
		case []float64:
			a, err = uploadUncached(s, len(s), Float64)
		case []int32:
			a, err = uploadUncached(s, len(s), Int32)
		}
		if err != nil {
			ReleaseAll(out...)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// fetch downloads one part of a matrix for a Host method (get is the part's
// Float64s or Int32s) unless an earlier part failed: *err keeps the first
// error, so that Host reads as one composite literal, its parts downloaded
// in their order there.
func fetch[T float64 | int32](err *error, get func() ([]T, error)) []T {
	if *err != nil {
		return nil
	}
	v, e := get()
	*err = e
	return v
}

// hostOrErr returns the host matrix a Host method built, or its first error.
func hostOrErr[T any](h *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return h, nil
}

// ReleaseAll releases every array given (nil arrays are skipped).
func ReleaseAll(arrays ...*Array) {
	for _, a := range arrays {
		a.Release()
	}
}

func bytesOf(arrays ...*Array) int64 {
	var n int64
	for _, a := range arrays {
		if !a.Released() {
			n += a.Bytes()
		}
	}
	return n
}

// UploadCSC copies a host CSC matrix to the device after checking its layout.
func UploadCSC(h *sparse.CSC) (*CSC, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	a, err := uploadAll(h.Elements, h.DiagPos, h.RowIdx)
	if err != nil {
		return nil, err
	}
	return &CSC{N: h.N, Elements: a[0], DiagPos: a[1], RowIdx: a[2]}, nil
}

// Host returns the matrix on the host, downloading each part once (later
// calls use the cached copies until a device operation writes to them).
func (m *CSC) Host() (*sparse.CSC, error) {
	var err error
	h := &sparse.CSC{N: m.N, Elements: fetch(&err, m.Elements.Float64s), DiagPos: fetch(&err, m.DiagPos.Int32s), RowIdx: fetch(&err, m.RowIdx.Int32s)}
	return hostOrErr(h, err)
}

// HostStructure returns copies of the diagonal positions and the row
// indices on the host (for a symbolic analysis, which needs no values).
func (m *CSC) HostStructure() (diagPos, rowIdx []int32, err error) {
	diagPos, rowIdx = fetch(&err, m.DiagPos.Int32s), fetch(&err, m.RowIdx.Int32s)
	if err != nil {
		return nil, nil, err
	}
	return diagPos, rowIdx, nil
}

// Release frees the matrix's device memory.
func (m *CSC) Release() { ReleaseAll(m.Elements, m.DiagPos, m.RowIdx) }

// DeviceBuffers returns the device buffers of the elements, the diagonal
// positions and the row indices, for kernels that take the matrix apart.
func (m *CSC) DeviceBuffers() (elements, diagPos, rowIdx *kernels.Buffer, err error) {
	if elements, err = m.Elements.DeviceBuffer(); err != nil {
		return nil, nil, nil, err
	}
	if diagPos, err = m.DiagPos.DeviceBuffer(); err != nil {
		return nil, nil, nil, err
	}
	if rowIdx, err = m.RowIdx.DeviceBuffer(); err != nil {
		return nil, nil, nil, err
	}
	return elements, diagPos, rowIdx, nil
}

// DeviceBytes returns the device memory the matrix really holds.
func (m *CSC) DeviceBytes() int64 { return bytesOf(m.Elements, m.DiagPos, m.RowIdx) }

// ThesisMemory returns the thesis's memory figure 4(3le+2n) in bytes; it
// counts a right-hand side of n doubles that this object does not hold.
func (m *CSC) ThesisMemory() float64 { return sparse.ThesisMemoryCSC(m.N, m.Elements.Len()) }

// String summarises the matrix without moving it.
func (m *CSC) String() string {
	return fmt.Sprintf("afarray.CSC %dx%d, %d stored entries (lower, thesis layout), %s on device", m.N, m.N, m.Elements.Len(), byteString(m.DeviceBytes()))
}

// UploadSKS copies a host skyline matrix to the device after checking its
// layout.
func UploadSKS(h *sparse.SKS) (*SKS, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	a, err := uploadAll(h.Elements, h.Index)
	if err != nil {
		return nil, err
	}
	return &SKS{N: h.N, Elements: a[0], Index: a[1]}, nil
}

// Host returns the matrix on the host (see CSC.Host).
func (m *SKS) Host() (*sparse.SKS, error) {
	var err error
	h := &sparse.SKS{N: m.N, Elements: fetch(&err, m.Elements.Float64s), Index: fetch(&err, m.Index.Int32s)}
	return hostOrErr(h, err)
}

// Release frees the matrix's device memory.
func (m *SKS) Release() { ReleaseAll(m.Elements, m.Index) }

// DeviceBytes returns the device memory the matrix really holds.
func (m *SKS) DeviceBytes() int64 { return bytesOf(m.Elements, m.Index) }

// ThesisMemory returns the thesis's memory figure 4(2le+3n) in bytes.
func (m *SKS) ThesisMemory() float64 { return sparse.ThesisMemorySKS(m.N, m.Elements.Len()) }

// String summarises the matrix without moving it.
func (m *SKS) String() string {
	return fmt.Sprintf("afarray.SKS %dx%d, skyline length %d, %s on device", m.N, m.N, m.Elements.Len(), byteString(m.DeviceBytes()))
}

// UploadCOO copies a host COO matrix to the device.
func UploadCOO(h *sparse.COO) (*COO, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	a, err := uploadAll(h.I, h.J, h.V)
	if err != nil {
		return nil, err
	}
	return &COO{Rows: h.Rows, Cols: h.Cols, Symmetric: h.Symmetric, I: a[0], J: a[1], V: a[2]}, nil
}

// Host returns the matrix on the host (see CSC.Host).
func (m *COO) Host() (*sparse.COO, error) {
	var err error
	h := &sparse.COO{Rows: m.Rows, Cols: m.Cols, Symmetric: m.Symmetric,
		I: fetch(&err, m.I.Int32s), J: fetch(&err, m.J.Int32s), V: fetch(&err, m.V.Float64s)}
	return hostOrErr(h, err)
}

// NNZ returns the number of stored entries.
func (m *COO) NNZ() int { return m.V.Len() }

// Release frees the matrix's device memory.
func (m *COO) Release() { ReleaseAll(m.I, m.J, m.V) }

// DeviceBytes returns the device memory the matrix really holds.
func (m *COO) DeviceBytes() int64 { return bytesOf(m.I, m.J, m.V) }

// String summarises the matrix without moving it.
func (m *COO) String() string {
	return fmt.Sprintf("afarray.COO %dx%d, %d entries, %s on device", m.Rows, m.Cols, m.V.Len(), byteString(m.DeviceBytes()))
}

// UploadCSR copies a host CSR matrix to the device.
func UploadCSR(h *sparse.CSR) (*CSR, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	a, err := uploadAll(h.RowPtr, h.ColIdx, h.Values)
	if err != nil {
		return nil, err
	}
	return &CSR{Rows: h.Rows, Cols: h.Cols, RowPtr: a[0], ColIdx: a[1], Values: a[2]}, nil
}

// Host returns the matrix on the host (see CSC.Host).
func (m *CSR) Host() (*sparse.CSR, error) {
	var err error
	h := &sparse.CSR{Rows: m.Rows, Cols: m.Cols,
		RowPtr: fetch(&err, m.RowPtr.Int32s), ColIdx: fetch(&err, m.ColIdx.Int32s), Values: fetch(&err, m.Values.Float64s)}
	return hostOrErr(h, err)
}

// Release frees the matrix's device memory.
func (m *CSR) Release() { ReleaseAll(m.RowPtr, m.ColIdx, m.Values) }

// DeviceBytes returns the device memory the matrix really holds.
func (m *CSR) DeviceBytes() int64 { return bytesOf(m.RowPtr, m.ColIdx, m.Values) }

// String summarises the matrix without moving it.
func (m *CSR) String() string {
	return fmt.Sprintf("afarray.CSR %dx%d, %d entries, %s on device", m.Rows, m.Cols, m.Values.Len(), byteString(m.DeviceBytes()))
}

// UploadTridiag copies a host tridiagonal matrix to the device.
func UploadTridiag(h *sparse.Tridiag) (*Tridiag, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	a, err := uploadAll(h.Sub, h.Diag, h.Super)
	if err != nil {
		return nil, err
	}
	return &Tridiag{N: h.N(), Sub: a[0], Diag: a[1], Super: a[2]}, nil
}

// Host returns the matrix on the host (see CSC.Host).
func (m *Tridiag) Host() (*sparse.Tridiag, error) {
	var err error
	h := &sparse.Tridiag{Sub: fetch(&err, m.Sub.Float64s), Diag: fetch(&err, m.Diag.Float64s), Super: fetch(&err, m.Super.Float64s)}
	return hostOrErr(h, err)
}

// Release frees the matrix's device memory.
func (m *Tridiag) Release() { ReleaseAll(m.Sub, m.Diag, m.Super) }

// DeviceBytes returns the device memory the matrix really holds.
func (m *Tridiag) DeviceBytes() int64 { return bytesOf(m.Sub, m.Diag, m.Super) }

// String summarises the matrix without moving it.
func (m *Tridiag) String() string {
	return fmt.Sprintf("afarray.Tridiag %dx%d, %s on device", m.N, m.N, byteString(m.DeviceBytes()))
}
