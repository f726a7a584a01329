package gauss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// tournamentPanelRef chooses the pivot rows of the first panel (columns
// 0..nb-1) of the m x m matrix a as lu_tsel's tree does, in Go: partial
// pivoting (largest magnitude, ties to the smaller row, a NaN above
// everything) on leaves of rl consecutive rows, then on the picks of rl/nb
// consecutive nodes, level after level, until one node is left, the
// multipliers v * (1/d) where |d| is normal (as LAPACK's dgetf2 takes
// them), v / d otherwise. It returns LAPACK's exchanges for the panel.
func tournamentPanelRef(a *mat.Dense, nb, rl int) []int {
	m, _ := a.Dims()
	node := func(rows []int) []int {
		v := make([][]float64, len(rows))
		for i, r := range rows {
			if r >= 0 {
				v[i] = mat.Row(nil, r, a)[:nb]
			}
		}
		won := make([]bool, len(rows))
		sel := make([]int, nb)
		for j := 0; j < nb; j++ {
			best, p := -1.0, -1
			for i, r := range rows {
				if r < 0 || won[i] {
					continue
				}
				mg := math.Abs(v[i][j])
				if math.IsNaN(mg) {
					mg = math.Inf(1)
				}
				if p < 0 || mg > best || (mg == best && r < rows[p]) {
					best, p = mg, i
				}
			}
			sel[j] = -1
			if p < 0 {
				continue
			}
			sel[j], won[p] = rows[p], true
			d := v[p][j]
			if d == 0 {
				continue
			}
			for i, r := range rows {
				if r < 0 || won[i] {
					continue
				}
				var l float64
				if math.Abs(d) >= 0x1p-1022 {
					l = v[i][j] * (1 / d)
				} else {
					l = v[i][j] / d
				}
				v[i][j] = l
				for q := j + 1; q < nb; q++ {
					v[i][q] -= l * v[p][q]
				}
			}
		}
		return sel
	}
	in := make([]int, m)
	for i := range in {
		in[i] = i
	}
	size := rl
	for {
		var out []int
		for g := 0; g < len(in); g += size {
			out = append(out, node(in[g:min(g+size, len(in))])...)
		}
		if len(in) <= size {
			in = out
			break
		}
		in, size = out, rl/nb*nb
	}
	// The chosen rows to exchanges, one after the other.
	at, pos := make([]int, m), make([]int, m)
	for i := range at {
		at[i], pos[i] = i, i
	}
	piv := make([]int, nb)
	for i, r := range in {
		p := pos[r]
		piv[i] = p
		at[i], at[p] = at[p], at[i]
		pos[at[i]], pos[at[p]] = i, p
	}
	return piv
}

// The tournament in one launch (lu_tsel's last-group-to-finish tree)
// chooses the first panel's pivots exactly as a Go tournament over the
// same tree, with one and two rows per work-item and with the per-panel
// choice between them, for a single leaf and for trees of two, three and
// four levels where the nodes are small enough (on CPUs; on a GPU two rows
// per item stop at two levels); the whole factorization, whose later
// panels have fewer rows (and with the per-panel choice switch kernels),
// then solves with gonum's backward error. The later panels' pivots
// depend on the updates' rounding, so only the first is compared exactly
// (random entries: no near ties).
func TestTournamentOneLaunch(t *testing.T) {
	const nb = 16
	dev, tl := tournamentTestDevice(t, nb)
	for _, rows := range []int{1, 2, -1} {
		rl := tl * max(1, rows)
		fan := rl / nb
		ns := []int{nb, rl + nb}
		if rl*fan <= 4096 {
			ns = append(ns, rl*fan+nb)
		}
		if rl*fan*fan <= 2048 {
			ns = append(ns, rl*fan*fan+nb)
		}
		if rows < 0 {
			// Leaves of 2 TL rows where that saves a level (n = 2 TL + NB
			// does not, TL^2/NB + NB and TL^3/NB^2 + NB do), else of TL.
			ns = []int{nb, 2*tl + nb, tl*tl/nb + nb}
			if tl*tl*tl/nb/nb <= 2048 {
				ns = append(ns, tl*tl*tl/nb/nb+nb)
			}
		}
		for _, n := range ns {
			tselRows = rows
			rpi := panelRows(n, nb, tl, 2)
			if rows > 0 {
				rpi = rows
			}
			t.Run(fmt.Sprintf("rows=%d/n=%d/rpi=%d/levels=%d", rows, n, rpi, tselLevels(n, nb, tl*rpi)), func(t *testing.T) {
				tselRows = rows
				a, b := randomSystem(n, uint64(n)+uint64(rpi), false)
				lu := factorMatchingPanelRef(t, dev, a, nb, tl*rpi)
				defer lu.Release()
				_, be := solveBackwardError(t, lu, a, b)
				if be > 1e-13 {
					t.Errorf("backward error %.3g", be)
				}
			})
		}
	}
}

