package sparse

// The thesis computes memory analytically, not by measurement (docs/thesis.md,
// §5.5), in bytes, with 1 MB = 10⁶ bytes. Each figure includes
// the right-hand side vector of n doubles. The functions return float64 so
// that the dense figure of a large model (1.6e11 bytes at n = 142 422) and
// its MB value need no conversions.

// ThesisMemoryDense returns 8·n·(n+1) bytes: the n×n matrix and the
// right-hand side, both of float64, factorized in place.
func ThesisMemoryDense(n int) float64 { return 8 * float64(n) * float64(n+1) }

// ThesisMemoryCSC returns 4·(3·le + 2n) bytes for a CSC of le elements: 8·le
// for the values, 4·(le−n) for RowIdx, 4·n for DiagPos and 8·n for the
// right-hand side. For the factorizing methods le is the length of L after
// symbolic fill, since L replaces A; for CG it is the length of A.
func ThesisMemoryCSC(n, le int) float64 { return 4 * (3*float64(le) + 2*float64(n)) }

// ThesisMemorySKS returns 4·(2·le + 3n) bytes for an SKS of le elements: 8·le
// for the values, 4·n for Index and 8·n for the right-hand side. The
// factorization runs in place, so the figure is the same for A and L.
func ThesisMemorySKS(n, le int) float64 { return 4 * (2*float64(le) + 3*float64(n)) }

// MB converts bytes to the thesis's megabytes (10⁶ bytes).
func MB(bytes float64) float64 { return bytes / 1e6 }
