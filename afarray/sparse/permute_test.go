package sparse

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestPermuteConvention(t *testing.T) {
	c := readShared(t, "bcsstk01")
	a, _ := c.ToDense()
	perm, err := ReverseCuthillMcKee(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Permute(perm)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.ToDense()
	n := c.Rows
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if b.At(i, j) != a.At(perm[i], perm[j]) {
				t.Fatalf("B[%d][%d]=%v, A[perm][:,perm]=%v", i, j, b.At(i, j), a.At(perm[i], perm[j]))
			}
		}
	}
	// Solving through the permuted system: B (P x) = P (A x).
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	var ax, bpx mat.VecDense
	ax.MulVec(a, mat.NewVecDense(n, x))
	px, _ := PermuteVec(x, perm)
	bpx.MulVec(b, mat.NewVecDense(n, px))
	pax, _ := PermuteVec(ax.RawVector().Data, perm)
	for i, v := range bpx.RawVector().Data {
		// Summation order differs between the two products.
		if math.Abs(v-pax[i]) > 1e-12*mat.Norm(&ax, math.Inf(1)) {
			t.Fatalf("(B P x)[%d]=%v, (P A x)[%d]=%v", i, v, i, pax[i])
		}
	}
	back, _ := InversePermuteVec(px, perm)
	if !slices.Equal(back, x) {
		t.Fatal("InversePermuteVec does not undo PermuteVec")
	}
}

// TestPermuteFormats permutes every format by RCM and by a random
// permutation, checks that all agree with the COO permutation, and that the
// inverse permutation restores the matrix.
func TestPermuteFormats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"LFAT5", "nos4", "lund_a", "bcsstk13", "bcsstk38"} {
		c := readShared(t, name)
		rcm, err := ReverseCuthillMcKee(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, perm := range [][]int{rcm, rng.Perm(c.Rows)} {
			inv, err := InversePermutation(perm)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.Permute(perm)
			if err != nil {
				t.Fatal(err)
			}
			csr, _ := CSRFromCOO(c)
			pcsr, err := csr.Permute(perm)
			if err != nil {
				t.Fatal(err)
			}
			if err := pcsr.Validate(); err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, name+" CSR", want, pcsr.ToCOO())
			csc, _ := CSCFromCOO(c)
			pcsc, err := csc.Permute(perm)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := pcsc.ToCOO()
			sameMatrix(t, name+" CSC", want, got)
			sks, _ := SKSFromCOO(c)
			psks, err := sks.Permute(perm)
			if err != nil {
				t.Fatal(err)
			}
			got, _ = psks.ToCOO()
			sameMatrix(t, name+" SKS", want, got)
			if le, _ := SKSLen(c, perm); le != int64(psks.Len()) {
				t.Fatalf("%s: SKSLen under perm %d, permuted SKS %d", name, le, psks.Len())
			}
			pr, _ := Profile(c, perm)
			pr2, _ := Profile(want, nil)
			if pr != pr2 {
				t.Fatalf("%s: Profile(c, perm)=%d, Profile(permuted)=%d", name, pr, pr2)
			}
			restored, err := pcsc.Permute(inv)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(restored.Elements, csc.Elements) || !slices.Equal(restored.RowIdx, csc.RowIdx) {
				t.Fatalf("%s: inverse permutation does not restore the CSC", name)
			}
		}
	}
}

func TestPermutationErrors(t *testing.T) {
	c := readShared(t, "LFAT5")
	for _, perm := range [][]int{{0, 1}, make([]int, 14), append(identity(13), 14)} {
		if _, err := c.Permute(perm); !errors.Is(err, ErrPermutation) {
			t.Errorf("perm %v: %v", perm, err)
		}
		if _, err := PermuteVec(make([]float64, 14), perm); !errors.Is(err, ErrPermutation) {
			t.Errorf("PermuteVec %v: %v", perm, err)
		}
	}
	if _, err := (&COO{Rows: 2, Cols: 3}).Permute([]int{0, 1}); !errors.Is(err, ErrShape) {
		t.Errorf("rectangular: %v", err)
	}
}

func TestRCMProperties(t *testing.T) {
	// Two components and an isolated vertex: every vertex appears once.
	c := &COO{Rows: 6, Cols: 6, Symmetric: true,
		I: []int32{0, 1, 2, 4, 5, 3}, J: []int32{0, 0, 1, 3, 4, 3}, V: []float64{1, 1, 1, 1, 1, 1}}
	perm, err := ReverseCuthillMcKee(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InversePermutation(perm); err != nil {
		t.Fatalf("%v: %v", perm, err)
	}
	if bw, _ := Bandwidth(c, perm); bw != 1 {
		t.Fatalf("paths must get bandwidth 1, got %d with %v", bw, perm)
	}
	for _, m := range []Ordering{OrderNatural, OrderRCM, OrderAuto, OrderAutoProfile, ""} {
		p, used, err := Order(c, m)
		if err != nil || len(p) != 6 || used == OrderAuto {
			t.Fatalf("%s: %v %v %v", m, p, used, err)
		}
	}
	if _, _, err := Order(c, "colamd"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("unknown ordering: %v", err)
	}
	// The automatic choices: natural where RCM is worse (nos3), RCM where
	// it is better (bcsstk24), and the two criteria disagreeing (bcsstk38).
	for _, tc := range []struct {
		name              string
		auto, autoProfile Ordering
	}{
		{"nos3", OrderNatural, OrderNatural},
		{"bcsstk24", OrderRCM, OrderRCM},
		{"bcsstk38", OrderRCM, OrderNatural},
	} {
		m := readShared(t, tc.name)
		perm, used, _ := Order(m, OrderAuto)
		_, usedP, _ := Order(m, OrderAutoProfile)
		if used != tc.auto || usedP != tc.autoProfile {
			t.Errorf("%s: auto chose %s, auto-profile %s", tc.name, used, usedP)
		}
		best, _ := SKSLen(m, perm)
		rcm, _ := ReverseCuthillMcKee(m)
		for _, p := range [][]int{nil, rcm} {
			if l, _ := SKSLen(m, p); l < best {
				t.Errorf("%s: auto SKS length %d, another ordering %d", tc.name, best, l)
			}
		}
	}
}

// A nil matrix is an error of its Validate, never a panic (a refactoring
// once read its dimensions before validating).
func TestPermuteNilMatrix(t *testing.T) {
	for name, f := range map[string]func() error{
		"COO": func() error { _, err := (*COO)(nil).Permute([]int{0}); return err },
		"CSR": func() error { _, err := (*CSR)(nil).Permute([]int{0}); return err },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: nil Permute panics: %v", name, r)
				}
			}()
			if err := f(); !errors.Is(err, ErrShape) {
				t.Errorf("%s: nil Permute: %v, want ErrShape", name, err)
			}
		}()
	}
}
