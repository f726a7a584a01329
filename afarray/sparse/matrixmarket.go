package sparse

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"runtime"
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
	d, err := readMatrixMarketKind(r, true)
	if err != nil {
		return nil, err
	}
	return d.COO, nil
}

// ReadDenseMatrixMarket reads an array Matrix Market file (a dense matrix or
// a vector) into a *mat.Dense. Coordinate files are rejected with
// ErrUnsupported.
func ReadDenseMatrixMarket(r io.Reader) (*mat.Dense, error) {
	d, err := readMatrixMarketKind(r, false)
	if err != nil {
		return nil, err
	}
	return d.Dense, nil
}

// readMatrixMarketKind reads r and refuses a file of the other format than
// the one asked for (coordinate, or array) with ErrUnsupported.
func readMatrixMarketKind(r io.Reader, coordinate bool) (*MatrixMarketData, error) {
	d, err := readMatrixMarket(r, "", -1)
	switch {
	case err != nil:
		return nil, err
	case coordinate && d.COO == nil:
		return nil, &ParseError{Line: 1, Msg: "array file where a coordinate file is needed", Err: ErrUnsupported}
	case !coordinate && d.Dense == nil:
		return nil, &ParseError{Line: 1, Msg: "coordinate file where an array file is needed", Err: ErrUnsupported}
	}
	return d, nil
}

// ReadMatrixMarketData reads a Matrix Market file of either format.
func ReadMatrixMarketData(r io.Reader) (*MatrixMarketData, error) {
	return readMatrixMarket(r, "", -1)
}

// ReadMatrixMarketFile opens and reads a Matrix Market file of either
// format, compressed with gzip or not. Parse errors carry the file name.
//
// The file is read whole and its entries are parsed by every core at once
// (mmparse.go), straight into the COO arrays. A header that announces more
// entries than the rest of the file can hold, or more than host memory can
// take, fails at once with a ParseError at the size line that names the
// sizes (wrapping ErrTooLarge in the second case), before anything of that
// size is allocated. In a symmetric or skew-symmetric file an entry above
// the diagonal is an error at its line: the format stores the lower
// triangle.
func ReadMatrixMarketFile(path string) (*MatrixMarketData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	if data, unmap, ok := mapFile(f, size); ok {
		if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			// Everything the result keeps is copied out of the mapping
			// (the banner's words, the numbers, error messages).
			defer unmap()
			return parseMatrixMarket(data, path)
		}
		unmap()
	}
	return readMatrixMarket(f, path, size)
}

func readMatrixMarket(r io.Reader, file string, size int64) (*MatrixMarketData, error) {
	data, err := readAllText(r, file, size)
	if err != nil {
		return nil, err
	}
	return parseMatrixMarket(data, file)
}

// readAllText reads r whole, decompressing gzip (detected by its magic
// bytes). size, when known (>= 0), is the stored size. What is read must fit
// the host memory available.
func readAllText(r io.Reader, file string, size int64) ([]byte, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var src io.Reader = br
	gz := false
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ParseError{File: file, Msg: "gzip: " + err.Error()}
		}
		defer zr.Close()
		src, gz = zr, true
	} else if size >= 0 {
		if err := CheckHostMemory(fmt.Sprintf("reading %s (%d bytes)", nameOr(file), size), size); err != nil {
			return nil, err
		}
	}
	// A stream of unknown length (or a gzip member, which can expand a
	// thousandfold) is read up to the memory available, no further.
	limit := int64(1<<63 - 1)
	if avail, ok := HostMemoryAvailable(); ok && (gz || size < 0) {
		limit = avail
	}
	var buf bytes.Buffer
	if size >= 0 && !gz {
		buf.Grow(int(size) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(src, limit))
	if err != nil {
		if gz {
			return nil, &ParseError{File: file, Msg: "gzip: " + err.Error()}
		}
		return nil, &ParseError{File: file, Msg: "read: " + err.Error()}
	}
	if n == limit {
		return nil, fmt.Errorf("%w: %s holds more than the %s of host memory available", ErrTooLarge, nameOr(file), FormatBytes(limit))
	}
	return buf.Bytes(), nil
}

func nameOr(file string) string {
	if file == "" {
		return "<input>"
	}
	return file
}