// tournamentTestDevice is the test device and lu_tsel's work-group size
// for nb columns there, skipping the test where the tournament does not
// apply; the test may set tselRows, which is restored after it.
func tournamentTestDevice(t *testing.T, nb int) (*kernels.Device, int) {
	t.Helper()
	dev := testDevice(t)
	tl := tournamentLocal(dev, nb)
	if tl == 0 {
		t.Skipf("%s: no tournament with %d columns", dev.Name(), nb)
	}
	t.Cleanup(func(r int) func() { return func() { tselRows = r } }(tselRows))
	return dev, tl
}

// factorMatchingPanelRef factorizes a by the tournament in panels of nb
// and fails the test unless the first panel's pivots are those of the Go
// tournament over leaves of rl rows (tournamentPanelRef). The caller
// releases the factorization.
func factorMatchingPanelRef(t *testing.T, dev *kernels.Device, a *mat.Dense, nb, rl int) *LU {
	t.Helper()
	lu := &LU{BlockSize: nb, Pivoting: PivotingTournament}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	want := tournamentPanelRef(a, nb, rl)
	got := lu.Pivots()[:nb]
	for i := range want {
		if got[i] != want[i] {
			lu.Release()
			t.Fatalf("pivots %v, the Go tournament's %v", got, want)
		}
	}
	return lu
}

// tieSystem is a seeded n x n matrix of ones, minus ones and mostly zeros
// and a right-hand side: the rows of a unit lower triangle with entries
// of +-1 at about 3% of its places below the diagonal, shuffled (so that
// its determinant is +-1): a tournament node's candidates tie in
// magnitude, and its columns are zero among many rows, at nearly every
// column step.
func tieSystem(n int, seed uint64) (*mat.Dense, []float64) {
	return tieSystemDensity(n, seed, 30)
}

