package gauss

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed lu_tournament.cl
var luTournamentSource string

// Pivoting says how the blocked LU finds its pivots (LU.Pivoting,
// Options.Pivoting).
type Pivoting int

const (
	// PivotingAuto takes tournament pivoting on a GPU where the block
	// size allows it (at most 64 columns) and partial pivoting elsewhere.
	PivotingAuto Pivoting = iota
	// PivotingPartial is exact partial pivoting: the pivots of LAPACK's
	// dgetrf (the largest magnitude of each column, ties to the first
	// row). On a GPU its panel meets at a grid-wide barrier per column.
	PivotingPartial
	// PivotingTournament is CALU's tournament pivoting (lu_tournament.cl):
	// each panel's pivot rows are chosen by partial pivoting on blocks of
	// rows and then on the blocks' winners, a few launches per panel
	// instead of one barrier per column. The pivots differ from partial
	// pivoting's after each panel's first column; the backward error does
	// not in practice.
	PivotingTournament
)

func (p Pivoting) String() string {
	switch p {
	case PivotingAuto:
		return "auto"
	case PivotingPartial:
		return "partial"
	case PivotingTournament:
		return "tournament"
	}
	return fmt.Sprintf("Pivoting(%d)", int(p))
}

// panelMode is what factorBlocked runs per panel.
type panelMode int

const (
	panelNoPivot panelMode = iota
	panelPartial
	panelTournament
)

// tournamentLocal is lu_tsel's work-group size TL for block size nb on dev,
// 0 where the tournament does not apply. Each work-item holds one row of
// the panel (nb doubles) in registers: on a GPU at most 16384 doubles per
// group (half an H100 compute unit's register file) and 512 items; each
// tree node merges TL/nb candidate blocks, which must be at least 2. On a
// CPU (PoCL) the rows live in memory anyway: four blocks per node.
func tournamentLocal(dev *kernels.Device, nb int) int {
	if nb <= 0 {
		return 0
	}
	tl := 4 * nb
	if isGPU(dev) {
		tl = floorPow2(min(512, 16384/nb))
	}
	if tl < 2*nb || tl%16 != 0 {
		return 0
	}
	return tl
}

// panelMode resolves NoPivot and Pivoting for a factorization with block
// size nb: the tournament also needs its kernel to accept TL work-items.
func (lu *LU) panelMode(dev *kernels.Device, prog *kernels.Program, nb int) (panelMode, error) {
	if lu.NoPivot {
		return panelNoPivot, nil
	}
	switch lu.Pivoting {
	case PivotingPartial:
		return panelPartial, nil
	case PivotingAuto, PivotingTournament:
	default:
		return 0, fmt.Errorf("%w: pivoting %v", ErrVariant, lu.Pivoting)
	}
	if lu.Pivoting == PivotingAuto && !isGPU(dev) {
		return panelPartial, nil
	}
	tl := tournamentLocal(dev, nb)
	if tl > 0 {
		k, err := prog.Kernel("lu_tsel")
		if err != nil {
			return 0, err
		}
		if k.MaxWorkGroupSize() < tl {
			tl = 0
		}
	}
	if tl == 0 {
		if lu.Pivoting == PivotingTournament {
			return 0, fmt.Errorf("%w: tournament pivoting with block size %d on %s", ErrVariant, nb, dev.Name())
		}
		return panelPartial, nil
	}
	return panelTournament, nil
}

// factorTournament is factorBlocked with tournament pivoting: per panel,
// lu_tsel on blocks of rows (the leaves), lu_tsel on the stacked
// candidates until one group is left, lu_tapply, and the GEMM update.
// phase is factorBlocked's: after the tournament (0), lu_tapply (1), the
// update (2).
func factorTournament(dev *kernels.Device, prog *kernels.Program, a, ipiv, status *kernels.Buffer, ld, nb int, tol float64,
	phase func(int) error) error {
	tl := tournamentLocal(dev, nb)
	if tl == 0 {
		return fmt.Errorf("%w: tournament pivoting with block size %d", ErrVariant, nb)
	}
	sel, err := prog.Kernel("lu_tsel")
	if err != nil {
		return err
	}
	apply, err := prog.Kernel("lu_tapply")
	if err != nil {
		return err
	}
	eng, err := dense.For(dev, dense.Float64)
	if err != nil {
		return err
	}
	al := floorPow2(min(luSwapLocal, apply.MaxWorkGroupSize()))
	var scratch []*kernels.Buffer
	defer func() {
		for _, b := range scratch {
			b.Release()
		}
	}()
	alloc := func(bytes int) (*kernels.Buffer, error) {
		b, err := dev.Alloc(int64(bytes))
		if err == nil {
			scratch = append(scratch, b)
		}
		return b, err
	}
	leaves := (ld + tl - 1) / tl
	var cand [2]*kernels.Buffer
	for i := range cand {
		if cand[i], err = alloc(4 * leaves * nb); err != nil {
			return err
		}
	}
	pivrow, err := alloc(4 * ld)
	if err != nil {
		return err
	}
	f, err := alloc(8 * nb * nb)
	if err != nil {
		return err
	}
	s, err := alloc(8 * nb * nb)
	if err != nil {
		return err
	}
	per := (tl / nb) * nb // candidates per tree node
	at := dense.Mat{Buf: a, Rows: ld, Cols: ld, LD: ld}
	for k := 0; k < ld; k += nb {
		nin, groups, src := ld-k, (ld-k+tl-1)/tl, 0
		if err := sel.Launch([]int{groups * tl}, []int{tl}, ld, k, 1, nin, tl, boolInt(groups == 1),
			a, cand[1], cand[0], pivrow, ipiv, f, s, status, tol); err != nil {
			return errKernel("lu_tsel", err)
		}
		for groups > 1 {
			nin = groups * nb
			groups = (nin + per - 1) / per
			if err := sel.Launch([]int{groups * tl}, []int{tl}, ld, k, 0, nin, per, boolInt(groups == 1),
				a, cand[src], cand[1-src], pivrow, ipiv, f, s, status, tol); err != nil {
				return errKernel("lu_tsel", err)
			}
			src = 1 - src
		}
		if err := phase(0); err != nil {
			return err
		}
		gc := (ld - nb + al - 1) / al
		gr := (ld - k + al - 1) / al
		if err := apply.Launch([]int{(gc + gr) * al}, []int{al}, ld, k, gc, a, ipiv, f, s,
			kernels.Local(8*nb*nb)); err != nil {
			return errKernel("lu_tapply", err)
		}
		if err := phase(1); err != nil {
			return err
		}
		if m := ld - k - nb; m > 0 {
			if err := eng.Gemm(false, false, -1, at.Sub(k+nb, k, m, nb), at.Sub(k, k+nb, nb, m), 1, at.Sub(k+nb, k+nb, m, m)); err != nil {
				return errKernel("update", err)
			}
		}
		if err := phase(2); err != nil {
			return err
		}
	}
	return nil
}
