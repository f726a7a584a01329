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

func TestPackageNamesItsSentinels(t *testing.T) {
	const p = errs.Package("solver")
	of, own := p.Of(errs.ErrShape), p.New(errs.ErrReleased, "no factorization or released")
	if got, want := of.Error(), "solver: shape mismatch"; got != want {
		t.Errorf("Of: message %q, want %q", got, want)
	}
	if got, want := own.Error(), "solver: no factorization or released"; got != want {
		t.Errorf("New: message %q, want %q", got, want)
	}
	if !errors.Is(of, errs.New("sparse", errs.ErrShape, "")) || !errors.Is(own, errs.ErrReleased) || errors.Is(of, own) {
		t.Error("Package's sentinels do not match by kind")
	}
}
