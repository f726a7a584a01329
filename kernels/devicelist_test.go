package kernels

import (
	"errors"
	"strings"
	"testing"
)

// TestSelectDevices checks the list grammar and its errors.
func TestSelectDevices(t *testing.T) {
	def := testDevice(t)
	one, err := SelectDevices("")
	if err != nil || len(one) != 1 || one[0] != def {
		t.Fatalf(`SelectDevices("") = %v, %v; want the default device`, one, err)
	}
	all, err := SelectDevices("all")
	if err != nil || len(all) == 0 {
		t.Fatalf("all: %v, %v", all, err)
	}
	for _, spec := range []string{"nosuchdevice", "0,0", "0:0", "0:x", ",", "99"} {
		_, err := SelectDevices(spec)
		if err == nil {
			t.Errorf("SelectDevices(%q) succeeded", spec)
			continue
		}
		if !errors.Is(err, ErrNoDevice) {
			t.Errorf("SelectDevices(%q): %v is not ErrNoDevice", spec, err)
		}
	}
	if _, err := SelectDevices("nosuchdevice"); !strings.Contains(err.Error(), def.Name()) {
		t.Errorf("unknown device error does not list the devices: %v", err)
	}
}

// TestSplitRuns checks that each part of a split device builds, launches
// and reads on its own, and that the parts are made once.
func TestSplitRuns(t *testing.T) {
	def := testDevice(t)
	parts, err := SelectDevices("0:2")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := def.Split(2)
	if len(parts) != 2 || parts[0] == parts[1] || (def.Info().Index == 0 && again[0] != parts[0]) {
		t.Fatalf("parts %v, again %v", parts, again)
	}
	for i, d := range parts {
		if d.Part() == "" || !strings.Contains(d.Label(), d.Part()) {
			t.Errorf("part %d: label %q, part %q", i, d.Label(), d.Part())
		}
		prog, err := d.Build("-DREAL=double", Source{Name: "axpy.cl", Text: axpySrc})
		if err != nil {
			t.Fatal(err)
		}
		k, err := prog.Kernel("axpy")
		if err != nil {
			t.Fatal(err)
		}
		x, _ := d.Alloc(8 * 4)
		y, _ := d.Alloc(8 * 4)
		x.Write(0, []float64{1, 2, 3, 4})
		y.Write(0, []float64{1, 1, 1, 1})
		if err := k.Launch([]int{4}, []int{4}, 4, float64(i+1), x, y); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 4)
		if err := y.Read(0, got); err != nil {
			t.Fatal(err)
		}
		for j, v := range got {
			if want := 1 + float64(i+1)*float64(j+1); v != want {
				t.Errorf("part %d (%s): y[%d] = %v, want %v", i, d.Label(), j, v, want)
			}
		}
		x.Release()
		y.Release()
	}
	t.Logf("parts: %s", Labels(parts))
	// CancelAll reaches the parts too (the REPL's interrupt).
	CancelAll()
	for i, d := range parts {
		if !d.Canceled() {
			t.Errorf("part %d not canceled by CancelAll", i)
		}
	}
	if err := ResumeAll(); err != nil {
		t.Fatal(err)
	}
	for i, d := range parts {
		if d.Canceled() {
			t.Errorf("part %d still canceled after ResumeAll", i)
		}
	}
}

// FuzzSelectDevices: any list either resolves to distinct, non-nil devices
// or fails with ErrNoDevice; nothing panics.
func FuzzSelectDevices(f *testing.F) {
	for _, s := range []string{"", "all", "0", "cpu", "gpu", "0:2", "cpu:3", "0,1", "0,0", ":", "0:", ":2", "0:99", "a,b,,c", "pthread:2,0"} {
		f.Add(s)
	}
	testDevice(f)
	f.Fuzz(func(t *testing.T, spec string) {
		devs, err := SelectDevices(spec)
		if err != nil {
			if !errors.Is(err, ErrNoDevice) {
				t.Fatalf("%q: %v is not ErrNoDevice", spec, err)
			}
			return
		}
		if len(devs) == 0 {
			t.Fatalf("%q: no device and no error", spec)
		}
		for i, d := range devs {
			for _, e := range devs[:i] {
				if d == nil || d == e {
					t.Fatalf("%q: device %d nil or repeated in %v", spec, i, devs)
				}
			}
		}
	})
}
