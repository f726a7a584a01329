package sparse

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/sbinet/npyio/npy"
)

// SciPy's sparse files: scipy.sparse.save_npz writes a NumPy .npz archive
// (a zip of .npy arrays) with "format" ("csr", "csc" or "coo"), "shape" and
// the format's arrays: data, indices and indptr for CSR and CSC, data, row
// and col for COO. The zip container is archive/zip's; each array is a .npy
// (npy.go). Members are read in parallel, each with one read into its final
// slice; compressed members (save_npz's default) are inflated on the way,
// into buffers that grow as inflated bytes arrive: their size in the zip
// directory is checked exactly but never trusted for an allocation. The
// host memory the three arrays take together is checked once before any of
// them is read.

// npzSymmetricKey marks a file written by WriteNPZ from a Symmetric COO: the
// arrays hold the lower triangle of a symmetric matrix. SciPy's load_npz
// ignores it (and then sees the triangle); ReadNPZ sets COO.Symmetric.
const npzSymmetricKey = "oclsolve_symmetric"

// ReadNPZ reads a sparse matrix written by scipy.sparse.save_npz (CSR, CSC
// or COO; compressed or not) as a COO, 0-based, in the file's entry order
// (row by row for CSR, column by column for CSC). The COO is general unless
// the file was written by WriteNPZ from a Symmetric COO. Malformed files give
// a *ParseError wrapping ErrMalformed; sizes in the headers are checked
// against the bytes that hold them before anything is allocated, and the
// CSR/CSC pointers against the shape before anything of the order's size.
func ReadNPZ(path string) (*COO, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size < 0 {
		// A zip's directory lies at its end: no reading it from a pipe.
		return nil, &ParseError{File: path, Msg: "not a regular file: an .npz archive is read by random access, not from a pipe", Err: ErrUnsupported}
	}
	return ReadNPZFrom(f, size, path)
}

