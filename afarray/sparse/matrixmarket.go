package sparse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// MatrixMarketHeader is the banner line of a Matrix Market file, lower-cased:
// Object "matrix", Format "coordinate" or "array", Field "real", "integer",
// "pattern" (or "complex", which is rejected) and Symmetry "general",
// "symmetric", "skew-symmetric" (or "hermitian", rejected).
type MatrixMarketHeader struct {
	Object, Format, Field, Symmetry string
}

// MatrixMarketData is the content of a Matrix Market file of either format.
// Exactly one of COO (coordinate files) and Dense (array files) is set.
type MatrixMarketData struct {
	Header MatrixMarketHeader
	// COO holds a coordinate file, 0-based. A symmetric file gives a COO
	// with Symmetric set and the stored triangle; a skew-symmetric file is
	// expanded to a general COO with both triangles; pattern entries are 1.
	COO *COO
	// Dense holds an array file (a dense matrix or a vector as one column),
	// with symmetric and skew-symmetric storage expanded.
	Dense *mat.Dense
}

// ReadMatrixMarket reads a coordinate Matrix Market file (gzip-compressed or
// not) into a COO. Array files are rejected with ErrUnsupported; use
// ReadMatrixMarketData for them. Malformed input gives a *ParseError.
func ReadMatrixMarket(r io.Reader) (*COO, error) {
	d, err := readMatrixMarket(r, "")
	if err != nil {
		return nil, err
	}
	if d.COO == nil {
		return nil, &ParseError{Line: 1, Msg: "array file where a coordinate file is needed", Err: ErrUnsupported}
	}
	return d.COO, nil
}

// ReadDenseMatrixMarket reads an array Matrix Market file (a dense matrix or
// a vector) into a *mat.Dense. Coordinate files are rejected with
// ErrUnsupported.
func ReadDenseMatrixMarket(r io.Reader) (*mat.Dense, error) {
	d, err := readMatrixMarket(r, "")
	if err != nil {
		return nil, err
	}
	if d.Dense == nil {
		return nil, &ParseError{Line: 1, Msg: "coordinate file where an array file is needed", Err: ErrUnsupported}
	}
	return d.Dense, nil
}

// ReadMatrixMarketData reads a Matrix Market file of either format.
func ReadMatrixMarketData(r io.Reader) (*MatrixMarketData, error) {
	return readMatrixMarket(r, "")
}

// ReadMatrixMarketFile opens and reads a Matrix Market file of either
// format, compressed with gzip or not. Parse errors carry the file name.
func ReadMatrixMarketFile(path string) (*MatrixMarketData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMatrixMarket(f, path)
}

func readMatrixMarket(r io.Reader, file string) (*MatrixMarketData, error) {
	br, closer, err := maybeGunzip(r, file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	h, err := readBanner(br, file)
	if err != nil {
		return nil, err
	}
	t := newTokenizer(br, file, 2, true)
	d := &MatrixMarketData{Header: h}
	if h.Format == "coordinate" {
		d.COO, err = readCoordinate(t, h)
	} else {
		d.Dense, err = readArray(t, h)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// readBanner reads and checks the first line, "%%MatrixMarket matrix ...".
func readBanner(br *bufio.Reader, file string) (MatrixMarketHeader, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil || b == '\n' {
			break
		}
		if len(line) > 1024 {
			return MatrixMarketHeader{}, &ParseError{File: file, Line: 1, Msg: "banner line too long"}
		}
		line = append(line, b)
	}
	f := strings.Fields(strings.ToLower(string(line)))
	if len(f) != 5 || f[0] != "%%matrixmarket" {
		return MatrixMarketHeader{}, &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("bad banner %q, want %%%%MatrixMarket matrix FORMAT FIELD SYMMETRY", bytes.TrimSpace(line))}
	}
	h := MatrixMarketHeader{Object: f[1], Format: f[2], Field: f[3], Symmetry: f[4]}
	unsupported := func(what, v string) error {
		return &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("unsupported %s %q", what, v), Err: ErrUnsupported}
	}
	switch {
	case h.Object != "matrix":
		return h, unsupported("object", h.Object)
	case h.Format != "coordinate" && h.Format != "array":
		return h, unsupported("format", h.Format)
	case h.Field != "real" && h.Field != "integer" && h.Field != "double" && h.Field != "pattern":
		return h, unsupported("field", h.Field)
	case h.Symmetry != "general" && h.Symmetry != "symmetric" && h.Symmetry != "skew-symmetric":
		return h, unsupported("symmetry", h.Symmetry)
	case h.Format == "array" && h.Field == "pattern":
		return h, &ParseError{File: file, Line: 1, Msg: "array format cannot have field pattern"}
	}
	return h, nil
}

// readCoordinate reads the size line and the entries of a coordinate file.
func readCoordinate(t *tokenizer, h MatrixMarketHeader) (*COO, error) {
	rows, err := t.integer("row count", 0, maxOrder)
	if err != nil {
		return nil, err
	}
	cols, err := t.integer("column count", 0, maxOrder)
	if err != nil {
		return nil, err
	}
	nnz, err := t.integer("entry count", 0, rows*cols)
	if err != nil {
		return nil, err
	}
	sym, skew := h.Symmetry == "symmetric", h.Symmetry == "skew-symmetric"
	if (sym || skew) && rows != cols {
		return nil, t.errorf("%s matrix is %dx%d, not square", h.Symmetry, rows, cols)
	}
	c := &COO{Rows: int(rows), Cols: int(cols), Symmetric: sym}
	pre := min(nnz, maxPrealloc)
	if skew {
		pre = min(2*nnz, maxPrealloc)
	}
	c.I, c.J, c.V = make([]int32, 0, pre), make([]int32, 0, pre), make([]float64, 0, pre)
	for k := int64(0); k < nnz; k++ {
		i, err := t.integer("row index", 1, rows)
		if err != nil {
			return nil, err
		}
		j, err := t.integer("column index", 1, cols)
		if err != nil {
			return nil, err
		}
		v := 1.0
		switch h.Field {
		case "pattern":
		case "integer":
			iv, err := t.integer("integer value", -1<<53, 1<<53)
			if err != nil {
				return nil, err
			}
			v = float64(iv)
		default:
			if v, err = t.float("value"); err != nil {
				return nil, err
			}
		}
		if skew && i == j {
			return nil, t.errorf("diagonal entry (%d,%d) in a skew-symmetric matrix", i, j)
		}
		c.I, c.J, c.V = append(c.I, int32(i-1)), append(c.J, int32(j-1)), append(c.V, v)
		if skew {
			c.I, c.J, c.V = append(c.I, int32(j-1)), append(c.J, int32(i-1)), append(c.V, -v)
		}
	}
	if err := t.expectEOF(); err != nil {
		return nil, err
	}
	return c, nil
}

