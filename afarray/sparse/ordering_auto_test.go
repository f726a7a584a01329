package sparse

import (
	"testing"
)

// gridCOO is the 27-point stencil of an nx × ny × nz grid of nodes numbered
// x fastest (a lexicographic mesh numbering), lower triangle.
func gridCOO(nx, ny, nz int) *COO {
	n := nx * ny * nz
	c := &COO{Rows: n, Cols: n, Symmetric: true}
	at := func(x, y, z int) int { return x + nx*(y+ny*z) }
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				i := at(x, y, z)
				for dz := -1; dz <= 1; dz++ {
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							X, Y, Z := x+dx, y+dy, z+dz
							if X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz {
								continue
							}
							if j := at(X, Y, Z); j < i {
								c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, -1)
							} else if j == i {
								c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(i)), append(c.V, 27)
							}
						}
					}
				}
			}
		}
	}
	return c
}

// TestAutoRecognizesRCMOrder: the automatic orderings keep a numbering that
// is already a reverse Cuthill–McKee one without running RCM, and only
// when RCM would not have stored more than levelSlack less. A mesh numbered
// along its long side (where RCM stores ten times less) is not taken for
// one; the same mesh after RCM is, and so is every connected shared matrix
// after RCM.
func TestAutoRecognizesRCMOrder(t *testing.T) {
	grid := gridCOO(40, 5, 6)
	p, err := ReverseCuthillMcKee(grid)
	if err != nil {
		t.Fatal(err)
	}
	rg, _ := grid.Permute(p)
	for name, c := range map[string]*COO{"grid along its long side": grid, "grid after RCM": rg} {
		last := reduceTriangle(c, nil, true)
		est, ok := cuthillMcKeeEstimate(c, last)
		have := sksLenOf(last)
		want := name == "grid after RCM"
		if got := ok && float64(have) <= levelSlack*float64(est); got != want {
			t.Errorf("%s: recognized %v (SKS %d, estimate %d, level order %v)", name, got, have, est, ok)
		}
	}
	if _, used, err := Order(rg, OrderAuto); err != nil || used != OrderNatural {
		t.Errorf("auto on the grid after RCM: %s, %v", used, err)
	}
	if _, used, err := Order(grid, OrderAuto); err != nil || used != OrderRCM {
		t.Errorf("auto on the grid along its long side: %s, %v", used, err)
	}
	for _, name := range matrixNames {
		a := readShared(t, name)
		p, err := ReverseCuthillMcKee(a)
		if err != nil {
			t.Fatal(err)
		}
		r, err := a.Permute(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*COO{a, r} {
			last := reduceTriangle(c, nil, true)
			est, ok := cuthillMcKeeEstimate(c, last)
			if !ok {
				continue
			}
			again, err := ReverseCuthillMcKee(c)
			if err != nil {
				t.Fatal(err)
			}
			sks, rcmSKS := sksLenOf(last), int64(0)
			rcmSKS, _ = SKSLen(c, again)
			prof, _ := Profile(c, nil)
			rcmProf, _ := Profile(c, again)
			for _, m := range []struct {
				what      string
				have, rcm int64
				est       int64
			}{{"sks", sks, rcmSKS, est}, {"profile", prof, rcmProf, est - int64(c.Rows)}} {
				if float64(m.have) <= levelSlack*float64(m.est) && float64(m.rcm)*levelSlack < float64(m.have) {
					t.Errorf("%s (%d): %s %d recognized as RCM's, but RCM stores %d", name, c.Rows, m.what, m.have, m.rcm)
				}
			}
		}
		// Whatever it decides, auto never keeps an order RCM beats by more
		// than the slack.
		for _, m := range []Ordering{OrderAuto, OrderAutoProfile} {
			perm, _, err := Order(r, m)
			if err != nil {
				t.Fatal(err)
			}
			measure := SKSLen
			if m == OrderAutoProfile {
				measure = Profile
			}
			kept, _ := measure(r, perm)
			best, _ := measure(a, p)
			if float64(kept) > levelSlack*float64(best) {
				t.Errorf("%s after RCM: %s keeps %d, RCM gives %d", name, m, kept, best)
			}
		}
	}
}
