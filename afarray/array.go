package afarray

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/kernels"
)

// Array is a 1-D or 2-D array whose data lives in device memory, stored
// column-major like ArrayFire's af::array. Operations enqueue kernels and
// return without waiting for the device. The data reaches the host only when
// asked for (Float64s, ToDense, Scalar, ...); that host copy is kept until a
// device operation writes to the array. Every transfer is counted (see
// Transfers).
//
// Release frees the device memory at once. An Array is not safe for
// concurrent use by several goroutines.
type Array struct {
	dev        *kernels.Device
	buf        *kernels.Buffer
	dtype      DType
	rows, cols int
	vector     bool // created as 1-D

	hostValid bool
	host      any // []float64, []float32 or []int32: the cached host copy
	stats     TransferStats
}

var (
	currentMu  sync.Mutex
	currentDev *kernels.Device
)

// SetDevice makes d the device on which constructors allocate new arrays.
func SetDevice(d *kernels.Device) {
	currentMu.Lock()
	currentDev = d
	currentMu.Unlock()
}

// CurrentDevice returns the device on which new arrays are made: the one
// given to SetDevice, else kernels.Default().
func CurrentDevice() (*kernels.Device, error) {
	currentMu.Lock()
	defer currentMu.Unlock()
	if currentDev != nil {
		return currentDev, nil
	}
	d, err := kernels.Default()
	if err != nil {
		return nil, err
	}
	currentDev = d
	return d, nil
}

// newArray allocates an uninitialised rows x cols array.
func newArray(dev *kernels.Device, t DType, rows, cols int, vector bool) (*Array, error) {
	if !t.valid() {
		return nil, fmt.Errorf("%w: unknown dtype %d", ErrDType, int(t))
	}
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("%w: negative dimensions %dx%d", ErrShape, rows, cols)
	}
	n := int64(rows) * int64(cols)
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %dx%d has more than 2^31-1 elements", ErrShape, rows, cols)
	}
	if dev == nil {
		var err error
		if dev, err = CurrentDevice(); err != nil {
			return nil, err
		}
	}
	buf, err := dev.Alloc(n * t.Size())
	if err != nil {
		return nil, fmt.Errorf("afarray: %dx%d %s array: %w", rows, cols, t, err)
	}
	return &Array{dev: dev, buf: buf, dtype: t, rows: rows, cols: cols, vector: vector}, nil
}

// dims turns a constructor's dims argument into a shape: () is a scalar
// (1-element vector), (n) a vector, (r, c) a matrix.
func dims(d []int) (rows, cols int, vector bool, err error) {
	switch len(d) {
	case 0:
		return 1, 1, true, nil
	case 1:
		return d[0], 1, true, nil
	case 2:
		return d[0], d[1], false, nil
	}
	return 0, 0, false, fmt.Errorf("%w: afarray holds 1-D and 2-D arrays, got %d dimensions", ErrShape, len(d))
}

// newFilled is newArray on the default device followed by fill, which
// sets the elements; the array is released if fill fails.
func newFilled(t DType, rows, cols int, vector bool, fill func(a *Array) error) (*Array, error) {
	a, err := newArray(nil, t, rows, cols, vector)
	if err != nil {
		return nil, err
	}
	if err := fill(a); err != nil {
		a.Release()
		return nil, err
	}
	return a, nil
}

// upload makes an array from a host slice; the slice becomes the array's
// cached host copy (it is copied first, so the caller keeps its own).
func upload(data any, length int, t DType, d []int) (*Array, error) {
	rows, cols, vector, err := dims(d)
	if err != nil {
		return nil, err
	}
	if len(d) == 0 {
		rows = length
	}
	if rows*cols != length {
		return nil, fmt.Errorf("%w: %d values for a %dx%d array", ErrShape, length, rows, cols)
	}
	a, err := newFilled(t, rows, cols, vector, func(a *Array) error { return a.buf.Write(0, data) })
	if err != nil {
		return nil, err
	}
	a.countUp(int64(length) * t.Size())
	a.hostValid, a.host = true, data
	return a, nil
}

// uploadUncached makes a vector from a host slice without keeping a host
// copy: the bytes go from data to the device (through the pinned staging
// buffers on a GPU) and data is not retained, so the caller may change it
// afterwards. For the large arrays of a sparse matrix on their way to the
// device, where a host copy would cost an allocation and a copy of every
// byte (84 MB for Model 2 at n = 142,422: tens of milliseconds of page
// faults and copying, more than the transfer itself); reading the array
// back downloads it.
func uploadUncached(data any, length int, t DType) (*Array, error) {
	a, err := newFilled(t, length, 1, true, func(a *Array) error { return a.buf.Write(0, data) })
	if err != nil {
		return nil, err
	}
	a.countUp(int64(length) * t.Size())
	return a, nil
}

// FromFloat64s uploads data as a float64 array. dims gives the shape: none
// for a vector of len(data), (n) for a vector, (rows, cols) for a
// column-major matrix.
func FromFloat64s(data []float64, dims ...int) (*Array, error) {
	return upload(append([]float64(nil), data...), len(data), Float64, dims)
}

// FromFloat32s uploads data as a float32 array (see FromFloat64s for dims).
func FromFloat32s(data []float32, dims ...int) (*Array, error) {
	return upload(append([]float32(nil), data...), len(data), Float32, dims)
}

// FromInt32s uploads data as an int32 array (see FromFloat64s for dims).
func FromInt32s(data []int32, dims ...int) (*Array, error) {
	return upload(append([]int32(nil), data...), len(data), Int32, dims)
}

