package sparse

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/sbinet/npyio/npy"
)

// NumPy's .npy format: a magic string, a version, a header (a Python dict
// literal with the dtype, the memory order and the shape) and the raw
// elements. The header is read and written by github.com/sbinet/npyio (the
// gonum ecosystem's npy/npz library); the elements are moved here with one
// read or write per array straight into or out of the destination slice,
// because npyio moves them one element at a time (about ten times slower
// than the disk) and sizes its buffers from the header without checking.
// Every size in a header is checked against the bytes that really follow
// before anything of that size is allocated.

// maxNPYHeader bounds the header dictionary; NumPy itself refuses headers
// over 10 000 bytes by default.
const maxNPYHeader = 1 << 16

// npyArray is one parsed .npy header.
type npyArray struct {
	name    string // for messages: the file, or the npz member
	dtype   string // '<f8', '<i4', '|S3', ...
	kind    byte   // 'f', 'i', 'u', 'b', 'S', 'U'
	size    int    // bytes per element
	swap    bool   // big-endian elements
	fortran bool
	shape   []int
	elems   int64
	// known says the stream's size was known and checked against the
	// header; otherwise the elements are read in chunks, the buffer growing
	// only as data actually arrive (readGrowing).
	known bool
}

// readNPYHeader reads and checks the header of a .npy stream, and that the
// host can hold the elements. avail is the number of bytes the stream holds
// (header included), or -1 if unknown.
func readNPYHeader(r io.Reader, name string, avail int64) (*npyArray, error) {
	a, err := parseNPYHeader(r, name, avail)
	if err != nil {
		return nil, err
	}
	if err := CheckHostMemory(fmt.Sprintf("%s (%v %s)", name, a.shape, a.dtype), a.hostBytes(8)); err != nil {
		return nil, err
	}
	return a, nil
}

// parseNPYHeader is readNPYHeader without the host memory check, for
// callers that check several arrays at once (an .npz's members are read
// together).
func parseNPYHeader(r io.Reader, name string, avail int64) (*npyArray, error) {
	bad := func(format string, args ...any) error {
		return &ParseError{File: name, Msg: fmt.Sprintf(format, args...)}
	}
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, bad("not a .npy array: %v", err)
	}
	if [6]byte(pre[:6]) != npy.Magic {
		return nil, bad("not a .npy array (no \\x93NUMPY magic)")
	}
	var hlen, used int64
	if _, err := io.ReadFull(r, pre[8:10]); err != nil {
		return nil, bad("truncated .npy header")
	}
	switch pre[6] {
	case 1:
		hlen, used = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var hi [2]byte
		if _, err := io.ReadFull(r, hi[:]); err != nil {
			return nil, bad("truncated .npy header")
		}
		hlen, used = int64(binary.LittleEndian.Uint32([]byte{pre[8], pre[9], hi[0], hi[1]})), 12
	default:
		return nil, bad(".npy format version %d.%d is not supported", pre[6], pre[7])
	}
	if hlen > maxNPYHeader || (avail >= 0 && used+hlen > avail) {
		return nil, bad(".npy header of %d bytes is longer than allowed (%d) or than the data", hlen, maxNPYHeader)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, bad("truncated .npy header")
	}
	a, err := parseNPYDict(text, name)
	if err != nil {
		return nil, err
	}
	a.known = avail >= 0
	a.elems = 1
	for _, d := range a.shape {
		if d < 0 {
			return nil, bad("negative dimension in shape %v", a.shape)
		}
		a.elems = mulSat(a.elems, int64(d))
	}
	need := mulSat(a.elems, int64(a.size))
	// NumPy writes exactly the declared elements after the header; a member
	// of another size would be read shifted (an .npz reader skips to the
	// data from the end), so any difference is malformed.
	if need < 0 || (avail >= 0 && need != avail-used-hlen) {
		return nil, bad("header declares %v elements of %s (%d bytes) but the array holds %d bytes", a.shape, a.dtype, need, avail-used-hlen)
	}
	return a, nil
}

