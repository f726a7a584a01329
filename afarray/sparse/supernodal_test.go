package sparse

import (
	"errors"
	"slices"
	"testing"
)

// TestSupernodalStructure checks the supernodal analysis against the
// column-by-column symbolic factorization on every shared matrix: each
// column's rows of L lie in its supernode's front, the fronts are nested
// along the assembly tree, the relative indices point at the same rows, and
// every entry of A lands inside L's storage.
func TestSupernodalStructure(t *testing.T) {
	for _, name := range matrixNames {
		a, err := CSCFromCOO(readShared(t, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, ord := range []Ordering{OrderFillAuto, OrderNatural} {
			s, err := AnalyzeSupernodal(a, ord)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkSupernodal(t, name, a, s)
			if ord == OrderFillAuto {
				t.Logf("%-9s %-4s supernodes %5d levels %4d nnz(L) %8d stored %8d (%.2fx)", name, s.Ordering, s.NS, len(s.Levels), s.NNZL, s.LPtr[s.NS], float64(s.LPtr[s.NS])/float64(s.NNZL))
			}
		}
	}
}

func checkSupernodal(t *testing.T, name string, a *CSC, s *Supernodal) {
	t.Helper()
	b, err := a.Permute(s.Perm)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := SymbolicCholesky(b)
	if err != nil {
		t.Fatal(err)
	}
	if sym.NNZ != s.NNZL {
		t.Fatalf("%s: NNZL %d, symbolic %d", name, s.NNZL, sym.NNZ)
	}
	if s.Super[0] != 0 || s.Super[s.NS] != a.N {
		t.Fatalf("%s: supernodes cover %d..%d", name, s.Super[0], s.Super[s.NS])
	}
	for k := 0; k < s.NS; k++ {
		f0, ns, F := s.Front(k)
		front := s.Rows[s.RowPtr[k]:s.RowPtr[k+1]]
		if !slices.IsSorted(front) || F < ns {
			t.Fatalf("%s: supernode %d rows not sorted", name, k)
		}
		for j := f0; j < f0+ns; j++ {
			if front[j-f0] != int32(j) {
				t.Fatalf("%s: supernode %d does not start with its columns", name, k)
			}
			rows, _ := sym.L.ColRows(j)
			for _, r := range rows {
				if _, ok := slices.BinarySearch(front, r); !ok {
					t.Fatalf("%s: L(%d,%d) outside supernode %d", name, r, j, k)
				}
			}
		}
		if p := s.SParent[k]; p >= 0 {
			if s.Depth[k] != s.Depth[p]+1 || p <= k {
				t.Fatalf("%s: supernode %d parent %d depth %d/%d", name, k, p, s.Depth[k], s.Depth[p])
			}
			pf := s.Rows[s.RowPtr[p]:s.RowPtr[p+1]]
			for q := s.RowPtr[k] + int64(ns); q < s.RowPtr[k+1]; q++ {
				if pf[s.Rel[q]] != s.Rows[q] {
					t.Fatalf("%s: relative index of row %d below supernode %d", name, s.Rows[q], k)
				}
			}
		} else if F != ns {
			t.Fatalf("%s: root supernode %d has rows below", name, k)
		}
	}
	m, err := s.MapEntries(a)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int64]bool, len(m))
	for _, p := range m {
		if p < 0 || p >= s.LPtr[s.NS] || seen[p] {
			t.Fatalf("%s: entry mapped to %d (storage %d), or twice", name, p, s.LPtr[s.NS])
		}
		seen[p] = true
	}
}

// TestMapEntriesPositions checks every position MapEntries gives (computed
// over column ranges in parallel) against the definition: row and column
// in the postordered numbering, found in the column's supernode front; and
// that an entry outside the analyzed structure is refused with ErrIndex.
func TestMapEntriesPositions(t *testing.T) {
	a, err := CSCFromCOO(readShared(t, "bcsstk38"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := AnalyzeSupernodal(a, OrderFillAuto)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.MapEntries(a)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := InversePermutation(s.Perm)
	super := make([]int, a.N)
	for k := 0; k < s.NS; k++ {
		for c := s.Super[k]; c < s.Super[k+1]; c++ {
			super[c] = k
		}
	}
	want := func(i, j int) int64 {
		r, c := inv[i], inv[j]
		if r < c {
			r, c = c, r
		}
		k := super[c]
		front := s.Rows[s.RowPtr[k]:s.RowPtr[k+1]]
		for q, x := range front {
			if int(x) == r {
				return s.LPtr[k] + int64(c-s.Super[k])*int64(len(front)) + int64(q)
			}
		}
		return -1
	}
	for j := 0; j < a.N; j++ {
		d := int(a.DiagPos[j])
		if m[d] != want(j, j) {
			t.Fatalf("diagonal %d mapped to %d, want %d", j, m[d], want(j, j))
		}
		rows, _ := a.ColRows(j)
		for q, r := range rows {
			if m[d+1+q] != want(int(r), j) {
				t.Fatalf("(%d,%d) mapped to %d, want %d", r, j, m[d+1+q], want(int(r), j))
			}
		}
	}
	// Add one entry that the structure of L does not hold.
	c, _ := a.ToCOO()
	added := false
	for j := 0; j < a.N && !added; j++ {
		for i := a.N - 1; i > j; i-- {
			if want(i, j) < 0 {
				c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, 1)
				added = true
				break
			}
		}
	}
	if !added {
		t.Fatal("no entry outside the structure of L")
	}
	b, err := CSCFromCOO(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MapEntries(b); !errors.Is(err, ErrIndex) {
		t.Fatalf("entry outside the structure: %v, want ErrIndex", err)
	}
}
