package cyclic

import (
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// COO returns the grid's five-point matrix, the operator Apply computes, as
// the lower triangle of a symmetric sparse matrix in the layout of F (entry
// (i-1)*Q + j-1 for point (i, j)): the same system for the sparse direct
// solvers, to compare them with block cyclic reduction.
func (g *Grid2D) COO() (*sparse.COO, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	P, Q := g.P, g.Q
	n := P * Q
	ix, iy := 1/(g.Hx*g.Hx), 1/(g.Hy*g.Hy)
	c := &sparse.COO{Rows: n, Cols: n, Symmetric: true}
	for i := range P {
		for j := range Q {
			k := int32(i*Q + j)
			c.I, c.J, c.V = append(c.I, k), append(c.J, k), append(c.V, 2*ix+2*iy)
			if j > 0 {
				c.I, c.J, c.V = append(c.I, k), append(c.J, k-1), append(c.V, -iy)
			}
			if i > 0 {
				c.I, c.J, c.V = append(c.I, k), append(c.J, k-int32(Q)), append(c.V, -ix)
			}
		}
	}
	return c, c.Validate()
}
