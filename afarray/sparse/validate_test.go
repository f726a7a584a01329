package sparse

import (
	"math/rand/v2"
	"testing"
)

// TestValidateRandomLayouts hands Validate random small index vectors: it
// must reject them or accept them, never panic, and whatever it accepts must
// convert and index without panicking.
func TestValidateRandomLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func(n, hi int) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(rng.IntN(hi+2) - 1)
		}
		return v
	}
	accepted := 0
	for it := 0; it < 50000; it++ {
		n := rng.IntN(5)
		le := rng.IntN(12)
		csc := &CSC{N: n, Elements: make([]float64, le), DiagPos: vec(n, le), RowIdx: vec(max(le-n, 0)+rng.IntN(2), n)}
		if csc.Validate() == nil {
			accepted++
			if _, err := csc.ToCOO(); err != nil {
				t.Fatal(err)
			}
			if _, err := SKSFromCSC(csc); err != nil {
				t.Fatal(err)
			}
			if _, err := SymbolicCholesky(csc); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					csc.At(i, j)
				}
			}
		}
		sks := &SKS{N: n, Elements: make([]float64, le), Index: vec(n, le)}
		if sks.Validate() == nil {
			accepted++
			if _, err := CSCFromSKS(sks); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					sks.At(i, j)
				}
			}
		}
		csr := &CSR{Rows: n, Cols: rng.IntN(4), RowPtr: vec(n+1, le), ColIdx: vec(le, 4), Values: make([]float64, le)}
		if csr.Validate() == nil {
			accepted++
			csr.ToCOO()
			for i := 0; i < n; i++ {
				for j := 0; j < csr.Cols; j++ {
					csr.At(i, j)
				}
			}
		}
	}
	if accepted == 0 {
		t.Fatal("no random layout was valid; the test exercises nothing")
	}
	t.Logf("%d random layouts accepted", accepted)
}