// hostBytes is the host memory that reading the elements as out-byte values
// takes: the raw bytes, plus the converted slice unless the dtype is read
// straight into it. -1 on overflow.
func (a *npyArray) hostBytes(out int) int64 {
	need := mulSat(a.elems, int64(a.size))
	if need < 0 || (a.kind == 'f' && a.size == 8 && out == 8) || (a.kind == 'i' && a.size == 4 && out == 4) {
		return need
	}
	conv := mulSat(a.elems, int64(out))
	if conv < 0 || need > 1<<62 || conv > 1<<62 {
		return -1
	}
	return need + conv
}

// parseNPYDict parses the header dictionary with npyio. Its parser slices
// the text by the positions of the keys, so a malformed dictionary could
// make it index out of range: the keys and their order are checked first,
// and a panic that still escapes is turned into a ParseError.
func parseNPYDict(text []byte, name string) (a *npyArray, err error) {
	bad := &ParseError{File: name, Msg: fmt.Sprintf("malformed .npy header %q", bytes.TrimSpace(text))}
	d, o, s := bytes.Index(text, []byte("'descr': '")), bytes.Index(text, []byte("'fortran_order': ")), bytes.Index(text, []byte("'shape': ("))
	e := bytes.IndexByte(text, '}')
	if d < 0 || o < d+13 || s < o+19 || e < s+13 || text[len(text)-1] != '\n' {
		return nil, bad
	}
	defer func() {
		if recover() != nil {
			a, err = nil, bad
		}
	}()
	// npyio's reader wants the whole stream: magic, version 1, length.
	var stream bytes.Buffer
	stream.Write(npy.Magic[:])
	stream.Write([]byte{1, 0})
	binary.Write(&stream, binary.LittleEndian, uint16(len(text)))
	stream.Write(text)
	rd, perr := npy.NewReader(&stream)
	if perr != nil {
		return nil, &ParseError{File: name, Msg: "malformed .npy header: " + perr.Error()}
	}
	h := rd.Header.Descr
	a = &npyArray{name: name, dtype: h.Type, fortran: h.Fortran, shape: h.Shape}
	t := h.Type
	if len(t) < 2 {
		return nil, bad
	}
	switch t[0] {
	case '<', '|', '=':
		t = t[1:]
	case '>':
		a.swap, t = true, t[1:]
	}
	a.kind = t[0]
	switch a.kind {
	case 'f', 'i', 'u', 'b', 'S', 'U':
	default:
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("dtype %q is not supported", h.Type), Err: ErrUnsupported}
	}
	n := 0
	for _, c := range t[1:] {
		if c < '0' || c > '9' || n > 1<<20 {
			return nil, &ParseError{File: name, Msg: fmt.Sprintf("dtype %q is not supported", h.Type), Err: ErrUnsupported}
		}
		n = n*10 + int(c-'0')
	}
	if a.kind == 'U' {
		n *= 4
	}
	a.size = n
	if n == 0 || ((a.kind == 'f') && n != 4 && n != 8) || ((a.kind == 'i' || a.kind == 'u') && n != 1 && n != 2 && n != 4 && n != 8) || (a.kind == 'b' && n != 1) {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("dtype %q is not supported", h.Type), Err: ErrUnsupported}
	}
	if a.swap && a.size > 1 && a.kind != 'f' && a.kind != 'i' && a.kind != 'u' {
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("dtype %q is not supported", h.Type), Err: ErrUnsupported}
	}
	return a, nil
}

// npyChunk is the first buffer of a stream of unknown size; it doubles as
// data arrive.
const npyChunk = 1 << 20