// ReadNPZFrom reads a save_npz archive of size bytes from r; name is used
// in messages.
func ReadNPZFrom(r io.ReaderAt, size int64, name string) (*COO, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &ParseError{File: name, Msg: "not an .npz archive: " + err.Error()}
	}
	z := &npzArchive{name: name, size: size, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		z.members[strings.TrimSuffix(f.Name, ".npy")] = f
	}
	format, err := npzString(z.open, "format")
	if err != nil {
		return nil, err
	}
	rows, cols, err := z.shape()
	if err != nil {
		return nil, err
	}
	c := &COO{Rows: int(rows), Cols: int(cols)}
	if _, ok := z.members[npzSymmetricKey]; ok {
		if c.Symmetric, err = z.flag(npzSymmetricKey); err != nil {
			return nil, err
		}
	}
	var keys [3]string
	switch format {
	case "csr", "csc":
		keys = [3]string{"data", "indices", "indptr"}
	case "coo":
		keys = [3]string{"data", "row", "col"}
	default:
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("sparse format %q is not supported (want csr, csc or coo)", format), Err: ErrUnsupported}
	}
	// Headers first (cheap, and every size checked), then the three arrays
	// at once.
	var arrs [3]*npyArray
	var rcs [3]io.ReadCloser
	defer func() {
		for _, rc := range rcs {
			if rc != nil {
				rc.Close()
			}
		}
	}()
	for k, key := range keys {
		if arrs[k], rcs[k], err = z.open(key); err != nil {
			return nil, err
		}
		if len(arrs[k].shape) != 1 {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("%s has shape %v, want a vector", key, arrs[k].shape)}
		}
	}
	nnz := arrs[0].elems
	major, minor := rows, cols // CSR: pointers per row, indices are columns
	if format == "csc" {
		major, minor = cols, rows
	}
	if err := checkNPZLengths(name, format, arrs, rows, cols, major); err != nil {
		return nil, err
	}
	// The three arrays are read at once: one check for all of them (and the
	// csr/csc pointers' expansion to one index per entry).
	need := arrs[0].hostBytes(8)
	for _, a := range arrs[1:] {
		need = addSat(need, a.hostBytes(4))
	}
	if format != "coo" {
		need = addSat(need, mulSat(nnz, 4))
	}
	if err := CheckHostMemory(fmt.Sprintf("%s (%s, %d entries)", name, format, nnz), need); err != nil {
		return nil, err
	}
	idx, err := readNPZArrays(c, format, arrs, rcs, rows, cols, minor)
	if err != nil {
		return nil, err
	}
	if format == "coo" {
		c.I, c.J = idx[1], idx[2]
	} else {
		expanded, err := expandNPZPointers(name, idx[2], int(major), nnz)
		if err != nil {
			return nil, err
		}
		if format == "csr" {
			c.I, c.J = expanded, idx[1]
		} else {
			c.I, c.J = idx[1], expanded
		}
	}
	if c.Symmetric {
		if err := checkNPZLower(name, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// npzArchive is an open save_npz archive: its members by array name.
type npzArchive struct {
	name    string // in messages
	size    int64
	members map[string]*zip.File
}

// open returns the header of the array key and a reader positioned at its
// elements.
func (z *npzArchive) open(key string) (*npyArray, io.ReadCloser, error) {
	name := z.name
	f, ok := z.members[key]
	if !ok {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("no %q array: not a scipy.sparse.save_npz file", key)}
	}
	// The directory's sizes can lie too: a stored member cannot be
	// larger than the archive, a deflated one than ~1032 times its
	// compressed bytes (deflate's best ratio).
	us, cs := f.UncompressedSize64, f.CompressedSize64
	if cs > uint64(z.size) || us > 1<<62 || (f.Method == zip.Store && us > cs) || us > 1100*cs+1024 {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("%s: sizes in the zip directory (%d bytes, %d compressed) do not fit an archive of %d bytes", f.Name, us, cs, z.size)}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("%s: %v", f.Name, err)}
	}
	a, err := parseNPYHeader(bufio.NewReaderSize(rc, 1<<16), name+":"+f.Name, int64(us))
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	// A deflated member's size comes from the directory alone (up to ~1100
	// times its compressed bytes): it must still match the header exactly
	// (archive/zip checks the inflated count against it), but memory is
	// allocated only as inflated bytes arrive, never from the directory's
	// word. A stored member's size is bounded by the archive's.
	if f.Method != zip.Store {
		a.known = false
	}
	// The header reader buffered ahead: reopen and skip the header
	// for a single straight read of the elements.
	rc.Close()
	if rc, err = f.Open(); err != nil {
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("%s: %v", f.Name, err)}
	}
	if _, err := io.CopyN(io.Discard, rc, int64(us)-a.elems*int64(a.size)); err != nil {
		rc.Close()
		return nil, nil, &ParseError{File: name, Msg: fmt.Sprintf("%s: %v", f.Name, err)}
	}
	return a, rc, nil
}

// shape reads the matrix's two dimensions.
func (z *npzArchive) shape() (rows, cols int64, err error) {
	a, rc, err := z.open("shape")
	if err != nil {
		return 0, 0, err
	}
	if a.elems != 2 {
		rc.Close()
		return 0, 0, &ParseError{File: z.name, Msg: fmt.Sprintf("shape has %d dimensions, want 2", a.elems)}
	}
	shape, err := a.int32s(rc, 0, maxOrder, "shape")
	rc.Close()
	if err != nil {
		return 0, 0, err
	}
	if len(shape) != 2 {
		return 0, 0, &ParseError{File: z.name, Msg: fmt.Sprintf("shape has %d dimensions, want 2", len(shape))}
	}
	return int64(shape[0]), int64(shape[1]), nil
}

