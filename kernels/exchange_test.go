package kernels

import (
	"errors"
	"testing"
)

// TestExchange: values written from an exchange land in the buffer, reads
// bring them back after Wait, on the device's queue and on a copy queue of
// the exchange's own, round after round; a second transfer of a direction
// before Wait, a range outside the buffer or the exchange, and a buffer of
// another device are refused.
func TestExchange(t *testing.T) {
	d := testDevice(t)
	b, err := d.Alloc(8 * 64)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	for _, copyQ := range []bool{false, true} {
		x, err := d.NewExchange(32, copyQ)
		if err != nil {
			t.Fatal(err)
		}
		h := x.Host()
		for round := 0; round < 4; round++ {
			for i := 0; i < 16; i++ {
				h[16+i] = float64(100*round + i)
			}
			// Into the buffer at 40, then back into the first half.
			if err := x.WriteTo(b, 40, 16, 16); err != nil {
				t.Fatal(err)
			}
			if err := x.WriteTo(b, 0, 16, 16); !errors.Is(err, ErrLaunch) {
				t.Errorf("second write before Wait: %v", err)
			}
			if err := x.Wait(); err != nil {
				t.Fatal(err)
			}
			if err := x.ReadFrom(b, 40, 0, 16); err != nil {
				t.Fatal(err)
			}
			if err := x.Wait(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 16; i++ {
				if h[i] != float64(100*round+i) {
					t.Fatalf("copy queue %v, round %d: h[%d] = %v", copyQ, round, i, h[i])
				}
			}
		}
		for _, r := range [][3]int{{60, 0, 8}, {0, 30, 4}, {-1, 0, 1}, {0, -1, 1}} {
			if err := x.ReadFrom(b, r[0], r[1], r[2]); !errors.Is(err, ErrLaunch) {
				t.Errorf("read %v: %v", r, err)
			}
		}
		x.Release()
		x.Release()
	}
	if _, err := d.NewExchange(0, false); !errors.Is(err, ErrLaunch) {
		t.Errorf("empty exchange: %v", err)
	}
	parts, err := d.Split(2)
	if err != nil {
		t.Skip(err)
	}
	x, err := parts[0].NewExchange(4, false)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Release()
	if err := x.ReadFrom(b, 0, 0, 4); !errors.Is(err, ErrLaunch) {
		t.Errorf("buffer of another device: %v", err)
	}
}
