package kernels

import (
	"errors"
	"testing"
)

// step makes x[i] = 2 x[i] + v: applied in two orders it gives different
// values, so the result shows which queue's kernel ran first.
const stepSrc = `
__kernel void twice_plus(__global double *x, double v, int n, int spin) {
	int i = get_global_id(0);
	if (i >= n) return;
	double y = x[i];
	for (int k = 0; k < spin; k++) y = y * 1.0000001 - y * 0.0000001; // keeps the kernel busy a while
	x[i] = 2 * y + v;
}
`

// The side queue runs after the main queue's marker it waits for, and the
// main queue after the side queue's: the order of the two steps is fixed
// by the events alone, with a slow first step (a race would let the
// second overtake it on a device that runs queues side by side, as PoCL
// does). Finish waits for both queues.
func TestSideQueueEvents(t *testing.T) {
	d := testDevice(t)
	prog, err := d.Build("", Source{Name: "twice_plus.cl", Text: stepSrc})
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("twice_plus")
	if err != nil {
		t.Fatal(err)
	}
	side, err := d.Side()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := d.Side(); err != nil || again.raw() != side.raw() {
		t.Fatalf("a second Side() made another queue (%v)", err)
	}
	if want := map[bool]string{true: "high", false: "normal"}[sidePriority(d.Info())]; d.SidePriority() != want {
		t.Errorf("side queue priority %q, want %q", d.SidePriority(), want)
	}
	n := 4096
	buf, err := d.Alloc(int64(8 * n))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	for round := 0; round < 3; round++ {
		if err := buf.Write(0, ones); err != nil {
			t.Fatal(err)
		}
		// main: x = 2x + 1 (slow), side: x = 2x + 10, main: x = 2x + 100.
		if err := k.LaunchOn(d.Main(), []int{n}, []int{64}, buf, 1.0, int32(n), int32(2000)); err != nil {
			t.Fatal(err)
		}
		ev, err := d.Main().Marker()
		if err != nil {
			t.Fatal(err)
		}
		if err := side.WaitFor(ev); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		ev.Release() // idempotent
		if err := k.LaunchOn(side, []int{n}, []int{64}, buf, 10.0, int32(n), int32(0)); err != nil {
			t.Fatal(err)
		}
		ev, err = side.Marker()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Main().WaitFor(ev); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		if err := k.Launch([]int{n}, []int{64}, buf, 100.0, int32(n), int32(0)); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n)
		if err := buf.Read(0, got); err != nil {
			t.Fatal(err)
		}
		// ((2*1+1)*2+10)*2+100 = 132 in this order only.
		for i, v := range got {
			if v != 132 {
				t.Fatalf("round %d: x[%d] = %g, want 132 (the queues did not keep their order)", round, i, v)
			}
		}
	}
	// Work left only on the side queue is waited for by Finish.
	if err := k.LaunchOn(side, []int{n}, []int{64}, buf, 0.0, int32(n), int32(2000)); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := side.WaitFor(nil); !errors.Is(err, ErrLaunch) {
		t.Errorf("WaitFor(nil): %v, want ErrLaunch", err)
	}
}

// The side queue is high priority where the device lists the hint, and
// where OCLSOLVE_SIDE_PRIORITY asks; other values leave the default.
func TestSidePriority(t *testing.T) {
	hinted := DeviceInfo{Extensions: []string{"cl_khr_fp64", "cl_khr_priority_hints"}}
	plain := DeviceInfo{Extensions: []string{"cl_khr_fp64"}}
	for _, c := range []struct {
		env           string
		hinted, plain bool
	}{
		{"", true, false}, {"high", true, true}, {"HIGH", true, true}, {"normal", false, false}, {"fast", true, false},
	} {
		t.Setenv("OCLSOLVE_SIDE_PRIORITY", c.env)
		if got := sidePriority(hinted); got != c.hinted {
			t.Errorf("OCLSOLVE_SIDE_PRIORITY=%q, device with the hint: high %v, want %v", c.env, got, c.hinted)
		}
		if got := sidePriority(plain); got != c.plain {
			t.Errorf("OCLSOLVE_SIDE_PRIORITY=%q, device without it: high %v, want %v", c.env, got, c.plain)
		}
	}
}
