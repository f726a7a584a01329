package sparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// OpenFEMSet is the file set that the thesis's OpenFEM (MATLAB) scripts write
// for one model (docs/thesis.md, §5.1): prefix.nz, prefix.row and
// prefix.col hold the stiffness matrix as 1-based COO triplets of the full
// symmetric matrix; prefix.fzs holds the force vector and prefix.def
// OpenFEM's own displacement solution, kept for validation.
type OpenFEMSet struct {
	A   *COO      // 0-based, both triangles, Symmetric false, as stored
	F   []float64 // right-hand side, nil when prefix.fzs is absent
	Def []float64 // reference solution, nil when prefix.def is absent
}

// OpenFEM file extensions.
const (
	OpenFEMValues   = ".nz"
	OpenFEMRows     = ".row"
	OpenFEMCols     = ".col"
	OpenFEMForce    = ".fzs"
	OpenFEMSolution = ".def"
)

// ReadOpenFEM reads the OpenFEM file set with the given prefix ("dir/beam"
// reads dir/beam.nz, dir/beam.row, ...). The three matrix files are required;
// .fzs and .def are optional. Each file holds numbers separated by any
// whitespace (or commas); the usual layout is one per line. Files may be
// gzip-compressed. The matrix order is the largest index, or the vector
// length when that is larger; the .def vector must have that length. Malformed files give a *ParseError naming the
// file and line.
func ReadOpenFEM(prefix string) (*OpenFEMSet, error) {
	var files [5]*os.File
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	exts := []string{OpenFEMValues, OpenFEMRows, OpenFEMCols, OpenFEMForce, OpenFEMSolution}
	for k, ext := range exts {
		f, err := os.Open(prefix + ext)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			if k < 3 {
				return nil, missingPart(prefix, ext, exts)
			}
			continue
		}
		files[k] = f
	}
	rd := func(k int) io.Reader {
		if files[k] == nil {
			return nil
		}
		return files[k]
	}
	return readOpenFEM(prefix, rd(0), rd(1), rd(2), rd(3), rd(4))
}

// missingPart is the error for a required file of a set that is absent: it
// names the file, what it holds and which parts of the set do exist, so that
// a mistyped prefix and a set copied without one file read differently.
func missingPart(prefix, ext string, exts []string) error {
	what := map[string]string{OpenFEMValues: "the matrix values", OpenFEMRows: "the row indices", OpenFEMCols: "the column indices"}[ext]
	var found []string
	for _, e := range exts {
		if _, err := os.Stat(prefix + e); err == nil {
			found = append(found, e)
		}
	}
	have := "none of its files exist"
	if len(found) > 0 {
		have = "it has " + strings.Join(found, ", ")
	}
	return fmt.Errorf("OpenFEM set %s: %s%s (%s) is missing; %s: %w", prefix, prefix, ext, what, have, fs.ErrNotExist)
}

// OpenFEMPrefix says whether path names an OpenFEM set, and returns its
// prefix: a path ending in one of the set's extensions, or a prefix for
// which any of the .nz, .row or .col files exists while path itself does
// not. Command-line tools use it to tell a set with a missing file from a
// Matrix Market file that does not exist.
func OpenFEMPrefix(path string) (prefix string, ok bool) {
	for _, ext := range []string{OpenFEMValues, OpenFEMRows, OpenFEMCols} {
		if strings.HasSuffix(path, ext) {
			return strings.TrimSuffix(path, ext), true
		}
	}
	if _, err := os.Stat(path); err == nil {
		return "", false
	}
	for _, ext := range []string{OpenFEMValues, OpenFEMRows, OpenFEMCols} {
		if _, err := os.Stat(path + ext); err == nil {
			return path, true
		}
	}
	return "", false
}

// ReadOpenFEMFrom reads an OpenFEM set from readers instead of files. fzs and
// def may be nil. It is ReadOpenFEM without the file system, for tests and
// for data that does not live in files.
func ReadOpenFEMFrom(nz, row, col, fzs, def io.Reader) (*OpenFEMSet, error) {
	return readOpenFEM("", nz, row, col, fzs, def)
}

