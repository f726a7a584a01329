package gauss

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

//go:embed lu.cl
var luSource string

// DefaultBlockSize is the blocked LU's panel width on a GPU when
// LU.BlockSize is 0.
const DefaultBlockSize = 64

// On a GPU the blocked LU factorizes by default with tournament pivoting in
// panels of smallBlockSize columns (partial pivoting, when asked for, in
// panels of DefaultBlockSize), as one outer block up to order
// gpuOneBlockOrder and in outer blocks of 512 columns above (outerBlock).
// Above gpuSmallOrder the default is the tournament only where its pivot
// reductions use warp shuffles (NVIDIA), partial pivoting elsewhere
// (autoPivoting): the figures below. Measured on an H100
// (2026-11-23, one run, factorization + solve, with the warp-shuffle
// reductions, before the column-oriented solves of lu_swap_trsm and
// lu_tapply): n = 2047 tournament 32 columns 11.0 ms, tournament 64
// 12.9, partial 64 17.5, partial 32 17.7; n = 8192 tournament 32 73.7 ms,
// tournament 64 85.1, partial 64 92.3, partial 32 95.3. Before the
// shuffles partial pivoting was faster at 8192 (92.4 against tournament
// 32's 95.6), hence the earlier choice of partial pivoting above 4096.
// Outer blocks, tournament 32, factorization only (a later run): n = 2048
// 128 / 256 / 512 columns 9.10 / 9.18 / 9.04 ms (no difference); n = 8192
// 73.4 / 68.8 / 68.1 ms.
const (
	gpuSmallOrder  = 4096
	smallBlockSize = 32
)

// cpuBlockSize is the default panel width on other devices (PoCL on the
// host CPU), where narrow panels compile much faster and lose nothing.
const cpuBlockSize = 16

func isGPU(dev *kernels.Device) bool {
	return strings.Contains(strings.ToUpper(dev.Info().Type), "GPU")
}

// Shape of the panel launch: luPanelLocal work-items per group, up to
// luPanelGroupsPerCU groups per compute unit and luPanelMaxGroups in all,
// each owning at least luPanelRowsPerGroup rows. The groups meet at a
// grid-wide barrier after every column, whose cost grows with their
// number: on an H100, 64 groups (n = 2047) took under 8 us per column,
// 256 groups (n = 8192) about 13 us, more than the work they share.
// Variables only so that a benchmark can compare.
var (
	luPanelLocal        = 256
	luPanelGroupsPerCU  = 2
	luPanelMaxGroups    = 64
	luPanelRowsPerGroup = 32
	// luPanelUseLocal picks lu_panel_local (the panel's rows in local
	// memory) wherever its groups can hold the panel; false keeps lu_panel.
	// On an H100 (LU + solve, one run): n = 8192 165.5 -> 137.8 ms (the
	// factorization 148.8 -> 121.0 ms); n = 2047 unchanged at 20.3 ms
	// (factorization 16.2 ms, about 8 us per column with 24 groups): there
	// the grid-wide barrier and the step's own barriers bound each column,
	// not the panel's memory traffic, so a faster panel needs fewer
	// barriers per column (a single-group leaf, registers), not less data.
	luPanelUseLocal = true
)

// Two other panels were measured on an H100 and dropped (2026-11-23):
// one work-item per row with the row in registers and per-group step
// flags instead of the grid-wide counter: no faster (n = 2047 factor
// 16.9 ms against 16.3; and wrong from 32 groups on, a visibility race
// not found), so the hand-over between groups, not the
// panel's arithmetic or memory, costs the ~8 us per column; and the whole
// panel in one work-group in global memory (leaves of 8 columns, no
// grid-wide barrier at all): twice as slow at n = 2047 (33.0 ms) and four
// times at 8192 (498 ms against 120), so a column step with
// barrier(CLK_GLOBAL_MEM_FENCE) in one group costs even more there. A
// faster panel needs fewer global-memory fences per column, not fewer
// groups.

// Work-group sizes of the other blocked LU kernels.
const (
	luSwapLocal = 64 // columns per work-group of the exchange + triangular solve
)

