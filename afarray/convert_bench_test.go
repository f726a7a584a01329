package afarray_test

// An external test package: fem imports afarray/sparse, and the large
// benchmark system comes from fem.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// benchMatrices is the shared matrix directory: OCLSOLVE_MATRICES, else the
// path seen from this package.
func benchMatrices() string {
	if d := os.Getenv("OCLSOLVE_MATRICES"); d != "" {
		return d
	}
	return "../../shared/matrices"
}

// convertInputs returns the COOs the conversion benchmarks convert:
// bcsstk38 (the largest shared matrix) as its file stores it (lower
// triangle) and as the full matrix, and with OCLSOLVE_BENCH_LARGE=1 the
// thesis-size Model 2 system (n = 142,422, both triangles, 10.4e6 entries),
// RCM-ordered.
func convertInputs(b *testing.B) (names []string, coos []*sparse.COO) {
	b.Helper()
	d, err := sparse.ReadMatrixMarketFile(filepath.Join(benchMatrices(), "bcsstk38.mtx"))
	if err != nil {
		b.Fatal(err)
	}
	full, err := d.COO.Full()
	if err != nil {
		b.Fatal(err)
	}
	names, coos = []string{"bcsstk38-lower", "bcsstk38-full"}, []*sparse.COO{d.COO, full}
	if os.Getenv("OCLSOLVE_BENCH_LARGE") != "" {
		sys, err := fem.Model2(fem.Model2Options{A: 12, B: 21, C: 9})
		if err != nil {
			b.Fatal(err)
		}
		// The thesis solves Model 2 RCM-ordered; in the natural order its
		// skyline (2.7e9 entries) exceeds int32 indexing. Permute keeps
		// the entry order, so the device sees an unsorted COO.
		perm, err := sparse.ReverseCuthillMcKee(sys.K)
		if err != nil {
			b.Fatal(err)
		}
		k, err := sys.K.Permute(perm)
		if err != nil {
			b.Fatal(err)
		}
		names, coos = append(names, "model2-142422-rcm-full"), append(coos, k)
	}
	return names, coos
}

// benchConvert times one device conversion, to the point where the result
// is complete on the device, and reports entries converted per second and
// the device memory peak of the conversion (input included).
func benchConvert(b *testing.B, convert func(*afarray.COO) (interface{ Release() }, error)) {
	names, coos := convertInputs(b)
	for k, name := range names {
		b.Run(name, func(b *testing.B) {
			d, err := afarray.UploadCOO(coos[k])
			if err != nil {
				b.Fatal(err)
			}
			defer d.Release()
			dev := d.V.Device()
			r, err := convert(d) // builds the program, warms up
			if err != nil {
				b.Fatal(err)
			}
			r.Release()
			dev.ResetPeak()
			b.ResetTimer()
			for range b.N {
				r, err := convert(d)
				if err != nil {
					b.Fatal(err)
				}
				if err := dev.Finish(); err != nil {
					b.Fatal(err)
				}
				r.Release()
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(d.NNZ())/sec/1e6, "Mentries/s")
			b.ReportMetric(float64(dev.MemoryStats().Peak)/1e6, "peakMB")
		})
	}
}

func BenchmarkConvertCSC(b *testing.B) {
	benchConvert(b, func(d *afarray.COO) (interface{ Release() }, error) { return d.ToCSC() })
}

func BenchmarkConvertSKS(b *testing.B) {
	benchConvert(b, func(d *afarray.COO) (interface{ Release() }, error) { return d.ToSKS() })
}

func BenchmarkConvertCSR(b *testing.B) {
	benchConvert(b, func(d *afarray.COO) (interface{ Release() }, error) { return d.ToCSR() })
}

// BenchmarkConvertHost times the host conversions of package sparse on the
// same inputs, for comparison.
func BenchmarkConvertHost(b *testing.B) {
	names, coos := convertInputs(b)
	for k, name := range names {
		b.Run(name, func(b *testing.B) {
			for _, f := range []struct {
				label string
				conv  func(*sparse.COO) error
			}{
				{"CSC", func(c *sparse.COO) error { _, err := sparse.CSCFromCOO(c); return err }},
				{"SKS", func(c *sparse.COO) error { _, err := sparse.SKSFromCOO(c); return err }},
				{"CSR", func(c *sparse.COO) error { _, err := sparse.CSRFromCOO(c); return err }},
			} {
				b.Run(f.label, func(b *testing.B) {
					for range b.N {
						if err := f.conv(coos[k]); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(coos[k].NNZ())/(b.Elapsed().Seconds()/float64(b.N))/1e6, "Mentries/s")
				})
			}
		})
	}
}