func readOpenFEM(prefix string, nz, row, col, fzs, def io.Reader) (*OpenFEMSet, error) {
	if nz == nil || row == nil || col == nil {
		return nil, fmt.Errorf("%w: OpenFEM set needs .nz, .row and .col", ErrShape)
	}
	name := func(ext string) string {
		if prefix == "" {
			return "<" + ext[1:] + ">"
		}
		return prefix + ext
	}
	vals, err := readFloats(nz, name(OpenFEMValues))
	if err != nil {
		return nil, err
	}
	rows, err := readIndices(row, name(OpenFEMRows), len(vals), name(OpenFEMValues))
	if err != nil {
		return nil, err
	}
	cols, err := readIndices(col, name(OpenFEMCols), len(vals), name(OpenFEMValues))
	if err != nil {
		return nil, err
	}
	set := &OpenFEMSet{}
	if fzs != nil {
		if set.F, err = readFloats(fzs, name(OpenFEMForce)); err != nil {
			return nil, err
		}
	}
	if def != nil {
		if set.Def, err = readFloats(def, name(OpenFEMSolution)); err != nil {
			return nil, err
		}
	}
	n, err := openFEMOrder(rows, cols, len(vals), set.F, name)
	if err != nil {
		return nil, err
	}
	if set.Def != nil && len(set.Def) != n {
		return nil, &ParseError{File: name(OpenFEMSolution), Msg: fmt.Sprintf("%d values for a matrix of order %d", len(set.Def), n)}
	}
	set.A = &COO{Rows: n, Cols: n, I: rows.idx, J: cols.idx, V: vals}
	return set, nil
}

// openFEMOrder finds the matrix order and checks the parts of a set against
// each other, blaming the file that disagrees with the others. The set
// stores a square matrix in full, so the largest row and column indices
// agree; every row of a nonsingular matrix holds an entry, so the order is
// at most the number of entries; and the force vector, when present, has
// one value per row (it may be longer: trailing rows without entries are
// possible, if unusual). A single wrong index (999999 among indices up to
// 1080) is thus blamed on its file and line, not on the force vector's
// count, and an index of 2e9 is refused before anything of that size is
// allocated.
func openFEMOrder(rows, cols indexFile, nnz int, f []float64, name func(string) string) (int, error) {
	indexErr := func(bad indexFile, why string) error {
		return &ParseError{File: bad.file, Line: bad.hiLine, Msg: fmt.Sprintf("index %d %s", bad.hi, why)}
	}
	if f != nil {
		switch {
		case rows.hi > len(f) && cols.hi > len(f) && rows.hi == cols.hi:
			return 0, &ParseError{File: name(OpenFEMForce), Msg: fmt.Sprintf("%d values, but %s and %s index rows and columns up to %d",
				len(f), rows.file, cols.file, rows.hi)}
		case rows.hi > len(f) && rows.hi >= cols.hi:
			return 0, indexErr(rows, fmt.Sprintf("exceeds the order %d of %s (and %s's largest index is %d)", len(f), name(OpenFEMForce), cols.file, cols.hi))
		case cols.hi > len(f):
			return 0, indexErr(cols, fmt.Sprintf("exceeds the order %d of %s (and %s's largest index is %d)", len(f), name(OpenFEMForce), rows.file, rows.hi))
		}
	}
	switch {
	case rows.hi > cols.hi:
		return 0, indexErr(rows, fmt.Sprintf("exceeds %s's largest index %d: the matrix would have empty columns", cols.file, cols.hi))
	case cols.hi > rows.hi:
		return 0, indexErr(cols, fmt.Sprintf("exceeds %s's largest index %d: the matrix would have empty rows", rows.file, rows.hi))
	case rows.hi > nnz:
		return 0, indexErr(rows, fmt.Sprintf("makes the order %d, more than the %d entries in %s: the matrix would have empty rows", rows.hi, nnz, name(OpenFEMValues)))
	}
	n := rows.hi
	if f != nil {
		n = max(n, len(f))
	}
	return n, nil
}