// readArray reads the size line and the column-major values of an array
// file. Symmetric files store the lower triangle column by column, skew ones
// the strictly lower triangle.
func readArray(t *tokenizer, h MatrixMarketHeader) (*mat.Dense, error) {
	rows, err := t.integer("row count", 1, maxOrder)
	if err != nil {
		return nil, err
	}
	cols, err := t.integer("column count", 1, maxOrder)
	if err != nil {
		return nil, err
	}
	sym, skew := h.Symmetry == "symmetric", h.Symmetry == "skew-symmetric"
	if (sym || skew) && rows != cols {
		return nil, t.errorf("%s matrix is %dx%d, not square", h.Symmetry, rows, cols)
	}
	want := rows * cols
	switch {
	case sym:
		want = rows * (rows + 1) / 2
	case skew:
		want = rows * (rows - 1) / 2
	}
	// Read everything first: the Dense is allocated only once the file has
	// proved that it really holds that many values.
	vals := make([]float64, 0, min(want, maxPrealloc))
	for k := int64(0); k < want; k++ {
		var v float64
		if h.Field == "integer" {
			iv, err := t.integer("integer value", -1<<53, 1<<53)
			if err != nil {
				return nil, err
			}
			v = float64(iv)
		} else if v, err = t.float("value"); err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	if err := t.expectEOF(); err != nil {
		return nil, err
	}
	r, c := int(rows), int(cols)
	if !sym && !skew {
		// Column-major file into a row-major Dense: transpose.
		d := mat.NewDense(r, c, nil)
		for j := 0; j < c; j++ {
			for i := 0; i < r; i++ {
				d.Set(i, j, vals[j*r+i])
			}
		}
		return d, nil
	}
	d := mat.NewDense(r, r, nil)
	k := 0
	for j := 0; j < r; j++ {
		start := j
		if skew {
			start = j + 1
		}
		for i := start; i < r; i++ {
			v := vals[k]
			k++
			d.Set(i, j, v)
			if skew {
				d.Set(j, i, -v)
			} else {
				d.Set(j, i, v)
			}
		}
	}
	return d, nil
}

// WriteMatrixMarket writes c as a coordinate real Matrix Market file with
// 1-based indices. A Symmetric c is written as "symmetric" with every entry
// moved to the lower triangle, as the format requires; otherwise the file is
// "general". comment, if not empty, is written as '%' lines after the banner.
// Values are written in the shortest form that reads back exactly.
func WriteMatrixMarket(w io.Writer, c *COO, comment string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	sym := "general"
	if c.Symmetric {
		sym = "symmetric"
	}
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real %s\n", sym)
	writeComment(bw, comment)
	fmt.Fprintf(bw, "%d %d %d\n", c.Rows, c.Cols, len(c.V))
	buf := make([]byte, 0, 64)
	for k, v := range c.V {
		i, j := c.I[k], c.J[k]
		if c.Symmetric && i < j {
			i, j = j, i
		}
		buf = strconv.AppendInt(buf[:0], int64(i)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(j)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteMatrixMarketArray writes a dense matrix as an "array real general"
// Matrix Market file (column-major values).
func WriteMatrixMarketArray(w io.Writer, a *mat.Dense) error {
	if a == nil || a.IsEmpty() {
		return fmt.Errorf("%w: empty dense matrix", ErrShape)
	}
	r, c := a.Dims()
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix array real general\n%d %d\n", r, c)
	buf := make([]byte, 0, 32)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			buf = strconv.AppendFloat(buf[:0], a.At(i, j), 'g', -1, 64)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteMatrixMarketVector writes v as an n×1 "array real general" file, the
// usual form of a right-hand side or a solution.
func WriteMatrixMarketVector(w io.Writer, v []float64) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: empty vector", ErrShape)
	}
	return WriteMatrixMarketArray(w, mat.NewDense(len(v), 1, append([]float64(nil), v...)))
}

func writeComment(bw *bufio.Writer, comment string) {
	if comment == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		bw.WriteString("% " + strings.TrimRight(l, "\r") + "\n")
	}
}

// ReadMatrixMarketVector reads an array file with one column (or one row)
// as a vector.
func ReadMatrixMarketVector(r io.Reader) ([]float64, error) {
	d, err := ReadDenseMatrixMarket(r)
	if err != nil {
		return nil, err
	}
	rr, cc := d.Dims()
	if rr != 1 && cc != 1 {
		return nil, fmt.Errorf("%w: %dx%d array is not a vector", ErrShape, rr, cc)
	}
	v := make([]float64, 0, rr*cc)
	for i := 0; i < rr; i++ {
		for j := 0; j < cc; j++ {
			v = append(v, d.At(i, j))
		}
	}
	return v, nil
}
