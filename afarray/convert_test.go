package afarray

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// sharedMatrices is the shared matrix directory seen from this package.
const sharedMatrices = "../../shared/matrices"

// readSharedMatrices returns every coordinate matrix of the shared
// directory, by file name.
func readSharedMatrices(t testing.TB) (names []string, coos map[string]*sparse.COO) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(sharedMatrices, "*.mtx"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no matrices in %s (%v)", sharedMatrices, err)
	}
	coos = map[string]*sparse.COO{}
	for _, p := range paths {
		d, err := sparse.ReadMatrixMarketFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if d.COO == nil { // a right-hand side stored as an array
			continue
		}
		name := strings.TrimSuffix(filepath.Base(p), ".mtx")
		names = append(names, name)
		coos[name] = d.COO
	}
	return names, coos
}

// sameBits reports whether two float64 slices hold the same bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// firstDiff describes the first difference of two slices, for messages.
func firstDiff[T comparable](a, b []T) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("len %d vs %d, first difference at %d: %v vs %v", len(a), len(b), i, a[i], b[i])
		}
	}
	return fmt.Sprintf("len %d vs %d", len(a), len(b))
}

func checkInts(t *testing.T, what string, got, want []int32) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s differs: %s", what, firstDiff(got, want))
	}
}

func checkFloats(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if !sameBits(got, want) {
		t.Errorf("%s differs bitwise: %s", what, firstDiff(got, want))
	}
}

// deviceConversions uploads c, converts it on the device to the three
// formats and downloads them; it fails the test on any error.
func deviceConversions(t *testing.T, c *sparse.COO) (*sparse.CSC, *sparse.SKS, *sparse.CSR) {
	t.Helper()
	d, err := UploadCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	hc, err := deviceCSC(d)
	if err != nil {
		t.Fatalf("ToCSC: %v", err)
	}
	hs, err := deviceSKS(d)
	if err != nil {
		t.Fatalf("ToSKS: %v", err)
	}
	hr, err := deviceCSR(d)
	if err != nil {
		t.Fatalf("ToCSR: %v", err)
	}
	return hc, hs, hr
}

// deviceCSC converts on the device and downloads the result.
func deviceCSC(d *COO) (*sparse.CSC, error) {
	m, err := d.ToCSC()
	if err != nil {
		return nil, err
	}
	defer m.Release()
	if m.N != d.Rows {
		return nil, fmt.Errorf("CSC of order %d from a %dx%d COO", m.N, d.Rows, d.Cols)
	}
	return m.Host()
}

func deviceSKS(d *COO) (*sparse.SKS, error) {
	m, err := d.ToSKS()
	if err != nil {
		return nil, err
	}
	defer m.Release()
	if m.N != d.Rows {
		return nil, fmt.Errorf("SKS of order %d from a %dx%d COO", m.N, d.Rows, d.Cols)
	}
	return m.Host()
}

func deviceCSR(d *COO) (*sparse.CSR, error) {
	m, err := d.ToCSR()
	if err != nil {
		return nil, err
	}
	defer m.Release()
	if m.Rows != d.Rows || m.Cols != d.Cols {
		return nil, fmt.Errorf("CSR %dx%d from a %dx%d COO", m.Rows, m.Cols, d.Rows, d.Cols)
	}
	return m.Host()
}

// deviceDense converts d to a dense matrix on the device and downloads it
// (column-major).
func deviceDense(d *COO) ([]float64, error) {
	m, err := d.ToDense()
	if err != nil {
		return nil, err
	}
	defer m.Release()
	if r, c := m.Dims(); r != d.Rows || c != d.Cols {
		return nil, fmt.Errorf("dense %dx%d from a %dx%d COO", r, c, d.Rows, d.Cols)
	}
	return m.Float64s()
}

