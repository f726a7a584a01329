package kernels

import (
	"errors"
	"testing"
	"time"
)

// TestGate: a write behind a gate runs only once the gate is open, with
// what the host memory holds then (the host changes it after the enqueue
// and a pause in which an ungated write would have run), on the device's
// queue and on a copy queue; the commands behind it keep their order (the
// read after it sees the new values); launches queued behind a closed
// gate return (the pacing, which waits for earlier launches, stands
// aside); a write behind an open gate, or a gate of another device, is
// refused; Open twice is harmless.
func TestGate(t *testing.T) {
	d := testDevice(t)
	b, err := d.Alloc(8 * 16)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	axpy := axpyKernel(t, d)
	zeros, err := d.Alloc(8 * 16)
	if err != nil {
		t.Fatal(err)
	}
	defer zeros.Release()
	if err := zeros.Write(0, make([]float64, 16)); err != nil {
		t.Fatal(err)
	}
	for _, copyQ := range []bool{false, true} {
		x, err := d.NewExchange(32, copyQ)
		if err != nil {
			t.Fatal(err)
		}
		h := x.Host()
		for round := 0; round < 3; round++ {
			g, err := d.NewGate()
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 8; i++ {
				h[16+i] = -1
			}
			if err := x.WriteAfter(g, b, 4, 16, 8); err != nil {
				t.Fatal(err)
			}
			for range 20 { // b += 0 b
				if err := axpy.Launch([]int{16}, []int{16}, 16, 0.0, zeros, b); err != nil {
					t.Fatal(err)
				}
			}
			if err := x.ReadFrom(b, 4, 0, 8); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
			for i := 0; i < 8; i++ {
				h[16+i] = float64(10*round + i)
			}
			if err := g.Open(); err != nil {
				t.Fatal(err)
			}
			if err := g.Open(); err != nil {
				t.Fatal(err)
			}
			if err := x.Wait(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 8; i++ {
				if h[i] != float64(10*round+i) {
					t.Fatalf("copy queue %v, round %d: read back h[%d] = %v, want %d", copyQ, round, i, h[i], 10*round+i)
				}
			}
			if err := x.WriteAfter(g, b, 0, 16, 1); !errors.Is(err, ErrLaunch) {
				t.Errorf("write behind an open gate: %v", err)
			}
		}
		x.Release()
	}
	parts, err := d.Split(2)
	if err != nil {
		t.Skip(err)
	}
	g, err := parts[0].NewGate()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Open()
	x, err := d.NewExchange(4, false)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Release()
	if err := x.WriteAfter(g, b, 0, 0, 4); !errors.Is(err, ErrLaunch) {
		t.Errorf("gate of another device: %v", err)
	}
}
