package kernels

import "testing"

// drainEvents waits for what d holds: the pacer's markers (Finish) and the
// staging buffers' pending transfers (a staged read waits for them first),
// so that LiveEvents counts only what the caller holds.
func drainEvents(t *testing.T, d *Device, b *Buffer) {
	t.Helper()
	d.staged = 1
	defer func() { d.staged = 0 }()
	if err := b.Read(0, make([]float64, stagingMin/8)); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestLiveEventsBalance: every event this package keeps is released. An
// Exchange's writes and reads on the device's queue and on a copy queue,
// a write behind a gate with launches queued after it, queue markers
// waited for by the other queue, the launch pacer's markers and staged
// transfers each hold events while pending (the counter rises, so it
// does count them) and leave LiveEvents where it started once waited for,
// released and finished. A Wait that forgets to release (4126ce4) leaves
// two per round here. No test of this package runs in parallel, so the
// counter sees this test's events alone.
func TestLiveEventsBalance(t *testing.T) {
	d := testDevice(t)
	b, err := d.Alloc(stagingMin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	axpy := axpyKernel(t, d)
	drainEvents(t, d, b)
	base := LiveEvents()
	held := func(what string, want int64) {
		t.Helper()
		if got := LiveEvents() - base; got != want {
			t.Fatalf("%s: %d events held, want %d", what, got, want)
		}
	}

	for _, copyQ := range []bool{false, true} {
		x, err := d.NewExchange(32, copyQ)
		if err != nil {
			t.Fatal(err)
		}
		h := x.Host()
		for round := 0; round < 5; round++ {
			for i := range 8 {
				h[16+i] = float64(round + i)
			}
			if err := x.WriteTo(b, 0, 16, 8); err != nil {
				t.Fatal(err)
			}
			if err := x.ReadFrom(b, 0, 0, 8); err != nil {
				t.Fatal(err)
			}
			held("exchange write and read pending", 2)
			if err := x.Wait(); err != nil {
				t.Fatal(err)
			}
			held("exchange after Wait", 0)
			if h[3] != float64(round+3) {
				t.Fatalf("copy queue %v, round %d: read back %v", copyQ, round, h[3])
			}

			g, err := d.NewGate()
			if err != nil {
				t.Fatal(err)
			}
			if err := x.WriteAfter(g, b, 0, 16, 8); err != nil {
				t.Fatal(err)
			}
			for range 4 {
				if err := axpy.Launch([]int{16}, []int{16}, 16, 1.0, b, b); err != nil {
					t.Fatal(err)
				}
			}
			held("gate and the write behind it", 2)
			if err := g.Open(); err != nil {
				t.Fatal(err)
			}
			if err := x.Wait(); err != nil {
				t.Fatal(err)
			}
			// The launches behind the write still update b; the next
			// round's write on a copy queue does not wait for them (its
			// contract leaves that to the caller), so finish them first.
			if err := d.Finish(); err != nil {
				t.Fatal(err)
			}
			held("gate open, write waited for", 0)
		}
		x.Release()
		held("exchange released", 0)
	}

	side, err := d.Side()
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 5; round++ {
		ev, err := d.Main().Marker()
		if err != nil {
			t.Fatal(err)
		}
		if err := side.WaitFor(ev); err != nil {
			t.Fatal(err)
		}
		held("main queue's marker", 1)
		ev.Release()
		ev.Release() // idempotent: counted once
		held("marker released twice", 0)
		ev, err = side.Marker()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Main().WaitFor(ev); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		held("side queue's marker released", 0)
	}

	// Enough launches for the pacer to enqueue markers of its own; Finish
	// drops those in flight.
	for range 200 {
		if err := axpy.Launch([]int{16}, []int{16}, 16, 0.0, b, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	held("pacer after Finish", 0)

	// Staged writes keep their events until the next staged transfer
	// waits for them.
	d.staged = 1
	if err := b.WriteNoWait(0, make([]float64, 16)); err != nil {
		d.staged = 0
		t.Fatal(err)
	}
	d.staged = 0
	held("staged write pending", 1)
	drainEvents(t, d, b)
	held("staged write waited for", 0)
}
