package solver

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// The failure reporting of the sparse direct solvers (skyline and CSC). Each
// factor owns a small device buffer in which kernels record the first failed
// pivot and the first NaN or Inf they meet (sks_status.cl). The host reads it
// once at the end of Factorize and of SolveTo: one small read per call, and
// no waiting between launches.

// Slots of the status words, the one numbering of every solver kernel: the
// sparse status buffer (sks_status.cl) and the dense and CG flags
// (dense_common.cl) use them, and the kernels get them as -D options
// (statusOptions), so they are defined here only.
const (
	stPivot      = 0 // first column whose pivot failed
	stMatrix     = 1 // first non-finite entry of the input matrix
	stFactor     = 2 // first non-finite entry of the computed factor
	stRHS        = 3 // first non-finite entry of the right-hand side
	stSolution   = 4 // first non-finite entry of the solution
	stPivotValue = 6 // ints 6-7 of the sparse buffer: the failed pivot as a double
	stNone       = math.MaxInt32
	stInts       = 8
)

// statusOptions passes the slot numbers to every program of the package.
var statusOptions = fmt.Sprintf("-DST_PIVOT=%d -DST_MATRIX=%d -DST_FACTOR=%d -DST_RHS=%d -DST_SOLUTION=%d -DST_PIVOT_VALUE=%d",
	stPivot, stMatrix, stFactor, stRHS, stSolution, stPivotValue)

// sparseStatus is a factor's device status buffer.
type sparseStatus struct {
	buf *kernels.Buffer
	chk *kernels.Kernel // check_finite
}

func newSparseStatus(dev *kernels.Device, prog *kernels.Program) (*sparseStatus, error) {
	chk, err := prog.Kernel("check_finite")
	if err != nil {
		return nil, err
	}
	buf, err := dev.Alloc(4 * stInts)
	if err != nil {
		return nil, err
	}
	return &sparseStatus{buf: buf, chk: chk}, nil
}

// reset enqueues setting every slot to "nothing found" (no launch, no wait).
func (s *sparseStatus) reset() error {
	var p [4]byte
	binary.LittleEndian.PutUint32(p[:], stNone)
	if err := s.buf.Fill(p[:], 0, 24); err != nil {
		return err
	}
	return s.buf.Fill(make([]byte, 8), 24, 8)
}

// check enqueues the scan of the first n doubles of x for NaN and Inf into
// slot.
func (s *sparseStatus) check(x *kernels.Buffer, n, slot int) error {
	const local = 256
	groups := min(max((n+local-1)/local, 1), 256)
	return s.chk.Launch([]int{groups * local}, []int{local}, int64(n), x, s.buf, slot)
}

// read waits for the device and returns the slots and the failed pivot.
func (s *sparseStatus) read() (st [stInts]int32, pivot float64, err error) {
	if err = s.buf.Read(0, st[:]); err != nil {
		return st, 0, err
	}
	pivot = math.Float64frombits(uint64(uint32(st[stPivotValue])) | uint64(uint32(st[stPivotValue+1]))<<32)
	return st, pivot, nil
}

// guardFactor runs factor between a reset of the status with a scan of its
// input (nIn doubles of in) and a scan of its result (nOut doubles of out),
// then reads the status once and returns the typed error of what the
// kernels recorded, matrix problems first.
func (s *sparseStatus) guardFactor(in *kernels.Buffer, nIn int, out *kernels.Buffer, nOut int, ldlt bool, factor func() error) error {
	if err := s.reset(); err != nil {
		return err
	}
	if err := s.check(in, nIn, stMatrix); err != nil {
		return err
	}
	if err := factor(); err != nil {
		return err
	}
	if err := s.check(out, nOut, stFactor); err != nil {
		return err
	}
	st, pivot, err := s.read()
	if err != nil {
		return err
	}
	return factorError(st[:], pivot, ldlt)
}

// startSolve returns b's and dst's device buffers after enqueuing a reset
// of the status and the scan of b's first n doubles; finishSolve ends the
// solve. Every sparse and supernodal solve goes between the two.
func (s *sparseStatus) startSolve(dst, b *afarray.Array, n int) (bb, x *kernels.Buffer, err error) {
	if bb, err = b.DeviceBuffer(); err != nil {
		return nil, nil, err
	}
	if x, err = dst.DeviceBuffer(); err != nil {
		return nil, nil, err
	}
	if err = s.reset(); err != nil {
		return nil, nil, err
	}
	return bb, x, s.check(bb, n, stRHS)
}

