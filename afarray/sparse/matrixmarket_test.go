package sparse

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMatrixMarketVariants(t *testing.T) {
	cases := []struct {
		name, text string
		want       *mat.Dense
	}{
		{"real general", "%%MatrixMarket matrix coordinate real general\n% comment\n\n2 3 3\n1 1 1.5\n2 3 -2e1\n1 1 0.5\n",
			mat.NewDense(2, 3, []float64{2, 0, 0, 0, 0, -20})},
		{"integer symmetric", "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n3 1 -1\n2 2 7\n",
			mat.NewDense(3, 3, []float64{4, 0, -1, 0, 7, 0, -1, 0, 0})},
		{"pattern", "%%MatrixMarket Matrix Coordinate Pattern General\n2 2 2\n1 2\n2 1\n",
			mat.NewDense(2, 2, []float64{0, 1, 1, 0})},
		{"skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -1\n",
			mat.NewDense(3, 3, []float64{0, -3, 0, 3, 0, 1, 0, -1, 0})},
		{"array general", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n",
			mat.NewDense(2, 3, []float64{1, 3, 5, 2, 4, 6})},
		{"array symmetric", "%%MatrixMarket matrix array real symmetric\n2 2\n1 2\n3\n",
			mat.NewDense(2, 2, []float64{1, 2, 2, 3})},
		{"array skew", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1 2 3\n",
			mat.NewDense(3, 3, []float64{0, -1, -2, 1, 0, -3, 2, 3, 0})},
		{"array integer vector", "%%MatrixMarket matrix array integer general\n3 1\n1 2 3",
			mat.NewDense(3, 1, []float64{1, 2, 3})},
	}
	for _, tc := range cases {
		for _, gz := range []bool{false, true} {
			var in bytes.Buffer
			if gz {
				zw := gzip.NewWriter(&in)
				zw.Write([]byte(tc.text))
				zw.Close()
			} else {
				in.WriteString(tc.text)
			}
			d, err := ReadMatrixMarketData(&in)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var got *mat.Dense
			if d.COO != nil {
				got, err = d.COO.ToDense()
				if err != nil {
					t.Fatal(err)
				}
			} else {
				got = d.Dense
			}
			if !mat.Equal(got, tc.want) {
				t.Errorf("%s (gzip %v): got\n%v", tc.name, gz, mat.Formatted(got))
			}
		}
	}
}