// parseMatrixMarket parses a whole Matrix Market file held in memory.
func parseMatrixMarket(data []byte, file string) (*MatrixMarketData, error) {
	nl := bytes.IndexByte(data, '\n')
	banner, rest := data, []byte(nil)
	if nl >= 0 {
		banner, rest = data[:nl], data[nl+1:]
	}
	if len(banner) > 1025 {
		return nil, &ParseError{File: file, Line: 1, Msg: "banner line too long"}
	}
	h, err := parseBanner(banner, file)
	if err != nil {
		return nil, err
	}
	s := &mmScanner{data: rest, file: file, line: 2, cur: 2, bol: true}
	d := &MatrixMarketData{Header: h}
	if h.Format == "coordinate" {
		d.COO, err = readCoordinate(s, h)
	} else {
		d.Dense, err = readArray(s, h)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// parseBanner checks the first line, "%%MatrixMarket matrix ...".
func parseBanner(line []byte, file string) (MatrixMarketHeader, error) {
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

// bodyAfterSizeLine returns the offset and line of the line after the size
// line when the rest of the size line is blank, the start of the parallel
// path; ok is false when more tokens follow on the size line.
func bodyAfterSizeLine(s *mmScanner) (off, line int, ok bool) {
	d := s.data
	for p := s.pos; p < len(d); p++ {
		if d[p] == '\n' {
			return p + 1, s.cur + 1, true
		}
		if !isMMSpace(d[p]) {
			return 0, 0, false
		}
	}
	return len(d), s.cur, true
}

// readDims reads the row and column counts that open a size line (each in
// [lo, maxOrder]: a coordinate file may be empty, an array file may not)
// and checks that a symmetric or skew-symmetric matrix is square.
func readDims(s *mmScanner, h MatrixMarketHeader, lo int64) (rows, cols int64, err error) {
	if rows, err = s.integer("row count", lo, maxOrder); err != nil {
		return 0, 0, err
	}
	if cols, err = s.integer("column count", lo, maxOrder); err != nil {
		return 0, 0, err
	}
	if (h.Symmetry == "symmetric" || h.Symmetry == "skew-symmetric") && rows != cols {
		return 0, 0, s.errorf("%s matrix is %dx%d, not square", h.Symmetry, rows, cols)
	}
	return rows, cols, nil
}

// readPosition reads the 1-based row and column indices of a coordinate
// entry.
func readPosition(s *mmScanner, rows, cols int64) (i, j int64, err error) {
	if i, err = s.integer("row index", 1, rows); err != nil {
		return 0, 0, err
	}
	j, err = s.integer("column index", 1, cols)
	return i, j, err
}

// readCoordinate reads the size line and the entries of a coordinate file.
func readCoordinate(s *mmScanner, h MatrixMarketHeader) (*COO, error) {
	rows, cols, err := readDims(s, h, 0)
	if err != nil {
		return nil, err
	}
	nnz, err := s.integer("entry count", 0, rows*cols)
	if err != nil {
		return nil, err
	}
	sym, skew := h.Symmetry == "symmetric", h.Symmetry == "skew-symmetric"
	k := int64(3)
	if h.Field == "pattern" {
		k = 2
	}
	// Every entry takes k tokens of at least one byte, each after a
	// separator: a header that promises more cannot be true, and nothing of
	// its size is allocated. The scan below then only finds where the file
	// really ends (or its first error), for the message.
	rest := int64(len(s.data) - s.pos)
	store := nnz <= rest/(2*k)
	stored := nnz
	if skew {
		stored = 2 * nnz
	}
	c := &COO{Rows: int(rows), Cols: int(cols), Symmetric: sym}
	if store {
		if err := CheckHostMemory(fmt.Sprintf("a %dx%d matrix with %d entries", rows, cols, stored), mulSat(stored, 16)); err != nil {
			return nil, sizeError(s, "%v", err)
		}
		c.I, c.J, c.V = make([]int32, stored), make([]int32, stored), make([]float64, stored)
		if off, line, ok := bodyAfterSizeLine(s); ok {
			if coordinateBody(s.data[off:], line, h, c, int(nnz)).parallel() {
				return c, nil
			}
		}
	}
	// The sequential scanner: any layout the format allows, exact errors.
	for idx := int64(0); idx < nnz; idx++ {
		if s.atEOF() {
			return nil, s.errorf("unexpected end of file after %d of the %d entries that the header declares (%dx%d)", idx, nnz, rows, cols)
		}
		i, j, err := readPosition(s, rows, cols)
		if err != nil {
			return nil, err
		}
		v := 1.0
		switch h.Field {
		case "pattern":
		case "integer":
			iv, err := s.integer("integer value", -1<<53, 1<<53)
			if err != nil {
				return nil, err
			}
			v = float64(iv)
		default:
			if v, err = s.float("value"); err != nil {
				return nil, err
			}
		}
		if skew && i == j {
			return nil, s.errorf("diagonal entry (%d,%d) in a skew-symmetric matrix", i, j)
		}
		if (sym || skew) && i < j {
			return nil, upperEntryError(s, h.Symmetry, i, j)
		}
		switch {
		case !store:
		case skew:
			c.I[2*idx], c.J[2*idx], c.V[2*idx] = int32(i-1), int32(j-1), v
			c.I[2*idx+1], c.J[2*idx+1], c.V[2*idx+1] = int32(j-1), int32(i-1), -v
		default:
			c.I[idx], c.J[idx], c.V[idx] = int32(i-1), int32(j-1), v
		}
	}
	if !store { // unreachable: the file cannot hold what its header declares
		return nil, s.errorf("header declares %d entries that the file cannot hold", nnz)
	}
	if err := s.expectEOF(); err != nil {
		return nil, err
	}
	return c, nil
}

// readArray reads the size line and the column-major values of an array
// file. Symmetric files store the lower triangle column by column, skew ones
// the strictly lower triangle.
func readArray(s *mmScanner, h MatrixMarketHeader) (*mat.Dense, error) {
	rows, cols, err := readDims(s, h, 1)
	if err != nil {
		return nil, err
	}
	sym, skew := h.Symmetry == "symmetric", h.Symmetry == "skew-symmetric"
	want := rows * cols
	switch {
	case sym:
		want = rows * (rows + 1) / 2
	case skew:
		want = rows * (rows - 1) / 2
	}
	rest := int64(len(s.data) - s.pos)
	if want > rest/2 {
		// Each value takes a byte and a separator: the file cannot hold
		// what the header declares. Find where it ends, for the message.
		for k := int64(0); ; k++ {
			if s.atEOF() {
				return nil, s.errorf("unexpected end of file after %d of the %d values that the header declares (%dx%d)", k, want, rows, cols)
			}
			if _, err := s.float("value"); err != nil {
				return nil, err
			}
		}
	}
	if err := CheckHostMemory(fmt.Sprintf("a dense %dx%d matrix", rows, cols), mulSat(want+rows*cols, 8)); err != nil {
		return nil, sizeError(s, "%v", err)
	}
	vals := make([]float64, want)
	parsed := false
	if off, line, ok := bodyAfterSizeLine(s); ok {
		parsed = arrayBody(s.data[off:], line, h, vals).parallel()
	}
	if !parsed {
		for k := range vals {
			if s.atEOF() {
				return nil, s.errorf("unexpected end of file after %d of the %d values that the header declares (%dx%d)", k, want, rows, cols)
			}
			if h.Field == "integer" {
				iv, err := s.integer("integer value", -1<<53, 1<<53)
				if err != nil {
					return nil, err
				}
				vals[k] = float64(iv)
			} else if vals[k], err = s.float("value"); err != nil {
				return nil, err
			}
		}
		if err := s.expectEOF(); err != nil {
			return nil, err
		}
	}
	r, c := int(rows), int(cols)
	d := mat.NewDense(r, c, nil)
	raw := d.RawMatrix()
	if !sym && !skew {
		// Column-major file into a row-major Dense: transpose.
		for j := 0; j < c; j++ {
			col := vals[j*r : (j+1)*r]
			for i, v := range col {
				raw.Data[i*raw.Stride+j] = v
			}
		}
		return d, nil
	}
	k := 0
	for j := 0; j < r; j++ {
		start := j
		if skew {
			start = j + 1
		}
		for i := start; i < r; i++ {
			v := vals[k]
			k++
			raw.Data[i*raw.Stride+j] = v
			if skew {
				raw.Data[j*raw.Stride+i] = -v
			} else {
				raw.Data[j*raw.Stride+i] = v
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
	err := writeParallel(bw, len(c.V), func(buf []byte, k int) []byte {
		i, j := c.I[k], c.J[k]
		if c.Symmetric && i < j {
			i, j = j, i
		}
		buf = strconv.AppendInt(buf, int64(i)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(j)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, c.V[k], 'g', -1, 64)
		return append(buf, '\n')
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// writeParallel writes the lines of entries 0..n-1, formatted by line, in
// order. Blocks of entries are formatted by every core at once into reused
// buffers and written in sequence; shortest-form float formatting, not the
// disk, is what bounds a large file.
func writeParallel(w io.Writer, n int, line func(buf []byte, k int) []byte) error {
	const block = 1 << 14
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, workers)
	for lo := 0; lo < n; lo += workers * block {
		nb := min(workers, (n-lo+block-1)/block)
		run(nb, workers, func(b int) {
			buf := bufs[b][:0]
			for k := lo + b*block; k < min(n, lo+(b+1)*block); k++ {
				buf = line(buf, k)
			}
			bufs[b] = buf
		})
		for b := 0; b < nb; b++ {
			if _, err := w.Write(bufs[b]); err != nil {
				return err
			}
		}
	}
	return nil
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
	raw := a.RawMatrix()
	err := writeParallel(bw, r*c, func(buf []byte, k int) []byte {
		i, j := k%r, k/r
		buf = strconv.AppendFloat(buf, raw.Data[i*raw.Stride+j], 'g', -1, 64)
		return append(buf, '\n')
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteMatrixMarketVector writes v as an n×1 "array real general" file, the
// usual form of a right-hand side or a solution.
func WriteMatrixMarketVector(w io.Writer, v []float64) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: empty vector", ErrShape)
	}
	return WriteMatrixMarketArray(w, mat.NewDense(len(v), 1, v))
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