// readRaw reads the elements' bytes into a new slice of the right size. A
// stream of unknown size is read in chunks: a header that declares more
// than the stream holds costs what the stream really held (at most twice
// over), never what the header declared.
func (a *npyArray) readRaw(r io.Reader) ([]byte, error) {
	need := a.elems * int64(a.size)
	var raw []byte
	if a.known {
		raw = make([]byte, need)
		if _, err := io.ReadFull(r, raw); err != nil {
			return nil, &ParseError{File: a.name, Msg: "truncated .npy data: " + err.Error()}
		}
	} else {
		var err error
		if raw, err = readGrowing(r, need); err != nil {
			return nil, &ParseError{File: a.name, Msg: fmt.Sprintf("truncated .npy data: the header declares %d bytes, the stream ends after %d", need, len(raw))}
		}
	}
	if a.swap && a.size > 1 {
		for k := 0; k < len(raw); k += a.size {
			for i, j := k, k+a.size-1; i < j; i, j = i+1, j-1 {
				raw[i], raw[j] = raw[j], raw[i]
			}
		}
	}
	return raw, nil
}

// readGrowing reads exactly need bytes from r into a buffer that starts at
// npyChunk bytes and doubles (capped at need) only when the one before is
// full, so memory follows the bytes that arrived. On a short stream it
// returns what arrived and the error.
func readGrowing(r io.Reader, need int64) ([]byte, error) {
	buf := make([]byte, 0, min(need, npyChunk))
	for int64(len(buf)) < need {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(need, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil && int64(len(buf)) < need {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// asWords views raw (little-endian elements, as read) as a slice of T
// without copying when its backing array is aligned for T, which Go's
// allocator gives every byte slice of 8 bytes or more; otherwise it copies.
func asWords[T float64 | int32](raw []byte) []T {
	size := int(unsafe.Sizeof(T(0)))
	n := len(raw) / size
	if n == 0 {
		return []T{}
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%unsafe.Alignof(T(0)) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), n)
	}
	v := make([]T, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), n*size), raw)
	return v
}

// readNative reads the elements when the file stores them in T's own
// little-endian layout: straight into a []T when their count is known, else
// through readRaw without a copy (asWords).
func readNative[T float64 | int32](a *npyArray, r io.Reader) ([]T, error) {
	if !a.known {
		raw, err := a.readRaw(r)
		if err != nil {
			return nil, err
		}
		return asWords[T](raw), nil
	}
	v := make([]T, a.elems)
	if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(T(0))))); err != nil {
		return nil, &ParseError{File: a.name, Msg: "truncated .npy data: " + err.Error()}
	}
	return v, nil
}

