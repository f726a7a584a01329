package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// cscFactor is the state shared by CSCCholesky and CSCLDLT: L (or L and D)
// in the thesis CSC layout, in device buffers the factor owns, with the
// structure from a host symbolic analysis.
type cscFactor struct {
	sparseBase
	nnzA, nnzL       int
	elmL, colL, rowL *kernels.Buffer
	supernodes       []cscSupernode // fast schedule
}

func (f *cscFactor) name() string {
	if f.ldlt {
		return "CSCLDLT"
	}
	return "CSCCholesky"
}

// checkCSC validates the device matrix's shape and returns its structure on
// the host (values left zero: the symbolic analysis does not need them).
func checkCSC(a *afarray.CSC) (*sparse.CSC, error) {
	if a == nil || a.Elements == nil || a.DiagPos == nil || a.RowIdx == nil {
		return nil, fmt.Errorf("%w: nil CSC matrix", ErrShape)
	}
	if a.Elements.Released() || a.DiagPos.Released() || a.RowIdx.Released() {
		return nil, ErrReleased
	}
	if a.Elements.DType() != afarray.Float64 || a.DiagPos.DType() != afarray.Int32 || a.RowIdx.DType() != afarray.Int32 {
		return nil, fmt.Errorf("%w: CSC needs float64 elements and int32 indices", ErrDType)
	}
	n, le := a.N, a.Elements.Len()
	if n <= 0 || a.DiagPos.Len() != n || a.RowIdx.Len() != le-n {
		return nil, fmt.Errorf("%w: CSC of order %d with %d elements, %d column and %d row indices", ErrShape, n, le, a.DiagPos.Len(), a.RowIdx.Len())
	}
	dev := a.Elements.Device()
	if a.DiagPos.Device() != dev || a.RowIdx.Device() != dev {
		return nil, ErrDevice
	}
	col, row, err := a.HostStructure()
	if err != nil {
		return nil, err
	}
	h := &sparse.CSC{N: n, Elements: make([]float64, le), DiagPos: col, RowIdx: row}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShape, err)
	}
	return h, nil
}

// beginSymbolic is how the factorizations of a device CSC matrix (this
// file's and the supernodal one) start: check a and fetch its structure
// (checkCSC), then tell the Run watching a's device, if any, that the
// symbolic phase has begun. It returns the structure and that tracker.
func beginSymbolic(a *afarray.CSC) (*sparse.CSC, *tracker, error) {
	h, err := checkCSC(a)
	if err != nil {
		return nil, nil, err
	}
	tr := trackerOf(a.Elements.Device())
	tr.phase("symbolic")
	return h, tr, nil
}

func (f *cscFactor) factorize(ldlt bool, a *afarray.CSC, v Variant) error {
	f.release()
	f.ldlt = ldlt
	v, err := ParseVariant(string(v))
	if err != nil {
		return err
	}
	t0 := time.Now()
	// The symbolic phase: the thesis's quadratic set unions, or the
	// elimination-tree analysis plus the fast schedule.
	h, tr, err := beginSymbolic(a)
	if err != nil {
		return err
	}
	var L *sparse.CSC
	var amap []int32
	if v == Thesis {
		L, err = sparse.ThesisSymbolicCholesky(h)
	} else {
		var sym *sparse.Symbolic
		if sym, err = sparse.SymbolicCholesky(h); err == nil {
			L = sym.L
			amap = cscFillMap(h, L)
			f.supernodes = cscSupernodes(L)
		}
	}
	if err != nil {
		return fmt.Errorf("solver: %s symbolic analysis: %w", f.name(), err)
	}
	symbolic := time.Since(t0)

	f.variant, f.n, f.nnzA, f.nnzL = v, h.N, len(h.Elements), len(L.Elements)
	f.dev = a.Elements.Device()
	if f.prog, err = cscProgram(f.dev, v); err != nil {
		return err
	}
	if f.status, err = newSparseStatus(f.dev, f.prog); err != nil {
		return err
	}
	tr.phase("factorize")
	start, launches := time.Now(), f.dev.Launches()
	if f.colL, err = uploadInt32(f.dev, L.DiagPos); err != nil {
		return err
	}
	if f.rowL, err = uploadInt32(f.dev, L.RowIdx); err != nil {
		return err
	}
	if f.elmL, err = f.dev.Alloc(int64(8 * f.nnzL)); err != nil {
		return err
	}
	if err := f.elmL.Fill(make([]byte, 8), 0, int64(8*f.nnzL)); err != nil {
		return err
	}
	elmA, err := a.Elements.DeviceBuffer()
	if err != nil {
		return err
	}
	err = f.status.guardFactor(elmA, f.nnzA, f.elmL, f.nnzL, f.ldlt, func() error {
		if v == Thesis {
			return f.thesisFactor(a)
		}
		return f.fastFactor(elmA, amap)
	})
	f.stats = FactorStats{Variant: v, N: f.n, FactorLen: f.nnzL, SymbolicTime: symbolic, FactorTime: time.Since(start),
		FactorLaunches: f.dev.Launches() - launches}
	if v == Fast {
		f.stats.Levels, f.stats.BlockWidth = len(f.supernodes), cscBlock
	}
	f.ok = err == nil
	return err
}

// SolveTo solves A x = b into dst (dst may be b). Both must be float64
// vectors of length n on the factor's device. A NaN or Inf in b or in the
// solution is reported as a *NonFiniteError.
func (f *cscFactor) SolveTo(dst, b *afarray.Array) error { return sparseSolveTo(f, dst, b) }

// Solve solves A x = b into a new vector.
func (f *cscFactor) Solve(b *afarray.Array) (*afarray.Array, error) { return sparseSolve(f, b) }

// Release frees the factor's device memory.
func (f *cscFactor) Release() { f.release() }

// factor returns L's device storage (thesis CSC layout), for inspection.
func (f *cscFactor) factor() (*afarray.CSC, error) {
	if !f.ok {
		return nil, fmt.Errorf("%w: %s has no factorization", ErrReleased, f.name())
	}
	var out afarray.CSC
	out.N = f.n
	parts := []struct {
		src  *kernels.Buffer
		dst  **afarray.Array
		t    afarray.DType
		size int
	}{{f.elmL, &out.Elements, afarray.Float64, f.nnzL}, {f.colL, &out.DiagPos, afarray.Int32, f.n}, {f.rowL, &out.RowIdx, afarray.Int32, f.nnzL - f.n}}
	for _, p := range parts {
		buf, err := f.dev.Alloc(int64(p.size) * p.t.Size())
		if err == nil {
			err = p.src.CopyTo(buf, 0, 0, int64(p.size)*p.t.Size())
		}
		if err == nil {
			*p.dst, err = afarray.FromBuffer(buf, p.t, p.size, 1)
		}
		if err != nil {
			if buf != nil {
				buf.Release()
			}
			out.Release()
			return nil, err
		}
	}
	return &out, nil
}

func (f *cscFactor) release() {
	f.status.release()
	for _, b := range []*kernels.Buffer{f.elmL, f.colL, f.rowL, f.work, f.dscr} {
		if b != nil {
			b.Release()
		}
	}
	*f = cscFactor{sparseBase: sparseBase{ldlt: f.ldlt}}
}
