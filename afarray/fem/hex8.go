package fem

import (
	"fmt"
	"math"
)

// Hex8 local node order: the bottom face ζ = -1 counter-clockwise seen from
// above, then the top face ζ = +1 in the same order. Natural coordinates of
// node a are (hexXi[a], hexEta[a], hexZeta[a]).
var (
	hexXi   = [8]float64{-1, 1, 1, -1, -1, 1, 1, -1}
	hexEta  = [8]float64{-1, -1, 1, 1, -1, -1, 1, 1}
	hexZeta = [8]float64{-1, -1, -1, -1, 1, 1, 1, 1}
)

// gauss2 holds the two Gauss–Legendre points on [-1, 1]; both weights are 1.
var gauss2 = [2]float64{-1 / math.Sqrt(3), 1 / math.Sqrt(3)}

// hexDerivs holds the natural derivatives of the eight shape functions at
// the eight Gauss points, computed once: dN[g][a] = (∂ξ, ∂η, ∂ζ) of N_a.
var hexDerivs = func() (d [8][8][3]float64) {
	g := 0
	for _, z := range gauss2 {
		for _, e := range gauss2 {
			for _, x := range gauss2 {
				for a := 0; a < 8; a++ {
					d[g][a][0] = hexXi[a] * (1 + e*hexEta[a]) * (1 + z*hexZeta[a]) / 8
					d[g][a][1] = hexEta[a] * (1 + x*hexXi[a]) * (1 + z*hexZeta[a]) / 8
					d[g][a][2] = hexZeta[a] * (1 + x*hexXi[a]) * (1 + e*hexEta[a]) / 8
				}
				g++
			}
		}
	}
	return d
}()

// Hex8Stiffness computes the 24×24 stiffness matrix of an 8-node hexahedron
// of material m into ke (row-major; DOF 3a+c is component c of local node a),
// by 2×2×2 Gauss integration. xyz holds the node coordinates, 3 per node, in
// the local order: bottom face counter-clockwise, then top face.
//
// It returns an error wrapping ErrDegenerate if the Jacobian determinant is
// not positive at an integration point, and ErrMaterial for bad constants.
func Hex8Stiffness(xyz []float64, m Material, ke []float64) error {
	if len(xyz) != 24 || len(ke) != 576 {
		return fmt.Errorf("%w: Hex8Stiffness needs 24 coordinates and a 576-entry output, got %d and %d",
			ErrMesh, len(xyz), len(ke))
	}
	if err := m.Validate(); err != nil {
		return err
	}
	lambda, mu := m.Lame()
	var x [24]float64
	copy(x[:], xyz)
	var k [576]float64
	if err := hex8Stiffness(&x, lambda, mu, &k); err != nil {
		return err
	}
	copy(ke, k[:])
	return nil
}

// hex8Stiffness is Hex8Stiffness on fixed-size arrays, without checks. It
// forms each 3×3 node block as
//
//	K_ab = ∫ λ ∇N_a ∇N_bᵀ + μ ∇N_b ∇N_aᵀ + μ (∇N_a·∇N_b) I dV,
//
// which is BᵀDB written out for an isotropic D, and costs a fraction of the
// generic triple product. Only blocks with a ≤ b are integrated; the rest
// follow by symmetry.
func hex8Stiffness(x *[24]float64, lambda, mu float64, k *[576]float64) error {
	*k = [576]float64{}
	var grad [8][3]float64
	for g := 0; g < 8; g++ {
		dn := &hexDerivs[g]
		// Jacobian J[i][j] = ∂x_j/∂ξ_i.
		var j [3][3]float64
		for a := 0; a < 8; a++ {
			for i := 0; i < 3; i++ {
				for c := 0; c < 3; c++ {
					j[i][c] += dn[a][i] * x[3*a+c]
				}
			}
		}
		det := j[0][0]*(j[1][1]*j[2][2]-j[1][2]*j[2][1]) -
			j[0][1]*(j[1][0]*j[2][2]-j[1][2]*j[2][0]) +
			j[0][2]*(j[1][0]*j[2][1]-j[1][1]*j[2][0])
		if !(det > 0) {
			return fmt.Errorf("%w: Jacobian determinant %g at Gauss point %d", ErrDegenerate, det, g)
		}
		// Inverse of J by cofactors; ∇N_a = J⁻¹ ∂N_a/∂ξ.
		var inv [3][3]float64
		inv[0][0] = (j[1][1]*j[2][2] - j[1][2]*j[2][1]) / det
		inv[0][1] = (j[0][2]*j[2][1] - j[0][1]*j[2][2]) / det
		inv[0][2] = (j[0][1]*j[1][2] - j[0][2]*j[1][1]) / det
		inv[1][0] = (j[1][2]*j[2][0] - j[1][0]*j[2][2]) / det
		inv[1][1] = (j[0][0]*j[2][2] - j[0][2]*j[2][0]) / det
		inv[1][2] = (j[0][2]*j[1][0] - j[0][0]*j[1][2]) / det
		inv[2][0] = (j[1][0]*j[2][1] - j[1][1]*j[2][0]) / det
		inv[2][1] = (j[0][1]*j[2][0] - j[0][0]*j[2][1]) / det
		inv[2][2] = (j[0][0]*j[1][1] - j[0][1]*j[1][0]) / det
		for a := 0; a < 8; a++ {
			for i := 0; i < 3; i++ {
				grad[a][i] = inv[i][0]*dn[a][0] + inv[i][1]*dn[a][1] + inv[i][2]*dn[a][2]
			}
		}
		w := det // Gauss weights are all 1
		lw, mw := lambda*w, mu*w
		for a := 0; a < 8; a++ {
			ga := &grad[a]
			for b := a; b < 8; b++ {
				gb := &grad[b]
				dot := mw * (ga[0]*gb[0] + ga[1]*gb[1] + ga[2]*gb[2])
				for i := 0; i < 3; i++ {
					row := (3*a + i) * 24
					for c := 0; c < 3; c++ {
						v := lw*ga[i]*gb[c] + mw*gb[i]*ga[c]
						if i == c {
							v += dot
						}
						k[row+3*b+c] += v
					}
				}
			}
		}
	}
	// Mirror the upper triangle. Diagonal blocks are symmetric in exact
	// arithmetic but not after rounding (the products associate
	// differently), so the whole lower triangle is overwritten, which makes
	// the element matrix, and so the assembled K, exactly symmetric.
	for r := 0; r < 24; r++ {
		for c := r + 1; c < 24; c++ {
			k[c*24+r] = k[r*24+c]
		}
	}
	return nil
}
