package fem

import (
	"fmt"
	"math"
)

// KgfPerCm2 is one kgf/cm² in pascals (9.80665 N over 1e-4 m²).
const KgfPerCm2 = 98066.5

// DefaultPoisson is the Poisson's ratio used for concrete when none is given.
const DefaultPoisson = 0.2

// Material is an isotropic linear-elastic material.
type Material struct {
	E  float64 // Young's modulus, Pa
	Nu float64 // Poisson's ratio
}

// ConcreteModulus returns Young's modulus in pascals of concrete whose
// compressive strength is fc kgf/cm², by the ACI / Peruvian E.060 rule
// E = 15000·√f'c kgf/cm².
func ConcreteModulus(fc float64) (float64, error) {
	if !(fc > 0) || math.IsInf(fc, 0) {
		return 0, fmt.Errorf("%w: f'c = %v kgf/cm² must be positive and finite", ErrMaterial, fc)
	}
	return 15000 * math.Sqrt(fc) * KgfPerCm2, nil
}

// Concrete returns the material of concrete with strength fc kgf/cm² and
// Poisson's ratio nu; nu = 0 selects DefaultPoisson.
func Concrete(fc, nu float64) (Material, error) {
	e, err := ConcreteModulus(fc)
	if err != nil {
		return Material{}, err
	}
	if nu == 0 {
		nu = DefaultPoisson
	}
	m := Material{E: e, Nu: nu}
	return m, m.Validate()
}

// Validate reports whether the constants describe a stable isotropic solid.
func (m Material) Validate() error {
	if !(m.E > 0) || math.IsInf(m.E, 0) {
		return fmt.Errorf("%w: E = %v must be positive and finite", ErrMaterial, m.E)
	}
	if !(m.Nu > -1 && m.Nu < 0.5) {
		return fmt.Errorf("%w: Poisson's ratio %v must lie in (-1, 0.5)", ErrMaterial, m.Nu)
	}
	return nil
}

// Lame returns the Lamé constants λ and μ (the shear modulus G).
func (m Material) Lame() (lambda, mu float64) {
	lambda = m.E * m.Nu / ((1 + m.Nu) * (1 - 2*m.Nu))
	mu = m.E / (2 * (1 + m.Nu))
	return lambda, mu
}
