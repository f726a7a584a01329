package afarray

import "fmt"

func (a *Array) fill(v float64) error {
	return a.launchElementwise("fill", a.Len(), a.typed(v), a.buf)
}

// Fill sets every element to v, on the device.
func (a *Array) Fill(v float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.fill(v)
}

// Scale multiplies every element by s in place: a = s*a. For an Int32
// array s is first truncated toward zero, as the element type holds it.
func (a *Array) Scale(s float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.launchElementwise("scale", a.Len(), a.typed(s), a.buf)
}

// Axpy adds alpha*x to a in place: a = alpha*x + a. Shapes and dtypes must
// match; for Int32 arrays alpha is truncated toward zero.
func (a *Array) Axpy(alpha float64, x *Array) error {
	if err := sameShape("Axpy", a, x); err != nil {
		return err
	}
	return a.launchElementwise("axpy", a.Len(), a.typed(alpha), x.buf, a.buf)
}

// CopyFrom copies x's elements into a, on the device. Shapes and dtypes must
// match.
func (a *Array) CopyFrom(x *Array) error {
	if err := sameShape("CopyFrom", a, x); err != nil {
		return err
	}
	a.touch()
	return x.buf.CopyTo(a.buf, 0, 0, a.Bytes())
}

// Add returns x + y elementwise.
func Add(x, y *Array) (*Array, error) { return binary("Add", 0, x, y) }

// Sub returns x - y elementwise.
func Sub(x, y *Array) (*Array, error) { return binary("Sub", 1, x, y) }

// Mul returns x .* y elementwise.
func Mul(x, y *Array) (*Array, error) { return binary("Mul", 2, x, y) }

// Div returns x ./ y elementwise. Integer division by zero gives an
// unspecified value, as in OpenCL C.
func Div(x, y *Array) (*Array, error) { return binary("Div", 3, x, y) }

func binary(op string, code int32, x, y *Array) (*Array, error) {
	if err := sameShape(op, x, y); err != nil {
		return nil, err
	}
	z, err := newArray(x.dev, x.dtype, x.rows, x.cols, x.vector && y.vector)
	if err != nil {
		return nil, err
	}
	if err := z.launchElementwise("binary", x.Len(), code, x.buf, y.buf, z.buf); err != nil {
		z.Release()
		return nil, err
	}
	return z, nil
}

// sameShape checks that arrays are usable, on one device, of one dtype and
// one shape.
func sameShape(op string, arrays ...*Array) error {
	for _, a := range arrays {
		if err := a.usable(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	a := arrays[0]
	for _, b := range arrays[1:] {
		if b.dev != a.dev {
			return fmt.Errorf("%s: %w", op, ErrDevice)
		}
		if b.dtype != a.dtype {
			return fmt.Errorf("%s: %w: %s and %s", op, ErrDType, a.dtype, b.dtype)
		}
		if b.rows != a.rows || b.cols != a.cols {
			return fmt.Errorf("%s: %w: %dx%d and %dx%d", op, ErrShape, a.rows, a.cols, b.rows, b.cols)
		}
	}
	return nil
}

func needFloat(op string, a *Array) error {
	if !a.dtype.isFloat() {
		return fmt.Errorf("%s: %w: needs float64 or float32, not %s", op, ErrDType, a.dtype)
	}
	return nil
}
