package sparse

import (
	"fmt"
	"math"
	"runtime"
)

// COO is a sparse matrix in coordinate (triplet) form on the host.
//
// Indices are 0-based. Entries may appear in any order and duplicates are
// allowed until Compact is called (duplicates are summed, as in a finite-element
// assembly). A COO can hold a full matrix or one triangle of a symmetric one;
// Symmetric records which, so that conversions know whether to mirror.
type COO struct {
	Rows, Cols int       // matrix shape
	I, J       []int32   // row and column index of each entry
	V          []float64 // value of each entry

	// Symmetric reports that only one triangle is stored and the matrix is
	// symmetric: each off-diagonal entry (i, j) stands also for (j, i).
	Symmetric bool
}

// NNZ returns the number of stored entries (duplicates counted separately).
func (c *COO) NNZ() int { return len(c.V) }

// N returns the order of a square matrix, that is Rows. For a rectangular
// matrix use the Rows and Cols fields.
func (c *COO) N() int { return c.Rows }

// maxOrder bounds matrix dimensions so that int32 indices and the int
// arithmetic on them cannot overflow.
const maxOrder = math.MaxInt32 - 1

// Validate checks that the index and value slices have equal lengths, that
// every index lies inside the shape, and that a Symmetric matrix is square.
// It returns an error wrapping ErrShape or ErrIndex, or ErrNaN for a value
// that is NaN or infinite.
func (c *COO) Validate() error {
	if c == nil {
		return fmt.Errorf("%w: nil COO", ErrShape)
	}
	if c.Rows < 0 || c.Cols < 0 || c.Rows > maxOrder || c.Cols > maxOrder {
		return fmt.Errorf("%w: COO shape %dx%d", ErrShape, c.Rows, c.Cols)
	}
	if len(c.I) != len(c.V) || len(c.J) != len(c.V) {
		return fmt.Errorf("%w: COO slices have lengths I=%d J=%d V=%d", ErrShape, len(c.I), len(c.J), len(c.V))
	}
	if c.Symmetric && c.Rows != c.Cols {
		return fmt.Errorf("%w: symmetric COO is %dx%d, not square", ErrShape, c.Rows, c.Cols)
	}
	// Every pipeline stage validates what it is given: large matrices are
	// checked on every core, and the error is that of the first bad entry.
	m := len(c.V)
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<16)))
	bad := make([]int, workers)
	run(workers, workers, func(w int) {
		bad[w] = -1
		rows, cols := int32(c.Rows), int32(c.Cols)
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			i, j := c.I[k], c.J[k]
			if i < 0 || i >= rows || j < 0 || j >= cols || math.IsNaN(c.V[k]) || math.IsInf(c.V[k], 0) {
				bad[w] = k
				return
			}
		}
	})
	for _, k := range bad {
		if k < 0 {
			continue
		}
		i, j := c.I[k], c.J[k]
		if i < 0 || int(i) >= c.Rows || j < 0 || int(j) >= c.Cols {
			return fmt.Errorf("%w: COO entry %d at (%d,%d) outside %dx%d", ErrIndex, k, i, j, c.Rows, c.Cols)
		}
		return fmt.Errorf("%w: COO entry %d at (%d,%d) is %v", ErrNaN, k, i, j, c.V[k])
	}
	return nil
}

// Clone returns a deep copy of c.
func (c *COO) Clone() *COO {
	return &COO{
		Rows: c.Rows, Cols: c.Cols, Symmetric: c.Symmetric,
		I: append([]int32(nil), c.I...),
		J: append([]int32(nil), c.J...),
		V: append([]float64(nil), c.V...),
	}
}

// Compact puts c in canonical form in place: when c is Symmetric every entry
// is moved to the lower triangle, entries are sorted by column and by row
// within a column, and duplicates are summed. Entries that sum to zero are
// kept (they are part of the structure). It runs in O(nnz + Rows + Cols)
// time with two counting sorts.
func (c *COO) Compact() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Symmetric {
		for k := range c.V {
			if c.I[k] < c.J[k] {
				c.I[k], c.J[k] = c.J[k], c.I[k]
			}
		}
	}
	c.I, c.J, c.V = sortColMajor(c.Rows, c.Cols, c.I, c.J, c.V)
	c.I, c.J, c.V = sumSorted(c.I, c.J, c.V)
	return nil
}

