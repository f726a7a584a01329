package fem

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// TestModelTooLarge: a model whose assembly cannot fit the host is refused
// before anything is built, naming its order and the sizes.
func TestModelTooLarge(t *testing.T) {
	if avail, ok := sparse.HostMemoryAvailable(); !ok || avail > 300<<30 {
		t.Skip("host memory unknown or larger than the models below")
	}
	start := time.Now()
	_, err := Model2(Model2Options{A: 82, B: 163, C: 173})
	if !errors.Is(err, sparse.ErrTooLarge) || !strings.Contains(err.Error(), "99999984 equations") || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("Model 2 of 1e8 equations: %v", err)
	}
	_, err = Model1(Model1Options{NX: 1111, NY: 136, NZ: 218})
	if !errors.Is(err, sparse.ErrTooLarge) {
		t.Errorf("Model 1 of 1e8 equations: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("refusals took %v", el)
	}
}
