package afarray

import "fmt"

// Gather returns the vector dst[i] = src[idx[i]] (src treated as flat,
// column-major). idx must be an Int32 array; an index outside src returns
// ErrIndex.
func Gather(src, idx *Array) (*Array, error) {
	if err := checkIndex("Gather", src, idx); err != nil {
		return nil, err
	}
	dst, err := newArray(src.dev, src.dtype, idx.Len(), 1, true)
	if err != nil {
		return nil, err
	}
	if err := indexed("gather", src, idx, dst, src.Len()); err != nil {
		dst.Release()
		return nil, err
	}
	return dst, nil
}

// Scatter writes dst[idx[i]] = src[i] for every i. idx must be an Int32
// array of src's length; an index outside dst returns ErrIndex. With
// duplicate indices one of the values wins, unspecified which.
func Scatter(dst, src, idx *Array) error {
	if err := checkIndex("Scatter", src, idx); err != nil {
		return err
	}
	if err := dst.usable(); err != nil {
		return err
	}
	if dst.dtype != src.dtype || dst.dev != src.dev {
		return fmt.Errorf("Scatter: %w", ErrDType)
	}
	if idx.Len() != src.Len() {
		return fmt.Errorf("Scatter: %w: %d values, %d indices", ErrShape, src.Len(), idx.Len())
	}
	return indexed("scatter", src, idx, dst, dst.Len())
}

func checkIndex(op string, src, idx *Array) error {
	for _, a := range []*Array{src, idx} {
		if err := a.usable(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if idx.dtype != Int32 {
		return fmt.Errorf("%s: %w: indices must be int32, not %s", op, ErrDType, idx.dtype)
	}
	if idx.dev != src.dev {
		return fmt.Errorf("%s: %w", op, ErrDevice)
	}
	return nil
}

// indexed runs gather or scatter and checks the out-of-range flag, which
// needs one 4-byte read: index errors must not pass silently.
func indexed(kernel string, src, idx, dst *Array, length int) error {
	n := idx.Len()
	if n == 0 {
		return nil
	}
	bad, err := src.dev.Alloc(4)
	if err != nil {
		return err
	}
	defer bad.Release()
	if err := bad.Write(0, []int32{0}); err != nil {
		return err
	}
	// dst's program is src's: they have one dtype.
	if err := dst.launchElementwise(kernel, n, int32(length), src.buf, idx.buf, dst.buf, bad); err != nil {
		return err
	}
	flag := []int32{0}
	if err := bad.Read(0, flag); err != nil {
		return err
	}
	if flag[0] != 0 {
		return fmt.Errorf("%w: an index is outside [0, %d)", ErrIndex, length)
	}
	return nil
}
