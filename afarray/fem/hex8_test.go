package fem

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// unitCube returns the coordinates of a box hexahedron [0,a]×[0,b]×[0,c].
func box(a, b, c float64) []float64 {
	x := make([]float64, 24)
	for n := 0; n < 8; n++ {
		x[3*n] = a * (hexXi[n] + 1) / 2
		x[3*n+1] = b * (hexEta[n] + 1) / 2
		x[3*n+2] = c * (hexZeta[n] + 1) / 2
	}
	return x
}

// distorted returns a box with each node moved randomly by up to frac of
// the edge, keeping the element valid.
func distorted(rng *rand.Rand, frac float64) []float64 {
	x := box(1, 1, 1)
	for i := range x {
		x[i] += frac * (2*rng.Float64() - 1)
	}
	return x
}

func TestHex8StiffnessSpectrum(t *testing.T) {
	m := Material{E: 2.1e10, Nu: 0.2}
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string][]float64{
		"cube":      box(1, 1, 1),
		"slab":      box(0.1, 0.15, 0.1667),
		"flat":      box(2, 0.3, 0.05),
		"distorted": distorted(rng, 0.2),
		"sheared":   distorted(rng, 0.3),
	}
	for name, x := range shapes {
		ke := make([]float64, 576)
		if err := Hex8Stiffness(x, m, ke); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		scale := 0.0
		for i := 0; i < 24; i++ {
			scale = math.Max(scale, math.Abs(ke[25*i]))
			for j := 0; j < i; j++ {
				if d := math.Abs(ke[24*i+j] - ke[24*j+i]); d > 1e-12*math.Abs(ke[24*i+i]) {
					t.Fatalf("%s: K[%d][%d]-K[%d][%d] = %g", name, i, j, j, i, d)
				}
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(24, ke), false) {
			t.Fatalf("%s: eigendecomposition failed", name)
		}
		vals := eig.Values(nil)
		zeros := 0
		for _, v := range vals {
			if v < -1e-10*scale {
				t.Errorf("%s: negative eigenvalue %g (scale %g)", name, v, scale)
			}
			if math.Abs(v) < 1e-10*scale {
				zeros++
			}
		}
		if zeros != 6 {
			t.Errorf("%s: %d zero eigenvalues, want 6 (rigid-body modes); spectrum %v", name, zeros, vals)
		}
	}
}

// TestHex8RigidModes checks that rigid translations and rotations produce no
// nodal forces, and a uniform strain the forces of a constant stress.
func TestHex8RigidModes(t *testing.T) {
	m := Material{E: 1e3, Nu: 0.3}
	rng := rand.New(rand.NewPCG(3, 4))
	x := distorted(rng, 0.25)
	ke := make([]float64, 576)
	if err := Hex8Stiffness(x, m, ke); err != nil {
		t.Fatal(err)
	}
	K := mat.NewDense(24, 24, ke)
	for mode := 0; mode < 6; mode++ {
		u := mat.NewVecDense(24, nil)
		for a := 0; a < 8; a++ {
			p := [3]float64{x[3*a], x[3*a+1], x[3*a+2]}
			var d [3]float64
			if mode < 3 {
				d[mode] = 1
			} else {
				// rotation about axis mode-3: ω × p
				w := [3]float64{}
				w[mode-3] = 1
				d = [3]float64{w[1]*p[2] - w[2]*p[1], w[2]*p[0] - w[0]*p[2], w[0]*p[1] - w[1]*p[0]}
			}
			for c := 0; c < 3; c++ {
				u.SetVec(3*a+c, d[c])
			}
		}
		var f mat.VecDense
		f.MulVec(K, u)
		if n := mat.Norm(&f, math.Inf(1)); n > 1e-10*m.E {
			t.Errorf("rigid mode %d: force %g", mode, n)
		}
	}
}

func TestHex8Errors(t *testing.T) {
	m := Material{E: 1, Nu: 0.2}
	ke := make([]float64, 576)
	x := box(1, 1, 1)
	// Swap top and bottom faces: an inverted element.
	inv := append([]float64(nil), x[12:]...)
	inv = append(inv, x[:12]...)
	if err := Hex8Stiffness(inv, m, ke); !errors.Is(err, ErrDegenerate) {
		t.Errorf("inverted element: got %v, want ErrDegenerate", err)
	}
	if err := Hex8Stiffness(x, Material{E: 1, Nu: 0.5}, ke); !errors.Is(err, ErrMaterial) {
		t.Errorf("nu = 0.5: got %v, want ErrMaterial", err)
	}
	if err := Hex8Stiffness(x[:23], m, ke); !errors.Is(err, ErrMesh) {
		t.Errorf("short coordinates: got %v, want ErrMesh", err)
	}
}

func TestConcreteModulus(t *testing.T) {
	e, err := ConcreteModulus(210)
	if err != nil {
		t.Fatal(err)
	}
	// 15000·√210 = 217 370.65 kgf/cm² = 21.317 GPa.
	if want := 217370.6512 * 98066.5; math.Abs(e-want) > 1e-6*want {
		t.Errorf("E(210) = %g, want %g", e, want)
	}
	if _, err := ConcreteModulus(-1); !errors.Is(err, ErrMaterial) {
		t.Errorf("negative f'c: %v", err)
	}
	if _, err := ConcreteModulus(math.NaN()); !errors.Is(err, ErrMaterial) {
		t.Errorf("NaN f'c: %v", err)
	}
}