func TestMatrixMarketMalformed(t *testing.T) {
	cases := []struct {
		text string
		line int
		err  error
	}{
		{"", 1, nil},
		{"hello\n1 1 1\n", 1, nil},
		{"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, ErrUnsupported},
		{"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, ErrUnsupported},
		{"%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1, ErrUnsupported},
		{"%%MatrixMarket matrix array pattern general\n1 1\n", 1, nil},
		{"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 2\n", 4, nil},                              // fewer entries than announced
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", 4, nil},                              // more
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", 3, nil},                                     // row out of range
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1\n", 3, nil},                                     // column 0
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n", 3, nil},                                     // bad value
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n", 3, ErrNaN},                                // NaN
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e999\n", 3, ErrNaN},                              // overflow
		{"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2, nil},                                   // not square
		{"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3, nil},                              // skew diagonal
		{"%%MatrixMarket matrix coordinate real general\n-1 2 1\n", 2, nil},                                           // negative size
		{"%%MatrixMarket matrix coordinate real general\n2 2 5\n", 2, nil},                                            // nnz > rows*cols
		{"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 4000000000000000000\n1 1 1\n", 3, nil}, // lying header
		{"%%MatrixMarket matrix array real general\n100000 100000\n1 2 3\n", 3, nil},                                  // lying array header
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 " + strings.Repeat("1", 600) + "\n", 3, nil},
	}
	for k, tc := range cases {
		_, err := ReadMatrixMarketData(strings.NewReader(tc.text))
		var pe *ParseError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) {
			t.Errorf("case %d: error %v is not a ParseError", k, err)
			continue
		}
		if pe.Line != tc.line {
			t.Errorf("case %d: line %d, want %d (%v)", k, pe.Line, tc.line, err)
		}
		if tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("case %d: %v does not wrap %v", k, err, tc.err)
		}
	}
	// Format mismatches between the typed readers.
	if _, err := ReadMatrixMarket(strings.NewReader("%%MatrixMarket matrix array real general\n1 1\n1\n")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("array through ReadMatrixMarket: %v", err)
	}
	if _, err := ReadDenseMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real general\n1 1 0\n")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("coordinate through ReadDenseMatrixMarket: %v", err)
	}
	// File names appear in errors from files, and corrupt gzip is an error.
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.mtx")
	os.WriteFile(p, []byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 2 3\n"), 0o644)
	if _, err := ReadMatrixMarketFile(p); err == nil || !strings.Contains(err.Error(), "bad.mtx:3") {
		t.Errorf("file error: %v", err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3\n"))
	zw.Close()
	raw := z.Bytes()
	raw[len(raw)-6] ^= 0xff // break the CRC
	if _, err := ReadMatrixMarket(bytes.NewReader(raw)); !errors.Is(err, ErrMalformed) {
		t.Errorf("corrupt gzip: %v", err)
	}
}

func TestMatrixMarketWriteForms(t *testing.T) {
	// A general matrix, with entries in both triangles, round-trips as general.
	c := &COO{Rows: 2, Cols: 3, I: []int32{0, 1, 1}, J: []int32{2, 0, 1}, V: []float64{0.1, -1e-300, 3}}
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, c, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "%%MatrixMarket matrix coordinate real general\n2 3 3\n") {
		t.Fatalf("header: %q", buf.String())
	}
	back, err := ReadMatrixMarket(&buf)
	if err != nil || !slices.Equal(back.V, c.V) || !slices.Equal(back.I, c.I) || back.Symmetric {
		t.Fatalf("general round trip: %v %+v", err, back)
	}
	// A Symmetric COO holding the upper triangle is written as the lower.
	u := &COO{Rows: 2, Cols: 2, Symmetric: true, I: []int32{0, 0}, J: []int32{0, 1}, V: []float64{2, 5}}
	buf.Reset()
	WriteMatrixMarket(&buf, u, "")
	if !strings.Contains(buf.String(), "\n2 1 5\n") {
		t.Fatalf("symmetric upper not mirrored: %q", buf.String())
	}
	// Dense arrays and vectors.
	d := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6.25})
	buf.Reset()
	if err := WriteMatrixMarketArray(&buf, d); err != nil {
		t.Fatal(err)
	}
	dd, err := ReadDenseMatrixMarket(&buf)
	if err != nil || !mat.Equal(d, dd) {
		t.Fatalf("array round trip: %v", err)
	}
	v := []float64{1, -2.5, 1e-17}
	buf.Reset()
	WriteMatrixMarketVector(&buf, v)
	vv, err := ReadMatrixMarketVector(&buf)
	if err != nil || !slices.Equal(v, vv) {
		t.Fatalf("vector round trip: %v %v", err, vv)
	}
	rhs, err := os.Open(filepath.Join(matrixDir, "mesh1e1_b.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	defer rhs.Close()
	b, err := ReadMatrixMarketVector(rhs)
	if err != nil || len(b) != 48 || b[0] != 1 || b[47] != 1 {
		t.Fatalf("mesh1e1_b: %v %v", err, b)
	}
	// Invalid matrices are refused before anything is written.
	if err := WriteMatrixMarket(&buf, &COO{Rows: 1, Cols: 1, I: []int32{1}, J: []int32{0}, V: []float64{1}}, ""); !errors.Is(err, ErrIndex) {
		t.Errorf("bad COO written: %v", err)
	}
}
