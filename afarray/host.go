package afarray

import (
	"fmt"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// TransferStats counts the host<->device transfers of one array.
type TransferStats struct {
	ToDevice      int   // uploads
	ToHost        int   // downloads (whole array or previews)
	BytesToDevice int64 // bytes uploaded
	BytesToHost   int64 // bytes downloaded
}

// String renders the counts, e.g. "1 up (800 B), 2 down (16 B)".
func (s TransferStats) String() string {
	return fmt.Sprintf("%d up (%d B), %d down (%d B)", s.ToDevice, s.BytesToDevice, s.ToHost, s.BytesToHost)
}

// Transfers returns the array's transfer counts.
func (a *Array) Transfers() TransferStats { return a.stats }

var totalToHost, totalToDevice, totalBytesToHost, totalBytesToDevice atomic.Int64

// TotalTransfers returns the transfer counts of every array of the process.
func TotalTransfers() TransferStats {
	return TransferStats{ToDevice: int(totalToDevice.Load()), ToHost: int(totalToHost.Load()),
		BytesToDevice: totalBytesToDevice.Load(), BytesToHost: totalBytesToHost.Load()}
}

func (a *Array) countDown(bytes int64) {
	a.stats.ToHost++
	a.stats.BytesToHost += bytes
	totalToHost.Add(1)
	totalBytesToHost.Add(bytes)
}

func (a *Array) countUp(bytes int64) {
	a.stats.ToDevice++
	a.stats.BytesToDevice += bytes
	totalToDevice.Add(1)
	totalBytesToDevice.Add(bytes)
}

// sync makes the cached host copy current, downloading it if a device write
// happened since the last download. It waits for queued work on the array.
func (a *Array) sync() error {
	if err := a.usable(); err != nil {
		return err
	}
	if a.hostValid {
		return nil
	}
	var h any
	switch a.dtype {
	case Float64:
		h = make([]float64, a.Len())
	case Float32:
		h = make([]float32, a.Len())
	default:
		h = make([]int32, a.Len())
	}
	if err := a.buf.Read(0, h); err != nil {
		return err
	}
	a.countDown(a.Bytes())
	a.host, a.hostValid = h, true
	return nil
}

// Float64s returns the elements in column-major order as float64, copying
// them from the device only if the cached host copy is stale. The returned
// slice is the caller's.
func (a *Array) Float64s() ([]float64, error) {
	if err := a.sync(); err != nil {
		return nil, err
	}
	out := make([]float64, a.Len())
	switch h := a.host.(type) {
	case []float64:
		copy(out, h)
	case []float32:
		for i, v := range h {
			out[i] = float64(v)
		}
	case []int32:
		for i, v := range h {
			out[i] = float64(v)
		}
	}
	return out, nil
}

// Float32s returns the elements as float32 (see Float64s). It requires a
// float32 array.
func (a *Array) Float32s() ([]float32, error) { return hostCopy[float32](a, Float32, "Float32s") }

// Int32s returns the elements as int32 (see Float64s). It requires an int32
// array.
func (a *Array) Int32s() ([]int32, error) { return hostCopy[int32](a, Int32, "Int32s") }

// hostCopy returns a copy of the elements of an array of dtype dt (T's),
// or ErrDType naming op.
func hostCopy[T any](a *Array, dt DType, op string) ([]T, error) {
	if a.dtype != dt {
		return nil, fmt.Errorf("%w: %s of a %s array", ErrDType, op, a.dtype)
	}
	if err := a.sync(); err != nil {
		return nil, err
	}
	return append([]T(nil), a.host.([]T)...), nil
}

// Scalar returns the single element of a 1-element array.
func (a *Array) Scalar() (float64, error) {
	if a.Len() != 1 {
		return 0, fmt.Errorf("%w: Scalar of a %dx%d array", ErrShape, a.rows, a.cols)
	}
	v, err := a.Float64s()
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// ToDense returns the array as a gonum matrix.
func (a *Array) ToDense() (*mat.Dense, error) {
	v, err := a.Float64s()
	if err != nil {
		return nil, err
	}
	if a.Len() == 0 {
		return &mat.Dense{}, nil
	}
	m := mat.NewDense(a.rows, a.cols, nil)
	for j := 0; j < a.cols; j++ {
		for i := 0; i < a.rows; i++ {
			m.Set(i, j, v[i+a.rows*j])
		}
	}
	return m, nil
}

// ToVecDense returns a vector (or any array, flattened column-major) as a
// gonum vector.
func (a *Array) ToVecDense() (*mat.VecDense, error) {
	v, err := a.Float64s()
	if err != nil {
		return nil, err
	}
	if len(v) == 0 {
		return &mat.VecDense{}, nil
	}
	return mat.NewVecDense(len(v), v), nil
}

// Write uploads data (of the array's length, column-major) into the array.
func (a *Array) Write(data []float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	if len(data) != a.Len() {
		return fmt.Errorf("%w: %d values for a %dx%d array", ErrShape, len(data), a.rows, a.cols)
	}
	var h any
	switch a.dtype {
	case Float64:
		h = append([]float64(nil), data...)
	case Float32:
		s := make([]float32, len(data))
		for i, v := range data {
			s[i] = float32(v)
		}
		h = s
	default:
		s := make([]int32, len(data))
		for i, v := range data {
			s[i] = int32(v)
		}
		h = s
	}
	if err := a.buf.Write(0, h); err != nil {
		return err
	}
	a.countUp(a.Bytes())
	a.host, a.hostValid = h, true
	return nil
}

// Sync waits until every operation queued on the array's device has
// finished, so that a timing includes the device work (like Julia's @time
// around ArrayFire's sync).
func (a *Array) Sync() error { return a.dev.Finish() }
