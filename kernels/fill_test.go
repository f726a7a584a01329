package kernels

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFillKernel sends fills through fill_pattern (fillDirectMax lowered)
// and checks that every byte of the range, and none outside it, takes the
// pattern: 4-byte words and single bytes, every pattern length, offsets,
// more items than one launch has (the grid strides); and the same through
// clEnqueueFillBuffer.
func TestFillKernel(t *testing.T) {
	d := testDevice(t)
	defer func(m int64) { fillDirectMax = m }(fillDirectMax)
	const size = 4 << 20
	buf, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	pat8 := make([]byte, 8)
	binary.LittleEndian.PutUint64(pat8, math.Float64bits(-2.5))
	pat128 := make([]byte, 128)
	for i := range pat128 {
		pat128[i] = byte(3 * i)
	}
	for _, c := range []struct {
		off, n  int64
		pattern []byte
	}{
		{0, size, pat8},               // words, 2^20 of them: every item loops
		{64, size - 1000, pat8},       // words from an offset
		{3, size - 7, []byte{0x5a}},   // bytes
		{2, 4094, []byte{1, 2}},       // bytes: off and n not multiples of 4
		{8, 4000, []byte{1, 2, 3, 4}}, // words
		{128, size - 256, pat128},     // the longest pattern
		{size - 16, 16, []byte{7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}},
	} {
		for _, direct := range []int64{0, math.MaxInt64} {
			fillDirectMax = direct
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
					t.Fatalf("direct up to %d, fill of %d at %d (pattern of %d): byte %d = %#x, want %#x", direct, c.n, c.off, len(c.pattern), i, got[i], want)
				}
			}
		}
	}
}

// TestFillLarge fills OCLSOLVE_LARGE_FILL_GIB GiB (unset: skipped) of
// doubles with one Fill and reads back the start, around each 16 GiB and
// 4 GiB boundary, and the end: NVIDIA's clEnqueueFillBuffer fails on such
// fills, which Fill leaves to fill_pattern.
// OCLSOLVE_FILL_DIRECT=1 uses clEnqueueFillBuffer, to see the driver fail
// (on 2 x H200, driver 580.159.04: a 20 GiB fill hung for more than 15 s).
func TestFillLarge(t *testing.T) {
	gib, _ := strconv.ParseFloat(os.Getenv("OCLSOLVE_LARGE_FILL_GIB"), 64)
	if gib <= 0 {
		t.Skip("OCLSOLVE_LARGE_FILL_GIB not set")
	}
	if os.Getenv("OCLSOLVE_FILL_DIRECT") != "" {
		defer func(m int64) { fillDirectMax = m }(fillDirectMax)
		fillDirectMax = math.MaxInt64
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

// TestErrorNames checks that NVIDIA's fault code is named, not "unknown":
// it is what a fault of an earlier command looks like at the next flush.
func TestErrorNames(t *testing.T) {
	for code, want := range map[int]string{-9999: "faulted", -4: "MEM_OBJECT_ALLOCATION_FAILURE", -12345: "unknown"} {
		if got := (&clError{call: "clFlush", code: code}).Error(); !strings.Contains(got, want) {
			t.Errorf("code %d: %q, want it to say %q", code, got, want)
		}
	}
}

// TestLaunchGridLimit checks that a launch of more than 65,535 work-groups
// in dimension 1 or 2 is refused with ErrLaunch on every device (NVIDIA
// cannot run it), and that 65,535 runs.
func TestLaunchGridLimit(t *testing.T) {
	d := testDevice(t)
	prog, err := d.Build("", Source{Name: "grid.cl", Text: `
__kernel void grid_count(__global int *x) {
	if (get_global_id(0) == 0)
		atomic_inc(x);
}`})
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("grid_count")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.Alloc(4)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	for _, global := range [][]int{{1, maxGroupsYZ + 1}, {1, 1, maxGroupsYZ + 1}, {2, 2 * (maxGroupsYZ + 1)}} {
		local := []int{1, 1, 1}[:len(global)]
		if global[0] == 2 {
			local = []int{1, 2}
		}
		if err := k.Launch(global, local, buf); !errors.Is(err, ErrLaunch) {
			t.Errorf("global %v local %v: %v, want ErrLaunch", global, local, err)
		}
	}
	if err := buf.Fill([]byte{0, 0, 0, 0}, 0, 4); err != nil {
		t.Fatal(err)
	}
	if err := k.Launch([]int{1, maxGroupsYZ}, []int{1, 1}, buf); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 1)
	if err := buf.Read(0, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != maxGroupsYZ {
		t.Errorf("%d groups counted, want %d", got[0], maxGroupsYZ)
	}
}
