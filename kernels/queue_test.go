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
	// A device that lists the hint but refuses it gets a plain queue; a
	// forced hint is high or Side failed.
	if high, forced := sidePriority(d.Info()); !high && d.SidePriority() != "normal" || forced && d.SidePriority() != "high" {
		t.Errorf("side queue priority %q (high asked: %v, forced: %v)", d.SidePriority(), high, forced)
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
		env                   string
		hinted, plain, forced bool
	}{
		{"", true, false, false}, {"high", true, true, true}, {"HIGH", true, true, true}, {"normal", false, false, false}, {"fast", true, false, false},
	} {
		t.Setenv("OCLSOLVE_SIDE_PRIORITY", c.env)
		if got, forced := sidePriority(hinted); got != c.hinted || forced != c.forced {
			t.Errorf("OCLSOLVE_SIDE_PRIORITY=%q, device with the hint: high %v forced %v, want %v %v", c.env, got, forced, c.hinted, c.forced)
		}
		if got, forced := sidePriority(plain); got != c.plain || forced != c.forced {
			t.Errorf("OCLSOLVE_SIDE_PRIORITY=%q, device without it: high %v forced %v, want %v %v", c.env, got, forced, c.plain, c.forced)
		}
	}
}

// Only OpenCL 2.0 and later have clCreateCommandQueueWithProperties.
func TestOpenCL20(t *testing.T) {
	for v, want := range map[string]bool{
		"OpenCL 3.0 CUDA": true, "OpenCL 2.0 AMD-APP (3614.0)": true, "OpenCL 1.2 pocl 3.1": false,
		"OpenCL 1.1": false, "": false, "OpenCL C 3.0": false, "garbage": false,
	} {
		if got := openCL20(v); got != want {
			t.Errorf("openCL20(%q) = %v, want %v", v, got, want)
		}
	}
}

// Side with the hint forced (OCLSOLVE_SIDE_PRIORITY=high) gives a high
// priority queue or fails with ErrOpenCL leaving no queue behind (PoCL
// refuses the property); the next Side without the variable makes the
// default queue. A Device of its own (the default's side queue may exist
// already; its context is not released before the process ends).
func TestSidePriorityForced(t *testing.T) {
	def := testDevice(t)
	d := &Device{info: def.info, platform: def.platform, dev: def.dev}
	t.Setenv("OCLSOLVE_SIDE_PRIORITY", "high")
	if _, err := d.Side(); err != nil {
		if !errors.Is(err, ErrOpenCL) || d.SidePriority() != "" {
			t.Fatalf("forced high: %v (want ErrOpenCL), priority %q (want none)", err, d.SidePriority())
		}
		t.Logf("%s refuses the hint: %v", d.Name(), err)
	} else if d.SidePriority() != "high" {
		t.Fatalf("forced high made a %q queue", d.SidePriority())
	}
	t.Setenv("OCLSOLVE_SIDE_PRIORITY", "")
	if _, err := d.Side(); err != nil {
		t.Fatalf("default side queue after the forced one: %v", err)
	}
	if d.SidePriority() == "" {
		t.Error("no side queue")
	}
}
