package sparse

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// matrixDir is the shared matrix collection, reached relative to this
// package so that CI, which checks shared/ out beside the repository, finds it.
const matrixDir = "../../../shared/matrices"

// matrixNames lists the 17 matrices of INDEX.md.
var matrixNames = []string{"LFAT5", "LF10", "bcsstk01", "mesh1e1", "bcsstk02", "nos4", "bcsstk03",
	"lund_a", "nos3", "nasa1824", "bcsstk13", "bcsstk24", "bcsstk15", "msc04515", "crystm01",
	"bcsstk16", "bcsstk38"}

func readShared(t testing.TB, name string) *COO {
	t.Helper()
	d, err := ReadMatrixMarketFile(filepath.Join(matrixDir, name+".mtx"))
	if err != nil {
		t.Fatal(err)
	}
	if d.COO == nil {
		t.Fatalf("%s: not a coordinate file", name)
	}
	return d.COO
}

// triplets returns the compacted full matrix as sorted triplets with exact
// zeros removed: a representation-independent fingerprint of a matrix.
func triplets(t testing.TB, c *COO) ([]int32, []int32, []float64) {
	t.Helper()
	f, err := c.Full()
	if err != nil {
		t.Fatal(err)
	}
	var I, J []int32
	var V []float64
	for k, v := range f.V {
		if v != 0 {
			I, J, V = append(I, f.I[k]), append(J, f.J[k]), append(V, v)
		}
	}
	return I, J, V
}

func sameMatrix(t testing.TB, what string, a, b *COO) {
	t.Helper()
	if a.Rows != b.Rows || a.Cols != b.Cols {
		t.Fatalf("%s: shapes %dx%d and %dx%d", what, a.Rows, a.Cols, b.Rows, b.Cols)
	}
	ai, aj, av := triplets(t, a)
	bi, bj, bv := triplets(t, b)
	if !slices.Equal(ai, bi) || !slices.Equal(aj, bj) || !slices.Equal(av, bv) {
		t.Fatalf("%s: matrices differ (nnz %d vs %d)", what, len(av), len(bv))
	}
}

func TestMatrixMarketRoundTrip(t *testing.T) {
	for _, name := range []string{"bcsstk01", "nos4", "lund_a", "bcsstk16"} {
		c := readShared(t, name)
		for _, gz := range []bool{false, true} {
			var buf bytes.Buffer
			var w = &buf
			var zw *gzip.Writer
			if gz {
				zw = gzip.NewWriter(&buf)
				if err := WriteMatrixMarket(zw, c, "round trip\nsecond line"); err != nil {
					t.Fatal(err)
				}
				zw.Close()
			} else if err := WriteMatrixMarket(w, c, "round trip"); err != nil {
				t.Fatal(err)
			}
			back, err := ReadMatrixMarket(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !back.Symmetric || !slices.Equal(back.I, c.I) || !slices.Equal(back.J, c.J) || !slices.Equal(back.V, c.V) {
				t.Fatalf("%s (gzip %v): write/read changed the matrix", name, gz)
			}
		}
	}
}

func TestOpenFEMRoundTrip(t *testing.T) {
	c := readShared(t, "bcsstk03")
	dir := t.TempDir()
	prefix := filepath.Join(dir, "m")
	f := make([]float64, c.Rows)
	for i := range f {
		f[i] = float64(i) / 3
	}
	if err := WriteOpenFEM(prefix, c, f); err != nil {
		t.Fatal(err)
	}
	set, err := ReadOpenFEM(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if set.A.Symmetric || set.Def != nil || !slices.Equal(set.F, f) {
		t.Fatalf("set: symmetric %v def %v F equal %v", set.A.Symmetric, set.Def != nil, slices.Equal(set.F, f))
	}
	sameMatrix(t, "openfem", c, set.A)
	if err := WriteOpenFEMVector(prefix+OpenFEMSolution, f); err != nil {
		t.Fatal(err)
	}
	if set, err = ReadOpenFEM(prefix); err != nil || !slices.Equal(set.Def, f) {
		t.Fatalf("def: %v", err)
	}
	if v, err := ReadOpenFEMVector(prefix + OpenFEMSolution); err != nil || !slices.Equal(v, f) {
		t.Fatalf("ReadOpenFEMVector: %v", err)
	}
	// A wrong count in .row is reported with the file name.
	os.WriteFile(prefix+OpenFEMRows, []byte("1\n2\n"), 0o644)
	_, err = ReadOpenFEM(prefix)
	var pe *ParseError
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) || !strings.HasSuffix(pe.File, ".row") {
		t.Fatalf("short .row: %v", err)
	}
}
