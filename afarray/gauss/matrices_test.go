package gauss

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// The shared collection of real structural matrices, beside the repository.
const matricesDir = "../../../shared/matrices"

// readDense reads a Matrix Market matrix of the collection as a dense matrix
// (both triangles of a symmetric file).
func readDense(t *testing.T, name string) *mat.Dense {
	t.Helper()
	data, err := sparse.ReadMatrixMarketFile(filepath.Join(matricesDir, name+".mtx"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if data.Dense != nil {
		return data.Dense
	}
	c := data.COO
	a := mat.NewDense(c.Rows, c.Cols, nil)
	for k, v := range c.V {
		i, j := int(c.I[k]), int(c.J[k])
		a.Set(i, j, a.At(i, j)+v)
		if c.Symmetric && i != j {
			a.Set(j, i, a.At(j, i)+v)
		}
	}
	return a
}

// Small SPD stiffness matrices from the collection (INDEX.md): symmetric
// positive definite, so safe without pivoting. The float32 image variant
// only takes the well-conditioned ones: a condition number near 1/eps32
// makes its pivots fall under the singularity threshold, as it should.
func TestRealMatrices(t *testing.T) {
	if _, err := os.Stat(matricesDir); err != nil {
		// A test binary copied alone to a GPU machine has no collection.
		t.Skipf("matrix collection not found beside the repository: %v", err)
	}
	dev := testDevice(t)
	for _, m := range []struct {
		name string
		cond float64 // cond2 from INDEX.md
	}{{"bcsstk01", 8.8e5}, {"mesh1e1", 5.2}, {"bcsstk02", 4.3e3}, {"nos4", 1.6e3}, {"bcsstk03", 6.8e6}, {"lund_a", 2.8e6}} {
		a := readDense(t, m.name)
		n, _ := a.Dims()
		b := make([]float64, n)
		for i := range b {
			b[i] = 1 + float64(i%5) // deterministic, not in a special subspace
		}
		ref := gonumSolve(t, a, b)
		for _, variant := range Variants() {
			if variant == VariantImage && m.cond > 1e4 {
				continue
			}
			for _, pivot := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/pivot=%v", m.name, variant, pivot), func(t *testing.T) {
					x, _, err := Solve(dev, a, b, Options{Variant: variant, Pivot: pivot, BlockSize: 16})
					if err != nil {
						t.Fatal(err)
					}
					bwd, _ := tolerances(variant, n)
					if be := backwardError(a, x, b); be > bwd {
						t.Errorf("backward error %.3g > %.3g", be, bwd)
					}
					// Forward error: at most a small multiple of cond * u.
					u := 0x1p-53
					if variant == VariantImage {
						u = 0x1p-24
					}
					if d := relDiff(x, ref); d > math.Max(1e-12, 100*m.cond*u) {
						t.Errorf("relative difference from gonum %.3g (cond %.1g)", d, m.cond)
					}
				})
			}
		}
	}
}
