package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWriteNoWait: small writes through the pinned buffers, back to back
// into one buffer and then read, arrive in order and intact.
func TestWriteNoWait(t *testing.T) {
	d := testDevice(t)
	d.staged = 1
	defer func() { d.staged = 0 }()
	b, err := d.Alloc(8 * 100)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	want := make([]float64, 100)
	for round := 0; round < 5; round++ {
		for i := range want {
			want[i] = float64(round*1000 + i)
		}
		// Two halves, then the first half again with other values: the
		// last write wins.
		if err := b.WriteNoWait(0, want[:50]); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteNoWait(400, want[50:]); err != nil {
			t.Fatal(err)
		}
		first := slices.Clone(want[:50])
		for i := range first {
			first[i] = -first[i]
		}
		if err := b.WriteNoWait(0, first); err != nil {
			t.Fatal(err)
		}
		copy(want, first)
		got := make([]float64, 100)
		if err := b.Read(0, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: got %v, want %v", round, got[:4], want[:4])
		}
	}
}

// TestStagedTransfers moves data of sizes around the staging thresholds
// (below the minimum, one chunk, several chunks with a ragged end) up and
// down, at offsets, and checks every byte, with the direct path as the
// reference.
func TestStagedTransfers(t *testing.T) {
	d := testDevice(t)
	d.staged = 1
	defer func() { d.staged = 0 }()
	for _, n := range []int{stagingMin - 8, stagingMin, stagingChunk, 2*stagingChunk + 4096 + 8, 5*stagingChunk/2 + 8} {
		src := make([]float64, n/8)
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for i := range src {
			src[i] = r.NormFloat64()
		}
		b, err := d.Alloc(int64(n) + 64)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Write(64, src); err != nil {
			t.Fatalf("write %d: %v", n, err)
		}
		got := make([]float64, len(src))
		if err := b.Read(64, got); err != nil {
			t.Fatalf("read %d: %v", n, err)
		}
		if !slices.Equal(got, src) {
			t.Errorf("%d bytes: staged round trip differs", n)
		}
		d.staged = -1
		clear(got)
		err = b.Read(64, got)
		d.staged = 1
		if err != nil || !slices.Equal(got, src) {
			t.Errorf("%d bytes: direct read of a staged write differs (%v)", n, err)
		}
		// Two writes back to back reuse the buffers while the first may be in flight.
		half := src[:len(src)/2]
		rev := slices.Clone(half)
		slices.Reverse(rev)
		if err := b.Write(64, rev); err != nil {
			t.Fatal(err)
		}
		if err := b.Write(64+int64(8*len(half)), half); err != nil {
			t.Fatal(err)
		}
		if err := b.Read(64, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[:len(half)], rev) || !slices.Equal(got[len(half):2*len(half)], half) {
			t.Errorf("%d bytes: back-to-back staged writes differ", n)
		}
		b.Release()
	}
}

// BenchmarkTransfer reports host-device bandwidth (MB/s; divide by 1000
// for GB/s) for 8 MB and 256 MB, up and down, through the pinned staging
// buffers and directly from pageable Go memory. (On PoCL the pinned path is
// slower, which is why it is used on GPUs only.)
func BenchmarkTransfer(b *testing.B) {
	d := testDevice(b)
	for _, size := range []int{8 << 20, 256 << 20} {
		host := make([]byte, size)
		for i := range host {
			host[i] = byte(i)
		}
		buf, err := d.Alloc(int64(size))
		if err != nil {
			b.Skip(err)
		}
		// Create the pinned buffers outside the timings (once per process).
		d.staged = 1
		buf.Write(0, host[:stagingMin])
		d.staged = 0
		for _, path := range []string{"pinned", "pageable"} {
			for _, dir := range []string{"up", "down"} {
				b.Run(fmt.Sprintf("%dMB/%s/%s", size>>20, dir, path), func(b *testing.B) {
					d.staged = 1
					if path == "pageable" {
						d.staged = -1
					}
					defer func() { d.staged = 0 }()
					b.SetBytes(int64(size))
					for b.Loop() {
						if dir == "up" {
							err = buf.Write(0, host)
							if err == nil {
								err = d.Finish()
							}
						} else {
							err = buf.Read(0, host)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
		buf.Release()
	}
}