// sameOutcome requires the device to fail exactly when the host does, with
// the same sentinel error; it reports whether both succeeded.
func sameOutcome(t *testing.T, what string, got, want error) bool {
	t.Helper()
	switch {
	case want == nil && got == nil:
		return true
	case want == nil:
		t.Errorf("%s: device error %v, the host converts", what, got)
	case got == nil:
		t.Errorf("%s: device converts, the host fails with %v", what, want)
	default:
		for _, sentinel := range []error{sparse.ErrNotSymmetric, sparse.ErrIndex, sparse.ErrNaN, sparse.ErrShape} {
			if errors.Is(want, sentinel) != errors.Is(got, sentinel) {
				t.Errorf("%s: device error %v, host error %v", what, got, want)
			}
		}
	}
	return false
}

// checkAgainstHost converts c on the host and on the device and requires
// identical arrays, bit for bit, or the same error.
func checkAgainstHost(t *testing.T, c *sparse.COO) {
	t.Helper()
	d, err := UploadCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()

	wc, werr := sparse.CSCFromCOO(c)
	gc, gerr := deviceCSC(d)
	if sameOutcome(t, "CSC", gerr, werr) {
		checkFloats(t, "CSC Elements", gc.Elements, wc.Elements)
		checkInts(t, "CSC DiagPos", gc.DiagPos, wc.DiagPos)
		checkInts(t, "CSC RowIdx", gc.RowIdx, wc.RowIdx)
		if err := gc.Validate(); err != nil {
			t.Errorf("device CSC: %v", err)
		}
	}
	ws, werr := sparse.SKSFromCOO(c)
	gs, gerr := deviceSKS(d)
	if sameOutcome(t, "SKS", gerr, werr) {
		checkFloats(t, "SKS Elements", gs.Elements, ws.Elements)
		checkInts(t, "SKS Index", gs.Index, ws.Index)
		if err := gs.Validate(); err != nil {
			t.Errorf("device SKS: %v", err)
		}
	}
	// gonum cannot hold an empty dense matrix: the host refuses 0x0.
	if c.Rows > 0 && c.Cols > 0 && int64(c.Rows)*int64(c.Cols) <= 1<<21 {
		wd, werr := c.ToDense()
		gd, gerr := deviceDense(d)
		if sameOutcome(t, "dense", gerr, werr) {
			want := make([]float64, c.Rows*c.Cols)
			for i := 0; i < c.Rows; i++ {
				for j := 0; j < c.Cols; j++ {
					want[i+c.Rows*j] = wd.At(i, j)
				}
			}
			checkFloats(t, "dense", gd, want)
		}
	}
	wr, werr := sparse.CSRFromCOO(c)
	gr, gerr := deviceCSR(d)
	if sameOutcome(t, "CSR", gerr, werr) {
		checkInts(t, "CSR RowPtr", gr.RowPtr, wr.RowPtr)
		checkInts(t, "CSR ColIdx", gr.ColIdx, wr.ColIdx)
		checkFloats(t, "CSR Values", gr.Values, wr.Values)
		if err := gr.Validate(); err != nil {
			t.Errorf("device CSR: %v", err)
		}
	}
}

// shuffled returns c with its entries in a random order.
func shuffled(c *sparse.COO, r *rand.Rand) *sparse.COO {
	s := c.Clone()
	r.Shuffle(len(s.V), func(a, b int) {
		s.I[a], s.I[b] = s.I[b], s.I[a]
		s.J[a], s.J[b] = s.J[b], s.J[a]
		s.V[a], s.V[b] = s.V[b], s.V[a]
	})
	return s
}

// withDuplicates splits about a third of c's entries into two or three
// parts appended at the end, as an FE assembly leaves them; in a Symmetric
// c some parts move to the other triangle. The sums need not be exactly the
// original values: the host and the device must agree, bit for bit. In a
// full c the rounding of the three-part sums can make the two triangles
// differ by more than the symmetry tolerance; then both must refuse it.
func withDuplicates(c *sparse.COO, r *rand.Rand) *sparse.COO {
	s := c.Clone()
	for k := range c.V {
		if r.IntN(3) != 0 {
			continue
		}
		v := s.V[k]
		a := v * 0.375
		s.V[k] = a
		parts := []float64{v - a}
		if r.IntN(2) == 0 {
			// A large part that cancels makes the rounding depend on the
			// order of the additions.
			h := v * 1e5 * (1 + r.Float64())
			s.V[k] = a + h
			parts = []float64{v - a, -h}
		}
		for _, p := range parts {
			i, j := c.I[k], c.J[k]
			if c.Symmetric && r.IntN(2) == 0 {
				i, j = j, i
			}
			s.I, s.J, s.V = append(s.I, i), append(s.J, j), append(s.V, p)
		}
	}
	return s
}

