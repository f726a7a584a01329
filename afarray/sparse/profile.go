package sparse

import "runtime"

// Envelope measures of a symmetric matrix under an ordering, with the
// definitions of the matrix INDEX: for row i of the lower triangle, f(i) is
// its first stored column (f(i) = i for a row with only its diagonal); the
// bandwidth is max_i (i − f(i)) and the profile is Σ_i (i − f(i)), diagonal
// excluded. A classic (row-envelope) skyline then holds profile + n values.
// The thesis's SKS layout, which runs down the columns and obeys the
// monotone last-row rule, has its own length: see SKSLen.
//
// perm follows the package convention (perm[i] = old index at new position
// i); nil means the matrix's own order. Only the structure counts: a stored
// zero is an entry. A general c is read as the structure of A + Aᵀ.

// Bandwidth returns max_i (i − f(i)) of c under perm.
func Bandwidth(c *COO, perm []int) (int, error) {
	bw, _, err := envelope(c, perm)
	return bw, err
}

// Profile returns Σ_i (i − f(i)) of c under perm.
func Profile(c *COO, perm []int) (int64, error) {
	_, p, err := envelope(c, perm)
	return p, err
}

// SkylineLen returns profile + n, the length of a row-envelope skyline.
func SkylineLen(c *COO, perm []int) (int64, error) {
	_, p, err := envelope(c, perm)
	return p + int64(c.Rows), err
}

// orderMap validates c and perm and returns inv (inv[old] = new), or nil for
// the identity.
func orderMap(c *COO, perm []int) ([]int, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Rows != c.Cols {
		return nil, errNotSquare(c.Rows, c.Cols)
	}
	if perm == nil {
		return nil, nil
	}
	return checkPerm(perm, c.Rows)
}

func envelope(c *COO, perm []int) (int, int64, error) {
	inv, err := orderMap(c, perm)
	if err != nil {
		return 0, 0, err
	}
	// first[i]: the first column of row i of the lower triangle.
	first := reduceTriangle(c, inv, false)
	bw := 0
	for i, f := range first {
		bw = max(bw, i-int(f))
	}
	return bw, profileOf(first), nil
}

// profileOf is Σ_i (i − first[i]).
func profileOf(first []int32) int64 {
	var prof int64
	for i, f := range first {
		prof += int64(i - int(f))
	}
	return prof
}

// reduceTriangle maps every entry to the lower triangle under inv (nil for
// the identity) and returns, for each row, its first column (lastRow
// false), or for each column, its last row (lastRow true); rows without
// entries give their own index. Large matrices are split among the cores,
// each with its own array, merged vertex range by vertex range.
func reduceTriangle(c *COO, inv []int, lastRow bool) []int32 {
	n, m := c.Rows, len(c.V)
	workers := max(1, min(runtime.GOMAXPROCS(0), m/(1<<17), 64))
	parts := make([][]int32, workers)
	run(workers, workers, func(w int) {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(i)
		}
		for k := m * w / workers; k < m*(w+1)/workers; k++ {
			i, j := c.I[k], c.J[k]
			if inv != nil {
				i, j = int32(inv[i]), int32(inv[j])
			}
			if i < j {
				i, j = j, i
			}
			if lastRow {
				out[j] = max(out[j], i)
			} else {
				out[i] = min(out[i], j)
			}
		}
		parts[w] = out
	})
	res := parts[0]
	if workers > 1 {
		ranges := max(1, min(runtime.GOMAXPROCS(0)*4, n/4096))
		run(ranges, runtime.GOMAXPROCS(0), func(r int) {
			for v := n * r / ranges; v < n*(r+1)/ranges; v++ {
				x := res[v]
				for _, p := range parts[1:] {
					if lastRow {
						x = max(x, p[v])
					} else {
						x = min(x, p[v])
					}
				}
				res[v] = x
			}
		})
	}
	return res
}

// SKSLen returns the length of the thesis skyline storage (SKS.Len) of c
// under perm, without building it: the "le" of ThesisMemorySKS.
func SKSLen(c *COO, perm []int) (int64, error) {
	inv, err := orderMap(c, perm)
	if err != nil {
		return 0, err
	}
	return sksLenOf(reduceTriangle(c, inv, true)), nil
}

// sksLenOf is the SKS length of the columns whose last rows are lastRow,
// under the monotone last-row rule.
func sksLenOf(lastRow []int32) int64 {
	var total int64
	last := int32(-1)
	for j, r := range lastRow {
		last = max(last, r, int32(j))
		total += int64(last) - int64(j) + 1
	}
	return total
}