// SumDuplicates is Compact under the name SciPy users know.
func (c *COO) SumDuplicates() error { return c.Compact() }

// At returns element (i, j), summing duplicates and, for a Symmetric matrix,
// the mirrored entry. It scans every entry and is meant for tests and small
// matrices. It returns ErrIndex when (i, j) lies outside the matrix.
func (c *COO) At(i, j int) (float64, error) {
	if i < 0 || i >= c.Rows || j < 0 || j >= c.Cols {
		return 0, fmt.Errorf("%w: (%d,%d) outside %dx%d", ErrIndex, i, j, c.Rows, c.Cols)
	}
	var s float64
	for k := range c.V {
		r, q := int(c.I[k]), int(c.J[k])
		if (r == i && q == j) || (c.Symmetric && i != j && r == j && q == i) {
			s += c.V[k]
		}
	}
	return s, nil
}

// Lower returns the lower triangle of a symmetric matrix as a new compacted
// COO with Symmetric set. c may store either triangle (Symmetric true) or both
// (Symmetric false); in the second case Lower checks that the two triangles
// agree (to a relative 1e-12, an absent entry counting as zero) and returns
// ErrNotSymmetric when they do not. c is not modified.
func (c *COO) Lower() (*COO, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Rows != c.Cols {
		return nil, fmt.Errorf("%w: %dx%d matrix is not square", ErrShape, c.Rows, c.Cols)
	}
	if c.Symmetric {
		l := c.Clone()
		if err := l.Compact(); err != nil {
			return nil, err
		}
		return l, nil
	}
	// Split into the lower triangle and the transposed upper triangle,
	// canonicalize both and compare them entry by entry.
	var lo, up COO
	lo.Rows, lo.Cols, up.Rows, up.Cols = c.Rows, c.Cols, c.Rows, c.Cols
	nlo := 0
	for k := range c.V {
		if c.I[k] >= c.J[k] {
			nlo++
		}
	}
	lo.I, lo.J, lo.V = make([]int32, 0, nlo), make([]int32, 0, nlo), make([]float64, 0, nlo)
	up.I, up.J, up.V = make([]int32, 0, len(c.V)-nlo), make([]int32, 0, len(c.V)-nlo), make([]float64, 0, len(c.V)-nlo)
	for k, v := range c.V {
		i, j := c.I[k], c.J[k]
		if i >= j {
			lo.I, lo.J, lo.V = append(lo.I, i), append(lo.J, j), append(lo.V, v)
		} else {
			up.I, up.J, up.V = append(up.I, j), append(up.J, i), append(up.V, v)
		}
	}
	if err := lo.Compact(); err != nil {
		return nil, err
	}
	if err := up.Compact(); err != nil {
		return nil, err
	}
	if err := compareTriangles(&lo, &up); err != nil {
		return nil, err
	}
	lo.Symmetric = true
	return &lo, nil
}

// symTol is the relative tolerance of the symmetry check in Lower. It absorbs
// nothing but the last bits of a value written twice by different code paths.
const symTol = 1e-12

// compareTriangles merges two compacted triangles (lo, and the transpose of
// the upper triangle) and reports the first position where they differ.
func compareTriangles(lo, up *COO) error {
	a, b := 0, 0
	for a < len(lo.V) || b < len(up.V) {
		var i, j int32
		var va, vb float64
		switch {
		case b == len(up.V) || (a < len(lo.V) && less(lo.J[a], lo.I[a], up.J[b], up.I[b])):
			i, j, va = lo.I[a], lo.J[a], lo.V[a]
			a++
			if i == j {
				continue // the diagonal has no mirror
			}
		case a == len(lo.V) || less(up.J[b], up.I[b], lo.J[a], lo.I[a]):
			i, j, vb = up.I[b], up.J[b], up.V[b]
			b++
		default:
			i, j, va, vb = lo.I[a], lo.J[a], lo.V[a], up.V[b]
			a++
			b++
		}
		if math.Abs(va-vb) > symTol*math.Max(math.Abs(va), math.Abs(vb)) {
			// 1-based, as the file numbers rows and columns.
			return fmt.Errorf("%w: A(%d,%d) = %g but A(%d,%d) = %g", ErrNotSymmetric, i+1, j+1, va, j+1, i+1, vb)
		}
	}
	return nil
}