// mildDuplicates splits every third entry of c into halves: exact, so that
// a full matrix stays symmetric and the duplicates of both triangles are
// summed and compared.
func mildDuplicates(c *sparse.COO) *sparse.COO {
	s := c.Clone()
	for k := 0; k < len(c.V); k += 3 {
		s.V[k] /= 2
		s.I, s.J, s.V = append(s.I, c.I[k]), append(s.J, c.J[k]), append(s.V, s.V[k])
	}
	return s
}

// TestConvertSharedMatrices converts every shared matrix on the device, in
// several presentations, and compares with the host conversions.
func TestConvertSharedMatrices(t *testing.T) {
	names, coos := readSharedMatrices(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c := coos[name]
			r := rand.New(rand.NewPCG(7, uint64(len(c.V))))
			full, err := c.Full()
			if err != nil {
				t.Fatal(err)
			}
			upper := c.Clone()
			upper.I, upper.J = upper.J, upper.I
			variants := []struct {
				label string
				coo   *sparse.COO
			}{
				{"lower", c},
				{"upper", upper},
				{"full", full},
				{"lower-shuffled", shuffled(c, r)},
				{"full-shuffled", shuffled(full, r)},
				{"lower-duplicates-shuffled", shuffled(withDuplicates(c, r), r)},
				{"full-duplicates", withDuplicates(full, r)},
				{"full-mild-duplicates", mildDuplicates(full)},
			}
			for _, v := range variants {
				t.Run(v.label, func(t *testing.T) { checkAgainstHost(t, v.coo) })
			}
		})
	}
}

// TestConvertRoundTrip takes the small shared matrices from the file to the
// device COO, to device CSC and SKS, back to the host and to a dense matrix,
// which must equal the file's matrix exactly.
func TestConvertRoundTrip(t *testing.T) {
	names, coos := readSharedMatrices(t)
	for _, name := range names {
		c := coos[name]
		if c.Rows > 2100 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			want, err := c.ToDense()
			if err != nil {
				t.Fatal(err)
			}
			d, err := UploadCOO(c)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Release()
			dc, err := d.ToCSC()
			if err != nil {
				t.Fatal(err)
			}
			defer dc.Release()
			ds, err := d.ToSKS()
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Release()
			hc, err := dc.Host()
			if err != nil {
				t.Fatal(err)
			}
			hs, err := ds.Host()
			if err != nil {
				t.Fatal(err)
			}
			for label, back := range map[string]func() (*sparse.COO, error){"CSC": hc.ToCOO, "SKS": hs.ToCOO} {
				bc, err := back()
				if err != nil {
					t.Fatal(err)
				}
				got, err := bc.ToDense()
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(got, want) {
					t.Errorf("%s round trip changes the matrix", label)
				}
			}
		})
	}
}

// lowerCOO returns the nonzero lower triangle of a dense symmetric matrix
// given by rows, as a Symmetric COO in row-major order (not the sorted
// order).
func lowerCOO(rows [][]float64) *sparse.COO {
	n := len(rows)
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	for i := range n {
		for j := 0; j <= i; j++ {
			if rows[i][j] != 0 {
				c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, rows[i][j])
			}
		}
	}
	return c
}

