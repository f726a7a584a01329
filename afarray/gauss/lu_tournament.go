package gauss

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed lu_tournament.cl
var luTournamentSource string

// Pivoting says how the blocked LU finds its pivots (LU.Pivoting,
// Options.Pivoting).
type Pivoting int

const (
	// PivotingAuto takes tournament pivoting on a GPU, where the block
	// size allows it, up to order 4096, and above it only where the
	// tournament reduces by warp shuffles (NVIDIA); partial pivoting
	// elsewhere (measured faster there; lu.go, autoPivoting).
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
// group (half an H100 compute unit's register file) and 256 items (NVIDIA
// gave lu_tsel fewer than 512 for 16 and 32 columns); each
// tree node merges TL/nb candidate blocks, which must be at least 2. On a
// CPU (PoCL) the rows live in memory anyway: four blocks per node.
func tournamentLocal(dev *kernels.Device, nb int) int {
	if nb <= 0 {
		return 0
	}
	tl := 4 * nb
	if isGPU(dev) {
		tl = floorPow2(min(256, 16384/nb))
	}
	if tl < 2*nb || tl%16 != 0 {
		return 0
	}
	return tl
}

// innerUpdate is a panel's trailing update inside its outer block: A22 -=
// L21 U12 on the columns k+nb..cend-1 (the transposed view at of lu.go),
// one GEMM, then phase 2. Both pivotings end their panel steps with it.
func innerUpdate(eng *dense.Engine, at dense.Mat, k, nb, cend int, phase func(int) error) error {
	if m, w := at.Rows-k-nb, cend-k-nb; m > 0 && w > 0 {
		if err := eng.Gemm(false, false, -1, at.Sub(k+nb, k, w, nb), at.Sub(k, k+nb, nb, m), 1, at.Sub(k+nb, k+nb, w, m)); err != nil {
			return errKernel("update", err)
		}
	}
	return phase(2)
}

// outerUpdate finishes the outer block of columns k0..cend-1 (its panels
// have updated only its own columns): U12 = L11^-1 A12 for the block's rows
// right of it, one TRSM, then A22 -= L21 U12, one GEMM of cend-k0 inner
// columns. On the transposed view at (lu.go) the solve is X L11^T = A12^T,
// L11^T the unit upper triangle of the block's diagonal.
func outerUpdate(eng *dense.Engine, at dense.Mat, k0, cend int, phase func(int) error) error {
	m, w := at.Rows-cend, cend-k0
	if m <= 0 {
		return nil
	}
	if err := eng.Trsm(dense.Right, dense.Upper, false, dense.Unit, 1, at.Sub(k0, k0, w, w), at.Sub(cend, k0, m, w)); err != nil {
		return errKernel("outer trsm", err)
	}
	if err := phase(1); err != nil {
		return err
	}
	if err := eng.Gemm(false, false, -1, at.Sub(cend, k0, m, w), at.Sub(k0, cend, w, m), 1, at.Sub(cend, cend, m, m)); err != nil {
		return errKernel("update", err)
	}
	return phase(2)
}

// luOuterBlock, when positive, is the blocked LU's outer block on a GPU (a
// multiple of the panel width; the panel width itself: one level); 0 takes
// 256 columns up to gpuSmallOrder and 512 above. On other devices the
// outer block is four panels, so that the tests exercise both levels. A
// variable so that a benchmark can compare. Measured on an H100 (partial
// pivoting, 64 columns per panel, n = 8192): one level 123.7 ms, outer 256
// 101.4, outer 512 98.2; n = 2048: 17.2, 17.8, 17.8 (the panels dominate).
var luOuterBlock = 0

func outerBlock(dev *kernels.Device, nb, n int) int {
	ow := 4 * nb
	if isGPU(dev) {
		switch {
		case luOuterBlock > 0:
			ow = luOuterBlock
		case n <= gpuSmallOrder:
			ow = 256
		default:
			ow = 512
		}
	}
	return max(nb, ow/nb*nb)
}

// autoPivoting is what PivotingAuto asks for at order n on a device:
// partial pivoting on CPUs; on GPUs the tournament up to gpuSmallOrder,
// and above it only with the warp-shuffle reductions (warpShuffle), which
// made the tournament the faster at n = 8192 on an H100: without them
// partial pivoting was faster there (lu.go's figures). OCLSOLVE_LU_SHFL=off
// therefore also makes large orders take partial pivoting.
func autoPivoting(info kernels.DeviceInfo, n int) Pivoting {
	if !strings.Contains(strings.ToUpper(info.Type), "GPU") {
		return PivotingPartial
	}
	if n <= gpuSmallOrder || warpShuffle(info) {
		return PivotingTournament
	}
	return PivotingPartial
}

// panelMode resolves NoPivot and Pivoting for a factorization of order n
// with block size nb: PivotingAuto as autoPivoting says; the tournament
// also needs its kernel to accept TL work-items (Auto then falls back to
// partial pivoting).
func (lu *LU) panelMode(dev *kernels.Device, prog *kernels.Program, nb, n int) (panelMode, error) {
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
	if lu.Pivoting == PivotingAuto && autoPivoting(dev.Info(), n) == PivotingPartial {
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
	// Outer blocks of ow columns: the panels of a block update only the
	// block's own columns (GEMMs of nb inner columns); the block's U rows
	// right of it are then solved by one TRSM and the trailing matrix
	// updated by one GEMM with ow inner columns, which the dense core runs
	// far faster than ow/nb updates of nb.
	ow := outerBlock(dev, nb, ld)
	for k0 := 0; k0 < ld; k0 += ow {
		cend := min(ld, k0+ow)
		for k := k0; k < cend; k += nb {
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
			if err := apply.Launch([]int{(gc + gr) * al}, []int{al}, ld, k, cend, gc, a, ipiv, f, s,
				kernels.Local(8*nb*nb)); err != nil {
				return errKernel("lu_tapply", err)
			}
			if err := phase(1); err != nil {
				return err
			}
			if err := innerUpdate(eng, at, k, nb, cend, phase); err != nil {
				return err
			}
		}
		if err := outerUpdate(eng, at, k0, cend, phase); err != nil {
			return err
		}
	}
	return nil
}

// tselSource writes the kernel lu_tsel for block size nb (see
// lu_tournament.cl): partial pivoting on the work-group's candidate rows,
// one row per work-item in the scalars v0..v(nb-1), its nb column steps
// written out one after the other (no loop for a compiler to unroll or
// not).
//
// Group g takes the rows e = g*R .. g*R+R-1 (e < nin) of its input: rows
// k+e of A for the leaf level, cin[e] otherwise (-1 is no row: a leaf
// block shorter than NB leaves a few). It writes its NB picks to
// cout[g*NB..] (-1 where it ran out of rows), or, when it is the last node
// (fin), the pivot rows to pivrow[k..], LAPACK's exchanges to ipiv[k..],
// the factors of the pivot rows to F (NB x NB, L\U row-major) and A's rows
// k..k+NB-1 of the panel to S; a pivot of magnitude at most tol records its
// column in status. When every remaining row is zero in a column, the row
// with the smallest index is picked and nothing is eliminated, as LAPACK
// does.
//
// With shfl (NVIDIA, TL a multiple of 32; lu.go's warpShuffle) a column
// step has one barrier: each warp finds its best row by shuffles
// (warp_argmax in lu.cl), the warp's winner leaves its row beside the
// warp's (value, row), and after the barrier every item scans the TL/32
// warps' results and reads the winning row from its warp's slot. The
// slots alternate between two sets by column, so that a step's writes
// never meet the previous step's reads (the barrier between them is the
// intermediate step's). Without it a step has four barriers (tsel_argmax's
// two rounds and the pivot row's broadcast).
func tselSource(nb int, shfl bool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	raw := func(text string) { b.WriteString(text) }
	raw(`__kernel __attribute__((reqd_work_group_size(TL, 1, 1)))
void lu_tsel(const int N, const int k, const int leaf, const int nin, const int R, const int fin,
             __global const double *A, __global const int *cin, __global int *cout,
             __global int *pivrow, __global int *ipiv, __global double *F, __global double *S,
             __global int *status, const double tol) {
`)
	if shfl {
		raw(`#define NW (TL / 32)
	__local double wbest[2 * NW];
	__local int widx[2 * NW];
	__local double wrow[2 * NW * NB];
	__local const double *ur;
	const int lane = get_local_id(0) & 31, wp = get_local_id(0) >> 5;
	int slot;
`)
	} else {
		raw(`	__local double rv[TL];
	__local int ri[TL];
	__local double pv[TPARTS];
	__local int px[TPARTS];
	__local double urow[NB];
`)
	}
	raw(`	__local int sel[NB];
	__local double selv[NB];
	const int t = get_local_id(0), g = get_group_id(0);
	const int e = g * R + t;
	int row = -1;
	if (t < R && e < nin)
		row = leaf ? k + e : cin[e];
	const int live0 = row >= 0;
	const size_t base = live0 ? IDX(row, k) : 0;
	int won = -1;
	double best, d;
	int prow;
	bool live;
`)
	for q := 0; q < nb; q++ {
		w("\tdouble v%d = live0 ? A[base + %d] : 0.0;\n", q, q)
	}
	for j := 0; j < nb; j++ {
		w("\t// column %d\n", j)
		w("\tlive = live0 && won < 0;\n")
		if shfl {
			set := j & 1
			w("\tbest = live ? magnitude(v%d) : -1.0;\n", j)
			w("\tprow = live ? row : -1;\n")
			w("\twarp_argmax(&best, &prow);\n")
			w("\tif (lane == 0) {\n\t\twbest[%d * NW + wp] = best;\n\t\twidx[%d * NW + wp] = prow;\n\t}\n", set, set)
			if j < nb-1 {
				w("\tif (live && row == prow) {\n")
				for q := j; q < nb; q++ {
					w("\t\twrow[(%d * NW + wp) * NB + %d] = v%d;\n", set, q, q)
				}
				w("\t}\n")
			}
			w("\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
			w("\tbest = -1.0;\n\tprow = -1;\n\tslot = 0;\n")
			w("\tfor (int s = 0; s < NW; ++s)\n\t\tif (better(wbest[%d * NW + s], widx[%d * NW + s], best, prow)) {\n", set, set)
			w("\t\t\tbest = wbest[%d * NW + s];\n\t\t\tprow = widx[%d * NW + s];\n\t\t\tslot = s;\n\t\t}\n", set, set)
			w("\tif (live && row == prow)\n\t\twon = %d;\n", j)
			w("\tif (t == 0) {\n\t\tsel[%d] = prow;\n\t\tselv[%d] = best;\n\t}\n", j, j)
			if j == nb-1 {
				continue
			}
			w("\tur = wrow + (%d * NW + slot) * NB;\n", set)
			w("\td = prow >= 0 ? ur[%d] : 0.0;\n", j)
			w("\tif (live0 && won < 0 && d != 0.0) {\n\t\tconst double l = v%d / d;\n\t\tv%d = l;\n", j, j)
			for q := j + 1; q < nb; q++ {
				w("\t\tv%d -= l * ur[%d];\n", q, q)
			}
			w("\t}\n")
			continue
		}
		w("\trv[t] = live ? magnitude(v%d) : -1.0;\n", j)
		w("\tri[t] = live ? row : -1;\n")
		w("\ttsel_argmax(t, rv, ri, pv, px, &best, &prow);\n")
		w("\tif (live && row == prow) {\n\t\twon = %d;\n", j)
		for q := j; q < nb; q++ {
			w("\t\turow[%d] = v%d;\n", q, q)
		}
		w("\t}\n")
		w("\tif (t == 0) {\n\t\tsel[%d] = prow;\n\t\tselv[%d] = best;\n\t}\n", j, j)
		w("\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
		if j == nb-1 {
			continue // the last column has nothing right of it to update
		}
		w("\td = prow >= 0 ? urow[%d] : 0.0;\n", j)
		w("\tif (live0 && won < 0 && d != 0.0) {\n\t\tconst double l = v%d / d;\n\t\tv%d = l;\n", j, j)
		for q := j + 1; q < nb; q++ {
			w("\t\tv%d -= l * urow[%d];\n", q, q)
		}
		w("\t}\n")
	}
	if shfl {
		// The last column's picks (sel, selv) are written after the step's
		// barrier: one more before other items read them.
		raw("\tbarrier(CLK_LOCAL_MEM_FENCE);\n#undef NW\n")
	}
	raw(`	// (No return before this point: PoCL miscompiles one between
	// barriers, even a uniform one.)
	if (!fin) {
		for (int j = t; j < NB; j += TL)
			cout[g * NB + j] = sel[j];
		return;
	}
	// The last node: a picked row holds multipliers left of its step and U
	// from it on, row won of L11\U11.
	if (won >= 0) {
`)
	for q := 0; q < nb; q++ {
		w("\t\tF[won * NB + %d] = v%d;\n", q, q)
	}
	raw(`	}
	for (int x = t; x < NB * NB; x += TL)
		S[x] = A[IDX(k + x / NB, k + x % NB)];
	if (t == 0) {
		for (int j = 0; j < NB; ++j) {
			pivrow[k + j] = sel[j];
			if (!(selv[j] > tol))
				atomic_min(status, k + j);
		}
		pivots_to_exchanges(k, pivrow, ipiv);
	}
}
`)
	return b.String()
}
