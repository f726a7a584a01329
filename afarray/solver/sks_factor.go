package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// DefaultSKSBlockWidth is the block width of the fast skyline factorization
// when a factor's BlockWidth is zero.
const DefaultSKSBlockWidth = 32

// sksFactor is the state shared by SKSCholesky and SKSLDLT: the factor lives
// in the skyline storage itself (in place, as in the thesis), so a factor
// only adds a status buffer and, for the fast variant, two scratch buffers.
type sksFactor struct {
	sparseBase
	width    int
	nnz      int
	index    []int32         // host copy of the index, for the launch schedule
	elm, idx *kernels.Buffer // the factor: a's (or the copy's) storage
	copied   *afarray.Array  // elements copy owned by the factor (Factorize)
	owned    *afarray.SKS    // skyline built by FactorizeCOO, owned by the factor
}

func (f *sksFactor) name() string {
	if f.ldlt {
		return "SKSLDLT"
	}
	return "SKSCholesky"
}

// sksProgram builds (once per device, through the kernels cache) the program
// of a variant.
func sksProgram(dev *kernels.Device, v Variant, width int) (*kernels.Program, error) {
	if v == Thesis {
		return dev.Build(statusOptions, clSources("sks_status.cl", "sks_layout.cl", "sks_thesis.cl")...)
	}
	// sparse_block.cl: as in cscProgram.
	return dev.Build(fmt.Sprintf("%s -DBLOCK_B=%d", statusOptions, width), clSources("sks_status.cl", "sks_layout.cl", "sparse_block.cl", "sks_fast.cl")...)
}

// checkSKS validates the device matrix's shape and returns its host index
// (downloaded once and cached by the array until a device write).
func checkSKS(a *afarray.SKS) ([]int32, error) {
	if a == nil || a.Elements == nil || a.Index == nil {
		return nil, fmt.Errorf("%w: nil skyline matrix", ErrShape)
	}
	if a.Elements.Released() || a.Index.Released() {
		return nil, ErrReleased
	}
	if a.Elements.DType() != afarray.Float64 || a.Index.DType() != afarray.Int32 {
		return nil, fmt.Errorf("%w: skyline needs float64 elements and int32 index", ErrDType)
	}
	n, nnz := a.N, a.Elements.Len()
	if n <= 0 || a.Index.Len() != n {
		return nil, fmt.Errorf("%w: skyline of order %d with %d index entries", ErrShape, n, a.Index.Len())
	}
	if a.Elements.Device() != a.Index.Device() {
		return nil, ErrDevice
	}
	index, err := a.Index.Int32s()
	if err != nil {
		return nil, err
	}
	if index[0] != 0 {
		return nil, fmt.Errorf("%w: skyline index starts at %d", ErrShape, index[0])
	}
	last := -1
	for j := 0; j < n; j++ {
		h := nnz - int(index[j])
		if j < n-1 {
			h = int(index[j+1]) - int(index[j])
		}
		if h < 1 || j+h > n || j+h-1 < last {
			return nil, fmt.Errorf("%w: skyline column %d has height %d (order %d, previous last row %d)", ErrShape, j, h, n, last)
		}
		last = j + h - 1
	}
	if last != n-1 {
		return nil, fmt.Errorf("%w: skyline's last column has height %d, want 1", ErrShape, last-(n-1)+1)
	}
	return index, nil
}

// last returns the last stored row of column j.
func (f *sksFactor) last(j int) int {
	if j == f.n-1 {
		return j
	}
	return j + int(f.index[j+1]-f.index[j]) - 1
}

func (f *sksFactor) factorize(ldlt bool, a *afarray.SKS, v Variant, width int, copyElements bool) error {
	f.release()
	f.ldlt = ldlt
	v, err := ParseVariant(string(v))
	if err != nil {
		return err
	}
	if width == 0 {
		width = DefaultSKSBlockWidth
	}
	if v == Fast && width != 32 && width != 64 {
		return fmt.Errorf("%w: %s block width %d (want 32 or 64)", ErrUnknown, f.name(), width)
	}
	index, err := checkSKS(a)
	if err != nil {
		return err
	}
	f.variant, f.width, f.n, f.nnz, f.index = v, width, a.N, a.Elements.Len(), index
	f.dev = a.Elements.Device()
	if f.prog, err = sksProgram(f.dev, v, width); err != nil {
		return err
	}
	if f.status, err = newSparseStatus(f.dev, f.prog); err != nil {
		return err
	}
	start, launches := time.Now(), f.dev.Launches()
	elements := a.Elements
	if copyElements {
		if f.copied, err = a.Elements.Copy(); err != nil {
			return err
		}
		elements = f.copied
	}
	if f.elm, err = elements.DeviceBuffer(); err != nil {
		return err
	}
	if f.idx, err = a.Index.DeviceBuffer(); err != nil {
		return err
	}
	err = f.status.guardFactor(f.elm, f.nnz, f.elm, f.nnz, f.ldlt, func() error {
		if v == Thesis {
			return f.thesisFactor()
		}
		return f.fastFactor()
	})
	f.stats = FactorStats{Variant: v, N: f.n, FactorLen: f.nnz, FactorTime: time.Since(start),
		FactorLaunches: f.dev.Launches() - launches}
	if v == Fast {
		f.stats.BlockWidth = width
	}
	f.ok = err == nil
	return err
}

// SolveTo solves A x = b into dst (dst may be b). Both must be float64
// vectors of length n on the factor's device. A NaN or Inf in b or in the
// solution is reported as a *NonFiniteError.
func (f *sksFactor) SolveTo(dst, b *afarray.Array) error { return sparseSolveTo(f, dst, b) }

// Solve solves A x = b into a new vector.
func (f *sksFactor) Solve(b *afarray.Array) (*afarray.Array, error) { return sparseSolve(f, b) }

// Release frees the factor's own device memory (status, scratch, and the
// copy made by Factorize). The matrix itself belongs to the caller.
func (f *sksFactor) Release() { f.release() }

func (f *sksFactor) release() {
	f.status.release()
	f.copied.Release()
	if f.owned != nil {
		f.owned.Release()
	}
	for _, b := range []*kernels.Buffer{f.work, f.dscr} {
		if b != nil {
			b.Release()
		}
	}
	*f = sksFactor{sparseBase: sparseBase{ldlt: f.ldlt}}
}