// TestConvertThesisExamples checks the device conversions against the
// layouts printed in the thesis (§3.2 and docs/thesis.md, §3.4),
// independently of the host conversions.
func TestConvertThesisExamples(t *testing.T) {
	m6 := [][]float64{{1, 2, 3, 0, 0, 0}, {2, 5, 0, 3, 0, 0}, {3, 0, 3, 0, 9, 0}, {0, 3, 0, 9, 6, 0}, {0, 0, 9, 6, 5, 0}, {0, 0, 0, 0, 0, 8}}
	gc, gs, _ := deviceConversions(t, lowerCOO(m6))
	// The thesis prints 1-based positions; these are 0-based.
	checkFloats(t, "6x6 CSC Elements", gc.Elements, []float64{1, 2, 3, 5, 3, 3, 9, 9, 6, 5, 8})
	checkInts(t, "6x6 CSC DiagPos", gc.DiagPos, []int32{0, 3, 5, 7, 9, 10})
	checkInts(t, "6x6 CSC RowIdx", gc.RowIdx, []int32{1, 2, 3, 4, 4})
	checkFloats(t, "6x6 SKS Elements", gs.Elements, []float64{1, 2, 3, 5, 0, 3, 3, 0, 9, 9, 6, 5, 8})
	checkInts(t, "6x6 SKS Index", gs.Index, []int32{0, 3, 6, 9, 11, 12})

	m4 := [][]float64{{5, 1, -2, 0}, {1, 2, 0, 0}, {-2, 0, 4, 1}, {0, 0, 1, 3}}
	gc, _, _ = deviceConversions(t, lowerCOO(m4))
	checkFloats(t, "4x4 CSC Elements", gc.Elements, []float64{5, 1, -2, 2, 4, 1, 3})
	checkInts(t, "4x4 CSC DiagPos", gc.DiagPos, []int32{0, 3, 4, 6})
	checkInts(t, "4x4 CSC RowIdx", gc.RowIdx, []int32{1, 2, 3})

	// Column 1 is padded with a zero at row 3 (monotone rule).
	m7 := [][]float64{{3, 4, 0, 1, 0, 0, 0}, {4, 1, 2, 0, 0, 0, 0}, {0, 2, 2, 4, 4, 0, 0}, {1, 0, 4, 9, 0, 5, 0}, {0, 0, 4, 0, 2, 0, 1}, {0, 0, 0, 5, 0, 5, 0}, {0, 0, 0, 0, 1, 0, 8}}
	_, gs, _ = deviceConversions(t, lowerCOO(m7))
	checkFloats(t, "7x7 SKS Elements", gs.Elements, []float64{3, 4, 0, 1, 1, 2, 0, 2, 4, 4, 9, 0, 5, 2, 0, 1, 5, 0, 8})
	checkInts(t, "7x7 SKS Index", gs.Index, []int32{0, 4, 7, 10, 13, 16, 18})
}

