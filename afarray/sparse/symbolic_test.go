package sparse

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSymbolicAgainstDenseCholesky compares the symbolic factor with the
// nonzeros of gonum's dense Cholesky factor on the small SPD matrices, in the
// natural and the RCM order, and checks that the thesis's quadratic symbolic
// factorization gives the identical structure.
func TestSymbolicAgainstDenseCholesky(t *testing.T) {
	for _, name := range []string{"LFAT5", "LF10", "bcsstk01", "mesh1e1", "bcsstk02", "nos4", "bcsstk03", "lund_a", "nos3"} {
		c := readShared(t, name)
		rcm, _ := ReverseCuthillMcKee(c)
		for _, perm := range [][]int{nil, rcm} {
			pc := c
			if perm != nil {
				pc, _ = c.Permute(perm)
			}
			a, err := CSCFromCOO(pc)
			if err != nil {
				t.Fatal(err)
			}
			sym, err := SymbolicCholesky(a)
			if err != nil {
				t.Fatal(err)
			}
			if err := sym.L.Validate(); err != nil {
				t.Fatal(err)
			}
			th, err := ThesisSymbolicCholesky(a)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(th.DiagPos, sym.L.DiagPos) || !slices.Equal(th.RowIdx, sym.L.RowIdx) || len(th.Elements) != len(sym.L.Elements) {
				t.Fatalf("%s: thesis and etree symbolic structures differ (%d vs %d entries)", name, len(th.Elements), len(sym.L.Elements))
			}
			// gonum reference: count |L_ij| > 0 and find each column's
			// first off-diagonal row (the elimination tree parent).
			s, _ := pc.ToSymDense()
			var ch mat.Cholesky
			if !ch.Factorize(s) {
				t.Fatalf("%s: gonum Cholesky failed", name)
			}
			var l mat.TriDense
			ch.LTo(&l)
			n := pc.Rows
			var nnz int64
			flops := 0.0
			for j := 0; j < n; j++ {
				cnt, parent := 0, -1
				for i := j; i < n; i++ {
					if l.At(i, j) != 0 {
						cnt++
						if i > j && parent < 0 {
							parent = i
						}
						if v, _ := sym.L.At(i, j); i > j && !rowStored(sym.L, i, j) {
							t.Fatalf("%s: L(%d,%d)=%g missing from the symbolic factor (%v)", name, i, j, l.At(i, j), v)
						}
					}
				}
				nnz += int64(cnt)
				flops += float64(cnt * cnt)
				if parent != sym.Parent[j] {
					t.Fatalf("%s: parent[%d]=%d, dense says %d", name, j, sym.Parent[j], parent)
				}
				if cnt != sym.ColCounts[j] {
					t.Fatalf("%s: column %d has %d entries, dense %d", name, j, sym.ColCounts[j], cnt)
				}
			}
			if nnz != sym.NNZ || flops != sym.Flops {
				t.Fatalf("%s: nnz(L) %d flops %g, dense %d %g", name, sym.NNZ, sym.Flops, nnz, flops)
			}
			cnt, err := SymbolicCounts(a)
			if err != nil || cnt.L != nil || cnt.NNZ != sym.NNZ || cnt.Flops != sym.Flops || !slices.Equal(cnt.ColCounts, sym.ColCounts) {
				t.Fatalf("%s: SymbolicCounts disagrees (%v)", name, err)
			}
			et, _ := EliminationTree(a)
			if !slices.Equal(et, sym.Parent) {
				t.Fatalf("%s: EliminationTree differs", name)
			}
		}
	}
}

// rowStored reports whether the CSC structure holds an off-diagonal (i, j).
func rowStored(a *CSC, i, j int) bool {
	rows, _ := a.ColRows(j)
	_, ok := slices.BinarySearch(rows, int32(i))
	return ok
}

// TestSymbolicLarger checks the two symbolic methods against each other on
// larger matrices, where a dense reference would be slow.
func TestSymbolicLarger(t *testing.T) {
	for _, name := range []string{"nasa1824", "bcsstk13", "msc04515"} {
		c := readShared(t, name)
		rcm, _ := ReverseCuthillMcKee(c)
		pc, _ := c.Permute(rcm)
		a, _ := CSCFromCOO(pc)
		sym, err := SymbolicCholesky(a)
		if err != nil {
			t.Fatal(err)
		}
		th, err := ThesisSymbolicCholesky(a)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(th.DiagPos, sym.L.DiagPos) || !slices.Equal(th.RowIdx, sym.L.RowIdx) {
			t.Fatalf("%s: structures differ", name)
		}
		// The factor of an RCM-ordered matrix lies inside its envelope,
		// and SKS's monotone rule makes SKS hold all of L.
		sks, _ := SKSFromCOO(pc)
		for j := 0; j < a.N; j++ {
			rows, _ := sym.L.ColRows(j)
			if len(rows) > 0 && int(rows[len(rows)-1]) >= j+len(sks.Column(j)) {
				t.Fatalf("%s: L(%d,%d) lies outside the skyline", name, rows[len(rows)-1], j)
			}
		}
		t.Logf("%s (RCM): nnz(L)=%d flops=%.3g SKS len=%d", name, sym.NNZ, sym.Flops, sks.Len())
	}
}
