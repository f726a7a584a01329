package sparse

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestCheckStructure(t *testing.T) {
	cases := []struct {
		c    *COO
		err  error
		says string
	}{
		// A header of order 2e9 with one entry: refused without allocating.
		{&COO{Rows: 2000000000, Cols: 2000000000, Symmetric: true, I: []int32{0}, J: []int32{0}, V: []float64{4}}, ErrSingular, "row 2 (and 1999999997 more) holds no entry"},
		{&COO{Rows: 3, Cols: 3, I: []int32{0, 1, 2}, J: []int32{0, 1, 1}, V: []float64{1, 1, 1}}, ErrSingular, "column 3 holds no entry"},
		{&COO{Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 2}, J: []int32{0, 0}, V: []float64{1, 1}}, ErrSingular, "row 2 holds no entry"},
		{&COO{Rows: 2, Cols: 3}, ErrShape, "not square"},
		{&COO{Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 1, 2}, J: []int32{0, 0, 1}, V: []float64{1, 1, 1}}, nil, ""},
	}
	for k, tc := range cases {
		err := tc.c.CheckStructure()
		if tc.err == nil {
			if err != nil {
				t.Errorf("case %d: %v", k, err)
			}
			continue
		}
		if !errors.Is(err, tc.err) || !strings.Contains(fmt.Sprint(err), tc.says) {
			t.Errorf("case %d: %v, want %v saying %q", k, err, tc.err, tc.says)
		}
	}
}

func TestCheckDiagonal(t *testing.T) {
	// (2,2) missing, (3,3) negative: the first fault is named 1-based.
	c := &COO{Rows: 3, Cols: 3, Symmetric: true, I: []int32{0, 1, 2, 2}, J: []int32{0, 0, 1, 2}, V: []float64{4, 1, 1, -2}}
	err := c.CheckDiagonal()
	var se *StructureError
	if !errors.Is(err, ErrNotPositiveDefinite) || !errors.As(err, &se) || se.Index != 1 || !se.Missing || !strings.Contains(err.Error(), "(2,2) is missing") {
		t.Fatalf("missing diagonal: %v", err)
	}
	c.I, c.J, c.V = append(c.I, 1), append(c.J, 1), append(c.V, 3)
	if err := c.CheckDiagonal(); !errors.As(err, &se) || se.Index != 2 || se.Missing || !strings.Contains(err.Error(), "(3,3) is -2") {
		t.Fatalf("negative diagonal: %v", err)
	}
	// Duplicates are summed.
	c.I, c.J, c.V = append(c.I, 2), append(c.J, 2), append(c.V, 5)
	if err := c.CheckDiagonal(); err != nil {
		t.Fatal(err)
	}
}

// TestStructureChecksParallel: the O(nnz) checks split large matrices among
// workers (forced to 8 here); they find the same first fault, with the same
// count, as the one-pass definition, and the diagonal sums of duplicates
// are those of one pass.
func TestStructureChecksParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	const n = 120000
	band := func() *COO {
		c := &COO{Rows: n, Cols: n, Symmetric: true}
		for i := 0; i < n; i++ {
			for d := 0; d <= 2 && d <= i; d++ {
				v := -1.0
				if d == 0 {
					v = 4
				}
				c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i-d)), append(c.V, v)
			}
		}
		return c
	}
	if scanWorkers(len(band().V)) < 2 {
		t.Fatal("the test matrix is too small to be split")
	}
	c := band()
	if err := c.CheckStructure(); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckDiagonal(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.NNZFull(), 2*len(c.V)-n; got != want {
		t.Errorf("NNZFull %d, want %d", got, want)
	}
	// Two non-positive diagonals: the first is named, both counted; a
	// duplicate that makes another one positive again is summed first.
	c = band()
	for k := range c.V {
		if c.I[k] == c.J[k] && (c.I[k] == 90000 || c.I[k] == 100000 || c.I[k] == 110000) {
			c.V[k] = -2
		}
	}
	c.I, c.J, c.V = append(c.I, 110000), append(c.J, 110000), append(c.V, 5)
	var se *StructureError
	if err := c.CheckDiagonal(); !errors.As(err, &se) || se.Index != 90000 || se.Count != 2 || se.Value != -2 {
		t.Errorf("non-positive diagonal: %v", err)
	}
	// An empty row and column in the general (both triangles) form.
	g, err := band().Full()
	if err != nil {
		t.Fatal(err)
	}
	keep := 0
	for k := range g.V {
		if g.I[k] != 77777 && g.J[k] != 77777 && g.I[k] != 88888 && g.J[k] != 88888 {
			g.I[keep], g.J[keep], g.V[keep] = g.I[k], g.J[k], g.V[k]
			keep++
		}
	}
	g.I, g.J, g.V = g.I[:keep], g.J[:keep], g.V[:keep]
	if err := g.CheckStructure(); !errors.As(err, &se) || se.Index != 77777 || se.Count != 2 || se.Column || !errors.Is(err, ErrSingular) {
		t.Errorf("empty rows: %v", err)
	}
	// An index out of range, found by the worker that holds it.
	c = band()
	c.J[len(c.J)-5] = n + 3
	if err := c.CheckDiagonal(); !errors.Is(err, ErrIndex) || !strings.Contains(err.Error(), fmt.Sprintf("entry %d ", len(c.J)-5)) {
		t.Errorf("index out of range: %v", err)
	}
}
