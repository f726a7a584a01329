package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// applyCase is one input of lu_tapply: an n x n matrix, a panel at column
// k of an outer block ending at cend, the panel's exchanges, the factors
// F (L11\U11 of the pivot rows) and S (the block's original panel rows).
type applyCase struct {
	n, nb, k, cend int
	scale          float64 // of A's entries
	a, f, s        []float64
	ipiv           []int32
}

// newApplyCase draws exchanges as the tournament may produce them: places
// far below the block, places from a small set (so that a row brought
// down is chosen again), exchanges inside the block and none; F has a
// diagonal of magnitude 1 to 2. With tiny >= 0, F's diagonal entry tiny is
// subnormal, whose reciprocal overflows, and A's entries are of magnitude
// 1e-300, so that dividing by it stays finite.
func newApplyCase(rng *rand.Rand, n, nb, k, cend, tiny int) applyCase {
	c := applyCase{n: n, nb: nb, k: k, cend: cend, scale: 1}
	if tiny >= 0 {
		c.scale = 1e-300
	}
	c.a = make([]float64, n*n)
	for i := range c.a {
		c.a[i] = c.scale * (2*rng.Float64() - 1)
	}
	c.ipiv = make([]int32, n)
	for i := range c.ipiv {
		c.ipiv[i] = int32(i)
	}
	for i := k; i < k+nb; i++ {
		switch rng.IntN(5) {
		case 0, 1:
			if k+nb+3 <= n {
				c.ipiv[i] = int32(k + nb + rng.IntN(3))
			}
		case 2:
			c.ipiv[i] = int32(i + rng.IntN(k+nb-i))
		case 3:
			c.ipiv[i] = int32(i + rng.IntN(n-i))
		}
	}
	c.f = make([]float64, nb*nb)
	for i := 0; i < nb; i++ {
		for j := 0; j < nb; j++ {
			c.f[i*nb+j] = 2*rng.Float64() - 1
		}
		d := 1 + rng.Float64()
		if rng.IntN(2) == 0 {
			d = -d
		}
		if i == tiny {
			d = 1e-310
		}
		c.f[i*nb+i] = d
	}
	c.s = make([]float64, nb*nb)
	for i := 0; i < nb; i++ {
		copy(c.s[i*nb:(i+1)*nb], c.a[(k+i)*n+k:(k+i)*n+k+nb])
	}
	return c
}

// want is what lu_tapply leaves in A, computed on the host: the exchanges
// one after the other on every column, then the panel's rows k..k+nb-1
// from F, the rows below solved against U11 (x U11 = row), and the block
// rows of columns k+nb..cend-1 solved against L11 (unit lower).
func (c applyCase) want() []float64 {
	n, nb, k := c.n, c.nb, c.k
	w := append([]float64(nil), c.a...)
	for i := k; i < k+nb; i++ {
		p := int(c.ipiv[i])
		for j := 0; j < n; j++ {
			w[i*n+j], w[p*n+j] = w[p*n+j], w[i*n+j]
		}
	}
	for i := 0; i < nb; i++ {
		copy(w[(k+i)*n+k:(k+i)*n+k+nb], c.f[i*nb:(i+1)*nb])
	}
	for r := k + nb; r < n; r++ {
		x := w[r*n+k : r*n+k+nb]
		for j := 0; j < nb; j++ {
			s := x[j]
			for i := 0; i < j; i++ {
				s -= x[i] * c.f[i*nb+j]
			}
			if d := c.f[j*nb+j]; d != 0 {
				s /= d
			}
			x[j] = s
		}
	}
	for col := k + nb; col < c.cend; col++ {
		for i := 0; i < nb; i++ {
			s := w[(k+i)*n+col]
			for j := 0; j < i; j++ {
				s -= c.f[i*nb+j] * w[(k+j)*n+col]
			}
			w[(k+i)*n+col] = s
		}
	}
	return w
}

// run launches lu_tapply on c with al items per group.
func (c applyCase) run(t *testing.T, dev *kernels.Device, apply *kernels.Kernel, al int) []float64 {
	t.Helper()
	bufs := make([]*kernels.Buffer, 4)
	for i, size := range []int{8 * c.n * c.n, 4 * c.n, 8 * c.nb * c.nb, 8 * c.nb * c.nb} {
		b, err := dev.Alloc(int64(size))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		bufs[i] = b
	}
	for i, data := range []any{c.a, c.ipiv, c.f, c.s} {
		var err error
		switch d := data.(type) {
		case []float64:
			err = bufs[i].Write(0, d)
		case []int32:
			err = bufs[i].Write(0, d)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := launchApply(apply, al, c.n, c.nb, c.k, c.cend, bufs[0], bufs[1], bufs[2], bufs[3]); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, c.n*c.n)
	if err := bufs[0].Read(0, got); err != nil {
		t.Fatal(err)
	}
	return got
}

// lu_tapply against the host: every column's exchanges exactly (also where
// a place below the block is reached twice and where exchanges stay in the
// block), the triangular solves to rounding (the row solves multiply by
// U11's reciprocal diagonal, the host divides), with work-groups of 16 to
// 64 items (row groups that end inside and past the matrix), panels at
// the first, a middle and the last block, outer blocks that end at the
// panel, inside the matrix and at its end, and a subnormal pivot (divided
// by, not inverted: its reciprocal overflows).
func TestTApplyMatchesHost(t *testing.T) {
	dev := testDevice(t)
	const nb = 16
	prog, err := luProgram(dev, nb)
	if err != nil {
		t.Fatal(err)
	}
	apply, err := prog.Kernel("lu_tapply")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 13))
	n := 7 * nb // 112: not a multiple of 32 or 64
	for _, k := range []int{0, 3 * nb, n - nb} {
		for _, cend := range []int{k + nb, min(n, k+3*nb), n} {
			for _, al := range []int{16, 32, 64} {
				tiny := -1
				if al == 32 {
					tiny = rng.IntN(nb)
				}
				name := fmt.Sprintf("k=%d/cend=%d/al=%d", k, cend, al)
				c := newApplyCase(rng, n, nb, k, cend, tiny)
				got, want := c.run(t, dev, apply, al), c.want()
				for i := range got {
					r, col := i/n, i%n
					solved := r >= k && (col >= k && col < k+nb && r >= k+nb || r < k+nb && col >= k+nb && col < cend)
					if !solved {
						if got[i] != want[i] {
							t.Fatalf("%s: entry (%d,%d) = %g, want %g (moved, not computed)", name, r, col, got[i], want[i])
						}
						continue
					}
					if d := math.Abs(got[i] - want[i]); !(d <= 1e-12*math.Max(c.scale, math.Abs(want[i]))) {
						t.Fatalf("%s: entry (%d,%d) = %.17g, want %.17g", name, r, col, got[i], want[i])
					}
				}
			}
		}
	}
}