// FromDense uploads a gonum matrix as a float64 array (gonum is row-major;
// the array is column-major).
func FromDense(m mat.Matrix) (*Array, error) {
	r, c := m.Dims()
	data := make([]float64, r*c)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			data[i+r*j] = m.At(i, j)
		}
	}
	return upload(data, len(data), Float64, []int{r, c})
}

// FromVecDense uploads a gonum vector as a float64 vector.
func FromVecDense(v mat.Vector) (*Array, error) {
	n := v.Len()
	data := make([]float64, n)
	for i := range data {
		data[i] = v.AtVec(i)
	}
	return upload(data, n, Float64, []int{n})
}

// Zeros returns a float64 array of zeros with the given shape.
func Zeros(dims ...int) (*Array, error) { return Constant(0, Float64, dims...) }

// Constant returns an array of type t and the given shape with every element
// set to v (rounded toward zero for Int32).
func Constant(v float64, t DType, dims ...int) (*Array, error) {
	rows, cols, vector, err := dims2(dims)
	if err != nil {
		return nil, err
	}
	return newFilled(t, rows, cols, vector, func(a *Array) error { return a.fill(v) })
}

// dims2 is dims for constructors without data: () is an error.
func dims2(d []int) (int, int, bool, error) {
	if len(d) == 0 {
		return 0, 0, false, fmt.Errorf("%w: no dimensions given", ErrShape)
	}
	return dims(d)
}

// Range returns the vector start, start+step, ..., with n elements.
func Range(n int, start, step float64, t DType) (*Array, error) {
	return newFilled(t, n, 1, true, func(a *Array) error {
		return a.launchElementwise("range_fill", n, a.typed(start), a.typed(step), a.buf)
	})
}

// Random returns an array of seeded uniform random numbers in [0, 1). The
// same seed gives the same values on every device; they are generated on the
// device, with no host transfer.
func Random(seed uint64, t DType, dims ...int) (*Array, error) {
	if !t.isFloat() {
		return nil, fmt.Errorf("%w: Random makes float64 or float32 arrays, not %s", ErrDType, t)
	}
	rows, cols, vector, err := dims2(dims)
	if err != nil {
		return nil, err
	}
	return newFilled(t, rows, cols, vector, func(a *Array) error {
		return a.launchElementwise("random_uniform", a.Len(), seed, a.buf)
	})
}

// FromBuffer wraps a device buffer that holds rows*cols elements of type t,
// column-major, as an Array that owns it. Solvers use it to hand results to
// users.
func FromBuffer(buf *kernels.Buffer, t DType, rows, cols int) (*Array, error) {
	if buf == nil || buf.Released() {
		return nil, ErrReleased
	}
	if int64(rows)*int64(cols)*t.Size() > buf.Size() {
		return nil, fmt.Errorf("%w: %dx%d %s does not fit a %d-byte buffer", ErrShape, rows, cols, t, buf.Size())
	}
	return &Array{dev: buf.Device(), buf: buf, dtype: t, rows: rows, cols: cols, vector: cols == 1}, nil
}

// Release frees the array's device memory at once and drops its host copy.
// Any later operation on the array returns ErrReleased. Release is
// idempotent.
func (a *Array) Release() {
	if a == nil || a.buf == nil {
		return
	}
	a.buf.Release()
	a.host, a.hostValid = nil, false
}

// Released reports whether Release was called.
func (a *Array) Released() bool { return a == nil || a.buf == nil || a.buf.Released() }

// Dims returns the number of rows and columns (a vector of n is n x 1).
func (a *Array) Dims() (rows, cols int) { return a.rows, a.cols }

// Len returns the number of elements.
func (a *Array) Len() int { return a.rows * a.cols }

// IsVector reports whether the array was made 1-D.
func (a *Array) IsVector() bool { return a.vector }

// DType returns the element type.
func (a *Array) DType() DType { return a.dtype }

// Device returns the device holding the array.
func (a *Array) Device() *kernels.Device { return a.dev }

// Bytes returns the device memory the array holds.
func (a *Array) Bytes() int64 { return int64(a.Len()) * a.dtype.Size() }

// DeviceBuffer hands out the array's device buffer for use by custom
// kernels, like ArrayFire's device(). Because the caller may write to it, the
// cached host copy is dropped.
func (a *Array) DeviceBuffer() (*kernels.Buffer, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	a.touch()
	return a.buf, nil
}

// Copy returns a new array with the same contents, copied on the device.
func (a *Array) Copy() (*Array, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	b, err := newArray(a.dev, a.dtype, a.rows, a.cols, a.vector)
	if err != nil {
		return nil, err
	}
	if err := a.buf.CopyTo(b.buf, 0, 0, a.Bytes()); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// Reshape returns an array that shares nothing with a and holds the same
// elements in column-major order with a new shape.
func (a *Array) Reshape(rows, cols int) (*Array, error) {
	if rows*cols != a.Len() {
		return nil, fmt.Errorf("%w: cannot reshape %dx%d to %dx%d", ErrShape, a.rows, a.cols, rows, cols)
	}
	b, err := a.Copy()
	if err != nil {
		return nil, err
	}
	b.rows, b.cols, b.vector = rows, cols, cols == 1 && a.vector
	return b, nil
}

func (a *Array) usable() error {
	if a == nil || a.buf == nil {
		return fmt.Errorf("%w: nil array", ErrReleased)
	}
	if a.buf.Released() {
		return ErrReleased
	}
	return nil
}

// touch records a device write: the host copy is no longer current.
func (a *Array) touch() { a.hostValid, a.host = false, nil }

// typed converts a float64 scalar to the kernel argument type of a.
func (a *Array) typed(v float64) any {
	switch a.dtype {
	case Float32:
		return float32(v)
	case Int32:
		return int32(v)
	}
	return v
}
