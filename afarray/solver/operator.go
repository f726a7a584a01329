package solver

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/kernels"
)

// Operator is a square linear operator on device vectors: what conjugate
// gradient needs of a matrix. DenseOperator, CSCOperator and SKSOperator
// implement it for the three storage formats; any other type can too.
type Operator interface {
	// N returns the order.
	N() int
	// MulVecTo sets dst = A x. dst and x are distinct Float64 vectors of N
	// elements on the operator's device. It does not wait for the device.
	MulVecTo(dst, x *afarray.Array) error
}

// Diagonaler is implemented by operators that can give their diagonal,
// which Jacobi preconditioning needs.
type Diagonaler interface {
	// DiagonalTo sets dst to the diagonal of A.
	DiagonalTo(dst *afarray.Array) error
}

func init() {
	registerOperator(FormatDense, 0, func(m any, v Variant) (Operator, error) { return NewDenseOperator(m.(*afarray.Array), v) })
}

// DenseOperator is a dense n x n matrix as an Operator. MulVecTo is a
// general matrix-vector product in both variants (the thesis used
// ArrayFire's af_matmul; here it is afarray.Gemv, one launch, an item per
// row with loads coalesced across items). The fast CG fuses the same
// item-per-row product with the forming of the search direction.
type DenseOperator struct {
	a *afarray.Array
	n int
	v Variant
}

// NewDenseOperator wraps the square Float64 matrix a (not copied; it must
// outlive the operator). It checks a for NaN and Inf (one small read).
func NewDenseOperator(a *afarray.Array, v Variant) (*DenseOperator, error) {
	v, buf, n, err := denseOperand(v, a, "dense operator")
	if err != nil {
		return nil, err
	}
	if err := checkMatrixValues(a.Device(), buf, n*n); err != nil {
		return nil, err
	}
	return &DenseOperator{a: a, n: n, v: v}, nil
}

// N returns the order.
func (o *DenseOperator) N() int { return o.n }

// Variant returns the operator's variant.
func (o *DenseOperator) Variant() Variant { return o.v }

// MulVecTo sets dst = A x.
func (o *DenseOperator) MulVecTo(dst, x *afarray.Array) error {
	if _, _, err := checkMulVec(o.a, o.n, dst, x); err != nil {
		return err
	}
	return afarray.Gemv(false, 1, o.a, x, 0, dst)
}

// DiagonalTo sets dst to the diagonal of A.
func (o *DenseOperator) DiagonalTo(dst *afarray.Array) error {
	d, err := checkVector(o.a, dst, o.n, "diagonal")
	if err != nil {
		return err
	}
	a, err := o.a.DeviceBuffer()
	if err != nil {
		return err
	}
	k, err := cgProgram.Kernel(o.a.Device(), "diag_dense")
	if err != nil {
		return err
	}
	return k.Launch([]int{groupsFor(o.n, denseLocal) * denseLocal}, []int{denseLocal}, o.n, a, d)
}

// checkVector checks that v is a usable Float64 vector of n elements on
// ref's device and returns its buffer.
func checkVector(ref, v *afarray.Array, n int, what string) (*kernels.Buffer, error) {
	b, err := float64Buffer(v, what)
	if err != nil {
		return nil, err
	}
	if v.Device() != ref.Device() {
		return nil, fmt.Errorf("%w: %s", ErrDevice, what)
	}
	if r, c := v.Dims(); r != n || c != 1 {
		return nil, fmt.Errorf("%w: %s: %dx%d, want a vector of %d", ErrShape, what, r, c, n)
	}
	return b, nil
}

// checkMulVec checks the operands of a product and returns their buffers.
func checkMulVec(ref *afarray.Array, n int, dst, x *afarray.Array) (d, xb *kernels.Buffer, err error) {
	if xb, err = checkVector(ref, x, n, "product operand"); err != nil {
		return nil, nil, err
	}
	if d, err = checkVector(ref, dst, n, "product destination"); err != nil {
		return nil, nil, err
	}
	if d == xb {
		return nil, nil, fmt.Errorf("%w: the product's destination is its operand", ErrShape)
	}
	return d, xb, nil
}

// checkMatrixValues scans n matrix values for NaN and Inf and waits for
// the answer.
func checkMatrixValues(dev *kernels.Device, values *kernels.Buffer, n int) error {
	st, err := newStatus(dev)
	if err != nil {
		return err
	}
	defer st.release()
	if err := st.checkFinite(dev, values, n, statusInput); err != nil {
		return err
	}
	return st.failure(false)
}
