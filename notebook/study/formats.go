package study

import (
	"fmt"
	"path/filepath"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The helpers of notebook 01 (storage formats).

// MB formats bytes as megabytes with two decimals (1 MB = 10⁶ B, as the
// thesis counts).
func MB(bytes float64) string { return fmt.Sprintf("%.2f", bytes/1e6) }

// Envelope returns the bandwidth, profile and skyline length of K under the
// permutation p (nil: the natural order), a table row's worth.
func Envelope(K *sparse.COO, p []int) ([]any, error) {
	bw, err := sparse.Bandwidth(K, p)
	if err != nil {
		return nil, err
	}
	prof, err := sparse.Profile(K, p)
	if err != nil {
		return nil, err
	}
	sks, err := sparse.SKSLen(K, p)
	if err != nil {
		return nil, err
	}
	return []any{bw, prof, sks}, nil
}

// MemoryRow reads the matrix dir/name.mtx and returns its row of the
// thesis's memory table, in the ordering sparse.Order(auto) picks: name, n,
// the ordering, then in MB dense, CSC of A (CG), CSC of L (Cholesky and
// LDLᵀ, after symbolic fill) and the skyline, and the skyline's share of
// dense storage (the thesis's dispersion index).
func MemoryRow(dir, name string) ([]any, error) {
	a, err := sparse.ReadFile(filepath.Join(dir, name+".mtx"))
	if err != nil {
		return nil, err
	}
	p, used, err := sparse.Order(a, sparse.OrderAuto)
	if err != nil {
		return nil, err
	}
	if used != sparse.OrderNatural {
		if a, err = a.Permute(p); err != nil {
			return nil, err
		}
	}
	c, err := sparse.CSCFromCOO(a)
	if err != nil {
		return nil, err
	}
	s, err := sparse.SymbolicCounts(c)
	if err != nil {
		return nil, err
	}
	sl, err := sparse.SKSLen(a, nil)
	if err != nil {
		return nil, err
	}
	m := a.N()
	md, ms := sparse.ThesisMemoryDense(m), sparse.ThesisMemorySKS(m, int(sl))
	return []any{name, m, string(used), MB(md), MB(sparse.ThesisMemoryCSC(m, c.Len())), MB(sparse.ThesisMemoryCSC(m, int(s.NNZ))),
		MB(ms), fmt.Sprintf("%.3f", ms/md)}, nil
}
