package cyclic

import (
	"math"
	"testing"
)

// TestGrid2DCOOIsApply checks the sparse matrix against the operator.
func TestGrid2DCOOIsApply(t *testing.T) {
	g, err := Poisson2DManufactured(7, 5)
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.COO()
	if err != nil {
		t.Fatal(err)
	}
	u := make([]float64, g.P*g.Q)
	for i := range u {
		u[i] = math.Sin(float64(i) + 0.3)
	}
	want := make([]float64, len(u))
	if err := g.Apply(want, u); err != nil {
		t.Fatal(err)
	}
	got, err := c.MulVec(u)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Abs(want[i])+1e-9 {
			t.Fatalf("row %d: %g, Apply %g", i, got[i], want[i])
		}
	}
}