// finishSolve enqueues the scan of the solution's first n doubles, reads
// the status once and returns the error of what the kernels recorded.
func (s *sparseStatus) finishSolve(x *kernels.Buffer, n int) error {
	if err := s.check(x, n, stSolution); err != nil {
		return err
	}
	st, _, err := s.read()
	if err != nil {
		return err
	}
	return solveError(st[:])
}

// factorError turns the status after a factorization into the typed error
// that explains it, matrix problems first. st holds the slots (the sparse
// buffer's, or the dense flags, which number them alike).
func factorError(st []int32, pivot float64, ldlt bool) error {
	switch {
	case st[stMatrix] != stNone:
		return &NonFiniteError{Where: "matrix", Index: int(st[stMatrix])}
	case st[stPivot] != stNone && ldlt:
		return &ZeroPivotError{Column: int(st[stPivot]), Pivot: pivot}
	case st[stPivot] != stNone:
		return &NotPositiveDefiniteError{Column: int(st[stPivot]), Pivot: pivot}
	case st[stFactor] != stNone:
		return &NonFiniteError{Where: "factor", Index: int(st[stFactor])}
	}
	return nil
}

// solveError turns the status after a solve into an error.
func solveError(st []int32) error {
	switch {
	case st[stRHS] != stNone:
		return &NonFiniteError{Where: "right-hand side", Index: int(st[stRHS])}
	case st[stSolution] != stNone:
		return &NonFiniteError{Where: "solution", Index: int(st[stSolution])}
	}
	return nil
}

func (s *sparseStatus) release() {
	if s != nil && s.buf != nil {
		s.buf.Release()
	}
}

// FactorStats describes the last factorization and solve of a direct
// factor (every factor type's Stats). Launch counts are read from the
// device's counter, so they include launches by other goroutines on the
// same device in the meantime.
type FactorStats struct {
	Variant   Variant
	N         int
	FactorLen int // stored entries of the factor (len of its elements; n² for dense)
	// SymbolicTime is the host's symbolic analysis (CSC only): the thesis
	// excludes it from its timings, so it is kept apart from FactorTime.
	SymbolicTime time.Duration
	// FactorTime is the numeric factorization, from the first upload or
	// launch to the status read that ends it.
	FactorTime     time.Duration
	FactorLaunches int64
	// Levels is the number of sequential steps of the fast CSC schedule:
	// its supernodes (each factored by two launches in turn), not
	// elimination-tree levels. BlockWidth is the fast skyline block width.
	Levels     int
	BlockWidth int
	Solves     int           // solves done with this factor
	SolveTime  time.Duration // of the last solve
	// SolveLaunches is the number of launches of the last solve.
	SolveLaunches int64
}

// SparseStats is the former name of FactorStats.
type SparseStats = FactorStats

func (s FactorStats) String() string {
	return fmt.Sprintf("%s n=%d factor len=%d symbolic=%v factor=%v (%d launches) solve=%v (%d launches, %d solves)",
		s.Variant, s.N, s.FactorLen, s.SymbolicTime, s.FactorTime, s.FactorLaunches, s.SolveTime, s.SolveLaunches, s.Solves)
}

// checkVectors validates the arrays of a solve against the order n and the
// factor's device.
func sparseCheckVectors(dev *kernels.Device, n int, arrays ...*afarray.Array) error {
	for _, a := range arrays {
		if a == nil || a.Released() {
			return fmt.Errorf("%w", ErrReleased)
		}
		if a.DType() != afarray.Float64 {
			return fmt.Errorf("%w: solver needs float64 vectors, got %s", ErrDType, a.DType())
		}
		if a.Len() != n {
			r, c := a.Dims()
			return fmt.Errorf("%w: %dx%d array for a system of order %d", ErrShape, r, c, n)
		}
		if a.Device() != dev {
			return ErrDevice
		}
	}
	return nil
}