// tieSystemDensity is tieSystem with entries at about perMille per
// thousand of the places below the diagonal. At order 3000 tieSystem's 3%
// (about 45 entries a row) is singular to working precision although its
// determinant is +-1: gonum's partial pivoting estimates condition numbers
// of 5e19 and 3e21 for the seeds TestWarpReduxSameFactors takes, and the
// tournament stopped at a pivot below the tolerance near column 2981 (PoCL
// and the H100, 2026-11-23), as it should; a few per thousand keep the
// ties and the zero columns and factor.
func tieSystemDensity(n int, seed uint64, perMille int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	perm := rng.Perm(n)
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(perm[i], i, 1)
		for j := 0; j < i; j++ {
			if rng.IntN(1000) < perMille {
				a.Set(perm[i], j, float64(1-2*rng.IntN(2)))
			}
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	return a, b
}

// tieDensity is the density (per thousand) the tie tests take at order
// n: tieSystem's 30 up to 1000, 10 above, where 30 nears singularity
// (gonum's condition estimate 1.6e13 at 1555, review10; 5e19 at 3000) and
// 10 factors (PoCL, 3000: backward errors below 1e-15).
func tieDensity(n int) int {
	if n <= 1000 {
		return 30
	}
	return 10
}

// Ties: where candidates' magnitudes are equal the smaller row wins, a
// column that is zero among a node's rows picks its smallest row and
// eliminates nothing, and a leaf that runs out of rows passes -1
// candidates that every live row beats (n = leaf + 5: the second leaf's
// steps after its fifth have no live row). The first panel's pivots must
// be exactly those of the Go tournament over the same tree (whose order
// is better()'s), with one and two rows per item; on NVIDIA this checks
// the reductions (shuffles, or warp_winner's redux.sync) that the GPU
// takes, and the solve's backward error the rest.
func TestTournamentTies(t *testing.T) {
	const nb = 16
	dev, tl := tournamentTestDevice(t, nb)
	for _, rows := range []int{1, 2} {
		rl := tl * rows
		for _, n := range []int{rl, rl + 5, 3*rl + nb + 3} {
			t.Run(fmt.Sprintf("rows=%d/n=%d", rows, n), func(t *testing.T) {
				tselRows = rows
				a, b := tieSystemDensity(n, uint64(n)+uint64(rows), tieDensity(n))
				lu := factorMatchingPanelRef(t, dev, a, nb, rl)
				defer lu.Release()
				_, be := solveBackwardError(t, lu, a, b)
				if be > 1e-13 {
					t.Errorf("backward error %.3g", be)
				}
			})
		}
	}
}

// A pivot of subnormal magnitude divides its column's multipliers (its
// reciprocal overflows, so lu_tsel must not scale by it): the matrix is
// scaled to 2^-1010, so that such a pivot stays above the tolerance, and
// three columns by a further 2^-18, so that every candidate of theirs is
// subnormal, about 2^-1028, whose reciprocal overflows (two columns of the
// first panel, one of the second; with 2^-14 the reciprocals were finite
// and scaling by them passed too). The first
// panel's pivots must be those of the Go tournament over the same tree,
// and P A = L U hold column by column relative to the column's own largest
// entry (a normwise check would not see those columns), with one and two
// rows per item, for one leaf and for two leaves and a root.
func TestTournamentSubnormalPivots(t *testing.T) {
	const nb = 16
	dev, tl := tournamentTestDevice(t, nb)
	tiny := []int{2, 11, nb + 5}
	for _, rows := range []int{1, 2} {
		rl := tl * rows
		for _, n := range []int{2 * nb, rl + nb + 3} {
			t.Run(fmt.Sprintf("rows=%d/n=%d", rows, n), func(t *testing.T) {
				tselRows = rows
				a, _ := randomSystem(n, uint64(n)+uint64(rows)+7, false)
				a.Scale(0x1p-1010, a)
				for _, c := range tiny {
					for i := 0; i < n; i++ {
						a.Set(i, c, a.At(i, c)*0x1p-18)
					}
				}
				lu := factorMatchingPanelRef(t, dev, a, nb, rl)
				defer lu.Release()
				piv := lu.Pivots()
				l, u := luFactorsOf(t, lu)
				var prod mat.Dense
				prod.Mul(l, u)
				pa := permuted(a, piv)
				for c := 0; c < n; c++ {
					var scale, diff float64
					for i := 0; i < n; i++ {
						scale = math.Max(scale, math.Abs(pa.At(i, c)))
						diff = math.Max(diff, math.Abs(pa.At(i, c)-prod.At(i, c)))
					}
					if !(diff <= 1e-12*scale) {
						t.Errorf("column %d: max |P A - L U| = %.3g, max |P A| = %.3g", c, diff, scale)
					}
				}
			})
		}
	}
}

// TestLUBuildLog prints the compiler's log of the LU's program for the
// tournament's block size built with the given extra options, e.g.
// OCLSOLVE_LU_BUILDLOG=-cl-nv-verbose on NVIDIA (registers and spills of
// lu_tsel, lu_tsel2 and the rest). It only runs when that variable is set.
func TestLUBuildLog(t *testing.T) {
	opts, ok := os.LookupEnv("OCLSOLVE_LU_BUILDLOG")
	if !ok {
		t.Skip("OCLSOLVE_LU_BUILDLOG not set")
	}
	dev := testDevice(t)
	defer func(o string) { luBuildOptions = o }(luBuildOptions)
	luBuildOptions = opts
	p, err := luProgram(dev, smallBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	if p.FromDiskCache {
		// A binary from the disk cache is not compiled again: its log may
		// lack what the options would print (ptxas' registers on NVIDIA).
		t.Logf("%s came from the program cache; clear it (or set XDG_CACHE_HOME to an empty folder) for the compiler's own log", p.Name())
	}
	t.Logf("%s (%s):\n%s", p.Name(), opts, p.Log())
}