// LU is the LU factorization P A = L U of a square matrix, computed and kept
// on an OpenCL device by a blocked right-looking algorithm with partial
// pivoting. The zero value is ready for Factorize; set BlockSize and NoPivot
// before it to change the defaults. Release frees the device memory.
type LU struct {
	// BlockSize is the panel width: a multiple of 16 whose square of
	// doubles fits the device's local memory. Zero means 16 on a CPU and
	// on a GPU 32 for tournament pivoting, DefaultBlockSize otherwise.
	BlockSize int
	// NoPivot disables row exchanges: a zero pivot then fails with
	// ErrSingular even for a regular matrix.
	NoPivot bool
	// Pivoting chooses how the pivots are found when NoPivot is false:
	// PivotingAuto (the zero value) takes tournament pivoting on a GPU
	// (above order 4096 only with NVIDIA's warp shuffles) and partial
	// pivoting elsewhere.
	Pivoting Pivoting
	// SolveTile, when positive, makes the triangular solves tiled: that
	// many rows per pair of launches (a tile solved in one work-group, then
	// a GEMV update). Zero (the default) solves both triangles in a single
	// launch whose work-groups hand their blocks of unknowns on through
	// flags and multiply by their diagonal block's inverse (lu_trsv.cl).
	SolveTile int

	// mu serializes the solves, which share the device scratch in solver
	// (made by the first solve after Factorize, freed by Release).
	mu     sync.Mutex
	solver *luSolver
	// subst makes the solves substitute (the tiled solve) where SolveTile
	// is zero: set when the chained solve's guard found an inverted
	// diagonal block too ill-conditioned (lu_trsv.go), until the next
	// Factorize.
	subst bool

	dev  *kernels.Device
	prog *kernels.Program
	n    int // order of the matrix
	ld   int // padded order: a multiple of the block size
	nb   int
	a    *kernels.Buffer // L (unit, below the diagonal) and U, row-major, ld x ld
	ipiv []int32
	tour bool    // the pivots came from the tournament
	tol  float64 // pivots of at most this magnitude count as zero
	// invMax is the largest entry of the outer blocks' inverses in the
	// last Factorize (0: none were taken); refactored says that it
	// exceeded luInverseMax and the factors came from substitution.
	invMax     float64
	refactored bool

	// Times of the last Factorize: transfer to the device, then the
	// factorization including reading the pivots back, each without the
	// program builds in it, which compile collects (phaseClock).
	upload, factor, compile time.Duration
}

// Factorize computes the LU factorization of the square matrix a on dev,
// replacing any previous one. The matrix is padded on the device to a
// multiple of the block size with a multiple of the identity, which changes
// neither the factors nor the pivots of a. A zero pivot returns a *SingularError
// (ErrSingular) and leaves the receiver unusable until the next Factorize.
func (lu *LU) Factorize(dev *kernels.Device, a mat.Matrix) error {
	lu.Release()
	lu.invMax, lu.refactored = 0, false
	if dev == nil {
		return fmt.Errorf("%w: nil device", ErrVariant)
	}
	if a == nil {
		return fmt.Errorf("%w: nil matrix", ErrShape)
	}
	n, c := a.Dims()
	if n != c || n == 0 {
		return fmt.Errorf("%w: matrix is %dx%d, not square and non-empty", ErrShape, n, c)
	}
	nb := lu.BlockSize
	if nb == 0 {
		nb = DefaultBlockSize
		if !isGPU(dev) {
			nb = cpuBlockSize
		} else if !lu.NoPivot && (lu.Pivoting == PivotingTournament ||
			lu.Pivoting == PivotingAuto && autoPivoting(dev.Info(), n) == PivotingTournament) {
			nb = smallBlockSize
		}
	}
	if nb < 0 || nb%16 != 0 || int64(nb*nb*8) > dev.Info().LocalMemBytes-1024 {
		return fmt.Errorf("%w: block size %d (want a multiple of 16 whose square of doubles fits %s of local memory)",
			ErrVariant, nb, kernels.FormatBytes(dev.Info().LocalMemBytes))
	}
	clock := newPhaseClock(dev)
	prog, err := luProgram(dev, nb)
	if err != nil {
		return err
	}
	mode, err := lu.panelMode(dev, prog, nb, n)
	if err != nil {
		return err
	}
	ld := kernels.RoundUp(n, nb)
	host, amax := packMatrix(a, n, ld)
	if err := checkEntries(amax); err != nil {
		return err
	}
	tol := pivotTolerance(n, epsilon64, amax)
	buf, err := dev.Alloc(int64(8 * ld * ld))
	if err != nil {
		return err
	}
	if err := uploadMatrix(buf, host, n, ld, amax); err != nil {
		buf.Release()
		return err
	}
	host = nil
	status, err := newFactorStatus(dev)
	if err != nil {
		buf.Release()
		return err
	}
	defer status.Release()
	ipivBuf, err := dev.Alloc(int64(4 * ld))
	if err != nil {
		buf.Release()
		return err
	}
	defer ipivBuf.Release()
	// The chained solves' scratch is allocated with the matrix, so that
	// the driver's allocation is not the first solve's (lu_trsv.go).
	var solver *luSolver
	if solverAtFactorize && lu.SolveTile <= 0 {
		if solver, err = newSolver(dev, prog, ld, n, 1); err != nil {
			buf.Release()
			return err
		}
		defer func() {
			if lu.solver != solver { // Factorize failed
				solver.release()
			}
		}()
	}
	if err := dev.Finish(); err != nil {
		buf.Release()
		return err
	}
	upload := clock.lap()
	ipiv := make([]int32, ld)
	var word [2]int32
	refactored := false
	for subst := false; ; subst = true {
		if err := factorBlocked(dev, prog, buf, ipivBuf, status, status, ld, nb, mode, tol, subst, nil); err != nil {
			buf.Release()
			return err
		}
		if err := ipivBuf.Read(0, ipiv); err != nil {
			buf.Release()
			return err
		}
		// One read: the first zero pivot and the inverses' largest entry.
		if err := status.Read(0, word[:]); err != nil {
			buf.Release()
			return err
		}
		if !subst {
			lu.invMax = float64(math.Float32frombits(uint32(word[guardWord])))
		}
		if subst || lu.invMax <= luInverseMax { // a NaN in W goes on
			break
		}
		// An outer block's L11 was too ill-conditioned for its inverse
		// (luInverseMax): the factors may be far off, and so may a zero
		// pivot reported after it. Again from the matrix, by substitution.
		refactored = true
		host, _ = packMatrix(a, n, ld)
		err := uploadMatrix(buf, host, n, ld, amax)
		host = nil
		if err == nil {
			err = status.Write(0, []int32{noSingular, 0})
		}
		if err != nil {
			buf.Release()
			return err
		}
	}
	if word[0] != noSingular {
		buf.Release()
		return &SingularError{Pivot: int(word[0]), Pivoting: !lu.NoPivot}
	}
	lu.dev, lu.prog, lu.n, lu.ld, lu.nb, lu.a, lu.ipiv, lu.tol = dev, prog, n, ld, nb, buf, ipiv, tol
	lu.solver, lu.subst = solver, false
	lu.tour = mode == panelTournament
	lu.refactored = refactored
	lu.upload, lu.factor = upload, clock.lap()
	lu.compile = clock.compile
	return nil
}