// flag reads a one-element boolean (or integer) member: true unless it
// holds zero.
func (z *npzArchive) flag(key string) (bool, error) {
	a, rc, err := z.open(key)
	if err != nil {
		return false, err
	}
	defer rc.Close()
	if (a.kind != 'b' && a.kind != 'i' && a.kind != 'u') || a.elems != 1 {
		return false, &ParseError{File: z.name, Msg: fmt.Sprintf("%s has dtype %s shape %v, want one boolean", key, a.dtype, a.shape)}
	}
	raw, err := a.readRaw(rc)
	if err != nil {
		return false, err
	}
	return a.intAt(raw) != 0, nil
}

// checkNPZLengths checks the three arrays' lengths against each other and
// the shape (major: the pointers' dimension of csr and csc).
func checkNPZLengths(name, format string, arrs [3]*npyArray, rows, cols, major int64) error {
	nnz := arrs[0].elems
	switch {
	case format == "coo" && (arrs[1].elems != nnz || arrs[2].elems != nnz):
		return &ParseError{File: name, Msg: fmt.Sprintf("coo arrays have %d values, %d rows and %d columns", nnz, arrs[1].elems, arrs[2].elems)}
	case format != "coo" && arrs[1].elems != nnz:
		return &ParseError{File: name, Msg: fmt.Sprintf("%s has %d values but %d indices", format, nnz, arrs[1].elems)}
	case format != "coo" && arrs[2].elems != major+1:
		return &ParseError{File: name, Msg: fmt.Sprintf("%s of shape %dx%d needs %d pointers, indptr has %d", format, rows, cols, major+1, arrs[2].elems)}
	}
	return nil
}

// readNPZArrays reads the three arrays at once, each index checked against
// its range: the values into c.V, the indices (and csr/csc pointers) into
// the returned idx[1] and idx[2].
func readNPZArrays(c *COO, format string, arrs [3]*npyArray, rcs [3]io.ReadCloser, rows, cols, minor int64) ([3][]int32, error) {
	nnz := arrs[0].elems
	var idx [3][]int32
	var errs [3]error
	var wg sync.WaitGroup
	for k := range arrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch {
			case k == 0:
				c.V, errs[k] = arrs[k].float64s(rcs[k])
			case format == "coo" && k == 1:
				idx[k], errs[k] = arrs[k].int32s(rcs[k], 0, rows-1, "row")
			case format == "coo":
				idx[k], errs[k] = arrs[k].int32s(rcs[k], 0, cols-1, "col")
			case k == 1:
				idx[k], errs[k] = arrs[k].int32s(rcs[k], 0, minor-1, "indices")
			default:
				idx[k], errs[k] = arrs[k].int32s(rcs[k], 0, nnz, "indptr")
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return idx, err
		}
	}
	return idx, nil
}

// expandNPZPointers checks csr/csc pointers and expands them: the major
// index of every entry.
func expandNPZPointers(name string, ptr []int32, major int, nnz int64) ([]int32, error) {
	if ptr[0] != 0 || int64(ptr[major]) != nnz {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("indptr runs from %d to %d, want 0 to %d", ptr[0], ptr[major], nnz), Err: ErrIndex}
	}
	for p := 0; p < major; p++ {
		if ptr[p+1] < ptr[p] {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("indptr decreases at %d", p), Err: ErrIndex}
		}
	}
	expanded := make([]int32, nnz)
	workers := 8
	run(workers, workers, func(w int) {
		for p := major * w / workers; p < major*(w+1)/workers; p++ {
			for q := ptr[p]; q < ptr[p+1]; q++ {
				expanded[q] = int32(p)
			}
		}
	})
	return expanded, nil
}

// checkNPZLower refuses a matrix marked symmetric that is not square or
// has an entry above the diagonal.
func checkNPZLower(name string, c *COO) error {
	if c.Rows != c.Cols {
		return &ParseError{File: name, Msg: fmt.Sprintf("symmetric matrix of shape %dx%d", c.Rows, c.Cols), Err: ErrShape}
	}
	for k := range c.I {
		if c.I[k] < c.J[k] {
			return &ParseError{File: name, Msg: fmt.Sprintf("entry (%d,%d) lies above the diagonal of a matrix marked symmetric (lower triangle)", c.I[k], c.J[k])}
		}
	}
	return nil
}

