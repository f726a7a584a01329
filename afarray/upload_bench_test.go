package afarray_test

import (
	"os"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// BenchmarkUploadCOO uploads a COO's entries (afarray.UploadCOO, what
// solver.Run sends over the bus on a GPU): $OCLSOLVE_BENCH_NPZ, else
// bcsstk38. It reports the bytes per second of the steady state and, as
// first_ms, the first upload of the process (pinned staging and device
// memory allocated on first use), and validate_ms, the host check that
// UploadCOO makes first.
func BenchmarkUploadCOO(b *testing.B) {
	var a *sparse.COO
	if p := os.Getenv("OCLSOLVE_BENCH_NPZ"); p != "" {
		var err error
		if a, err = sparse.ReadNPZ(p); err != nil {
			b.Fatal(err)
		}
	} else {
		_, coos := convertInputs(b)
		a = coos[0]
	}
	dev, err := afarray.CurrentDevice()
	if err != nil {
		b.Fatal(err)
	}
	upload := func() time.Duration {
		t := time.Now()
		d, err := afarray.UploadCOO(a)
		if err != nil {
			b.Fatal(err)
		}
		if err := dev.Finish(); err != nil {
			b.Fatal(err)
		}
		el := time.Since(t)
		d.Release()
		return el
	}
	first := upload()
	t := time.Now()
	if err := a.Validate(); err != nil {
		b.Fatal(err)
	}
	validate := time.Since(t)
	b.SetBytes(int64(len(a.V)) * 16)
	for b.Loop() {
		upload()
	}
	b.ReportMetric(first.Seconds()*1000, "first_ms")
	b.ReportMetric(validate.Seconds()*1000, "validate_ms")
}

// TestUploadCOOUncached: the entries go to the device without a host copy
// kept (uploadUncached): changing the host COO afterwards does not change
// the device's, and reading it back downloads what was uploaded.
func TestUploadCOOUncached(t *testing.T) {
	h := &sparse.COO{Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 1, 2, 2}, J: []int32{0, 1, 0, 2}, V: []float64{4, 5, -1, 6}}
	d, err := afarray.UploadCOO(h)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	h.V[0], h.I[2] = 99, 1
	back, err := d.Host()
	if err != nil {
		t.Fatal(err)
	}
	if back.V[0] != 4 || back.I[2] != 2 || back.J[2] != 0 || back.V[3] != 6 || !back.Symmetric {
		t.Errorf("read back %+v", back)
	}
}
