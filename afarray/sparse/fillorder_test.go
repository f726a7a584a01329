package sparse

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestFillOrderCounts checks the Gilbert–Ng–Peyton column counts
// against the O(nnz(L)) row-subtree walk on every shared matrix, in the
// natural order and in each fill-reducing order.
func TestFillOrderCounts(t *testing.T) {
	for _, name := range matrixNames {
		c := readShared(t, name)
		a, err := CSCFromCOO(c)
		if err != nil {
			t.Fatal(err)
		}
		rcmPerm, _, rcmNNZ, _, err := FillOrder(a, OrderRCM)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := InversePermutation(rcmPerm); err != nil {
			t.Fatal(err)
		}
		for _, m := range []Ordering{OrderNatural, OrderAMD, OrderND, OrderFillAuto} {
			t0 := time.Now()
			perm, used, nnz, flops, err := FillOrder(a, m)
			if err != nil {
				t.Fatalf("%s %s: %v", name, m, err)
			}
			el := time.Since(t0)
			if _, err := InversePermutation(perm); err != nil || len(perm) != a.N {
				t.Fatalf("%s %s: not a permutation of %d: %v", name, m, a.N, err)
			}
			b, err := a.Permute(perm)
			if err != nil {
				t.Fatal(err)
			}
			sym, err := SymbolicCounts(b)
			if err != nil {
				t.Fatal(err)
			}
			if sym.NNZ != nnz || sym.Flops != flops {
				t.Fatalf("%s %s: predicted nnz(L) %d flops %g, row-subtree walk %d %g", name, m, nnz, flops, sym.NNZ, sym.Flops)
			}
			// The automatic fill-reducing order beats the envelope
			// order RCM on these FE matrices, with a little slack for
			// the tiny ones, except on bcsstk16, a long banded model
			// whose profile order really has less fill (AMD and METIS
			// alike, and CHOLMOD's nnz(L) matches AMD's there).
			limit := 1.05
			if name == "bcsstk16" {
				limit = 1.35
			}
			if m == OrderFillAuto && a.N > 500 && float64(nnz) > limit*float64(rcmNNZ) {
				t.Errorf("%s %s: nnz(L) %d, more than %.2f x RCM's %d", name, m, nnz, limit, rcmNNZ)
			}
			t.Logf("%-9s %-7s -> %-4s nnz(L) %9d flops %.3g (rcm %d) %v", name, m, used, nnz, flops, rcmNNZ, el)
		}
	}
}

func TestFillOrderUnknown(t *testing.T) {
	a := &CSC{N: 1, Elements: []float64{1}, DiagPos: []int32{0}, RowIdx: []int32{}}
	if _, _, _, _, err := FillOrder(a, "colamd"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
	p, _, nnz, _, err := FillOrder(a, OrderFillAuto)
	if err != nil || len(p) != 1 || nnz != 1 {
		t.Fatalf("order 1: %v %d %v", p, nnz, err)
	}
}

// TestCompressGraph checks that the 3 unknowns of each node of an FE model
// collapse to one vertex.
func TestCompressGraph(t *testing.T) {
	c := readShared(t, "bcsstk16")
	nc, err := CompressGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	if nc > c.Rows/2 {
		t.Errorf("bcsstk16: %d of %d vertices after compression, want at most half", nc, c.Rows)
	}
	t.Logf("bcsstk16: %d -> %d vertices", c.Rows, nc)
}

// TestFillOrderFromCOO checks that Order's fill-reducing orderings, which
// build the graph of a one-triangle COO directly (newGraph), see the same
// graph and return the same permutations as FillOrder on the CSC, on every
// shared matrix and on a symmetric COO that stores entries of both
// triangles, duplicates and an explicit zero.
func TestFillOrderFromCOO(t *testing.T) {
	mixed := &COO{Rows: 5, Cols: 5, Symmetric: true,
		I: []int32{0, 1, 0, 2, 3, 4, 1, 3, 2, 4, 4},
		J: []int32{0, 0, 1, 1, 1, 2, 2, 3, 4, 4, 4},
		V: []float64{4, 1, 1, 0, 2, 1, 5, 6, 1, 3, 4}}
	cases := map[string]*COO{"mixed": mixed}
	for _, name := range matrixNames {
		cases[name] = readShared(t, name)
	}
	tested := 0
	for name, c := range cases {
		if !c.Symmetric {
			continue
		}
		tested++
		a, err := CSCFromCOO(c)
		if err != nil {
			t.Fatal(err)
		}
		g0 := graphOfCSC(a)
		g1, err := newGraph(c)
		if err != nil {
			t.Fatal(err)
		}
		if g0.n != g1.n || !slices.Equal(g0.ptr, g1.ptr) || !slices.Equal(g0.adj, g1.adj) {
			t.Fatalf("%s: graph of the COO differs from the graph of its CSC", name)
		}
		if len(g1.adj)/2+g1.n != a.Len() {
			t.Fatalf("%s: %d CSC entries, graph gives %d", name, a.Len(), len(g1.adj)/2+g1.n)
		}
		for _, m := range []Ordering{OrderAMD, OrderND, OrderFillAuto} {
			if m == OrderND && !MetisAvailable() {
				continue
			}
			want, wantUsed, _, _, err := FillOrder(a, m)
			if err != nil {
				t.Fatal(err)
			}
			got, used, err := Order(c, m)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s %s: Order on the COO and FillOrder on the CSC disagree", name, m)
			}
			// Order names the ordering that ran, never the rule "fill".
			if used != wantUsed || (used != OrderAMD && used != OrderND) || (m != OrderFillAuto && used != m) {
				t.Fatalf("%s %s: Order says %q, FillOrder %q", name, m, used, wantUsed)
			}
		}
	}
	if tested < len(matrixNames) {
		t.Fatalf("only %d symmetric COOs among %d cases", tested, len(cases))
	}
}
