package gauss

import (
	_ "embed"
	"fmt"
	"os"
	"strconv"
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
//
// Groups of 512 with one row each were built for the panels where
// panelRows picks two rows per item (code not kept on main: lu_tselw,
// lu_tsel2's tree of leaves of 512 rows and 16 children per node in its
// own program, -cl-nv-maxrregcount=128; its
// factors and pivots bitwise lu_tsel2's on PoCL with groups of 128 and
// 16 columns). On an H100 (2026-11-23, main 606f442) it never ran:
// ptxas fit lu_tselw in 128 registers (the limit came from
// reqd_work_group_size already; lu_tsel2: 255 registers, 180 bytes
// spilled) with 628 bytes spilled, and NVIDIA's OpenCL still reported a
// CL_KERNEL_WORK_GROUP_SIZE under 512 for it with 16 and with 32
// columns, so the factorization kept lu_tsel2 (bench dense --ops lu,
// best of 5, n = 2047 / 8192: 6.151 / 47.853 ms, 5.984 / 47.764 with
// it switched off; OCLSOLVE_PROFILE lu_tsel2 at 8192 80.6 us a launch,
// as before). The value reported, and caps of 112 or 96 registers (more
// spills), were not measured.
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
//
// The solve multiplies by L11's explicit inverse (dense.TrsmInverse, work
// its scratch from outerScratch): L11 is unit lower with multipliers
// bounded by the pivoting, and for the matrices met in practice its
// inverse is small and the inverse's error bound (kappa(L11) times
// substitution's residual) stays small, as in MAGMA-style GPU LUs. Not for
// every matrix: a unit lower L with every multiplier -0.5, which partial
// pivoting keeps, has inverse entries 0.5 * 1.5^(i-j-1) (1e10 at order
// 64, beyond the doubles at 512), and the solve's residual was 1e-2 at the
// GPU's orders (review8, PoCL, 2026-11-23). Hence the guard: with guard
// non-nil, each inverse's max |W| raises word 1 of guard on the device
// (dense.TrsmInverseMax), Factorize reads it with the status and, above
// luInverseMax, factorizes again by substitution. On an H100 (2026-11-23)
// Trsm's substitution took 22-24 us per 32-column leaf launch, 1.2 ms of
// the 10.6 ms factorization at n = 2047 and 5.6 of 69 ms at 8192, plus its
// recursion's GEMMs. OCLSOLVE_LU_TRSM=subst takes Trsm instead
// (benchmarks).
func outerUpdate(eng *dense.Engine, at dense.Mat, k0, cend int, work, guard *kernels.Buffer, phase func(int) error) error {
	m, w := at.Rows-cend, cend-k0
	if m <= 0 {
		return nil
	}
	var err error
	switch {
	case work == nil:
		err = eng.Trsm(dense.Right, dense.Upper, false, dense.Unit, 1, at.Sub(k0, k0, w, w), at.Sub(cend, k0, m, w))
	case guard == nil:
		err = eng.TrsmInverse(dense.Right, dense.Upper, false, dense.Unit, 1, at.Sub(k0, k0, w, w), at.Sub(cend, k0, m, w), work)
	default:
		err = eng.TrsmInverseMax(dense.Right, dense.Upper, false, dense.Unit, 1, at.Sub(k0, k0, w, w), at.Sub(cend, k0, m, w), work, guard, guardWord)
	}
	if err != nil {
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

// outerScratch allocates (through alloc) outerUpdate's scratch for an LU of
// order ld in outer blocks of ow: nil where no outer block has rows below
// it, with subst or OCLSOLVE_LU_TRSM=subst, and where the allocation fails
// (the scratch, about ow * ld doubles, 34 MB at n = 8192, must not make a
// factorization that fits without it fail: substitution needs none).
func outerScratch(alloc func(int) (*kernels.Buffer, error), ld, ow int, subst bool) *kernels.Buffer {
	if subst || ld <= ow || os.Getenv("OCLSOLVE_LU_TRSM") == "subst" {
		return nil
	}
	w, err := alloc(8 * int(dense.TrsmInverseWorkspace(ow, ld-ow)))
	if err != nil {
		return nil
	}
	return w
}

// gpuOneBlockOrder is the largest (padded) order that a GPU factorizes as
// one outer block: every panel then updates the rest of the matrix with
// its own GEMM of nb inner columns, and no outer solve (TrsmInverse, its
// guard) or outer GEMM runs. Measured on an H100 (2026-11-23, main
// b094e72, bench dense --ops lu, best of 7, two calls), n = 2047, LU +
// solve: outer blocks of 256 (the former default) 7.22 / 7.29 ms, 512
// 7.03 / 7.03, 1024 6.83 / 6.87, one block (2048) 6.72 / 6.75; at 8192
// the same call gave 512 (the default there) 51.6 / 51.7 ms, 1024 55.6 /
// 55.7, 2048 64.8 / 64.8: the rank-nb updates of wide trailing matrices
// lose to one GEMM of 512 inner columns once the matrix is large. Above
// 2048 the outer block is 512 columns (it was 256 up to 4096): the same
// code with redux's steps (main edcf482, best of 3, two calls), LU +
// solve, outer 256 / 512 / 1024 / 2048 columns: n = 3000 10.82-10.96 /
// 10.35-10.57 / 10.55-10.60 / 12.15-12.21 ms; n = 4096 16.39-16.57 /
// 15.87-15.89 / 16.11-16.19 / 18.36-18.57 (one block 22.6); n = 6000
// 29.23-29.32 / 28.32-28.42 / 29.82-30.04 / 34.76-34.86. Partial pivoting
// takes the same blocks; it too was fastest as one block at n = 2048
// (17.2 ms against 17.8 with 256 or 512, luOuterBlock's figures).
const gpuOneBlockOrder = 2048

// luOuterBlock, when positive, is the blocked LU's outer block on a GPU (a
// multiple of the panel width; the panel width itself: one level); 0 takes
// the whole matrix up to gpuOneBlockOrder and 512 columns above. On other devices the
// outer block is four panels, so that the tests exercise both levels, and
// luOuterBlock when positive. A
// variable so that a benchmark can compare; OCLSOLVE_LU_OUTER=w sets it for
// a whole process (bench dense, to compare outer blocks on a GPU in one
// call; ignored unless a positive integer). Measured on an H100 (partial
// pivoting, 64 columns per panel, n = 8192): one level 123.7 ms, outer 256
// 101.4, outer 512 98.2; n = 2048: 17.2, 17.8, 17.8 (the panels dominate).
var luOuterBlock = envPositive("OCLSOLVE_LU_OUTER")

// envPositive is the environment variable name as a positive integer, 0
// when unset or anything else.
func envPositive(name string) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

func outerBlock(dev *kernels.Device, nb, n int) int {
	ow := 4 * nb
	switch {
	case luOuterBlock > 0:
		ow = luOuterBlock // on any device: tests take the GPU's blocks on PoCL
	case !isGPU(dev):
	case n <= gpuOneBlockOrder:
		ow = n
	default:
		ow = 512
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

// tselTree is the size of lu_tsel's scratch for a panel of m rows with
// leaves of rl rows (rl/nb children per node above them): the candidates
// of every level below the root and one counter per node above the
// leaves.
func tselTree(m, nb, rl int) (cand, cnt int) {
	fan, per := rl/nb, rl/nb*nb
	for g := (m + rl - 1) / rl; g > 1; g = (g*nb + per - 1) / per {
		cand += g * nb
		cnt += (g + fan - 1) / fan
	}
	return cand, cnt
}

// factorTournament is factorBlocked with tournament pivoting: per panel,
// lu_tsel (or lu_tsel2, panelRows) with one group per leaf, which runs the
// whole tree (tselSource), lu_tapply, and the update (with fuseUpdate, a
// GEMM of the next panel's columns only, the rest in tile groups of the
// next panel's lu_tsel launch inside the outer block). Measured on an
// H100 (2026-11-23, profile of one factorization): the one launch took
// lu_tsel from 4.96 to 4.66 ms at n = 2047 (64 launches instead of 120)
// and from 28.1 to 26.1 ms at n = 8192 (256 instead of 696): a node's 32
// column steps (about 36 us) dominate, not the launches.
// phase is factorBlocked's: after the tournament (0), lu_tapply (1), the
// update (2). With fuseUpdate, phase 0 also holds the tile groups'
// share of the previous panel's update and phase 2 only the GEMM of the
// next panel's columns (and a benchmark that waits at each phase gives
// the tiles no tournament to run beside).
//
// No look-ahead (the next outer block's panels on the side queue beside
// the trailing GEMM, as dense's Potrf does): dense's BenchmarkQueueOverlap
// found on an H100 (2026-11-23) that NVIDIA's OpenCL runs a side queue's
// kernels beside a GEMM only in the GEMM's last wave of work-groups, about
// 0.1 ms per GEMM (at n = 8192 shapes: GEMM 2.84 ms, 16 panel updates
// 0.71, both 3.47), with or without a priority hint, and column chunks
// of the GEMM lost more than they let through. At most that tail per
// outer block would be hidden (15 blocks at n = 8192; none up to order
// 2048, a single outer block since 3843616), less the
// look-ahead's own launches (its swaps outside the block, a split solve
// and update); not built.
//
// lu_tapply stays its own launch: fusing it into the tournament's launch
// was built and measured no faster (code not kept on main, 2026-11-23). Every
// group of the launch (the leaves and groups launched beside them, one per
// compute unit at most, where panelGroups trusts co-residency) waited on a
// flag that the root raised after F, S and ipiv (device_fence on both
// sides; the flag on its own 128-byte line, polled with nanosleep), then
// took tl/4 rows (L21) and up to 3 tl/4 columns (exchanges, U12) of
// lu_tapply's work; factors and pivots bitwise those of the separate
// launch. H100, bench dense --ops lu, best of 5, same call, main 474e259:
// n = 2047 5.88-5.92 ms fused, 5.94 main, 5.97 with the fused kernel's
// tail compiled in but off; n = 8192 48.04-48.11 fused, 47.59 main, 47.76
// off (two more calls alike). OCLSOLVE_PROFILE: lu_tsel 69.6 us a launch
// fused against 56.9 + lu_tapply 15.4 (n = 2047), lu_tsel2 96.9 against
// 81.2 + 15.7 (8192): the work after the hand-over costs inside the launch
// what lu_tapply's launch cost. Its ~15 us are the chain of dependent
// steps (F into local memory, the exchange plan, the gathers' loads, 32
// solve steps, the stores), not a launch's floor. A first layout (units
// of 256 columns or 64 rows per group, fewer groups) lost more: 7.11 /
// 52.1 ms against 7.31 / 51.4. The update after lu_tapply's work in the
// same launch (a second hand-over, L21 read past the compute units'
// caches, since the tree read those rows) was therefore not tried; the
// previous panel's update beside the tournament, which waits for nothing,
// is fuseUpdate.
func factorTournament(dev *kernels.Device, prog *kernels.Program, a, ipiv, status, guard *kernels.Buffer, ld, nb int, tol float64,
	subst bool, phase func(int) error) error {
	tl := tournamentLocal(dev, nb)
	if tl == 0 {
		return fmt.Errorf("%w: tournament pivoting with block size %d", ErrVariant, nb)
	}
	maxRows := tournamentRows(dev, nb, tl)
	var sel [3]*kernels.Kernel
	for rpi := 1; rpi <= maxRows; rpi++ {
		k, err := prog.Kernel(tselKernel(rpi))
		if err != nil {
			return err
		}
		sel[rpi] = k
	}
	if maxRows == 2 && sel[2].MaxWorkGroupSize() < tl {
		maxRows = 1 // panelMode checked lu_tsel
	}
	apply, err := prog.Kernel("lu_tapply")
	if err != nil {
		return err
	}
	eng, err := dense.For(dev, dense.Float64)
	if err != nil {
		return err
	}
	al := applyLocal(dev, apply, nb)
	if al == 0 {
		return fmt.Errorf("%w: lu_tapply with block size %d does not fit %s", ErrVariant, nb, dev.Name())
	}
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
	// The tree's scratch for the largest panel (k = 0; a later panel's
	// levels are no larger) with either leaf size: every level's
	// candidates and a counter per node above the leaves (tselTree).
	candLen, cntLen := 0, 0
	for rpi := 1; rpi <= maxRows; rpi++ {
		c, n := tselTree(ld, nb, tl*rpi)
		candLen, cntLen = max(candLen, c), max(cntLen, n)
	}
	cand, err := alloc(4 * max(1, candLen))
	if err != nil {
		return err
	}
	cnt, err := alloc(4 * max(1, cntLen))
	if err != nil {
		return err
	}
	if err := cnt.Fill([]byte{0, 0, 0, 0}, 0, int64(4*max(1, cntLen))); err != nil {
		return err
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
	at := dense.Mat{Buf: a, Rows: ld, Cols: ld, LD: ld}
	// Outer blocks of ow columns: the panels of a block update only the
	// block's own columns (GEMMs of nb inner columns); the block's U rows
	// right of it are then solved by one TRSM and the trailing matrix
	// updated by one GEMM with ow inner columns, which the dense core runs
	// far faster than ow/nb updates of nb.
	ow := outerBlock(dev, nb, ld)
	work := outerScratch(alloc, ld, ow, subst)
	fuse := fuseUpdate()
	units := dev.Info().ComputeUnits
	for k0 := 0; k0 < ld; k0 += ow {
		cend := min(ld, k0+ow)
		for k := k0; k < cend; k += nb {
			rpi := panelRows(ld-k, nb, tl, maxRows)
			leaves := (ld - k + tl*rpi - 1) / (tl * rpi)
			// With fuse the previous panel's update of the columns right of
			// this panel (inside the block) is this launch's: tile groups
			// after the leaves, one per compute unit the leaves leave.
			upd, tiles := 0, 0
			if w := cend - k - nb; fuse && k > k0 && w > 0 {
				upd = 1
				tiles = (ld - k + tl/4 - 1) / (tl / 4) * ((w + 63) / 64)
				if tileGroups > 0 {
					tiles = min(tiles, tileGroups)
				} else {
					tiles = min(tiles, max(1, units-leaves))
				}
			}
			args := []any{ld, k, a, cand, cnt, pivrow, ipiv, f, s, status, tol, upd, cend}
			if tselClock {
				args = append(args, tselClockBuf)
			}
			if err := sel[rpi].Launch([]int{(leaves + tiles) * tl}, []int{tl}, args...); err != nil {
				return errKernel("lu_tsel", err)
			}
			if err := phase(0); err != nil {
				return err
			}
			if err := launchApply(apply, al, ld, nb, k, cend, a, ipiv, f, s); err != nil {
				return err
			}
			if err := phase(1); err != nil {
				return err
			}
			if fuse && k+nb < cend {
				// The next panel's columns here; the next launch's tiles
				// do the columns right of them.
				c0, c1 := k+nb, min(cend, k+2*nb)
				if err := eng.Gemm(false, false, -1, at.Sub(c0, k, c1-c0, nb), at.Sub(k, k+nb, nb, ld-k-nb), 1, at.Sub(c0, k+nb, c1-c0, ld-k-nb)); err != nil {
					return errKernel("update", err)
				}
				if err := phase(2); err != nil {
					return err
				}
				continue
			}
			if err := innerUpdate(eng, at, k, nb, cend, phase); err != nil {
				return err
			}
		}
		if err := outerUpdate(eng, at, k0, cend, work, guard, phase); err != nil {
			return err
		}
	}
	return nil
}

// applyLocal is lu_tapply's work-group size for block size nb: up to
// luSwapLocal items, as many as the kernel allows and its local memory
// (a triangle of nb x nb doubles, a tile of nb+1 doubles and an int per
// item) fits; 0 where not even one item fits.
func applyLocal(dev *kernels.Device, apply *kernels.Kernel, nb int) int {
	al := floorPow2(min(luSwapLocal, apply.MaxWorkGroupSize()))
	fixed := int64(8*nb*nb + 28*nb + 1024)
	for al > 0 && fixed+int64(al*(8*(nb+1)+4)) > dev.Info().LocalMemBytes {
		al /= 2
	}
	return al
}

// launchApply enqueues lu_tapply for the panel at column k of the outer
// block ending at cend, with al items per group: the column groups first,
// then the row groups of rows k..ld-1.
func launchApply(apply *kernels.Kernel, al, ld, nb, k, cend int, a, ipiv, f, s *kernels.Buffer) error {
	gc := (ld - nb + al - 1) / al
	gr := (ld - k + al - 1) / al
	if err := apply.Launch([]int{(gc + gr) * al}, []int{al}, ld, k, cend, gc, a, ipiv, f, s,
		kernels.Local(8*nb*nb), kernels.Local(8*al*(nb+1)), kernels.Local(4*al)); err != nil {
		return errKernel("lu_tapply", err)
	}
	return nil
}

// fuseUpdate reports whether a panel's update inside the outer block is
// split (OCLSOLVE_LU_FUSE=off: not, for benchmarks): a GEMM launch after
// lu_tapply updates the next panel's columns only, and tile groups in the
// next panel's launch of lu_tsel, beside its tournament, the columns right
// of it (tsel_update_tiles in lu_tournament.cl). The tournament occupies a
// compute unit per leaf (at most 16 at order 8192) for 30-100 us, so the
// rest of the device has room for the bulk of the update there.
//
// Measured on an H100 (2026-11-23, bench dense --ops lu, best of 5, two
// calls, against OCLSOLVE_LU_FUSE=off in the same calls): n = 2047
// 5.21-5.24 ms against 5.93-5.96, 3000 10.07-10.16 against 10.25-10.26,
// 4096 15.06-15.17 against 15.56-15.66, 8192 45.24-45.54 against
// 47.12-47.48. OCLSOLVE_PROFILE: the launch of lu_tsel as long as without
// the tiles (55 / 80 us a launch at 2047 / 8192), the GEMM of the next
// panel's 32 columns 10-11 us (the whole update took 20). Doing the next
// panel's columns too in the launch, by its leaves before their column
// steps (each item its rows: v -= L21[r, p] U12[p, .] for p in order, U12
// staged in local memory), was built and measured slower (code not kept
// on main): the leaves spent 18 us (one row per item, order 2048) to 28-34
// us (two, 8192) there instead of the 2-4 us of their multiply-adds, so
// that n = 2047 took 5.55-5.62 ms with both parts fused and 6.73-6.76 with
// the leaves' part alone, 8192 48.4-48.6 and 52.3.
func fuseUpdate() bool { return os.Getenv("OCLSOLVE_LU_FUSE") != "off" }

// tileGroups, when positive, caps the tile groups of a fused launch
// (tests: several tiles per group); 0 takes one per compute unit that the
// leaves leave.
var tileGroups = 0

// tselRows, when not 0, overrides the device's lu_tsel rows per item: 1
// or 2 for every panel, -1 the per-panel choice of a GPU (panelRows) on
// any device. Tests run each.
var tselRows = 0

// rowsOverride is tselRows, else OCLSOLVE_LU_ROWS (1 or 2, for
// benchmarks), else 0. Two rows per item this way skip tournamentRows's
// register bound (at 64 columns per panel, 128 doubles an item: spills);
// the factors stay right. The variable's two apply on GPUs only.
func rowsOverride() int {
	if tselRows != 0 {
		return tselRows
	}
	switch os.Getenv("OCLSOLVE_LU_ROWS") {
	case "1":
		return 1
	case "2":
		return 2
	}
	return 0
}

// tournamentRows is the most candidate rows each lu_tsel work-item holds
// for block size nb and work-group size tl: two on a GPU where the rows
// stay within tournamentLocal's register bound (16384 doubles per group),
// one on a CPU (PoCL), where the rows live in memory anyway. With two the
// program has both kernels, lu_tsel and lu_tsel2, and panelRows chooses.
func tournamentRows(dev *kernels.Device, nb, tl int) int {
	switch r := rowsOverride(); {
	case r == 1:
		return 1
	case tselRows == 2 || tselRows == -1:
		return 2
	case r == 2 && isGPU(dev):
		// OCLSOLVE_LU_ROWS=2 on GPUs only: PoCL crashed (SIGSEGV) on two
		// rows per item forced with 64 columns per panel (2026-11-23,
		// tselRows -1 in a test; at main dbb539a too).
		return 2
	}
	if isGPU(dev) && 2*tl*nb <= 16384 {
		return 2
	}
	return 1
}

// panelRows is the rows per item for the tournament over m rows when up
// to maxRows are possible: two (leaves of 2*tl rows, nodes of 2*tl/nb
// children) only where that makes the tree shorter, since a node with two
// rows per item costs more. Measured on an H100 (2026-11-23, kernel time
// of lu_tsel per factorization, the serial scan of the warps' winners):
// one row per item 4.66 ms at n = 2047 (two levels per panel above 256
// rows; 36.5 us a node), two 5.34 ms (42 us a node; a level less only for
// 257..512 rows); at n = 8192 26.1 against 25.2 ms (three levels above
// 2048 rows against two). This choice was not measured as a whole: from
// the nodes' times it should take about 0.6 ms off two rows per item
// everywhere at n = 2047 and change little at 8192.
func panelRows(m, nb, tl, maxRows int) int {
	switch {
	case maxRows < 2:
		return 1
	case rowsOverride() == 2 || tselLevels(m, nb, 2*tl) < tselLevels(m, nb, tl):
		return 2
	}
	return 1
}

// tselLevels is the number of node levels of lu_tsel's tree over m rows
// with leaves of rl rows.
func tselLevels(m, nb, rl int) int {
	l := 1
	for g := (m + rl - 1) / rl; g > 1; g = (g*nb + rl/nb*nb - 1) / (rl / nb * nb) {
		l++
	}
	return l
}

// tselKernel is the name of lu_tsel with rpi rows per item.
func tselKernel(rpi int) string {
	if rpi == 1 {
		return "lu_tsel"
	}
	return fmt.Sprintf("lu_tsel%d", rpi)
}

// tselReduction is how lu_tsel's column steps reduce the group's
// candidates to the step's pivot.
type tselReduction int

const (
	// tselLocal is the portable reduction through local memory (four
	// barriers a step).
	tselLocal tselReduction = iota
	// tselShuffle is warp_argmax's butterfly of shuffles per warp and
	// tselScan's over the warps' results (NVIDIA; one barrier a step).
	tselShuffle
	// tselRedux is tselShuffle with warp_winner's redux.sync and
	// vote.sync in place of both butterflies (NVIDIA compute capability
	// 8.0 and later, lu.go's warpRedux): the same pivots. Measured on an
	// H100 (2026-11-23, this code, same call, OCLSOLVE_LU_REDUX=off
	// against on; bench dense --ops lu, best of 5; outer blocks of that
	// time: 256 columns at 2047): n = 2047 7.19 ->
	// 6.43 ms (factor 6.86 -> 6.09), n = 8192 51.03 -> 47.63 ms (factor
	// 50.03 -> 46.67), backward errors 1.7e-15 / 7.7e-15 in both.
	// OCLSOLVE_PROFILE=1 (per two factorizations, against main b094e72
	// in the previous call): lu_tsel at 2047 69.8 -> 55.3 us a launch
	// (7.82 -> 6.19 ms), lu_tsel2 at 8192 97.9 -> 80.9 us (39.2 -> 32.3
	// ms), about 1.5 -> 1.26 us per column step.
	tselRedux
)

// tselSource writes the kernel lu_tsel for block size nb and work-group
// size tl (see lu_tournament.cl): the whole tournament of one panel in one
// launch. Each work-item holds rpi candidate rows in the scalars
// v<i>_0..v<i>_(nb-1) and a node runs partial pivoting on the group's
// rows, its nb column steps written out one after the other (no loop for
// a compiler to unroll or not).
//
// The launch has one group per leaf: leaf g takes the rows k+e, e = g*RL ..
// g*RL+RL-1 (RL = TL*RPI, e < N-k). A node of the next level takes the
// candidates of C = RL/NB consecutive nodes (PER = C*NB entries, -1 where
// a child ran out of rows) and reads their rows again from A. A group that
// has finished a node writes its NB picks to cand (one region per level),
// and the last of a parent's children to finish (a counter per parent in
// cnt, incremented after a global fence) goes on to the parent; the others
// end. No group ever waits for another, so this needs no co-residency of
// groups; the tree and hence the pivots are those of one launch per level.
// The last arriver sets the counter back to 0 for the next panel's launch
// (cnt is zeroed once per factorization).
//
// A step reads the pivot row's columns j..NB-1 from local memory once, as
// pairs of doubles (ld.shared.v2.f64; the rows are 16-byte aligned, NBP
// doubles apart), before the elimination of every row of the item (the
// compiler had read each value again for each row, one scalar load per
// multiply-add). With the shuffles each item also takes one reciprocal,
// of its best row, instead of one per row. Measured on an H100
// (2026-11-23, with tselShuffle: OCLSOLVE_LU_REDUX=off): 7.19-7.36 /
// 51.03-51.61 ms in two calls against main b094e72's 7.29 / 51.92 in the
// first (bench dense --ops lu, n = 2047 / 8192), no clear effect alone;
// kept with warp_winner, with which it was measured.
//
// Register pressure is not what holds a step. ptxas (-cl-nv-verbose, with
// tselRedux; TestLUBuildLog prints it) gives lu_tsel 255 registers without
// spills and lu_tsel2 255 with 180 bytes spilled. Two steps that keep the
// pivot row out of the registers across the item's rows were built
// (code not kept on main): the multipliers scaled (or
// divided) in place, then one written-out update per row in which each
// pair of the pivot row is read from local memory at its point of use
// ("rows"), or each pair read once and applied to both rows before the
// next ("pairs"). "rows" took lu_tsel2 to 254 registers without spills and
// lu_tsel to 234, and was no faster; "pairs" spilled 240 bytes at 255 and
// was slower. H100, 2026-11-23, one call against main 1f813b8, bench dense
// --ops lu, best of 5, n = 2047 / 8192: main 6.071 / 47.667 ms, rows
// 5.995 / 48.124, pairs 6.016 / 50.274 (backward errors 1.9e-15 / 7.7e-15
// in all); OCLSOLVE_PROFILE, mean per launch, main / rows / pairs:
// lu_tsel2 at 8192 80.7 / 82.0 / 92.6 us, lu_tsel at 2047 55.8 / 55.4 /
// 55.1 us. Removing the spills did not shorten the step; what it is made
// of (the chain from the barrier: the warps' reduction, the pivot row's
// loads, the multipliers, column j+1's update, the next reduction and
// reciprocal) was not measured apart.
//
// A step's multipliers are v * (1/d) for the pivot d (v / d where |d| is
// subnormal, whose reciprocal overflows), as LAPACK's dgetf2 scales by the
// reciprocal where |d| >= sfmin: with shuffles each item computes the
// reciprocal of its best row's value beside the warp's reduction and the
// warp's winner leaves it with its row, so that no division follows the
// step's barrier. It rounds the multipliers differently from v / d by at
// most an ulp (both paths,
// shuffles or not, compute the same); the partial-pivoting panel (lu.cl)
// still divides. Measured on an H100 (2026-11-23) with no clear effect
// alone (one row per item, lu_tsel per factorization at n = 2047 / 8192:
// 4.81 / 27.1 ms with the division, 4.73 / 27.3 with the reciprocal);
// kept with the shuffle scan that it was measured with (tselScan).
//
// The root writes the pivot rows to pivrow[k..], LAPACK's exchanges to
// ipiv[k..], the factors of the pivot rows to F (NB x NB, L\U row-major)
// and A's rows k..k+NB-1 of the panel to S; a pivot of magnitude at most
// tol records its column in status. When every remaining row is zero in a
// column, the row with the smallest index is picked and nothing is
// eliminated, as LAPACK does.
//
// With shuffles (red tselShuffle or tselRedux: NVIDIA, TL a multiple of
// 32; lu.go's warpShuffle) a column step has one barrier: each warp finds
// its best row (warp_argmax in lu.cl, or warp_winner with tselRedux), the
// warp's winner leaves its row beside the warp's (value, row), and after
// the barrier every item reduces the TL/32
// warps' results and reads the winning row from its warp's slot. The
// slots alternate between two sets by column, so that a step's writes
// never meet the previous step's reads (the barrier between them is the
// intermediate step's). Without it a step has four barriers (tsel_argmax's
// two rounds and the pivot row's broadcast).
func tselSource(nb, tl, rpi int, red tselReduction) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	raw := func(text string) { b.WriteString(text) }
	shfl := red != tselLocal
	rl := tl * rpi
	nw := tl / 32
	w("#define RPI %d\n#define RL %d\n#define PER %d\n#define FAN %d\n#define NBP %d\n", rpi, rl, rl/nb*nb, rl/nb, (nb+1)/2*2)
	if tselClock {
		w("#ifndef TSEL_CLK\n#define TSEL_CLKS %d\n#define TSEL_CLK_K %d\n", tselClocks(nb), tselClockK)
		raw(`#define TSEL_CLK(i) do { if (g == 0 && t == 0 && k == TSEL_CLK_K) { long c_; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_)); clk[lvl * TSEL_CLKS + (i)] = c_; } } while (0)
#endif
`)
	}
	raw(`__kernel __attribute__((reqd_work_group_size(TL, 1, 1)))
void ` + tselKernel(rpi) + `(const int N, const int k, __global double *A, __global int *cand, __global int *cnt,
             __global int *pivrow, __global int *ipiv, __global double *F, __global double *S,
             __global int *status, const double tol, const int upd, const int cend` + tselClockParam() + `) {
`)
	if shfl {
		w("#define NW %d\n", nw)
		raw(`	__local double wbest[2 * NW];
	__local int widx[2 * NW];
	__local double2 wrow2[NW * NBP];
	__local double *const wrow = (__local double *)wrow2;
	__local const double *ur;
	const int lane = get_local_id(0) & 31, wp = get_local_id(0) >> 5, wslot = lane % NW;
	int slot;
	double pv, rc;
`)
		raw("\t__local double wrc[2 * NW];\n")
	} else {
		raw(`	__local double rv[TL];
	__local int ri[TL];
	__local double pv[TPARTS];
	__local int px[TPARTS];
	__local double2 urow2[(NB + 1) / 2];
	__local const double *ur = (__local const double *)urow2;
`)
		raw("\t__local double urc;\n")
	}
	raw(`	__local int sel[NB];
	__local double selv[NB];
	__local int go;
	const int t = get_local_id(0);
	int g = get_group_id(0), nin = N - k, G = (nin + RL - 1) / RL, R = RL;
	int inOff = -1, outOff = 0, cntOff = 0, more = 1, lvl = 0;
	double best, d, m, rd;
	int prow, r;
	// The tile groups' slices of the fused update (lu_tournament.cl).
	__local double2 ubuf2[(UBUF + 1) / 2];
	__local double *const ubuf = (__local double *)ubuf2;
	if (g >= G) {
		if (upd)
			tsel_update_tiles(N, k, cend, A, ubuf, g - G, get_num_groups(0) - G, t);
	} else
	while (more) {
`)
	for i := 0; i < rpi; i++ {
		w("\tint row%d = -1;\n", i)
		w("\tif (t + %d < R && g * R + t + %d < nin)\n", i*tl, i*tl)
		w("\t\trow%d = inOff < 0 ? k + g * R + t + %d : ((volatile __global const int *)cand)[inOff + g * R + t + %d];\n", i, i*tl, i*tl)
		w("\tconst int on%d = row%d >= 0;\n", i, i)
		w("\tconst size_t base%d = on%d ? IDX(row%d, k) : 0;\n", i, i, i)
		w("\tint won%d = -1;\n", i)
		for q := 0; q < nb; q++ {
			w("\tdouble v%d_%d = on%d ? A[base%d + %d] : 0.0;\n", i, q, i, i, q)
		}
		// The leaf of rows k..k+NB-1 keeps them, as A holds them, in S for
		// lu_tapply (rows that the exchanges move out of the block). The
		// root copied them from A after its last step, and one item wrote
		// pivrow and ipiv from global memory: its last step to its picks
		// written took 17,500 cycles on an H100 (TestTselClock, n = 2047,
		// 2026-11-23), 11,000 with S written here, pivrow by NB items and
		// the exchanges from local memory (chosen_to_exchanges in lu.cl).
		w("\tif (inOff < 0 && on%d && row%d < k + NB) {\n", i, i)
		for q := 0; q < nb; q++ {
			w("\t\tS[(row%d - k) * NB + %d] = v%d_%d;\n", i, q, i, q)
		}
		w("\t}\n")
	}
	clk := func(j, p int) {
		if tselClock {
			w("\tTSEL_CLK(%d);\n", j*4+p)
		}
	}
	if tselClock {
		// The loads' values must be in before the node's first clock.
		w("\tif (g == 0 && t == 0 && k == TSEL_CLK_K && v0_0 == 1e300) clk[0] = 0;\n")
		w("\tTSEL_CLK(%d);\n", nb*4)
	}
	live := func(i int) string { return fmt.Sprintf("(on%d && won%d < 0)", i, i) }
	// The column steps are written out. A loop over them (one step as its
	// body, the rows rotated through the registers so that every index
	// stays constant: ~1,200 PTX lines instead of 13,700) was measured
	// slower on an H100 (2026-11-23, main 91f1a2e, bench dense --ops lu,
	// best of 5, n = 2047 / 8192: 7.16 / 51.47 ms written out, 8.57 / 60.05
	// ms in a loop; lu_tsel2 per launch at 8192 96.7 against 134.2 us): the
	// code's length does not seem to be what holds a step at ~1.1 us.
	for j := 0; j < nb; j++ {
		w("\t// column %d\n", j)
		last := j == nb-1
		clk(j, 0)
		// The item's best row (and, with shuffles, its value pv).
		for i := 0; i < rpi; i++ {
			w("\tm = %s ? magnitude(v%d_%d) : -1.0;\n\tr = %s ? row%d : -1;\n", live(i), i, j, live(i), i)
			if i == 0 {
				w("\tbest = m;\n\tprow = r;\n")
				if shfl && !last {
					w("\tpv = v0_%d;\n", j)
				}
				continue
			}
			w("\tif (better(m, r, best, prow)) {\n\t\tbest = m;\n\t\tprow = r;\n")
			if shfl && !last {
				w("\t\tpv = v%d_%d;\n", i, j)
			}
			w("\t}\n")
		}
		if shfl {
			set := j & 1
			if !last {
				// The item's best row's reciprocal, before the reduction:
				// the winner's is then ready at the barrier.
				w("\trc = 1.0 / pv;\n")
			}
			if red == tselRedux {
				// The warp's winner writes its slot; no other lane needs
				// the warp's best.
				w("\tif (lane == warp_winner(best, prow)) {\n")
				w("\t\twbest[%d * NW + wp] = best;\n\t\twidx[%d * NW + wp] = prow;\n", set, set)
				if !last {
					w("\t\twrc[%d * NW + wp] = rc;\n", set)
					tselWriteRow(w, rpi, nb, j, live, fmt.Sprintf("wrow + (%d * NW + wp) * NBP", set), "prow")
				}
				w("\t}\n")
			} else {
				w("\twarp_argmax(&best, &prow);\n")
				w("\tif (lane == 0) {\n\t\twbest[%d * NW + wp] = best;\n\t\twidx[%d * NW + wp] = prow;\n\t}\n", set, set)
				if !last {
					w("\tif (prow >= 0 && (%s)) {\n", tselWinner(rpi, live))
					w("\t\twrc[%d * NW + wp] = rc;\n", set)
					tselWriteRow(w, rpi, nb, j, live, fmt.Sprintf("wrow + (%d * NW + wp) * NBP", set), "prow")
					w("\t}\n")
				}
			}
			clk(j, 1)
			w("\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
			clk(j, 2)
			if red == tselRedux {
				tselScanRedux(w, set, nw)
			} else {
				tselScan(w, set, nw)
			}
			clk(j, 3)
			for i := 0; i < rpi; i++ {
				w("\tif (%s && row%d == prow)\n\t\twon%d = %d;\n", live(i), i, i, j)
			}
			w("\tif (t == 0) {\n\t\tsel[%d] = prow;\n\t\tselv[%d] = best;\n\t}\n", j, j)
			if last {
				continue
			}
			w("\tur = wrow + (%d * NW + slot) * NBP;\n", set)
			w("\trd = wrc[%d * NW + slot];\n", set)
		} else {
			w("\trv[t] = best;\n\tri[t] = prow;\n")
			w("\ttsel_argmax(t, rv, ri, pv, px, &best, &prow);\n")
			for i := 0; i < rpi; i++ {
				w("\tif (%s && row%d == prow) {\n\t\twon%d = %d;\n", live(i), i, i, j)
				if !last {
					for q := j; q < nb; q++ {
						w("\t\turow2[%d].s%d = v%d_%d;\n", q/2, q%2, i, q)
					}
					w("\t\turc = 1.0 / v%d_%d;\n", i, j)
				}
				w("\t}\n")
			}
			w("\tif (t == 0) {\n\t\tsel[%d] = prow;\n\t\tselv[%d] = best;\n\t}\n", j, j)
			w("\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
			if last {
				continue // the last column has nothing right of it to update
			}
			w("\trd = urc;\n")
		}
		// The pivot row right of the step, read once for every row.
		w("\t{\n")
		for q := j / 2 * 2; q < nb; q += 2 {
			if q+1 < nb {
				w("\tconst double2 u%d = ((__local const double2 *)ur)[%d];\n", q/2, q/2)
			} else {
				w("\tconst double2 u%d = (double2)(ur[%d], 0.0);\n", q/2, q)
			}
		}
		w("\td = prow >= 0 ? %s : 0.0;\n", tselU(j))
		tselEliminate(w, rpi, nb, j, live)
		w("\t}\n")
	}
	if shfl {
		// The last column's picks (sel, selv) are written after the step's
		// barrier: one more before other items read them.
		raw("\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
	}
	raw(`	if (G == 1) {
		// The root: a picked row holds multipliers left of its step and U
		// from it on, row won of L11\U11.
`)
	for i := 0; i < rpi; i++ {
		w("\t\tif (won%d >= 0) {\n", i)
		for q := 0; q < nb; q++ {
			w("\t\t\tF[won%d * NB + %d] = v%d_%d;\n", i, q, i, q)
		}
		w("\t\t}\n")
	}
	raw(`		for (int j = t; j < NB; j += TL) {
			pivrow[k + j] = sel[j];
			if (!(selv[j] > tol))
				atomic_min(status, k + j);
		}
		if (t == 0) {
			int chosen[NB];
			for (int j = 0; j < NB; ++j)
				chosen[j] = sel[j];
			chosen_to_exchanges(k, chosen, ipiv);
		}
	} else {
		for (int j = t; j < NB; j += TL)
			cand[outOff + g * NB + j] = sel[j];
		device_fence();
	}
	barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
` + tselClockLine(nb*4+1) + `	if (t == 0) {
		int last = 0;
		if (G > 1) {
			const int parent = g / FAN;
			device_fence();
			last = atomic_inc(cnt + cntOff + parent) == min(FAN, G - parent * FAN) - 1;
			if (last)
				atomic_xchg(cnt + cntOff + parent, 0); // every child has arrived: ready for the next panel
			device_fence();
		}
		go = last;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	// (No return in the loop: PoCL miscompiles one between barriers, even
	// a uniform one; the loop's condition is the same in every item.)
	more = go;
	inOff = outOff;
	outOff += G * NB;
	cntOff += (G + FAN - 1) / FAN;
	nin = G * NB;
	g /= FAN;
	G = (nin + PER - 1) / PER;
	R = PER;
	++lvl;
	}
`)
	if shfl {
		raw("#undef NW\n")
	}
	raw("}\n#undef RPI\n#undef RL\n#undef PER\n#undef FAN\n#undef NBP\n")
	return b.String()
}

// tselClock makes tselSource instrument its kernels for TestTselClock
// (NVIDIA only: PTX's %clock64): a last argument clk receives, for the
// panel at column tselClockK and group 0 of each level l, the compute
// unit's cycle counter read by item 0 at clk[l*TSEL_CLKS + 4*j + p] in
// column step j, p = 0 at the step's start, 1 before its barrier, 2 after
// it, 3 after the reduction of the warps' results; at 4*NB once the
// node's rows are loaded and at 4*NB+1 after the node's picks are
// written.
var tselClock = false

// tselClockK is the panel (its first column) whose launch tselClock
// records.
var tselClockK = 0

// tselClockBuf is the clk argument under tselClock.
var tselClockBuf *kernels.Buffer

// tselClocks is the number of clock slots per level (TSEL_CLKS).
func tselClocks(nb int) int { return 4*nb + 2 }

func tselClockParam() string {
	if !tselClock {
		return ""
	}
	return ",\n             __global long *clk"
}

func tselClockLine(slot int) string {
	if !tselClock {
		return ""
	}
	return fmt.Sprintf("\tTSEL_CLK(%d);\n", slot)
}

// tselU is the value of the pivot row's column q that a step reads: the
// element of the pair u<q/2> that the step loads from ur.
func tselU(q int) string {
	return fmt.Sprintf("u%d.s%d", q/2, q%2)
}

// tselWinner is the condition that one of an item's rows is its best
// (prow), as the shuffle path writes it.
func tselWinner(rpi int, live func(int) string) string {
	c := make([]string, rpi)
	for i := range c {
		c[i] = fmt.Sprintf("(%s && row%d == %s)", live(i), i, "prow")
	}
	return strings.Join(c, " || ")
}

// tselWriteRow writes, for the item whose row prow is live, that row's
// columns j..NB-1 to the local row at dst (16-byte aligned): as pairs of
// doubles (one vector store each, the pair at j-1 included where j is
// odd: its first value is never read), the last alone where NB is odd.
func tselWriteRow(w func(string, ...any), rpi, nb, j int, live func(int) string, dst, prow string) {
	for i := 0; i < rpi; i++ {
		els := ""
		if i > 0 {
			els = "else "
		}
		w("\t\t%sif (%s && row%d == %s) {\n", els, live(i), i, prow)
		for q := j / 2 * 2; q < nb; q += 2 {
			if q+1 < nb {
				w("\t\t\t((__local double2 *)(%s))[%d] = (double2)(v%d_%d, v%d_%d);\n", dst, q/2, i, q, i, q+1)
			} else {
				w("\t\t\t(%s)[%d] = v%d_%d;\n", dst, q, i, q)
			}
		}
		w("\t\t}\n")
	}
}

// tselEliminate writes a column step's elimination of the rows not yet
// picked, for a nonzero pivot d: the multipliers v * rd (rd the pivot's
// reciprocal), or v / d where |d| is subnormal (its reciprocal
// overflows), then the rank-1 update of the columns right of j from the
// pivot row's values (tselU) that the step loaded once for all of the
// item's rows.
//
// The update is written once, after a branch that only recomputes the
// multipliers by division where the pivot is subnormal (the branch is the
// same in every item); before, each path had its own copy of the update,
// the step's code twice over. The kernel is straight-line code, each
// instruction run once per node, and TestTselClock found on an H100
// (2026-11-23) that steps wait for their instructions: the leaves of a
// panel whose trailing update had just streamed the matrix through L2
// took 2,600-3,400 cycles a step (two rows per item; the first panel, its
// code never fetched before, 3,000-3,400) where the root right after them
// took 1,750-1,950, and so did leaves at orders whose updates left the
// code in L2 (1,024 and 4,096); one row per item, 1,650-1,800 at the
// first panel against 1,250-1,380. Writing the update once took lu_tsel2
// from 81.1 to 78.7 us a launch at n = 8192 (OCLSOLVE_PROFILE); with the
// root's shorter tail (tselSource) LU + solve went from 5.87-5.88 to
// 5.75-5.76 ms at 2047 and from 47.54-47.71 to 47.11-47.24 at 8192 (bench
// dense --ops lu, best of 5, two runs in one call). A step reordered so
// that column j+1's update, the next step's reduction and then the rest
// of the update follow one another (the reduction's latency behind the
// multiply-adds) was measured no faster (code not kept on main: clock
// parts of a step unchanged; 5.77-5.85 / 47.19-47.75 ms against
// 5.77-5.83 / 47.19-47.47 in the same call).
func tselEliminate(w func(string, ...any), rpi, nb, j int, live func(int) string) {
	w("\tif (d != 0.0) {\n")
	for i := 0; i < rpi; i++ {
		w("\t\tdouble l%d = v%d_%d * rd;\n", i, i, j)
	}
	w("\t\tif (fabs(d) < DBL_MIN) {\n")
	for i := 0; i < rpi; i++ {
		w("\t\t\tl%d = v%d_%d / d;\n", i, i, j)
	}
	w("\t\t}\n")
	for i := 0; i < rpi; i++ {
		w("\t\tif (%s) {\n\t\t\tv%d_%d = l%d;\n", live(i), i, j, i)
		for q := j + 1; q < nb; q++ {
			w("\t\t\tv%d_%d -= l%d * %s;\n", i, q, i, tselU(q))
		}
		w("\t\t}\n")
	}
	w("\t}\n")
}

// tselScanRedux is tselScan by warp_winner: lane l < NW takes warp l's
// result and the others none (row -1: only where every warp has none do
// lanes tie and take warp_winner's third reduction, which a lane l % NW
// would take at every step, each warp's result in several lanes),
// warp_winner finds the lane of the best, and every lane reads that
// warp's (best, prow) again (slot is uniform, so one broadcast read,
// beside the pivot row's).
func tselScanRedux(w func(string, ...any), set, nw int) {
	if nw == 1 {
		w("\tbest = wbest[%d];\n\tprow = widx[%d];\n\tslot = 0;\n", set, set)
		return
	}
	w("\tslot = warp_winner(lane < NW ? wbest[%d * NW + wslot] : -1.0, lane < NW ? widx[%d * NW + wslot] : -1);\n", set, set)
	w("\tbest = wbest[%d * NW + slot];\n\tprow = widx[%d * NW + slot];\n", set, set)
}

// tselScan writes the reduction of the nw warps' winners of slot set set
// after a column step's barrier into best, prow and slot (the winner's
// warp): lane l takes warp l % NW's result, then a butterfly of shuffles
// over NW lanes (log2 NW rounds; NW is a power of two) leaves every lane
// the best. better() orders (value, row) totally, so this picks the
// winner of a serial scan (kept where there is one warp). Measured on an
// H100 (2026-11-23, two rows per item, profile of lu_tsel per
// factorization, with the reciprocal): n = 2047 4.91 ms against 5.36
// with a pairwise tree in registers (and 5.34 with the serial loop over
// local memory, without the reciprocal); n = 8192 23.6 against 25.9
// (25.2).
func tselScan(w func(string, ...any), set, nw int) {
	if nw == 1 {
		w("\tbest = wbest[%d];\n\tprow = widx[%d];\n\tslot = 0;\n", set, set)
		return
	}
	w("\tslot = lane %% NW;\n\tbest = wbest[%d * NW + slot];\n\tprow = widx[%d * NW + slot];\n", set, set)
	w("\tfor (int mk = NW / 2; mk > 0; mk >>= 1) {\n")
	w("\t\tconst uint2 u = as_uint2(best);\n")
	w("\t\tconst double ob = as_double((uint2)(shfl_bfly(u.x, mk), shfl_bfly(u.y, mk)));\n")
	w("\t\tconst int oi = (int)shfl_bfly((uint)prow, mk), os = (int)shfl_bfly((uint)slot, mk);\n")
	w("\t\tif (better(ob, oi, best, prow)) {\n\t\t\tbest = ob;\n\t\t\tprow = oi;\n\t\t\tslot = os;\n\t\t}\n\t}\n")
}
