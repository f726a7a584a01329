package kernels

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Profiling is fixed when a device is first used, so TestProfile runs its
// checks (TestProfileChild) in a child process with OCLSOLVE_PROFILE=1.
func TestProfile(t *testing.T) {
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProfileChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "OCLSOLVE_PROFILE=1", "OCLSOLVE_PROFILE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestProfileChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestProfileChild(t *testing.T) {
	if os.Getenv("OCLSOLVE_PROFILE_CHILD") == "" {
		t.Skip("run by TestProfile in a child process")
	}
	d := testDevice(t)
	if !d.Profiling() {
		t.Fatal("OCLSOLVE_PROFILE=1 but the device does not profile")
	}
	k := axpyKernel(t, d)
	const n = 1 << 16
	bx, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer bx.Release()
	by, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer by.Release()
	if _, err := d.Profile(); err != nil { // whatever came before
		t.Fatal(err)
	}
	events := LiveEvents()
	// More launches than a batch, so that a fold happens on the way.
	const launches = profileBatch + 5
	for i := 0; i < launches; i++ {
		if err := k.Launch([]int{n}, []int{64}, n, 0.5, bx, by); err != nil {
			t.Fatal(err)
		}
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Kernels) != 1 || p.Kernels[0].Name != "axpy" || p.Launches() != launches {
		t.Fatalf("profile %+v, want %d launches of axpy", p.Kernels, launches)
	}
	kt := p.Kernels[0]
	if kt.Total <= 0 || kt.Min <= 0 || kt.Min > kt.Mean() || kt.Mean() > kt.Max || p.Busy != kt.Total || p.Span < p.Busy {
		t.Errorf("inconsistent times: %+v, busy %v, span %v", kt, p.Busy, p.Span)
	}
	if got := LiveEvents(); got != events {
		t.Errorf("%d events kept after Profile, %d before the launches", got, events)
	}
	if s := p.String(); !strings.Contains(s, "axpy") || !strings.Contains(s, "launches") {
		t.Errorf("table lacks the kernel:\n%s", s)
	}
	// Counting starts afresh.
	if p, err := d.Profile(); err != nil || p.Launches() != 0 {
		t.Errorf("second Profile: %d launches, %v", p.Launches(), err)
	}
}