// decode reads the elements of any other dtype, converting element k (its
// bytes start b) with at, which rejects what T cannot hold.
func decode[T float64 | int32](a *npyArray, r io.Reader, at func(k int, b []byte) (T, error)) ([]T, error) {
	raw, err := a.readRaw(r)
	if err != nil {
		return nil, err
	}
	v := make([]T, a.elems)
	for k := range v {
		if v[k], err = at(k, raw[k*a.size:]); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// float64s reads the elements as float64 (from any real or integer dtype).
func (a *npyArray) float64s(r io.Reader) ([]float64, error) {
	if a.kind == 'f' && a.size == 8 && !a.swap {
		return readNative[float64](a, r)
	}
	return decode(a, r, func(k int, b []byte) (float64, error) {
		var x float64
		switch {
		case a.kind == 'f' && a.size == 8:
			x = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case a.kind == 'f':
			x = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case a.kind == 'S' || a.kind == 'U':
			return 0, &ParseError{File: a.name, Msg: fmt.Sprintf("dtype %s is not numeric", a.dtype), Err: ErrUnsupported}
		default:
			x = float64(a.intAt(b))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, &ParseError{File: a.name, Msg: fmt.Sprintf("element %d is %v", k, x), Err: ErrNaN}
		}
		return x, nil
	})
}

// intAt decodes one little-endian integer element.
func (a *npyArray) intAt(b []byte) int64 {
	signed := a.kind == 'i'
	switch a.size {
	case 1:
		if signed {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		if signed {
			return int64(int16(binary.LittleEndian.Uint16(b)))
		}
		return int64(binary.LittleEndian.Uint16(b))
	case 4:
		if signed {
			return int64(int32(binary.LittleEndian.Uint32(b)))
		}
		return int64(binary.LittleEndian.Uint32(b))
	}
	u := binary.LittleEndian.Uint64(b)
	if !signed && u > math.MaxInt64 {
		return -1 // out of every index range
	}
	return int64(u)
}

// int32s reads integer elements as int32 indices in [lo, hi].
func (a *npyArray) int32s(r io.Reader, lo, hi int64, what string) ([]int32, error) {
	if a.kind != 'i' && a.kind != 'u' {
		return nil, &ParseError{File: a.name, Msg: fmt.Sprintf("%s has dtype %s, want integers", what, a.dtype)}
	}
	check := func(k int, x int64) error {
		if x < lo || x > hi {
			return &ParseError{File: a.name, Msg: fmt.Sprintf("%s[%d] = %d outside [%d, %d]", what, k, x, lo, hi), Err: ErrIndex}
		}
		return nil
	}
	if a.kind == 'i' && a.size == 4 && !a.swap {
		v, err := readNative[int32](a, r)
		if err != nil {
			return nil, err
		}
		for k, x := range v {
			if err := check(k, int64(x)); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	return decode(a, r, func(k int, b []byte) (int32, error) {
		x := a.intAt(b)
		return int32(x), check(k, x)
	})
}

// text reads a string scalar ('|S3' or '<U3', as SciPy stores "csr").
func (a *npyArray) text(r io.Reader) (string, error) {
	if (a.kind != 'S' && a.kind != 'U') || a.elems != 1 || a.size > 256 {
		return "", &ParseError{File: a.name, Msg: fmt.Sprintf("want a short string, got dtype %s shape %v", a.dtype, a.shape)}
	}
	raw, err := a.readRaw(r)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for k := 0; k < len(raw); {
		c := rune(raw[k])
		k++
		if a.kind == 'U' {
			c = rune(binary.LittleEndian.Uint32(raw[k-1:]))
			k += 3
		}
		if c == 0 {
			break
		}
		sb.WriteRune(c)
	}
	return sb.String(), nil
}

// ReadNPY reads a NumPy .npy file holding a vector (shape (n,), (n, 1) or
// (1, n)) of any real or integer dtype, as float64. Malformed files give a
// *ParseError; a header that declares more elements than the file holds
// fails before anything of that size is allocated.
func ReadNPY(path string) ([]float64, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readNPYVector(bufio.NewReaderSize(f, 1<<20), path, size)
}

// ReadNPYFrom reads a .npy vector from r; size is the number of bytes r
// holds, or -1 if unknown. With a known size the header is checked against
// it before anything is allocated; with an unknown one the elements are read
// in chunks that grow as data arrive, so a header declaring more than the
// stream holds fails at the stream's end having allocated about what the
// stream held.
func ReadNPYFrom(r io.Reader, size int64) ([]float64, error) {
	return readNPYVector(r, "", size)
}

func readNPYVector(r io.Reader, name string, size int64) ([]float64, error) {
	a, err := readNPYHeader(r, name, size)
	if err != nil {
		return nil, err
	}
	switch {
	case len(a.shape) == 1:
	case len(a.shape) == 2 && (a.shape[0] == 1 || a.shape[1] == 1):
	default:
		return nil, &ParseError{File: name, Msg: fmt.Sprintf("array of shape %v is not a vector", a.shape), Err: ErrShape}
	}
	return a.float64s(r)
}

// WriteNPY writes v as a NumPy .npy file of dtype float64 and shape (n,),
// what numpy.save writes for a 1-D float array.
func WriteNPY(w io.Writer, v []float64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := npy.Write(bw, v); err != nil {
		return fmt.Errorf("writing .npy: %w", err)
	}
	return bw.Flush()
}

// openSized opens path for reading and returns its size, which the NumPy
// readers check their headers against before allocating, or -1 for what is
// not a regular file (a pipe, /dev/stdin: its Stat size says nothing), which
// the .npy reader then reads in chunks that grow as data arrive.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return f, -1, nil
	}
	return f, st.Size(), nil
}
