package fem

import "errors"

// ErrMesh reports an invalid mesh description or mesh parameter, such as a
// non-positive number of divisions or a malformed "AxBxC" string.
var ErrMesh = errors.New("fem: invalid mesh")

// ErrMaterial reports invalid material constants (E ≤ 0, ν outside (-1, 0.5),
// or a non-positive concrete strength).
var ErrMaterial = errors.New("fem: invalid material")

// ErrDegenerate reports an element whose Jacobian determinant is not positive
// at some integration point (an inverted or collapsed element).
var ErrDegenerate = errors.New("fem: degenerate element")

// ErrOrder reports a requested system order that no mesh can approach.
var ErrOrder = errors.New("fem: invalid order")
