package solver

import (
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
)

// TestSupernodalZero checks sn_zero, which clears L and U's regions instead
// of clEnqueueFillBuffer: exactly the n doubles from off become zero, over
// more items than one launch has (the grid strides), and none outside.
func TestSupernodalZero(t *testing.T) {
	sparseDevice(t)
	dev, err := afarray.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	f := &snFactor{dev: dev}
	if f.prog, err = snProgram(dev); err != nil {
		t.Fatal(err)
	}
	const size = 4096*256*2 + 777 // beyond 4096 groups of 256: every item loops
	buf, err := dev.Alloc(8 * size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	for _, c := range []struct{ off, n int64 }{{0, size}, {13, size - 100}, {size - 1, 1}, {1000, 0}} {
		seven := make([]float64, size)
		for i := range seven {
			seven[i] = 7
		}
		if err := buf.Write(0, seven); err != nil {
			t.Fatal(err)
		}
		if err := f.zero(buf, c.off, c.n); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, size)
		if err := buf.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			want := 7.0
			if int64(i) >= c.off && int64(i) < c.off+c.n {
				want = 0
			}
			if v != want {
				t.Fatalf("zero(%d, %d): x[%d] = %v, want %v", c.off, c.n, i, v, want)
			}
		}
	}
}
