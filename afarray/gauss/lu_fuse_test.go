package gauss

import (
	"fmt"
	"math"
	"testing"
)

// TestFusedUpdateMatchesUnfused factorizes the same matrices with each
// panel's update inside the outer block as one GEMM launch
// (OCLSOLVE_LU_FUSE=off) and fused (the default: the columns right of the
// next panel by tile groups of the next tournament launch). On a GPU the
// dense core's GEMM sums as the tiles do, and the factors must be
// bitwise the same; a CPU's GEMM kernels may sum in another order, and
// there they must agree to rounding with the same pivots. The orders cover
// one panel (nothing fused), several panels in one outer block, several
// outer blocks (the device's own blocks: four panels on a CPU, the whole
// matrix up to order 2048 on a GPU; and outer blocks of 160 and 80
// columns, luOuterBlock, on every device), rows beyond the last tile, and
// three tile groups each looping over several tiles (tileGroups); block
// sizes 16, 32 and 48 (groups of 64, 128 and 192 items on a CPU: tiles of
// 16, 32 and 48 rows).
func TestFusedUpdateMatchesUnfused(t *testing.T) {
	dev := testDevice(t)
	for _, c := range []struct{ n, nb, outer, groups int }{
		{16, 16, 0, 0}, {40, 16, 0, 0}, {97, 16, 0, 0}, {200, 16, 0, 0}, {333, 16, 0, 0}, {150, 48, 0, 0},
		{600, 32, 0, 0}, {600, 32, 160, 0}, {517, 16, 80, 3},
	} {
		t.Run(fmt.Sprintf("n=%d/nb=%d/outer=%d/groups=%d", c.n, c.nb, c.outer, c.groups), func(t *testing.T) {
			defer func(o, g int) { luOuterBlock, tileGroups = o, g }(luOuterBlock, tileGroups)
			luOuterBlock, tileGroups = c.outer, c.groups
			a, b := randomSystem(c.n, uint64(c.n)+77, false)
			onGPU := isGPU(dev)
			factor := func(fuse string) (*LU, []float64, []float64) {
				t.Setenv("OCLSOLVE_LU_FUSE", fuse)
				lu := &LU{BlockSize: c.nb, Pivoting: PivotingTournament}
				if err := lu.Factorize(dev, a); err != nil {
					t.Fatal(err)
				}
				if !lu.tour {
					t.Fatal("the tournament did not run")
				}
				f := make([]float64, lu.ld*lu.ld)
				if err := lu.a.Read(0, f); err != nil {
					t.Fatal(err)
				}
				x := make([]float64, c.n)
				if err := lu.SolveVecTo(x, b); err != nil {
					t.Fatal(err)
				}
				return lu, f, x
			}
			off, fo, xo := factor("off")
			defer off.Release()
			on, fn, xn := factor("")
			defer on.Release()
			po, pn := off.Pivots(), on.Pivots()
			for i := range po {
				if po[i] != pn[i] {
					t.Fatalf("pivot %d: %d unfused, %d fused", i, po[i], pn[i])
				}
			}
			var scale, worst float64
			for i := 0; i < c.n; i++ {
				for j := 0; j < c.n; j++ {
					scale = math.Max(scale, math.Abs(fo[i*off.ld+j]))
				}
			}
			for i := 0; i < c.n; i++ {
				for j := 0; j < c.n; j++ {
					v, w := fo[i*off.ld+j], fn[i*on.ld+j]
					if math.IsNaN(w) {
						t.Fatalf("factor (%d, %d) is NaN fused", i, j)
					}
					if v != w && onGPU {
						t.Fatalf("factor (%d, %d): %v unfused, %v fused (the GPU's GEMM sums as the tiles do)", i, j, v, w)
					}
					worst = math.Max(worst, math.Abs(v-w))
				}
			}
			if worst > 1e-13*scale*float64(c.n) {
				t.Errorf("factors differ by %.3g (max |factor| %.3g)", worst, scale)
			}
			for i := range xo {
				if d := math.Abs(xo[i] - xn[i]); d > 1e-9*(1+math.Abs(xo[i])) {
					t.Fatalf("x[%d]: %g unfused, %g fused", i, xo[i], xn[i])
				}
			}
		})
	}
}