// guardWord is the word of Factorize's status buffer (after the first
// zero pivot's, word 0) that collects max |W| of the outer blocks'
// inverses W = inv(L11), as float32 bits (dense.TrsmInverseMax).
const guardWord = 1

// luInverseMax is the largest max |inv(L11)| of an outer block that
// Factorize accepts from the solves by the inverse; above it (or NaN) it
// factorizes again by substitution. Why this bound: the inverse's
// residual exceeds substitution's by up to kappa(L11) = || |inv(L11)|
// |L11| || <= ||inv(L11)|| ||L11|| (Du Croz and Higham; dense.TrsmInverse),
// and U12 = inv(L11) A12 carries an error of about u * max|W| * ||A12||
// per entry (sums of ow products, partly cancelling), so the LU's
// backward error grows about in proportion to max |W|: review8's matrix
// with multipliers -0.2 (max |W| 1.6e4 at PoCL's order 64) gave 5.7e-15
// against substitution's 1.9e-17 (300 times). A bound of 1e3, 16 times
// lower, keeps the loss to tens (backward errors about 1e-15 at worst),
// and lies two orders of magnitude above everything measured (2026-11-23,
// notes/fguard8.md; blocks of 64, 256 and 512): gonum's GEPP of random matrices
// (uniform and normal entries, n = 512..8192) max |W| <= 3.8; the
// device's factors on PoCL (n = 512..2048, panels of 16 and 32) partial
// pivoting <= 2.7, tournament <= 5.2; GEPP of the collection's 14
// matrices (../shared/matrices, n up to 4884) <= 10.2 (msc04515, block
// 512), 1 for most; the device's tournament of the 7 largest (panels of
// 32, PoCL) <= 10.2 (msc04515 again; bcsstk13 6.6). Multipliers that
// conspire give far more, growing with the block: inv(L) = 0.5 * 1.5^(i-j-1)
// for multipliers -0.5 (4e10 at order 64; the computed W read 3e17 at
// 512), 0.2 * 1.2^(i-j-1) for -0.2 (1.6e4 at 64, 6e16 at 256), where the
// inverse's factors gave backward errors of 5e-9 (64) and 3e-3 to 9e-3
// (256, 512) on PoCL (TestLUInverseGuard).
var luInverseMax = 1e3