// readFloats reads every number in r.
func readFloats(r io.Reader, file string) ([]float64, error) {
	br, closer, err := maybeGunzip(r, file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	t := newTokenizer(br, file, 1, true)
	v := make([]float64, 0, 1024)
	for {
		tok, err := t.next()
		if errors.Is(err, io.EOF) {
			return v, nil
		}
		if err != nil {
			return nil, err
		}
		f, err := t.parseFloat(tok, "value")
		if err != nil {
			return nil, err
		}
		v = append(v, f)
	}
}

// indexFile is one index file of a set: the indices 0-based, the largest
// 1-based index and the line it is on.
type indexFile struct {
	file   string
	idx    []int32
	hi     int
	hiLine int
}

// readIndices reads exactly want 1-based indices from r, as many as the
// values in valuesFile.
func readIndices(r io.Reader, file string, want int, valuesFile string) (indexFile, error) {
	out := indexFile{file: file}
	br, closer, err := maybeGunzip(r, file)
	if err != nil {
		return out, err
	}
	defer closer.Close()
	t := newTokenizer(br, file, 1, true)
	idx := make([]int32, 0, min(want, maxPrealloc))
	for {
		tok, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		if len(idx) == want {
			return out, t.errorf("more indices than the %d values in %s", want, valuesFile)
		}
		k, err := t.parseInt(tok, "index", 1, maxOrder)
		if err != nil {
			return out, err
		}
		idx = append(idx, int32(k-1))
		if int(k) > out.hi {
			out.hi, out.hiLine = int(k), t.line
		}
	}
	if len(idx) != want {
		return out, &ParseError{File: file, Msg: fmt.Sprintf("%d indices for the %d values in %s", len(idx), want, valuesFile)}
	}
	out.idx = idx
	return out, nil
}

// WriteOpenFEM writes a as an OpenFEM file set: prefix.nz, prefix.row and
// prefix.col, one number per line, 1-based, the full matrix (a Symmetric a is
// mirrored, as OpenFEM stores both triangles), sorted by column and by row
// within a column (the order of MATLAB's find). f, when not nil, is written
// to prefix.fzs and must have length a.Rows. The matrix must be square.
func WriteOpenFEM(prefix string, a *COO, f []float64) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if a.Rows != a.Cols {
		return fmt.Errorf("%w: OpenFEM matrix is %dx%d, not square", ErrShape, a.Rows, a.Cols)
	}
	if f != nil && len(f) != a.Rows {
		return fmt.Errorf("%w: force vector has length %d, matrix order %d", ErrShape, len(f), a.Rows)
	}
	full, err := a.Full()
	if err != nil {
		return err
	}
	if err := writeNumbers(prefix+OpenFEMValues, len(full.V), func(b []byte, k int) []byte {
		return strconv.AppendFloat(b, full.V[k], 'g', -1, 64)
	}); err != nil {
		return err
	}
	if err := writeNumbers(prefix+OpenFEMRows, len(full.I), func(b []byte, k int) []byte {
		return strconv.AppendInt(b, int64(full.I[k])+1, 10)
	}); err != nil {
		return err
	}
	if err := writeNumbers(prefix+OpenFEMCols, len(full.J), func(b []byte, k int) []byte {
		return strconv.AppendInt(b, int64(full.J[k])+1, 10)
	}); err != nil {
		return err
	}
	if f != nil {
		return WriteOpenFEMVector(prefix+OpenFEMForce, f)
	}
	return nil
}

// WriteOpenFEMVector writes v to path, one value per line, in the form of a
// .fzs or .def file.
func WriteOpenFEMVector(path string, v []float64) error {
	return writeNumbers(path, len(v), func(b []byte, k int) []byte {
		return strconv.AppendFloat(b, v[k], 'g', -1, 64)
	})
}

// writeNumbers writes n numbers, one per line, formatted by app.
func writeNumbers(path string, n int, app func([]byte, int) []byte) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	buf := make([]byte, 0, 32)
	for k := 0; k < n; k++ {
		buf = append(app(buf[:0], k), '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
