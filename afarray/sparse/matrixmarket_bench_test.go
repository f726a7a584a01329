package sparse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchMatrixFile is the file the Matrix Market benchmarks read:
// $OCLSOLVE_BENCH_MTX (a large file such as oclsolve gen's Model 2 at
// n = 142 422), else bcsstk38 of the shared collection.
func benchMatrixFile(b *testing.B) string {
	if p := os.Getenv("OCLSOLVE_BENCH_MTX"); p != "" {
		return p
	}
	p := filepath.Join(matrixDir, "bcsstk38.mtx")
	if _, err := os.Stat(p); err != nil {
		b.Skip("matrix collection not found")
	}
	return p
}

// BenchmarkReadMatrixMarketFile measures the parallel reader, file to COO.
func BenchmarkReadMatrixMarketFile(b *testing.B) {
	p := benchMatrixFile(b)
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := ReadMatrixMarketFile(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteMatrixMarket measures the parallel writer, COO to bytes.
func BenchmarkWriteMatrixMarket(b *testing.B) {
	d, err := ReadMatrixMarketFile(benchMatrixFile(b))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	WriteMatrixMarket(&buf, d.COO, "")
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		buf.Reset()
		if err := WriteMatrixMarket(&buf, d.COO, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOrderFile measures RCM and the automatic choice on the benchmark
// file (OCLSOLVE_BENCH_MTX, else bcsstk38).
func BenchmarkOrderFile(b *testing.B) {
	d, err := ReadMatrixMarketFile(benchMatrixFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []Ordering{OrderRCM, OrderAuto} {
		b.Run(string(m), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Order(d.COO, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadNPZ reads $OCLSOLVE_BENCH_NPZ (oclsolve gen --format npz).
func BenchmarkReadNPZ(b *testing.B) {
	p := os.Getenv("OCLSOLVE_BENCH_NPZ")
	if p == "" {
		b.Skip("OCLSOLVE_BENCH_NPZ not set")
	}
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := ReadNPZ(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadOrderBuild is the host side of a solve of the benchmark file
// (bcsstk38 unless OCLSOLVE_BENCH_MTX is set): read it, choose and apply
// the skyline ordering, and build every sparse format (CSC with its
// symbolic factorization, SKS, CSR). Compare it with CHOLMOD's read and
// analyze of the same file (../shared/anchors/cholmod_mm.c).
func BenchmarkReadOrderBuild(b *testing.B) {
	p := benchMatrixFile(b)
	var tRead, tOrder, tCSC, tSKS, tCSR time.Duration
	for b.Loop() {
		t := time.Now()
		d, err := ReadMatrixMarketFile(p)
		if err != nil {
			b.Fatal(err)
		}
		tRead += time.Since(t)
		t = time.Now()
		perm, used, err := Order(d.COO, OrderAuto)
		if err != nil {
			b.Fatal(err)
		}
		a := d.COO
		if used != OrderNatural {
			if a, err = a.Permute(perm); err != nil {
				b.Fatal(err)
			}
		}
		tOrder += time.Since(t)
		t = time.Now()
		csc, err := CSCFromCOO(a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := SymbolicCholesky(csc); err != nil {
			b.Fatal(err)
		}
		tCSC += time.Since(t)
		t = time.Now()
		if _, err := SKSFromCOO(a); err != nil {
			b.Fatal(err)
		}
		tSKS += time.Since(t)
		t = time.Now()
		if _, err := CSRFromCOO(a); err != nil {
			b.Fatal(err)
		}
		tCSR += time.Since(t)
	}
	per := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
	b.ReportMetric(per(tRead), "read-ms")
	b.ReportMetric(per(tOrder), "order-ms")
	b.ReportMetric(per(tCSC), "csc+symbolic-ms")
	b.ReportMetric(per(tSKS), "sks-ms")
	b.ReportMetric(per(tCSR), "csr-ms")
}