// TestConvertEdgeCases covers empty and 1x1 matrices, missing diagonals,
// explicit and negative zeros, a rectangular CSR, and a dense column longer
// than a work-group, always against the host conversions.
func TestConvertEdgeCases(t *testing.T) {
	cases := map[string]*sparse.COO{
		"empty":            {Symmetric: true},
		"empty-full":       {},
		"1x1":              {Rows: 1, Cols: 1, Symmetric: true, I: []int32{0}, J: []int32{0}, V: []float64{4}},
		"1x1-no-entries":   {Rows: 1, Cols: 1, Symmetric: true},
		"5x5-no-entries":   {Rows: 5, Cols: 5},
		"1x1-duplicates":   {Rows: 1, Cols: 1, I: []int32{0, 0, 0}, J: []int32{0, 0, 0}, V: []float64{0.1, 0.2, 0.3}},
		"negative-zero":    {Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 2, 1}, J: []int32{0, 0, 1}, V: []float64{math.Copysign(0, -1), math.Copysign(0, -1), 0}},
		"zero-diagonals":   {Rows: 4, Cols: 4, Symmetric: true, I: []int32{3, 2, 3}, J: []int32{0, 1, 3}, V: []float64{1, 2, 0}},
		"upper-only-zero":  {Rows: 3, Cols: 3, I: []int32{0, 1, 2, 0}, J: []int32{0, 1, 2, 2}, V: []float64{1, 1, 1, 0}},
		"sum-to-zero-tail": {Rows: 6, Cols: 6, Symmetric: true, I: []int32{5, 5, 1}, J: []int32{0, 0, 1}, V: []float64{1, -1, 2}},
		// Triangles that differ just beyond and just within the host's
		// relative tolerance 1e-12: refused, then accepted.
		"asymmetric-5e-12": {Rows: 2, Cols: 2, I: []int32{0, 1, 0, 1}, J: []int32{0, 0, 1, 1}, V: []float64{2, 1, 1 + 5e-12, 2}},
		"asymmetric-5e-13": {Rows: 2, Cols: 2, I: []int32{0, 1, 0, 1}, J: []int32{0, 0, 1, 1}, V: []float64{2, 1, 1 + 5e-13, 2}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { checkAgainstHost(t, c) })
	}

	// A rectangular general matrix: CSR only.
	r := rand.New(rand.NewPCG(3, 4))
	rect := &sparse.COO{Rows: 40, Cols: 70}
	for range 400 {
		rect.I, rect.J, rect.V = append(rect.I, int32(r.IntN(40))), append(rect.J, int32(r.IntN(70))), append(rect.V, r.NormFloat64())
	}
	want, err := sparse.CSRFromCOO(rect)
	if err != nil {
		t.Fatal(err)
	}
	d, err := UploadCOO(rect)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	dr, err := d.ToCSR()
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Release()
	got, err := dr.Host()
	if err != nil {
		t.Fatal(err)
	}
	checkInts(t, "rectangular RowPtr", got.RowPtr, want.RowPtr)
	checkInts(t, "rectangular ColIdx", got.ColIdx, want.ColIdx)
	checkFloats(t, "rectangular Values", got.Values, want.Values)
	if _, err := d.ToCSC(); !errors.Is(err, ErrShape) || !errors.Is(err, sparse.ErrShape) {
		t.Errorf("ToCSC of a 40x70 COO: %v, want ErrShape", err)
	}

	// An arrow matrix: column 0 and row n-1 dense, longer than any
	// work-group, in random order with duplicates.
	n := 2100
	arrow := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	for i := range n {
		arrow.I, arrow.J, arrow.V = append(arrow.I, int32(i)), append(arrow.J, 0), append(arrow.V, r.NormFloat64())
		arrow.I, arrow.J, arrow.V = append(arrow.I, int32(n-1)), append(arrow.J, int32(i)), append(arrow.V, r.NormFloat64())
		arrow.I, arrow.J, arrow.V = append(arrow.I, int32(i)), append(arrow.J, int32(i)), append(arrow.V, 10)
	}
	t.Run("arrow", func(t *testing.T) { checkAgainstHost(t, shuffled(withDuplicates(arrow, r), r)) })
}

// rawCOO uploads triplets without the host validation of UploadCOO, so that
// the device checks can be tested.
func rawCOO(t *testing.T, rows, cols int, sym bool, I, J []int32, V []float64) *COO {
	t.Helper()
	i, err := FromInt32s(I)
	if err != nil {
		t.Fatal(err)
	}
	j, err := FromInt32s(J)
	if err != nil {
		t.Fatal(err)
	}
	v, err := FromFloat64s(V)
	if err != nil {
		t.Fatal(err)
	}
	m := &COO{Rows: rows, Cols: cols, Symmetric: sym, I: i, J: j, V: v}
	t.Cleanup(m.Release)
	return m
}

