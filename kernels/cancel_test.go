package kernels

import (
	"errors"
	"testing"
	"time"
)

const spinSrc = `
__kernel void spin(int iters, __global double *y) {
	int i = get_global_id(0);
	double s = y[i];
	for (int k = 0; k < iters; k++) s = s * 0.999999 + 1e-9;
	y[i] = s;
}
`

// TestCancelStopsQueuedWork: a host loop issuing thousands of slow
// launches is stopped by Cancel within a second, queue drained, and the
// device works normally after Resume. Without pacing the host would have
// queued all of them and the device would run them all first.
func TestCancelStopsQueuedWork(t *testing.T) {
	d := testDevice(t)
	prog, err := d.Build("", Source{Name: "spin.cl", Text: spinSrc})
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("spin")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1024
	y, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Release()
	if err := y.Write(0, make([]float64, n)); err != nil {
		t.Fatal(err)
	}
	const launches = 5000
	done := make(chan error, 1)
	issued := 0
	go func() {
		for i := 0; i < launches; i++ {
			if err := k.Launch([]int{n}, []int{64}, 20000, y); err != nil {
				done <- err
				return
			}
			issued++
		}
		done <- d.Finish()
	}()
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	d.Cancel()
	var loopErr error
	select {
	case loopErr = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the launch loop did not stop within 30 s of Cancel")
	}
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if loopErr == nil {
		t.Skipf("the device ran all %d launches before the cancellation", launches)
	}
	if !errors.Is(loopErr, ErrCanceled) {
		t.Fatalf("launch after Cancel: %v, want ErrCanceled", loopErr)
	}
	t.Logf("%d launches issued; canceled work drained %v after Cancel", issued, took)
	if took > time.Second {
		t.Errorf("Cancel took %v to stop the device's work, want under 1 s", took)
	}
	// The device is usable again and the buffer holds finite values.
	if err := k.Launch([]int{n}, []int{64}, 1, y); err != nil {
		t.Fatal(err)
	}
	v := make([]float64, n)
	if err := y.Read(0, v); err != nil || v[0] <= 0 || v[0] != v[0] {
		t.Fatalf("after Resume: %v, y[0] = %g", err, v[0])
	}
}

// BenchmarkTinyLaunches measures the cost per launch of a long sequence of
// tiny launches, where the pacing's markers would show if they cost much.
func BenchmarkTinyLaunches(b *testing.B) {
	d := testDevice(b)
	prog, err := d.Build("-DREAL=double", Source{Name: "axpy.cl", Text: axpySrc})
	if err != nil {
		b.Fatal(err)
	}
	k, _ := prog.Kernel("axpy")
	x, _ := d.Alloc(8 * 64)
	y, _ := d.Alloc(8 * 64)
	defer x.Release()
	defer y.Release()
	x.Write(0, make([]float64, 64))
	y.Write(0, make([]float64, 64))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := k.Launch([]int{64}, []int{64}, 64, 0.5, x, y); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Finish(); err != nil {
		b.Fatal(err)
	}
}
