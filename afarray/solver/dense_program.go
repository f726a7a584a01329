package solver

import (
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// denseProgram holds the dense kernels of both variants and Gauss-Jordan.
var denseProgram = solverProgram("sks_status.cl", "dense_common.cl", "dense_thesis.cl", "dense_blocked.cl", "gaussjordan.cl")

// Geometry of the fast dense kernels.
const (
	denseNB      = 32  // NB in dense_blocked.cl
	denseTile    = 32  // TU in dense_blocked.cl
	denseLocal   = 256 // 1-D kernels of the blocked factorizations
	denseBWLocal = 64  // BW in dense_blocked.cl
	maxGroups    = 1024
)

// thesisGeometry returns the thesis's launch shape for k: ThesisGroups
// groups of ThesisLocal items, the local size clamped (to a power of two,
// which the tree reductions need) to what the kernel allows on the device.
func thesisGeometry(k *kernels.Kernel) (global, local []int) {
	l := pow2Below(min(ThesisLocal, k.MaxWorkGroupSize()))
	return []int{ThesisGroups * l}, []int{l}
}

func pow2Below(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

// groupsFor returns how many groups of local items cover n items, at least
// one and at most maxGroups (the kernels stride over the rest).
func groupsFor(n, local int) int {
	return max(1, min(maxGroups, (n+local-1)/local))
}

// status is a small device buffer of int32 flags written by the kernels
// with atomic_min (so they start at MaxInt32) plus one double for a pivot
// value. The slots are fixed: statusInput (first non-finite input index),
// statusPivot (first bad pivot column), statusOutput (first non-finite
// result index), statusRHS (first non-finite right-hand side index). A
// solver reads all of them with one transfer when it must report.
type status struct {
	flags *kernels.Buffer
	pivot *kernels.Buffer
}

// The dense flags use the package's one slot numbering (sks_status.go).
const (
	statusInput  = stMatrix
	statusPivot  = stPivot
	statusOutput = stSolution
	statusRHS    = stRHS
	statusSlots  = stSolution + 1
)

var intMaxPattern = []byte{0xff, 0xff, 0xff, 0x7f}

func newStatus(dev *kernels.Device) (*status, error) {
	f, err := dev.Alloc(4 * statusSlots)
	if err != nil {
		return nil, err
	}
	p, err := dev.Alloc(8)
	if err != nil {
		f.Release()
		return nil, err
	}
	s := &status{flags: f, pivot: p}
	if err := s.reset(); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// reset enqueues setting every flag to MaxInt32 (nothing found).
func (s *status) reset() error { return s.flags.Fill(intMaxPattern, 0, 4*statusSlots) }

// read waits for the device and returns the flags.
func (s *status) read() ([statusSlots]int32, error) {
	var f [statusSlots]int32
	err := s.flags.Read(0, f[:])
	return f, err
}

// failure waits for the flags and returns the typed error of what the
// kernels recorded, as the sparse status does: factorError (matrix, then
// pivot), then solveError (right-hand side, then solution). It reads the
// failed pivot's value only when a pivot failed.
func (s *status) failure(ldlt bool) error {
	f, err := s.read()
	if err != nil {
		return err
	}
	var pivot float64
	if found(f[statusPivot]) {
		if pivot, err = s.pivotValue(); err != nil {
			return err
		}
	}
	if err := factorError(f[:], pivot, ldlt); err != nil {
		return err
	}
	return solveError(f[:])
}

// pivotValue reads the recorded pivot value.
func (s *status) pivotValue() (float64, error) {
	v := []float64{0}
	err := s.pivot.Read(0, v)
	return v[0], err
}

func (s *status) release() {
	if s == nil {
		return
	}
	s.flags.Release()
	s.pivot.Release()
}

// checkFinite enqueues a scan of the first n values of x for NaN and Inf
// into flag slot.
func (s *status) checkFinite(dev *kernels.Device, x *kernels.Buffer, n, slot int) error {
	if n == 0 {
		return nil
	}
	k, err := denseProgram.Kernel(dev, "check_finite")
	if err != nil {
		return err
	}
	return k.Launch([]int{groupsFor(n, denseLocal) * denseLocal}, []int{denseLocal}, int64(n), x, s.flags, slot)
}

// found reports whether a flag holds an index.
func found(v int32) bool { return v != math.MaxInt32 }

// float64Buffer checks that a is a usable Float64 array and returns its
// device buffer. what names the operand in errors.
func float64Buffer(a *afarray.Array, what string) (*kernels.Buffer, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: %s: nil array", ErrReleased, what)
	}
	if a.Released() {
		return nil, fmt.Errorf("%w: %s", ErrReleased, what)
	}
	if a.DType() != afarray.Float64 {
		return nil, fmt.Errorf("%w: %s: %s, want float64", ErrDType, what, a.DType())
	}
	return a.DeviceBuffer()
}

// denseOperand is the check every dense entry point (the dense
// factorizations, GaussJordan, NewDenseOperator) starts with: the variant
// ("" means Fast), then a usable, square, non-empty Float64 matrix a (what
// names it in errors). It returns the variant, a's buffer and its order.
func denseOperand(v Variant, a *afarray.Array, what string) (Variant, *kernels.Buffer, int, error) {
	v, err := normVariant(v)
	if err != nil {
		return "", nil, 0, err
	}
	buf, err := float64Buffer(a, what)
	if err != nil {
		return "", nil, 0, err
	}
	n, err := squareOrder(a)
	if err != nil {
		return "", nil, 0, err
	}
	return v, buf, n, nil
}

// squareOrder returns the order of a square matrix array, or ErrShape.
func squareOrder(a *afarray.Array) (int, error) {
	r, c := a.Dims()
	if r != c || r == 0 {
		return 0, fmt.Errorf("%w: matrix is %dx%d, want square and non-empty", ErrShape, r, c)
	}
	return r, nil
}

// sameDevice rejects operands on different devices.
func sameDevice(arrays ...*afarray.Array) error {
	for _, a := range arrays[1:] {
		if a.Device() != arrays[0].Device() {
			return fmt.Errorf("%w", ErrDevice)
		}
	}
	return nil
}

// errVariant reports a variant that is neither Fast nor Thesis.
func errVariant(v Variant) error {
	return fmt.Errorf("%w: variant %q (want fast or thesis)", ErrUnknown, string(v))
}

// normVariant maps "" to Fast and rejects unknown variants.
func normVariant(v Variant) (Variant, error) {
	switch v {
	case "", Fast:
		return Fast, nil
	case Thesis:
		return Thesis, nil
	}
	return "", errVariant(v)
}

// errNotFactorized reports a solve without a successful Factorize; it
// matches ErrReleased.
var errNotFactorized = fmt.Errorf("%w: no factorization (Factorize was not called, failed, or was released)", ErrReleased)