// newFactorStatus is Factorize's status buffer: word 0 the first zero
// pivot (noSingular: none; see newStatus), word guardWord max |W| (0).
func newFactorStatus(dev *kernels.Device) (*kernels.Buffer, error) {
	s, err := dev.Alloc(8)
	if err != nil {
		return nil, err
	}
	if err := s.Write(0, []int32{noSingular, 0}); err != nil {
		s.Release()
		return nil, err
	}
	return s, nil
}

// packMatrix returns the n x n matrix a in the device's layout (row-major,
// ld x ld; a's own data where it already is) and its largest magnitude
// (NaN if any entry is NaN).
func packMatrix(a mat.Matrix, n, ld int) ([]float64, float64) {
	if raw, ok := a.(mat.RawMatrixer); ok && ld == n && raw.RawMatrix().Stride == n {
		// Already in the device layout: no copy, only the scan.
		host := raw.RawMatrix().Data[:n*n]
		return host, packRows(n, func(i0, i1 int) float64 {
			m := 0.0
			for _, v := range host[i0*n : i1*n] {
				if av := math.Abs(v); av > m || av != av {
					m = av // a NaN entry makes the maximum NaN
				}
			}
			return m
		})
	}
	host := make([]float64, ld*ld)
	return host, packRows(n, func(i0, i1 int) float64 {
		m := 0.0
		for i := i0; i < i1; i++ {
			m = math.Max(m, copyRow(host[i*ld:], a, i, n))
		}
		return m
	})
}

// uploadMatrix writes the packed matrix to buf, its padding's diagonal
// set to max(amax, 1) so that it never looks like a small pivot.
func uploadMatrix(buf *kernels.Buffer, host []float64, n, ld int, amax float64) error {
	for i := n; i < ld; i++ {
		host[i*ld+i] = max(amax, 1)
	}
	return buf.Write(0, host)
}

// luBuildOptions are added to luProgram's compiler options: TestLUBuildLog
// sets them (-cl-nv-verbose: registers and spills per kernel).
var luBuildOptions = ""

func luProgram(dev *kernels.Device, nb int) (*kernels.Program, error) {
	tl := max(16, tournamentLocal(dev, nb))
	opts := fmt.Sprintf("-DNB=%d -DTS=%d -DTL=%d", nb, trsvRows(dev), tl)
	if luBuildOptions != "" {
		opts += " " + luBuildOptions
	}
	if isGPU(dev) {
		opts += " -DGAUSS_GPU"
	}
	red := tselLocal
	if warpShuffle(dev.Info()) {
		opts += " -DGAUSS_SHFL"
		if tl%32 == 0 {
			red = tselShuffle
		}
		if warpRedux(dev.Info()) {
			opts += " -DGAUSS_REDUX"
			if red == tselShuffle {
				red = tselRedux
			}
		}
	}
	return dev.Build(opts, kernels.Source{Name: "lu.cl", Text: luSource},
		kernels.Source{Name: "trsv.cl", Text: trsvSource}, kernels.Source{Name: "lu_trsv.cl", Text: luTrsvSource},
		kernels.Source{Name: "lu_tournament.cl", Text: luTournamentSource},
		kernels.Source{Name: "lu_tsel.cl", Text: tselSources(nb, tl, tournamentRows(dev, nb, tl), red)})
}

// tselKey is what the generated tournament kernels depend on.
type tselKey struct {
	nb, tl, rows int
	red          tselReduction
	clock        int // tselClock: 1 + tselClockK; 0 without
}

// tselGenerated keeps tselSources' texts: generating lu_tsel and lu_tsel2
// for 32 columns took about 1.2 ms and 12,600 allocations on the 2-core
// host (review10, 2026-11-23), at every Factorize before the program
// cache could answer.
var tselGenerated sync.Map // tselKey -> string

// tselSources is the text of the tournament kernels with 1..rows rows per
// item (tselSource), generated once per process for each set of arguments.
func tselSources(nb, tl, rows int, red tselReduction) string {
	clock := 0
	if tselClock {
		clock = 1 + tselClockK
	}
	key := tselKey{nb, tl, rows, red, clock}
	if s, ok := tselGenerated.Load(key); ok {
		return s.(string)
	}
	var b strings.Builder
	for rpi := 1; rpi <= rows; rpi++ {
		b.WriteString(tselSource(nb, tl, rpi, red))
	}
	s, _ := tselGenerated.LoadOrStore(key, b.String())
	return s.(string)
}

