package afarray

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// TestScan checks the three exclusive scans against a host loop, at sizes
// around the block span (4·256 elements) and past two levels of block sums,
// in place and out of place.
func TestScan(t *testing.T) {
	dev, err := CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	prog, err := convertProgram(dev)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 1023, 1024, 1025, 4096, 1<<20 + 3} {
		for _, op := range []scanOp{scanAddInt32, scanMaxInt32, scanAddInt64} {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/inplace=%v", op, n, inPlace), func(t *testing.T) {
					if inPlace && n > 5000 {
						t.Skip("in place is covered by the small sizes")
					}
					checkScan(t, dev, prog, op, n, inPlace, r)
				})
			}
		}
	}
}

// checkScan scans n random elements on the device and compares every
// output, the identity at 0 and the total at n included.
func checkScan(t *testing.T, dev *kernels.Device, prog *kernels.Program, op scanOp, n int, inPlace bool, r *rand.Rand) {
	size := op.elemSize()
	in, err := dev.Alloc(int64(n+1) * size)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	out := in
	if !inPlace {
		if out, err = dev.Alloc(int64(n+1) * size); err != nil {
			t.Fatal(err)
		}
		defer out.Release()
	}
	want := make([]int64, n+1)
	switch op {
	case scanAddInt64:
		x := make([]int64, n+1)
		for i := range n {
			x[i] = r.Int64N(1<<40) - 1<<20
			want[i+1] = want[i] + x[i]
		}
		if err := in.Write(0, x); err != nil {
			t.Fatal(err)
		}
	default:
		x := make([]int32, n+1)
		want[0] = 0
		if op == scanMaxInt32 {
			want[0] = math.MinInt32
		}
		for i := range n {
			x[i] = int32(r.IntN(2000) - 1000)
			if op == scanMaxInt32 {
				x[i] = int32(r.IntN(n + 1)) // rises slowly, with ties
				want[i+1] = max(want[i], int64(x[i]))
			} else {
				want[i+1] = want[i] + int64(x[i])
			}
		}
		if err := in.Write(0, x); err != nil {
			t.Fatal(err)
		}
	}
	if err := scan(prog, op, n, in, out); err != nil {
		t.Fatal(err)
	}
	got := make([]int64, n+1)
	if op == scanAddInt64 {
		if err := out.Read(0, got); err != nil {
			t.Fatal(err)
		}
	} else {
		g := make([]int32, n+1)
		if err := out.Read(0, g); err != nil {
			t.Fatal(err)
		}
		for i, v := range g {
			got[i] = int64(v)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("out[%d] = %d, want %d", i, got[i], want[i])
		}
	}
}
