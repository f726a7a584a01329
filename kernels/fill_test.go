package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestFillPieces cuts fills into small pieces (fillPiece lowered) and checks
// that every byte of the range, and none outside it, takes the pattern:
// pieces that end on a pattern boundary, a last short piece, an offset.
func TestFillPieces(t *testing.T) {
	d := testDevice(t)
	defer func(p int64) { fillPiece = p }(fillPiece)
	const size = 8 << 10
	buf, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	pat8 := make([]byte, 8)
	binary.LittleEndian.PutUint64(pat8, math.Float64bits(-2.5))
	for _, c := range []struct {
		piece, off, n int64
		pattern       []byte
	}{
		{300, 64, 5000, pat8},            // pieces of 256 bytes (a multiple of 128), a short last one
		{1 << 30, 0, size, pat8},         // one piece
		{1, 8, 8000, []byte{1, 2, 3, 4}}, // a piece below 128 bytes becomes 128
		{1024, 128, 7936, bytes.Repeat([]byte{9}, 128)},
	} {
		fillPiece = c.piece
		if err := buf.Fill([]byte{0xee}, 0, size); err != nil {
			t.Fatal(err)
		}
		if err := buf.Fill(c.pattern, c.off, c.n); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, size)
		if err := buf.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < size; i++ {
			want := byte(0xee)
			if i >= c.off && i < c.off+c.n {
				want = c.pattern[(i-c.off)%int64(len(c.pattern))]
			}
			if got[i] != want {
				t.Fatalf("piece %d, fill of %d at %d: byte %d = %#x, want %#x", c.piece, c.n, c.off, i, got[i], want)
			}
		}
	}
}

// TestFillLarge fills OCLSOLVE_LARGE_FILL_GIB GiB (unset: skipped) of
// doubles with one Fill and reads back the start, around each 16 GiB and
// 4 GiB boundary, and the end: NVIDIA's clEnqueueFillBuffer faults on
// large fills (error -9999 at the next flush), which Fill's pieces avoid.
// OCLSOLVE_FILL_ONE_PIECE=1 fills in one piece, to see the driver fail.
func TestFillLarge(t *testing.T) {
	gib, _ := strconv.ParseFloat(os.Getenv("OCLSOLVE_LARGE_FILL_GIB"), 64)
	if gib <= 0 {
		t.Skip("OCLSOLVE_LARGE_FILL_GIB not set")
	}
	if os.Getenv("OCLSOLVE_FILL_ONE_PIECE") != "" {
		defer func(p int64) { fillPiece = p }(fillPiece)
		fillPiece = math.MaxInt64
	}
	d := testDevice(t)
	n := int64(gib*(1<<30)) / 8 * 8
	buf, err := d.Alloc(n)
	if err != nil {
		t.Skipf("no room: %v", err)
	}
	defer buf.Release()
	pat := make([]byte, 8)
	binary.LittleEndian.PutUint64(pat, math.Float64bits(1.5))
	if err := buf.Fill(pat, 0, n); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatalf("fill of %d bytes: %v", n, err)
	}
	probe := []int64{0, n - 64}
	for b := int64(1 << 32); b < n; b += 1 << 32 {
		probe = append(probe, b-32, b)
	}
	for _, at := range probe {
		at = min(at, n-64)
		got := make([]float64, 8)
		if err := buf.Read(at, got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != 1.5 {
				t.Fatalf("fill of %d bytes: double at byte %d = %v, want 1.5", n, at+8*int64(i), v)
			}
		}
	}
}