// warpShuffle reports whether the LU's kernels may reduce their pivot
// candidates with warp shuffles (GAUSS_SHFL in lu.cl): NVIDIA GPUs on
// NVIDIA's CUDA platform, whose OpenCL compiler takes PTX inline assembly
// and whose warps are 32 consecutive work-items of a one-dimensional
// group. Everything else (PoCL included) keeps the portable local-memory
// reductions. OCLSOLVE_LU_SHFL=off turns the shuffles off, so that a
// benchmark can compare both on the same card.
func warpShuffle(info kernels.DeviceInfo) bool {
	if os.Getenv("OCLSOLVE_LU_SHFL") == "off" || !strings.Contains(strings.ToUpper(info.Type), "GPU") {
		return false
	}
	return strings.Contains(strings.ToUpper(info.Vendor), "NVIDIA") && strings.Contains(strings.ToUpper(info.Platform), "NVIDIA CUDA")
}

// warpRedux reports whether lu_tsel may reduce its candidates by the
// warp-wide reductions of compute capability 8.0 (GAUSS_REDUX in lu.cl,
// tselRedux): where warpShuffle holds and the device reports 8.0 or later
// (cl_nv_device_attribute_query). OCLSOLVE_LU_REDUX=off keeps the
// shuffles, so that a benchmark can compare both on the same card; the
// choice is in the program's options and source, hence in its cache key.
func warpRedux(info kernels.DeviceInfo) bool {
	return warpShuffle(info) && info.NVComputeMajor >= 8 && os.Getenv("OCLSOLVE_LU_REDUX") != "off"
}

// panelGroups is the most work-groups of local items the panel launch may
// use on a device. The panel's groups wait for each other at a grid-wide
// barrier (grid_sync in lu.cl), which only ends if every group of the
// launch is resident at once; OpenCL promises nothing of the kind, so the
// multi-group panel is kept to devices where it is known to hold:
//
//   - NVIDIA GPUs on NVIDIA's CUDA platform and AMD GPUs on AMD's platforms,
//     whose compute units are streaming multiprocessors / compute units
//     that each hold several groups of up to 1024 items at once (the panel
//     needs a few KiB of local memory and no more registers than any
//     kernel may use), and whose schedulers start every group of a launch
//     once earlier kernels' groups finish, so a waiting group never starves
//     another;
//   - at most luPanelGroupsPerCU groups per compute unit, never more than
//     luPanelMaxGroups, and groups of at most 256 items.
//
// Everything else runs the panel as one group, where the barrier is a
// no-op: CPUs (PoCL runs groups one after the other on as many threads as
// cores), Intel GPUs (they report execution units as compute units, several
// of which one group occupies), Apple, ARM Mali, Qualcomm Adreno, PoCL's
// CUDA and Level Zero back-ends and any unknown platform.
func panelGroups(info kernels.DeviceInfo, local int) int {
	if !strings.Contains(strings.ToUpper(info.Type), "GPU") || local > 256 || info.ComputeUnits < 1 {
		return 1
	}
	vendor, platform := strings.ToUpper(info.Vendor), strings.ToUpper(info.Platform)
	nvidia := strings.Contains(vendor, "NVIDIA") && strings.Contains(platform, "NVIDIA CUDA")
	amd := (strings.Contains(vendor, "ADVANCED MICRO DEVICES") || strings.Contains(vendor, "AMD")) &&
		strings.Contains(platform, "AMD")
	if !nvidia && !amd {
		return 1
	}
	return max(1, min(luPanelMaxGroups, luPanelGroupsPerCU*info.ComputeUnits))
}

