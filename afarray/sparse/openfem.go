package sparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// OpenFEMSet is the file set that the thesis's OpenFEM (MATLAB) scripts write
// for one model (§5.1 of the design extraction): prefix.nz, prefix.row and
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
	open := func(ext string, optional bool) (*os.File, error) {
		f, err := os.Open(prefix + ext)
		if err != nil && optional && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return f, err
	}
	var files [5]*os.File
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for k, ext := range []string{OpenFEMValues, OpenFEMRows, OpenFEMCols, OpenFEMForce, OpenFEMSolution} {
		f, err := open(ext, k >= 3)
		if err != nil {
			return nil, err
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
	rows, maxRow, err := readIndices(row, name(OpenFEMRows), len(vals))
	if err != nil {
		return nil, err
	}
	cols, maxCol, err := readIndices(col, name(OpenFEMCols), len(vals))
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
	// The force vector, when present, fixes the order: trailing rows and
	// columns without entries are possible (if unusual) in an FE matrix.
	n := max(maxRow, maxCol)
	if set.F != nil {
		n = max(n, len(set.F))
	}
	if set.F != nil && len(set.F) != n {
		return nil, &ParseError{File: name(OpenFEMForce), Msg: fmt.Sprintf("%d values for a matrix of order %d", len(set.F), n)}
	}
	if set.Def != nil && len(set.Def) != n {
		return nil, &ParseError{File: name(OpenFEMSolution), Msg: fmt.Sprintf("%d values for a matrix of order %d", len(set.Def), n)}
	}
	set.A = &COO{Rows: n, Cols: n, I: rows, J: cols, V: vals}
	return set, nil
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

// readIndices reads exactly want 1-based indices from r and returns them
// 0-based with the largest 1-based index.
func readIndices(r io.Reader, file string, want int) ([]int32, int, error) {
	br, closer, err := maybeGunzip(r, file)
	if err != nil {
		return nil, 0, err
	}
	defer closer.Close()
	t := newTokenizer(br, file, 1, true)
	idx := make([]int32, 0, min(want, maxPrealloc))
	hi := 0
	for {
		tok, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		if len(idx) == want {
			return nil, 0, t.errorf("more indices than the %d values in %s", want, OpenFEMValues)
		}
		k, err := t.parseInt(tok, "index", 1, maxOrder)
		if err != nil {
			return nil, 0, err
		}
		idx = append(idx, int32(k-1))
		hi = max(hi, int(k))
	}
	if len(idx) != want {
		return nil, 0, &ParseError{File: file, Msg: fmt.Sprintf("%d indices for %d values in %s", len(idx), want, OpenFEMValues)}
	}
	return idx, hi, nil
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
