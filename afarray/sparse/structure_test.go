package sparse

import (
	"errors"
	"fmt"
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
