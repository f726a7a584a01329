package kernels

import (
	"errors"
	"testing"
)

// A ProgramSet builds once per device and hands back the same program.
func TestProgramSetBuildsOnce(t *testing.T) {
	dev, err := Default()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	s := &ProgramSet{Sources: []Source{{Name: "k.cl", Text: "__kernel void k(__global int *x) { x[get_global_id(0)] = 1; }"}}, Options: "-DUNUSED=1"}
	p1, err := s.On(dev)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.On(dev)
	if err != nil || p1 != p2 {
		t.Fatalf("second On: %p %p %v", p1, p2, err)
	}
	if _, err := s.Kernel(dev, "k"); err != nil {
		t.Fatal(err)
	}
	if !dev.Info().FP64 {
		if _, err := (&ProgramSet{NeedFP64: true}).On(dev); !errors.Is(err, ErrUnsupported) {
			t.Errorf("NeedFP64 on %s: %v", dev.Name(), err)
		}
	}
}
