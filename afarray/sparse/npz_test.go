package sparse

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// scipyFixtures runs testdata/scipy_npz.py (Debian's python3-scipy, which
// make test installs) in mode "write" or "check" on dir.
func scipyFixtures(t *testing.T, mode, dir string) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import scipy.sparse").Run(); err != nil {
		t.Skipf("%s with scipy not available (make test installs python3-scipy): %v", py, err)
	}
	out, err := exec.Command(py, "testdata/scipy_npz.py", mode, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("scipy_npz.py %s: %v\n%s", mode, err, out)
	}
	return string(out)
}

func denseOf(t *testing.T, c *COO) *mat.Dense {
	t.Helper()
	d, err := c.ToDense()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNPZFromSciPy reads save_npz files of every format SciPy writes
// (compressed or not, int32 or int64 indices) and .npy vectors, and checks
// them against SciPy's Matrix Market file of the same matrix.
func TestNPZFromSciPy(t *testing.T) {
	dir := t.TempDir()
	scipyFixtures(t, "write", dir)
	ref, err := ReadMatrixMarketFile(filepath.Join(dir, "a.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	want := denseOf(t, ref.COO)
	for _, f := range []string{"csr", "csc", "coo", "csr64"} {
		c, err := ReadNPZ(filepath.Join(dir, f+".npz"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Symmetric || c.NNZ() != ref.COO.NNZ() || !mat.Equal(denseOf(t, c), want) {
			t.Errorf("%s.npz differs from a.mtx", f)
		}
	}
	wantV := make([]float64, 11)
	for i := range wantV {
		wantV[i] = float64(i) / 3
	}
	for _, f := range []string{"v", "vcol", "vbig"} {
		v, err := ReadNPY(filepath.Join(dir, f+".npy"))
		if err != nil || !slices.Equal(v, wantV) {
			t.Errorf("%s.npy: %v %v", f, v, err)
		}
	}
	v32, err := ReadNPY(filepath.Join(dir, "v32.npy"))
	if err != nil || len(v32) != 11 || v32[3] != 1 {
		t.Errorf("v32.npy: %v %v", v32, err)
	}
}

// TestNPZToSciPy writes CSR, CSC, COO and a symmetric matrix with WriteNPZ,
// a vector with WriteNPY, and has SciPy load and compare them; then reads
// them back here.
func TestNPZToSciPy(t *testing.T) {
	dir := t.TempDir()
	c := bigCOO(40, 300)
	c.Symmetric = false
	c.I, c.J, c.V = append(c.I, 39, 0), append(c.J, 0, 39), append(c.V, 2.5, -1) // both triangles
	write := func(name string, f func(*os.File) error) {
		fh, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f(fh); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	write("ref.mtx", func(f *os.File) error { return WriteMatrixMarket(f, c, "") })
	for _, format := range []string{"csr", "csc", "coo"} {
		write("go_"+format+".npz", func(f *os.File) error { return WriteNPZ(f, c, format) })
	}
	sym := bigCOO(30, 200)
	write("sym.mtx", func(f *os.File) error { return WriteMatrixMarket(f, sym, "") })
	write("go_sym.npz", func(f *os.File) error { return WriteNPZ(f, sym, "csc") })
	x := []float64{1.5, -2, 0, 1e-300, 3.25}
	write("go_x.npy", func(f *os.File) error { return WriteNPY(f, x) })
	if out := scipyFixtures(t, "check", dir); !strings.Contains(out, "OK") {
		t.Fatalf("scipy check: %s", out)
	}
	// And back.
	want := denseOf(t, c)
	for _, format := range []string{"csr", "csc", "coo"} {
		back, err := ReadNPZ(filepath.Join(dir, "go_"+format+".npz"))
		if err != nil || !mat.Equal(denseOf(t, back), want) {
			t.Errorf("%s round trip: %v", format, err)
		}
	}
	s, err := ReadNPZ(filepath.Join(dir, "go_sym.npz"))
	if err != nil || !s.Symmetric || !mat.Equal(denseOf(t, s), denseOf(t, sym)) {
		t.Errorf("symmetric round trip: %v", err)
	}
	if v, err := ReadNPY(filepath.Join(dir, "go_x.npy")); err != nil || !slices.Equal(v, x) {
		t.Errorf("npy round trip: %v %v", v, err)
	}
}

// TestNPYLyingHeaders: shapes that promise more than the file holds fail at
// once, naming the sizes, without allocating them.
func TestNPYLyingHeaders(t *testing.T) {
	var buf bytes.Buffer
	WriteNPY(&buf, []float64{1, 2, 3})
	good := buf.Bytes()
	for _, shape := range []string{"(2000000000,)", "(2000000000, 2000000000)", "(-5,)"} {
		bad := bytes.Replace(good, []byte("(3,)"), []byte(shape), 1)
		// Keep the header length: pad or trim the spaces before '\n'.
		if _, err := ReadNPYFrom(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrMalformed) {
			t.Errorf("shape %s: %v", shape, err)
		}
	}
	if _, err := ReadNPYFrom(bytes.NewReader(good[:20]), 20); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated: %v", err)
	}
}

// FuzzReadNPZ feeds arbitrary bytes to the npz and npy readers: an error
// or a valid matrix, never a panic.
func FuzzReadNPZ(f *testing.F) {
	var buf bytes.Buffer
	WriteNPZ(&buf, &COO{Rows: 2, Cols: 2, I: []int32{0, 1}, J: []int32{0, 1}, V: []float64{1, 2}}, "csr")
	f.Add(buf.Bytes())
	buf.Reset()
	WriteNPY(&buf, []float64{1, 2})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "fuzz"); err == nil {
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		ReadNPYFrom(bytes.NewReader(data), int64(len(data)))
		ReadNPYFrom(bytes.NewReader(data), -1)
	})
}

// npyHeader returns a version 1.0 .npy header for dtype and shape (Python
// syntax), padded as numpy.lib.format pads it.
func npyHeader(dtype, shape string) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", dtype, shape)
	pad := (64 - (10+len(dict)+1)%64) % 64
	hlen := len(dict) + pad + 1
	out := append([]byte("\x93NUMPY"), 1, 0, byte(hlen), byte(hlen>>8))
	out = append(out, dict...)
	out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	return append(out, '\n')
}

// TestNPYUnknownSize: a stream of unknown size is read in chunks, so a
// header that declares 1.6 GB over a few bytes of data fails at the
// stream's end having allocated about what arrived, not what was declared;
// an honest stream of unknown size reads the same as one of known size, in
// every dtype path.
func TestNPYUnknownSize(t *testing.T) {
	for _, dtype := range []string{"<f8", "<i4", "<f4"} {
		data := append(npyHeader(dtype, "(200000000,)"), make([]byte, 64)...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := ReadNPYFrom(bytes.NewReader(data), -1)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "ends after 64") {
			t.Errorf("%s: lying header over an unknown-size stream: %v", dtype, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: lying header over 64 bytes allocated %d bytes", dtype, grew)
		}
	}
	// Honest streams, larger than the first chunk so that the buffer grows.
	x := make([]float64, 3*npyChunk/8+5)
	for i := range x {
		x[i] = float64(i) - 0.5
	}
	var buf bytes.Buffer
	if err := WriteNPY(&buf, x); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNPYFrom(iotest.OneByteReader(bytes.NewReader(buf.Bytes()[:100])), -1)
	if err == nil {
		t.Errorf("truncated stream read as %d values", len(got))
	}
	got, err = ReadNPYFrom(onlyReader{bytes.NewReader(buf.Bytes())}, -1)
	if err != nil || !slices.Equal(got, x) {
		t.Fatalf("unknown-size float64 stream: %v", err)
	}
	ints := append(npyHeader("<i4", "(3,)"), 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 7, 0, 0, 0)
	got, err = ReadNPYFrom(onlyReader{bytes.NewReader(ints)}, -1)
	if err != nil || !slices.Equal(got, []float64{1, -2, 7}) {
		t.Errorf("unknown-size int32 stream: %v %v", got, err)
	}
}

// onlyReader hides everything of a reader but Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestNPYSizeMustMatch checks that an array whose stored bytes differ from
// what its header declares is refused: inside an .npz the reader skips to
// the data from the member's end, so extra bytes would shift every value.
func TestNPYSizeMustMatch(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteNPY(&buf, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	exact := buf.Bytes()
	if v, err := ReadNPYFrom(bytes.NewReader(exact), int64(len(exact))); err != nil || len(v) != 3 || v[2] != 3 {
		t.Fatalf("exact array: %v, %v", v, err)
	}
	for _, data := range [][]byte{append(append([]byte{}, exact...), 0, 0, 0, 0, 0, 0, 0, 0), exact[:len(exact)-8]} {
		if _, err := ReadNPYFrom(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrMalformed) {
			t.Errorf("%d bytes for a 3-element array: err = %v, want ErrMalformed", len(data), err)
		}
	}
}

// npzMember is one member of a hand-built .npz: its .npy bytes, deflated
// or stored, and the uncompressed size the zip directory claims (0: the
// true one).
type npzMember struct {
	name    string
	npy     []byte
	deflate bool
	claim   uint64
}

// buildNPZ writes members as a zip archive with the sizes they claim.
func buildNPZ(t *testing.T, members ...npzMember) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name + ".npy", Method: zip.Store, CRC32: crc32.ChecksumIEEE(m.npy), UncompressedSize64: uint64(len(m.npy))}
		body := m.npy
		if m.deflate {
			var z bytes.Buffer
			fw, _ := flate.NewWriter(&z, flate.NoCompression)
			fw.Write(m.npy)
			fw.Close()
			h.Method, body = zip.Deflate, z.Bytes()
		}
		h.CompressedSize64 = uint64(len(body))
		if m.claim != 0 {
			h.UncompressedSize64 = m.claim
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestNPZLyingDeflatedSize: a deflated member's uncompressed size comes
// from the zip directory alone; one that claims ~1000 times its compressed
// bytes (and an .npy header to match) fails at the inflated stream's end
// having allocated about what arrived, not the claimed sizes; honest
// deflated members read as stored ones.
func TestNPZLyingDeflatedSize(t *testing.T) {
	const n = 25_000_000 // 200 MB of float64, 100 MB of each index array
	lying := func(key, dtype string, size int) npzMember {
		hdr := npyHeader(dtype, fmt.Sprintf("(%d,)", n))
		npy := append(hdr, make([]byte, 256<<10)...)
		return npzMember{name: key, npy: npy, deflate: true, claim: uint64(len(hdr)) + uint64(n*size)}
	}
	format := npzMember{name: "format", npy: npyBytesScalar("coo").encode()}
	shapeNPY := append(npyHeader("<i8", "(2,)"), 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)
	data := buildNPZ(t, format, npzMember{name: "shape", npy: shapeNPY}, lying("data", "<f8", 8), lying("row", "<i4", 4), lying("col", "<i4", 4))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "lying.npz")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("lying deflated sizes in a %d-byte archive: err = %v, want ErrMalformed", len(data), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("lying deflated sizes in a %d-byte archive allocated %d bytes", len(data), grew)
	}
	// Honest members, deflated or stored, in every dtype path.
	c := &COO{Rows: 3, Cols: 3, I: []int32{0, 2, 1}, J: []int32{0, 1, 2}, V: []float64{1.5, -2, 3}}
	for _, deflate := range []bool{false, true} {
		var v, r, cl bytes.Buffer
		WriteNPY(&v, c.V)
		r.Write(append(npyHeader("<i4", "(3,)"), 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0))
		cl.Write(append(npyHeader("<i8", "(3,)"), 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0))
		data := buildNPZ(t, npzMember{name: "format", npy: format.npy, deflate: deflate}, npzMember{name: "shape", npy: append(npyHeader("<i8", "(2,)"), 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0), deflate: deflate},
			npzMember{name: "data", npy: v.Bytes(), deflate: deflate}, npzMember{name: "row", npy: r.Bytes(), deflate: deflate}, npzMember{name: "col", npy: cl.Bytes(), deflate: deflate})
		got, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "honest.npz")
		if err != nil || got.Rows != 3 || !slices.Equal(got.V, c.V) || !slices.Equal(got.I, c.I) || !slices.Equal(got.J, c.J) {
			t.Errorf("honest archive (deflate %v): %+v, %v", deflate, got, err)
		}
	}
}

// cooNPZ builds a COO .npz of the given shape and entries, with an
// oclsolve_symmetric marker holding marker when it is not nil.
func cooNPZ(t *testing.T, rows, cols int64, I, J []int64, V []float64, marker *bool) []byte {
	t.Helper()
	npyOf := func(v any) []byte {
		var b bytes.Buffer
		if err := npy.Write(&b, v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	members := []npzMember{{name: "format", npy: npyBytesScalar("coo").encode()}, {name: "shape", npy: npyOf([]int64{rows, cols})},
		{name: "row", npy: npyOf(I)}, {name: "col", npy: npyOf(J)}, {name: "data", npy: npyOf(V)}}
	if marker != nil {
		members = append(members, npzMember{name: npzSymmetricKey, npy: npyOf([]bool{*marker})})
	}
	return buildNPZ(t, members...)
}

// TestNPZEmptyShapeIndices: a 0x0 (or 0-row, 0-column) shape has no valid
// index, so any entry is refused; an empty 0x0 matrix reads.
func TestNPZEmptyShapeIndices(t *testing.T) {
	for _, s := range [][2]int64{{0, 0}, {0, 3}, {3, 0}} {
		data := cooNPZ(t, s[0], s[1], []int64{0}, []int64{0}, []float64{1}, nil)
		if c, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "empty.npz"); !errors.Is(err, ErrIndex) {
			t.Errorf("shape %v with entry (0,0): %+v, err = %v, want ErrIndex", s, c, err)
		}
	}
	data := cooNPZ(t, 0, 0, []int64{}, []int64{}, []float64{}, nil)
	if c, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "empty.npz"); err != nil || c.Rows != 0 || len(c.V) != 0 {
		t.Errorf("empty 0x0: %+v, %v", c, err)
	}
}

// TestNPZSymmetricMarkerValue: the oclsolve_symmetric marker counts by its
// value, not its presence.
func TestNPZSymmetricMarkerValue(t *testing.T) {
	yes, no := true, false
	// An entry above the diagonal: fine in a general matrix, refused in
	// one marked symmetric (lower triangle).
	I, J, V := []int64{0, 0, 1}, []int64{0, 1, 1}, []float64{2, -1, 2}
	for _, m := range []*bool{nil, &no} {
		data := cooNPZ(t, 2, 2, I, J, V, m)
		if c, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "general.npz"); err != nil || c.Symmetric {
			t.Errorf("marker %v: %+v, %v, want a general matrix", m, c, err)
		}
	}
	data := cooNPZ(t, 2, 2, I, J, V, &yes)
	if _, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "upper.npz"); !errors.Is(err, ErrMalformed) {
		t.Errorf("marked symmetric with an upper entry: err = %v", err)
	}
	data = cooNPZ(t, 2, 2, []int64{0, 1, 1}, []int64{0, 0, 1}, V, &yes)
	if c, err := ReadNPZFrom(bytes.NewReader(data), int64(len(data)), "lower.npz"); err != nil || !c.Symmetric {
		t.Errorf("marked symmetric, lower triangle: %+v, %v", c, err)
	}
}

// TestNPYFromPipe: a .npy read by path from a pipe (whose Stat size is 0)
// is read as a stream of unknown size; an .npz from a pipe is refused
// with a reason.
func TestNPYFromPipe(t *testing.T) {
	x := make([]float64, npyChunk/8+3)
	for i := range x {
		x[i] = float64(i) / 3
	}
	var buf bytes.Buffer
	if err := WriteNPY(&buf, x); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Skip(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		w.Close()
		t.Skipf("no %s: %v", path, err)
	}
	go func() {
		w.Write(buf.Bytes())
		w.Close()
	}()
	got, err := ReadNPY(path)
	if err != nil || !slices.Equal(got, x) {
		t.Fatalf("piped .npy: %d values, %v", len(got), err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Skip(err)
	}
	defer r2.Close()
	w2.Close()
	if _, err := ReadNPZ(fmt.Sprintf("/dev/fd/%d", r2.Fd())); !errors.Is(err, ErrUnsupported) {
		t.Errorf("piped .npz: err = %v, want ErrUnsupported", err)
	}
}
