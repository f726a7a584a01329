package sparse

import "testing"

// OneTriangle names the triangle of a general matrix stored in one, and
// nothing for a full, diagonal, empty, non-square or symmetric-marked one.
func TestOneTriangle(t *testing.T) {
	coo := func(rows, cols int, sym bool, ij ...int32) *COO {
		c := &COO{Rows: rows, Cols: cols, Symmetric: sym}
		for k := 0; k < len(ij); k += 2 {
			c.I, c.J, c.V = append(c.I, ij[k]), append(c.J, ij[k+1]), append(c.V, 1)
		}
		return c
	}
	cases := []struct {
		name string
		c    *COO
		want string
	}{
		{"lower", coo(3, 3, false, 0, 0, 1, 0, 2, 1, 2, 2), "lower"},
		{"upper", coo(3, 3, false, 0, 0, 0, 1, 1, 2, 2, 2), "upper"},
		{"full", coo(3, 3, false, 0, 0, 1, 0, 0, 1), ""},
		{"diagonal", coo(3, 3, false, 0, 0, 1, 1, 2, 2), ""},
		{"empty", coo(3, 3, false), ""},
		{"not square", coo(3, 2, false, 1, 0), ""},
		{"marked symmetric", coo(3, 3, true, 0, 0, 1, 0), ""},
	}
	for _, c := range cases {
		if got := c.c.OneTriangle(); got != c.want {
			t.Errorf("%s: OneTriangle() = %q, want %q", c.name, got, c.want)
		}
	}
}