// factorBlocked enqueues the launches of every panel. It allocates the
// panel's scratch: the row marks of implicit pivoting, the chosen rows and
// the per-work-group maxima passed from one column step to the next.
//
// phase, when not nil, is called after the launches of each phase (0 the
// panel, 1 the exchanges and triangular solve, 2 the update), so that a
// benchmark can wait there and time them; production passes nil. subst
// makes the outer blocks' solves substitution (Trsm) instead of
// multiplications by L11's inverse; guard, when not nil, collects the
// inverses' max |W| in its word guardWord (outerUpdate).
func factorBlocked(dev *kernels.Device, prog *kernels.Program, a, ipiv, status, guard *kernels.Buffer, ld, nb int, mode panelMode, tol float64,
	subst bool, phase func(int) error) error {
	if phase == nil {
		phase = func(int) error { return nil }
	}
	if mode == panelTournament {
		return factorTournament(dev, prog, a, ipiv, status, guard, ld, nb, tol, subst, phase)
	}
	pivot := mode == panelPartial
	var ks [4]*kernels.Kernel
	for i, name := range []string{"lu_panel", "lu_swap_panel", "lu_swap_trsm", "lu_panel_local"} {
		k, err := prog.Kernel(name)
		if err != nil {
			return err
		}
		ks[i] = k
	}
	panel, swapPanel, swap, panelLocal := ks[0], ks[1], ks[2], ks[3]
	eng, err := dense.For(dev, dense.Float64)
	if err != nil {
		return err
	}
	pl := floorPow2(min(luPanelLocal, panel.MaxWorkGroupSize()))
	sl := floorPow2(min(luSwapLocal, swap.MaxWorkGroupSize()))
	info := dev.Info()
	maxGroups := panelGroups(info, pl)
	// lu_panel_local keeps up to rmax rows of the panel per group in local
	// memory; its groups fill most of a compute unit's local memory, so at
	// most one per compute unit is resident, hence at most ComputeUnits
	// groups (and one where the grid barrier is not safe at all).
	lpl := floorPow2(min(luPanelLocal, panelLocal.MaxWorkGroupSize()))
	rmax := int((info.LocalMemBytes - int64(12*lpl+8*nb) - 1024) / int64(8*nb+4))
	localGroups := 1
	if maxGroups > 1 {
		localGroups = info.ComputeUnits
	}
	if !luPanelUseLocal || rmax < 1 {
		localGroups = 0
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
	usedAt, err := alloc(4 * ld)
	if err != nil {
		return err
	}
	if err := usedAt.Fill([]byte{0, 0, 0, 0}, 0, int64(4*ld)); err != nil {
		return err
	}
	pivrow, err := alloc(4 * ld)
	if err != nil {
		return err
	}
	count, err := alloc(4)
	if err != nil {
		return err
	}
	var pm, pi, pr [2]*kernels.Buffer
	for i := range pm {
		if pm[i], err = alloc(8 * max(maxGroups, localGroups)); err != nil {
			return err
		}
		if pi[i], err = alloc(4 * max(maxGroups, localGroups)); err != nil {
			return err
		}
		if pr[i], err = alloc(8 * nb * max(1, localGroups)); err != nil {
			return err
		}
	}
	// The row-major matrix read as column-major with leading dimension ld
	// is its transpose, so the update A22 -= L21 U12 is the column-major
	// product A22^T -= U12^T L21^T on the same buffer.
	at := dense.Mat{Buf: a, Rows: ld, Cols: ld, LD: ld}
	ow := outerBlock(dev, nb, ld)
	work := outerScratch(alloc, ld, ow, subst)
	for k0 := 0; k0 < ld; k0 += ow {
		cend := min(ld, k0+ow)
		for k := k0; k < cend; k += nb {
			// Enough work-groups to spread the panel's rows over the device,
			// each with at least luPanelRowsPerGroup rows.
			groups := max(1, min(maxGroups, (ld-k+luPanelRowsPerGroup-1)/luPanelRowsPerGroup))
			if err := count.Fill([]byte{0, 0, 0, 0}, 0, 4); err != nil {
				return err
			}
			if lg := (ld - k + rmax - 1) / max(rmax, 1); localGroups > 0 && lg <= localGroups {
				// As few groups as hold the panel: the arithmetic per column is
				// small, the grid barrier's cost grows with the groups.
				if err := panelLocal.Launch([]int{lg * lpl}, []int{lpl}, ld, k, boolInt(pivot), rmax, a, pivrow, ipiv,
					pm[0], pi[0], pr[0], pm[1], pi[1], pr[1], status, tol, count,
					kernels.Local(8*lpl), kernels.Local(4*lpl), kernels.Local(8*nb),
					kernels.Local(8*nb*min(rmax, ld-k)), kernels.Local(4*min(rmax, ld-k))); err != nil {
					return errKernel("lu_panel_local", err)
				}
			} else if err := panel.Launch([]int{groups * pl}, []int{pl}, ld, k, boolInt(pivot), a, usedAt, pivrow, ipiv,
				pm[0], pi[0], pm[1], pi[1], status, tol, count, kernels.Local(8*pl), kernels.Local(4*pl), kernels.Local(8*nb)); err != nil {
				return errKernel("lu_panel", err)
			}
			if err := swapPanel.Launch([]int{kernels.RoundUp(nb, 64)}, []int{64}, ld, k, a, ipiv); err != nil {
				return errKernel("lu_swap_panel", err)
			}
			if err := phase(0); err != nil {
				return err
			}
			if ld > nb {
				if err := swap.Launch([]int{kernels.RoundUp(ld-nb, sl)}, []int{sl}, ld, k, cend, a, ipiv,
					kernels.Local(8*nb*nb)); err != nil {
					return errKernel("lu_swap_trsm", err)
				}
			}
			if err := phase(1); err != nil {
				return err
			}
			if err := innerUpdate(eng, at, k, nb, cend, phase); err != nil {
				return err
			}
		}
		if err := outerUpdate(eng, at, k0, cend, work, guard, phase); err != nil {
			return err
		}
	}
	// The scratch is released on return; commands still queued keep it
	// alive (OpenCL defers the release), so no wait is needed here.
	return nil
}

// Release frees the factors' device memory. The LU can be factorized again.
func (lu *LU) Release() {
	lu.mu.Lock()
	defer lu.mu.Unlock()
	if lu.a != nil {
		lu.a.Release()
	}
	if lu.solver != nil {
		lu.solver.release()
	}
	lu.a, lu.ipiv, lu.n, lu.solver = nil, nil, 0, nil
}

// Refactored reports whether the last Factorize found an outer block's
// L11 too ill-conditioned for the solve by its inverse and factorized the
// matrix again with substitution (correct, and slower: a second
// factorization with the slower solves). It never does for random
// matrices or the test collection; matrices whose multipliers conspire
// (a unit lower L with all multipliers -0.5, say) do.
func (lu *LU) Refactored() bool { return lu.refactored }

// Order returns the order n of the factorized matrix, or 0 before a
// successful Factorize.
func (lu *LU) Order() int { return lu.n }

// Pivots returns the row exchanges of the factorization: row i was
// exchanged with row Pivots()[i] at step i, in order (LAPACK's ipiv,
// 0-based). It returns nil before a successful Factorize.
func (lu *LU) Pivots() []int {
	if lu.a == nil {
		return nil
	}
	p := make([]int, lu.n)
	for i := range p {
		p[i] = int(lu.ipiv[i])
	}
	return p
}

// SolveVecTo solves A x = b into dst (len n) with the factors on the device:
// by default b is written to the device, where one launch applies the row
// exchanges and both triangular solves, and x comes back with the status in
// one read. Where the factors have a diagonal block too ill-conditioned for
// that launch's inverses, the solve (and every later one of the
// factorization) substitutes instead, with the tiled solve. dst and b may
// be the same slice.
func (lu *LU) SolveVecTo(dst, b []float64) error {
	_, err := lu.solveVec(dst, b)
	return err
}

func (lu *LU) solveVec(dst, b []float64) (int, error) {
	lu.mu.Lock()
	defer lu.mu.Unlock()
	if lu.a == nil {
		return 0, ErrNotFactorized
	}
	if len(b) != lu.n || len(dst) != lu.n {
		return 0, fmt.Errorf("%w: right-hand side %d and destination %d for order %d", ErrShape, len(b), len(dst), lu.n)
	}
	if lu.SolveTile <= 0 && !lu.subst {
		_, err := lu.solveChained(dst, b, 1)
		if err == nil {
			return lu.solver.nblk, nil
		}
		if !errors.Is(err, errInverseGuard) {
			return 0, err
		}
		lu.subst = true
	}
	return lu.solveTiled(dst, b)
}

// solveTiled is the tiled solve: the exchanges on the host, then two
// launches per tile of each triangle, substituting within a tile. It
// returns the number of tiles. The LU's mutex is held.
func (lu *LU) solveTiled(dst, b []float64) (int, error) {
	y := make([]float64, lu.ld)
	copy(y, b)
	for i, p := range lu.ipiv {
		y[i], y[p] = y[p], y[i]
	}
	x, err := lu.dev.Alloc(int64(8 * lu.ld))
	if err != nil {
		return 0, err
	}
	defer x.Release()
	if err := x.Write(0, y); err != nil {
		return 0, err
	}
	status, err := newStatus(lu.dev)
	if err != nil {
		return 0, err
	}
	defer status.Release()
	tri := triangle{even: lu.a, odd: lu.a, stride: lu.ld, mode: rowsInOne, n: lu.ld, elem: 8, tol: lu.tol}
	tile := tileRows(lu.dev, lu.ld, 8, lu.SolveTile)
	t1, err := tri.solve(lu.dev, lu.prog, x, status, false, true, tile, true)
	if err != nil {
		return 0, errKernel("forward substitution", err)
	}
	t2, err := tri.solve(lu.dev, lu.prog, x, status, true, false, tile, true)
	if err != nil {
		return 0, errKernel("back-substitution", err)
	}
	tiles := t1 + t2
	if err := x.Read(0, y); err != nil {
		return 0, err
	}
	if err := readStatus(status, !lu.NoPivot); err != nil {
		return 0, err
	}
	if err := checkFinite(y[:lu.n]); err != nil {
		return 0, err
	}
	copy(dst, y[:lu.n])
	return tiles, nil
}

// SolveTo solves A X = B for every column of b into dst, which must be
// n x k like b. By default the columns are solved together: one write of
// B, one launch per column and one read of X (several rounds where X would
// take more than 64 MiB of device memory). dst and b may be the same
// matrix.
func (lu *LU) SolveTo(dst *mat.Dense, b mat.Matrix) error {
	if lu.a == nil {
		return ErrNotFactorized
	}
	if dst == nil || b == nil {
		return fmt.Errorf("%w: nil destination or right-hand side", ErrShape)
	}
	br, bc := b.Dims()
	dr, dc := dst.Dims()
	if br != lu.n || dr != br || dc != bc {
		return fmt.Errorf("%w: right-hand side %dx%d and destination %dx%d for order %d", ErrShape, br, bc, dr, dc, lu.n)
	}
	if lu.SolveTile <= 0 {
		return lu.solveColumns(dst, b, bc)
	}
	col := make([]float64, lu.n)
	for j := 0; j < bc; j++ {
		for i := range col {
			col[i] = b.At(i, j)
		}
		if err := lu.SolveVecTo(col, col); err != nil {
			return fmt.Errorf("column %d: %w", j, err)
		}
		dst.SetCol(j, col)
	}
	return nil
}

// solveColumns is SolveTo with the chained solves, in rounds of columns
// whose device scratch fits solveBatchBytes.
func (lu *LU) solveColumns(dst *mat.Dense, b mat.Matrix, cols int) error {
	lu.mu.Lock()
	defer lu.mu.Unlock()
	n := lu.n
	if lu.a == nil { // released since SolveTo's check
		return ErrNotFactorized
	}
	round := max(1, min(cols, solveBatchBytes/(16*lu.ld)))
	host := make([]float64, round*n)
	for j0 := 0; j0 < cols; j0 += round {
		k := min(round, cols-j0)
		for j := 0; j < k; j++ {
			col := host[j*n : (j+1)*n]
			for i := range col {
				col[i] = b.At(i, j0+j)
			}
		}
		if !lu.subst {
			bad, err := lu.solveChained(host, host, k)
			if err != nil && !errors.Is(err, errInverseGuard) {
				return fmt.Errorf("column %d: %w", j0+bad, err)
			}
			lu.subst = err != nil
		}
		if lu.subst { // the guard fired, now or before: substitute
			for j := 0; j < k; j++ {
				col := host[j*n : (j+1)*n]
				if _, err := lu.solveTiled(col, col); err != nil {
					return fmt.Errorf("column %d: %w", j0+j, err)
				}
			}
		}
		for j := 0; j < k; j++ {
			dst.SetCol(j0+j, host[j*n:(j+1)*n])
		}
	}
	return nil
}

// solveBlocked is Solve's blocked variant: Factorize, then one SolveVecTo.
func solveBlocked(dev *kernels.Device, a mat.Matrix, b []float64, n int, opts Options) ([]float64, *Report, error) {
	start := time.Now()
	launches0 := dev.Launches()
	lu := LU{BlockSize: opts.BlockSize, NoPivot: !opts.Pivot, Pivoting: opts.Pivoting, SolveTile: opts.BackSubTile}
	if err := lu.Factorize(dev, a); err != nil {
		return nil, nil, err
	}
	defer lu.Release()
	clock := newPhaseClock(dev)
	x := make([]float64, n)
	tiles, err := lu.solveVec(x, b)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Device: dev.Name(), Variant: VariantBlocked, Pivot: opts.Pivot, N: n,
		Upload: lu.upload, Eliminate: lu.factor, BackSubstitution: clock.lap(), BackSubTiles: tiles, BlockSize: lu.nb,
		Tournament: lu.tour, Refactored: lu.refactored, SolveSubstituted: lu.subst}
	rep.Compile = lu.compile + clock.compile
	rep.finish(start, launches0, dev)
	return x, rep, nil
}
