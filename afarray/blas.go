package afarray

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
)

// Gemv computes y = alpha*op(A)*x + beta*y on the device, where op(A) is A or
// its transpose. x and y are vectors (any array whose length fits). All
// operands share one floating dtype.
func Gemv(trans bool, alpha float64, a, x *Array, beta float64, y *Array) error {
	if err := blasOperands("Gemv", a, x, y); err != nil {
		return err
	}
	m, n := a.rows, a.cols
	if trans {
		m, n = n, m
	}
	if x.Len() != n || y.Len() != m {
		return fmt.Errorf("Gemv: %w: op(A) is %dx%d, x has %d, y has %d elements", ErrShape, m, n, x.Len(), y.Len())
	}
	if m == 0 {
		return nil
	}
	y.touch()
	if !trans {
		k, err := a.kernel("gemv_n")
		if err != nil {
			return err
		}
		local := min(localSize, k.MaxWorkGroupSize())
		return k.Launch([]int{kernels.RoundUp(m, local)}, []int{local}, int32(a.rows), int32(a.cols), a.typed(alpha), a.buf, x.buf, a.typed(beta), y.buf)
	}
	k, err := a.kernel("gemv_t")
	if err != nil {
		return err
	}
	local := pow2Floor(min(localSize, k.MaxWorkGroupSize()))
	return k.Launch([]int{m * local}, []int{local}, int32(a.rows), int32(a.cols), a.typed(alpha), a.buf, x.buf, a.typed(beta), y.buf, kernels.Local(int64(local)*a.dtype.Size()))
}

// Gemm computes C = alpha*op(A)*op(B) + beta*C with the dense kernel
// core's register-blocked GEMM (package afarray/dense), in the tile
// configuration tuned for the device.
func Gemm(transA, transB bool, alpha float64, a, b *Array, beta float64, c *Array) error {
	if err := blasOperands("Gemm", a, b, c); err != nil {
		return err
	}
	m, k, kb, n := dense.GemmShape(transA, transB, a.rows, a.cols, b.rows, b.cols)
	if kb != k || c.rows != m || c.cols != n {
		return fmt.Errorf("Gemm: %w: op(A) %dx%d, op(B) %dx%d, C %dx%d", ErrShape, m, k, kb, n, c.rows, c.cols)
	}
	if m == 0 || n == 0 {
		return nil
	}
	dt := dense.Float64
	if a.dtype == Float32 {
		dt = dense.Float32
	}
	e, err := dense.For(a.dev, dt)
	if err != nil {
		return fmt.Errorf("Gemm: %w", err)
	}
	view := func(x *Array) dense.Mat { return dense.Mat{Buf: x.buf, Rows: x.rows, Cols: x.cols, LD: max(1, x.rows)} }
	c.touch()
	return e.Gemm(transA, transB, alpha, view(a), view(b), beta, view(c))
}

// MatMul returns op(A)*op(B) as a new array.
func MatMul(transA, transB bool, a, b *Array) (*Array, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	if err := b.usable(); err != nil {
		return nil, err
	}
	m, n := a.rows, b.cols
	if transA {
		m = a.cols
	}
	if transB {
		n = b.rows
	}
	c, err := newArray(a.dev, a.dtype, m, n, false)
	if err != nil {
		return nil, err
	}
	if err := Gemm(transA, transB, 1, a, b, 0, c); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// Transpose returns the transpose of a, through local-memory tiles so that
// reads and writes coalesce.
func Transpose(a *Array) (*Array, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	t, err := newArray(a.dev, a.dtype, a.cols, a.rows, false)
	if err != nil {
		return nil, err
	}
	if a.Len() == 0 {
		return t, nil
	}
	k, err := a.kernel("transpose")
	if err != nil {
		t.Release()
		return nil, err
	}
	// At most transposeColGroups groups in dimension 1 (the kernel strides
	// over the rest): NVIDIA refuses more than 65,535 there.
	const tt, transposeColGroups = 16, 32768
	colGroups := min((a.cols+tt-1)/tt, transposeColGroups)
	if err := k.Launch([]int{kernels.RoundUp(a.rows, tt), colGroups * tt}, []int{tt, tt}, int32(a.rows), int32(a.cols), a.buf, t.buf); err != nil {
		t.Release()
		return nil, err
	}
	t.touch()
	return t, nil
}

// blasOperands checks the operands of a BLAS call: usable, all of the
// first one's floating dtype and on its device.
func blasOperands(op string, arrays ...*Array) error {
	a := arrays[0]
	for _, v := range arrays {
		if err := v.usable(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		if v.dtype != a.dtype || v.dev != a.dev {
			return fmt.Errorf("%s: %w", op, ErrDType)
		}
	}
	return needFloat(op, a)
}