func npzString(open func(string) (*npyArray, io.ReadCloser, error), key string) (string, error) {
	a, rc, err := open(key)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return a.text(rc)
}

// WriteNPZ writes c as scipy.sparse.save_npz(file, A, compressed=False)
// does for the given format ("csr", "csc" or "coo"), so that SciPy's
// load_npz reads it. Entries are written as given (duplicates stay, summed
// by SciPy when it needs to); CSR and CSC sort them by row or column first.
// A Symmetric COO is written as its lower triangle with an extra
// "oclsolve_symmetric" member, which ReadNPZ honours and SciPy ignores.
func WriteNPZ(w io.Writer, c *COO, format string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	I, J, V := c.I, c.J, c.V
	if c.Symmetric {
		I, J = slices.Clone(I), slices.Clone(J)
		for k := range I {
			if I[k] < J[k] {
				I[k], J[k] = J[k], I[k]
			}
		}
	}
	zw := zip.NewWriter(w)
	put := func(key string, v any) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if b, ok := v.(npyBytesScalar); ok {
			_, err := f.Write(b.encode())
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := npy.Write(bw, v); err != nil {
			return fmt.Errorf("writing %s.npy: %w", key, err)
		}
		return bw.Flush()
	}
	var err error
	switch format {
	case "coo":
		err = firstErr(put("row", I), put("col", J), put("data", V))
	case "csr", "csc":
		major, minor, nmaj := I, J, c.Rows
		if format == "csc" {
			major, minor, nmaj = J, I, c.Cols
		}
		ptr := make([]int32, nmaj+1)
		for _, m := range major {
			ptr[m+1]++
		}
		for p := 0; p < nmaj; p++ {
			ptr[p+1] += ptr[p]
		}
		next := slices.Clone(ptr[:nmaj])
		ind, val := make([]int32, len(V)), make([]float64, len(V))
		for k, m := range major {
			q := next[m]
			next[m]++
			ind[q], val[q] = minor[k], V[k]
		}
		err = firstErr(put("indices", ind), put("indptr", ptr), put("data", val))
	default:
		return fmt.Errorf("%w: sparse format %q (want csr, csc or coo)", ErrUnsupported, format)
	}
	if err == nil {
		err = firstErr(put("format", npyBytesScalar(format)), put("shape", []int64{int64(c.Rows), int64(c.Cols)}))
	}
	if err == nil && c.Symmetric {
		err = put(npzSymmetricKey, []bool{true})
	}
	if err != nil {
		return err
	}
	return zw.Close()
}

// addSat returns a+b for byte counts, -1 if either is -1 or the sum
// overflows.
func addSat(a, b int64) int64 {
	if a < 0 || b < 0 || a > 1<<63-1-b {
		return -1
	}
	return a + b
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// npyBytesScalar is a NumPy bytes scalar (dtype '|S<n>', shape ()), how
// save_npz stores the format name. npyio writes Go strings as '<U<n>' with
// UTF-8 data where NumPy expects UTF-32, which NumPy cannot read, so this
// one array is encoded here: version 1.0, the header padded with spaces to a
// multiple of 64 bytes and ended by a newline, as numpy.lib.format does.
type npyBytesScalar string

func (s npyBytesScalar) encode() []byte {
	dict := fmt.Sprintf("{'descr': '|S%d', 'fortran_order': False, 'shape': (), }", len(s))
	pad := 64 - (10+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	out := append([]byte{}, npy.Magic[:]...)
	out = append(out, 1, 0, byte(hlen), byte(hlen>>8))
	out = append(out, dict...)
	out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	out = append(out, '\n')
	return append(out, s...)
}
