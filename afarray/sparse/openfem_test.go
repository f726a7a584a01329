package sparse

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenFEMLayouts reads the same set written in several layouts: one
// value per line, several per line, commas, MATLAB-style exponent integers,
// CRLF line ends, and gzip.
func TestOpenFEMLayouts(t *testing.T) {
	// The 3×3 matrix [4 -1 0; -1 4 -1; 0 -1 4], full, column-major.
	want := &COO{Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 1, 1, 2, 2}, J: []int32{0, 0, 1, 1, 2}, V: []float64{4, -1, 4, -1, 4}}
	layouts := []struct{ nz, row, col, fzs string }{
		{"4\n-1\n-1\n4\n-1\n-1\n4\n", "1\n2\n1\n2\n3\n2\n3\n", "1\n1\n2\n2\n2\n3\n3\n", "1\n2\n3\n"},
		{"4 -1 -1 4\n-1 -1 4", "1 2 1 2 3 2 3", "1 1 2 2 2 3 3", "1 2 3"},
		{"4,-1,-1,4,-1,-1,4\r\n", "1,2,1,2,3,2,3\r\n", "1,1,2,2,2,3,3\r\n", "1\r\n2\r\n3\r\n"},
		{"4.0000000e+00\n-1.0000000e+00\n-1.0000000e+00\n4.0000000e+00\n-1.0000000e+00\n-1.0000000e+00\n4.0000000e+00\n",
			"1.0000000e+00\n2.0000000e+00\n1.0000000e+00\n2.0000000e+00\n3.0000000e+00\n2.0000000e+00\n3.0000000e+00\n",
			"1.0000000e+00\n1.0000000e+00\n2.0000000e+00\n2.0000000e+00\n2.0000000e+00\n3.0000000e+00\n3.0000000e+00\n", "1.0\n2.0\n3.0\n"},
	}
	for k, l := range layouts {
		for _, gz := range []bool{false, true} {
			prefix := filepath.Join(t.TempDir(), "set")
			for ext, text := range map[string]string{".nz": l.nz, ".row": l.row, ".col": l.col, ".fzs": l.fzs} {
				f, err := os.Create(prefix + ext)
				if err != nil {
					t.Fatal(err)
				}
				if gz {
					zw := gzip.NewWriter(f)
					zw.Write([]byte(text))
					zw.Close()
				} else {
					f.WriteString(text)
				}
				f.Close()
			}
			set, err := ReadOpenFEM(prefix)
			if err != nil {
				t.Fatalf("layout %d gzip %v: %v", k, gz, err)
			}
			sameMatrix(t, "openfem layout", want, set.A)
			if !slices.Equal(set.F, []float64{1, 2, 3}) || set.Def != nil {
				t.Fatalf("layout %d: F %v Def %v", k, set.F, set.Def)
			}
			// The full matrix is symmetric, so the CSC conversion accepts it.
			if _, err := CSCFromCOO(set.A); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestOpenFEMMalformed(t *testing.T) {
	cases := []struct {
		nz, row, col, fzs, def string
		file                   string
		line                   int
	}{
		{"1 2", "1", "1", "", "", "<row>", 0},         // fewer indices than values
		{"1", "1 2", "1", "", "", "<row>", 1},         // more
		{"1", "0", "1", "", "", "<row>", 1},           // index 0 (the files are 1-based)
		{"1", "1", "1.5", "", "", "<col>", 1},         // non-integral index
		{"1\nx", "1 1", "1 1", "", "", "<nz>", 2},     // bad value
		{"1\nnan", "1 1", "1 1", "", "", "<nz>", 2},   // NaN
		{"1", "3", "3", "1 2", "", "<fzs>", 0},        // shorter
		{"1", "1", "1", "1", "1 2", "<def>", 0},       // solution of the wrong length
		{"1", "1", "1", "1", "1\n\n\n2e", "<def>", 4}, // bad number at line 4
		{"1", "99999999999", "1", "", "", "<row>", 1}, // index beyond int32
		{"1", "1", strings.Repeat("9", 700), "", "", "<col>", 1},
	}
	for k, tc := range cases {
		rd := func(s string) *strings.Reader {
			if s == "" {
				return nil
			}
			return strings.NewReader(s)
		}
		var fzs, def *strings.Reader = rd(tc.fzs), rd(tc.def)
		var err error
		switch {
		case fzs == nil && def == nil:
			_, err = ReadOpenFEMFrom(rd(tc.nz), rd(tc.row), rd(tc.col), nil, nil)
		case def == nil:
			_, err = ReadOpenFEMFrom(rd(tc.nz), rd(tc.row), rd(tc.col), fzs, nil)
		default:
			_, err = ReadOpenFEMFrom(rd(tc.nz), rd(tc.row), rd(tc.col), fzs, def)
		}
		var pe *ParseError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) || pe.File != tc.file || pe.Line != tc.line {
			t.Errorf("case %d: %v (want %s line %d)", k, err, tc.file, tc.line)
		}
	}
	// A force vector longer than the largest index sets the order.
	set, err := ReadOpenFEMFrom(strings.NewReader("1 1"), strings.NewReader("1 2"), strings.NewReader("1 2"), strings.NewReader("1 2 3"), nil)
	if err != nil || set.A.Rows != 3 || set.A.Cols != 3 {
		t.Errorf("long force vector: %v", err)
	}
	if _, err := ReadOpenFEM(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing files: %v", err)
	}
	if err := WriteOpenFEM(filepath.Join(t.TempDir(), "x"), &COO{Rows: 2, Cols: 2}, []float64{1}); !errors.Is(err, ErrShape) {
		t.Errorf("short force vector: %v", err)
	}
}

// TestOpenFEMInconsistent: a set whose parts disagree is refused with the
// file (and line) at fault and the counts that disagree.
func TestOpenFEMInconsistent(t *testing.T) {
	// The 3×3 matrix of TestOpenFEMLayouts, one entry per line.
	nz, row, col := "4\n-1\n-1\n4\n-1\n-1\n4\n", "1\n2\n1\n2\n3\n2\n3\n", "1\n1\n2\n2\n2\n3\n3\n"
	badRow := "1\n2\n1\n2\n999999\n2\n3\n" // line 5
	cases := []struct {
		nz, row, col, fzs string
		file              string
		line              int
		says              []string
	}{
		{nz, badRow, col, "1 2 3", "<row>", 5, []string{"index 999999", "order 3 of <fzs>", "<col>'s largest index is 3"}},
		{nz, badRow, col, "", "<row>", 5, []string{"index 999999", "<col>'s largest index 3"}},
		{nz, row, "1\n1\n2\n2\n2\n3\n70\n", "", "<col>", 7, []string{"index 70", "<row>'s largest index 3"}},
		{nz, row, col, "1 2", "<fzs>", 0, []string{"2 values", "up to 3"}},
		{"1", "2000000000", "2000000000", "", "<row>", 1, []string{"order 2000000000", "1 entries"}},
		{"1", "2000000000", "1", "", "<row>", 1, []string{"index 2000000000"}},
		{nz, row, col[:len(col)-2], "", "<col>", 0, []string{"6 indices for the 7 values in <nz>"}},
	}
	for k, tc := range cases {
		var fzs io.Reader
		if tc.fzs != "" {
			fzs = strings.NewReader(tc.fzs)
		}
		_, err := ReadOpenFEMFrom(strings.NewReader(tc.nz), strings.NewReader(tc.row), strings.NewReader(tc.col), fzs, nil)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != tc.file || pe.Line != tc.line {
			t.Errorf("case %d: %v (want %s line %d)", k, err, tc.file, tc.line)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("case %d: %q does not say %q", k, err, s)
			}
		}
	}

	// A missing required file is named, with what the set does have.
	dir := t.TempDir()
	prefix := filepath.Join(dir, "model1_1080")
	for ext, text := range map[string]string{".row": row, ".col": col, ".fzs": "1 2 3"} {
		os.WriteFile(prefix+ext, []byte(text), 0o644)
	}
	_, err := ReadOpenFEM(prefix)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "model1_1080.nz (the matrix values) is missing") || !strings.Contains(err.Error(), "it has .row, .col, .fzs") {
		t.Errorf("missing .nz: %v", err)
	}
	if p, ok := OpenFEMPrefix(prefix); !ok || p != prefix {
		t.Errorf("OpenFEMPrefix(%s) = %q, %v", prefix, p, ok)
	}
	if p, ok := OpenFEMPrefix(prefix + ".nz"); !ok || p != prefix {
		t.Errorf("OpenFEMPrefix(.nz) = %q, %v", p, ok)
	}
	if _, ok := OpenFEMPrefix(filepath.Join(dir, "nothing.mtx")); ok {
		t.Error("OpenFEMPrefix of a missing Matrix Market file")
	}
}