// TestConvertErrors checks that the device finds bad indices, non-finite
// values and asymmetric full matrices, with the host's sentinel errors.
func TestConvertErrors(t *testing.T) {
	conversions := map[string]func(*COO) error{
		"CSC": func(m *COO) error {
			r, err := m.ToCSC()
			if err == nil {
				r.Release()
			}
			return err
		},
		"SKS": func(m *COO) error {
			r, err := m.ToSKS()
			if err == nil {
				r.Release()
			}
			return err
		},
		"CSR": func(m *COO) error {
			r, err := m.ToCSR()
			if err == nil {
				r.Release()
			}
			return err
		},
	}
	tests := []struct {
		name  string
		m     *COO
		wants []error
		skip  string // a conversion that does not apply
	}{
		{"row-too-large", rawCOO(t, 4, 4, true, []int32{0, 4, 1}, []int32{0, 0, 1}, []float64{1, 2, 3}), []error{ErrIndex, sparse.ErrIndex}, ""},
		{"negative-column", rawCOO(t, 4, 4, false, []int32{0, 1, 2}, []int32{0, -1, 2}, []float64{1, 2, 3}), []error{ErrIndex, sparse.ErrIndex}, ""},
		{"huge-index", rawCOO(t, 4, 4, true, []int32{math.MaxInt32}, []int32{0}, []float64{1}), []error{ErrIndex, sparse.ErrIndex}, ""},
		{"nan", rawCOO(t, 3, 3, true, []int32{0, 1}, []int32{0, 1}, []float64{1, math.NaN()}), []error{sparse.ErrNaN}, ""},
		{"inf", rawCOO(t, 3, 3, false, []int32{0, 1}, []int32{0, 1}, []float64{math.Inf(-1), 1}), []error{sparse.ErrNaN}, ""},
		{"asymmetric", rawCOO(t, 3, 3, false, []int32{0, 1, 0}, []int32{0, 0, 1}, []float64{1, 2, 2.5}), []error{sparse.ErrNotSymmetric}, "CSR"},
		{"upper-only", rawCOO(t, 3, 3, false, []int32{0, 0}, []int32{0, 2}, []float64{1, 2}), []error{sparse.ErrNotSymmetric}, "CSR"},
		{"symmetric-not-square", rawCOO(t, 3, 4, true, nil, nil, nil), []error{ErrShape, sparse.ErrShape}, ""},
	}
	for _, tc := range tests {
		for what, conv := range conversions {
			if what == tc.skip {
				continue
			}
			err := conv(tc.m)
			for _, want := range tc.wants {
				if !errors.Is(err, want) {
					t.Errorf("%s of %s: got %v, want %v", what, tc.name, err, want)
				}
			}
		}
	}
	// The first bad entry is reported, as the host does.
	m := rawCOO(t, 4, 4, true, []int32{0, 1, 9, 7}, []int32{0, 1, 0, 0}, []float64{1, 2, 3, 4})
	if _, err := m.ToCSR(); err == nil || !strings.Contains(err.Error(), "entry 2 at (9,0)") {
		t.Errorf("error %v does not name entry 2 at (9,0)", err)
	}
	// The device checks leave a usable device: a good conversion follows.
	ok := rawCOO(t, 2, 2, true, []int32{0, 1, 1}, []int32{0, 0, 1}, []float64{2, -1, 2})
	if c, err := ok.ToCSC(); err != nil {
		t.Errorf("conversion after errors: %v", err)
	} else {
		c.Release()
	}
	// Released inputs are refused.
	gone := rawCOO(t, 2, 2, true, []int32{0}, []int32{0}, []float64{1})
	gone.Release()
	if _, err := gone.ToSKS(); !errors.Is(err, ErrReleased) {
		t.Errorf("ToSKS of a released COO: %v, want ErrReleased", err)
	}
}

// TestConvertNoLeak checks that a conversion frees its temporaries: the
// device holds no more than the result afterwards (finalizers of other
// tests' buffers can only lower the count).
func TestConvertNoLeak(t *testing.T) {
	c := lowerCOO([][]float64{{4, 1, 0}, {1, 4, 1}, {0, 1, 4}})
	d, err := UploadCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	dev := d.V.Device()
	before := dev.MemoryStats().Live
	s, err := d.ToSKS()
	if err != nil {
		t.Fatal(err)
	}
	after := dev.MemoryStats().Live
	if got := after - before; got > s.DeviceBytes() {
		t.Errorf("device memory grew by %d bytes, the SKS holds %d", got, s.DeviceBytes())
	}
	s.Release()
}