// less orders positions column-major: by column, then by row.
func less(j1, i1, j2, i2 int32) bool { return j1 < j2 || (j1 == j2 && i1 < i2) }

// Full returns the matrix with both triangles stored, compacted and with
// Symmetric false. A Symmetric c is mirrored; a general c is copied.
func (c *COO) Full() (*COO, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if !c.Symmetric {
		f := c.Clone()
		if err := f.Compact(); err != nil {
			return nil, err
		}
		return f, nil
	}
	l, err := c.Lower()
	if err != nil {
		return nil, err
	}
	return l.mirror(), nil
}

// mirror expands a compacted lower triangle to a compacted full matrix.
func (l *COO) mirror() *COO {
	nd := 0
	for k := range l.V {
		if l.I[k] != l.J[k] {
			nd++
		}
	}
	n := len(l.V) + nd
	f := &COO{Rows: l.Rows, Cols: l.Cols, I: make([]int32, 0, n), J: make([]int32, 0, n), V: make([]float64, 0, n)}
	for k, v := range l.V {
		f.I, f.J, f.V = append(f.I, l.I[k]), append(f.J, l.J[k]), append(f.V, v)
		if l.I[k] != l.J[k] {
			f.I, f.J, f.V = append(f.I, l.J[k]), append(f.J, l.I[k]), append(f.V, v)
		}
	}
	f.I, f.J, f.V = sortColMajor(f.Rows, f.Cols, f.I, f.J, f.V)
	return f
}

// sortColMajor returns the triplets sorted by column and by row within a
// column. It is two stable counting sorts (by row, then by column), so it runs
// in O(nnz + rows + cols) time. The inputs must be in range.
func sortColMajor(rows, cols int, I, J []int32, V []float64) ([]int32, []int32, []float64) {
	n := len(V)
	I1, J1, V1 := make([]int32, n), make([]int32, n), make([]float64, n)
	cnt := make([]int, max(rows, cols)+1)
	for _, i := range I {
		cnt[i+1]++
	}
	for r := 0; r < rows; r++ {
		cnt[r+1] += cnt[r]
	}
	for k := range V {
		p := cnt[I[k]]
		cnt[I[k]]++
		I1[p], J1[p], V1[p] = I[k], J[k], V[k]
	}
	clear(cnt)
	for _, j := range J1 {
		cnt[j+1]++
	}
	for q := 0; q < cols; q++ {
		cnt[q+1] += cnt[q]
	}
	I2, J2, V2 := I[:n], J[:n], V[:n] // the caller's storage holds the result
	for k := range V1 {
		p := cnt[J1[k]]
		cnt[J1[k]]++
		I2[p], J2[p], V2[p] = I1[k], J1[k], V1[k]
	}
	return I2[:n], J2[:n], V2[:n]
}

// sumSorted sums adjacent duplicates of column-major sorted triplets in place.
func sumSorted(I, J []int32, V []float64) ([]int32, []int32, []float64) {
	w := 0
	for k := range V {
		if w > 0 && I[w-1] == I[k] && J[w-1] == J[k] {
			V[w-1] += V[k]
			continue
		}
		I[w], J[w], V[w] = I[k], J[k], V[k]
		w++
	}
	return I[:w], J[:w], V[:w]
}

// OneTriangle reports which triangle holds every entry of the square
// matrix c when it is not marked symmetric: "lower", "upper", or "" (both
// triangles, only the diagonal, no entries, or c is marked symmetric). Such
// a matrix is ambiguous: a triangular matrix, or one triangle of a
// symmetric one; callers decide by their rule (oclsolve solve's
// --symmetric, solver.Solve's choice).
func (c *COO) OneTriangle() string {
	if c.Symmetric || c.Rows != c.Cols || c.NNZ() == 0 {
		return ""
	}
	lower, upper := true, true
	for k := range c.I {
		lower = lower && c.I[k] >= c.J[k]
		upper = upper && c.I[k] <= c.J[k]
	}
	switch {
	case lower == upper: // both: diagonal; neither: a full matrix
		return ""
	case lower:
		return "lower"
	}
	return "upper"
}
