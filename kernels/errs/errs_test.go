package errs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

func TestSentinelsMatchAcrossPackages(t *testing.T) {
	a := errs.New("afarray", errs.ErrShape, "")
	s := errs.New("sparse", errs.ErrShape, "dimension mismatch")
	other := errs.New("sparse", errs.ErrIndex, "")
	err := fmt.Errorf("%w: 3x4 matrix is not square", s)
	if got, want := err.Error(), "sparse: dimension mismatch: 3x4 matrix is not square"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	for _, target := range []error{s, a, errs.ErrShape} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = false", err, target)
		}
	}
	for _, target := range []error{other, errs.ErrIndex, errors.New("shape mismatch")} {
		if errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = true", err, target)
		}
	}
	if a.Error() != "afarray: shape mismatch" {
		t.Errorf("default message %q", a.Error())
	}
}
