package dense

import (
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/kernels"
)

// DType is the element type of the matrices an Engine works on.
type DType int

const (
	Float64 DType = iota
	Float32
)

// Size returns the bytes of one element.
func (t DType) Size() int64 {
	if t == Float32 {
		return 4
	}
	return 8
}

func (t DType) String() string {
	if t == Float32 {
		return "float32"
	}
	return "float64"
}

func (t DType) clType() string {
	if t == Float32 {
		return "float"
	}
	return "double"
}

// Mat is a column-major matrix view into a device buffer: element (i, j)
// is at element index Off + i + j*LD of Buf (indices in elements of the
// engine's DType, not bytes). Views of one buffer may overlap only where an
// operation allows it (never between an input and the output).
type Mat struct {
	Buf        *kernels.Buffer
	Off        int64
	Rows, Cols int
	LD         int
}

// Sub returns the r x c view whose (0, 0) is (i, j) of m. It does not
// check the bounds; the operations do.
func (m Mat) Sub(i, j, r, c int) Mat {
	return Mat{Buf: m.Buf, Off: m.Off + int64(i) + int64(j)*int64(m.LD), Rows: r, Cols: c, LD: m.LD}
}

// check validates the view for dtype t: a usable buffer, non-negative
// sizes, LD >= Rows, sizes within int32 (the kernels index with int) and
// every element inside the buffer.
func (m Mat) check(t DType, what string) error {
	if m.Rows < 0 || m.Cols < 0 || m.Off < 0 {
		return fmt.Errorf("dense: %s: %w: %dx%d at offset %d", what, ErrShape, m.Rows, m.Cols, m.Off)
	}
	if m.Rows > math.MaxInt32 || m.Cols > math.MaxInt32 || m.LD > math.MaxInt32 {
		return fmt.Errorf("dense: %s: %w: %dx%d (ld %d) exceeds int32", what, ErrShape, m.Rows, m.Cols, m.LD)
	}
	if m.LD < max(1, m.Rows) {
		return fmt.Errorf("dense: %s: %w: leading dimension %d < rows %d", what, ErrShape, m.LD, m.Rows)
	}
	if m.Rows == 0 || m.Cols == 0 {
		return nil
	}
	if m.Buf == nil || m.Buf.Released() {
		return fmt.Errorf("dense: %s: %w", what, kernels.ErrReleased)
	}
	last := m.Off + int64(m.Cols-1)*int64(m.LD) + int64(m.Rows) // one past the last element
	if last*t.Size() > m.Buf.Size() {
		return fmt.Errorf("dense: %s: %w: %dx%d (ld %d) at offset %d needs %d bytes, buffer has %d",
			what, ErrShape, m.Rows, m.Cols, m.LD, m.Off, last*t.Size(), m.Buf.Size())
	}
	return nil
}

// ld returns the leading dimension as the kernels take it.
func (m Mat) ld() int32 { return int32(max(1, m.LD)) }

// overlaps reports whether two views share an element. Two views of one
// buffer with the same leading dimension are compared exactly on the
// column-major grid, so disjoint blocks of one matrix (a panel and the
// trailing block beside it) never count as overlapping; other pairs of one
// buffer are compared by their spans.
func overlaps(a, b Mat) bool {
	if a.Buf != b.Buf || a.Rows == 0 || a.Cols == 0 || b.Rows == 0 || b.Cols == 0 {
		return false
	}
	if a.LD == b.LD && a.Rows <= a.LD && b.Rows <= b.LD {
		if b.Off < a.Off {
			a, b = b, a
		}
		// Relative to a's first element, a is rows [0, Ra) x columns
		// [0, Ca); b starts at row r of column c and its columns may wrap
		// into the next grid column: rows [r, ld) of columns [c, c+Cb)
		// and rows [0, r+Rb-ld) of columns [c+1, c+1+Cb).
		ld, d := int64(a.LD), b.Off-a.Off
		r, c := d%ld, d/ld
		ra, ca, rb, cb := int64(a.Rows), int64(a.Cols), int64(b.Rows), int64(b.Cols)
		hit := func(r0, r1, c0, c1 int64) bool { return r0 < r1 && r0 < ra && c0 < ca && c1 > 0 }
		if hit(r, min(r+rb, ld), c, c+cb) {
			return true
		}
		return r+rb > ld && hit(0, r+rb-ld, c+1, c+1+cb)
	}
	aEnd := a.Off + int64(a.Cols-1)*int64(a.LD) + int64(a.Rows)
	bEnd := b.Off + int64(b.Cols-1)*int64(b.LD) + int64(b.Rows)
	return a.Off < bEnd && b.Off < aEnd
}
