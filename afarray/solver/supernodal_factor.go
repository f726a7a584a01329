package solver

import (
	"fmt"
	"os"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// The supernodal factorizations: multifrontal, level by level of the
// assembly tree (supernodal.cl).
//
// Why multifrontal rather than left-looking: the tree levels are what make
// the launches few, and with levels the multifrontal method needs no
// search at all on the device. Every supernode of a level assembles its
// front from its own entries of A and its children's update matrices (one
// extend-add launch for the whole level, race-free because a work-group
// owns a set of front columns), factors its pivot columns and forms its own
// update matrix in place (one launch for all small fronts, whole in local
// memory; three launches per 64-column block for the large ones: diagonal
// block, panel solve, and the rank-64 update by 64 x 64 register-blocked
// tiles across many work-groups; on GPUs two, the update's first tile
// factoring the next diagonal block). A left-looking method would have each
// supernode gather from a variable set of descendants with row searches,
// which batches badly. The cost of multifrontal, the update matrices, is
// bounded here by keeping only two levels of them at a time (children's
// and parents': two ping-pong regions of U).
//
// The host does the ordering and the symbolic analysis, then builds the
// whole launch schedule and task lists once; the device does all the
// arithmetic on A's values, which never come back. Launches per
// factorization ~ levels x (2 + 3 x blocks of the widest large front of
// the level), 2 x blocks on GPUs; per solve ~ 2 x levels plus one per
// 128-column block of the large supernodes and direction (their block
// triangles ride in the launches that update the rows below them). The
// failure status is read once.

// Compile-time sizes of supernodal.cl.
const (
	snNB      = 64  // block-column width of large fronts
	snKC      = 32  // update depth per local-memory pass of sn_syrk
	snTS      = 64  // update tile (sn_syrk: 256 items, 4 x 4 each)
	snTR      = 64  // panel rows per sn_trsm group
	snAsmCols = 16  // front columns per sn_assemble group
	snSI      = 8   // longs of per-supernode info
	snLocal   = 64  // items of the per-supernode kernels
	snSolveWG = 256 // items of the solve kernels
	snSB      = 64  // diagonal-block width of the solves
	snSBL     = 128 // block width of the solves of large supernodes
	snRCH     = 256 // rows per group in the solves of large supernodes
)

// sn_fgemv's first row-update group also solves the next block's triangle,
// which needs a group's rows to cover a whole block: snRCH >= snSBL (this
// constant does not compile otherwise).
const _ = uint(snRCH - snSBL)

// snGPUKernels makes CPU devices run the GPU kernels and launch plan (a
// hook for tests, so that PoCL checks the fused GPU path).
var snGPUKernels = false

// snSolveLarge is the size F x ns from which a supernode's solves go
// across the device in blocks rather than in one group (a variable so
// that tests can send small supernodes down that path).
var snSolveLarge int64 = 1 << 18

// snSmallF returns the largest front order factored whole in local memory
// on dev: 64 (32 KiB) where the device has room, else 32.
func snSmallF(dev *kernels.Device) int {
	if dev.Info().LocalMemBytes >= 40<<10 {
		return 64
	}
	return 32
}

func snProgram(dev *kernels.Device) (*kernels.Program, error) {
	// CC, the columns per pass of sn_syrk_cpu, was measured on PoCL
	// (2 cores, Model 1 n = 10 044): 4 beats 2, 8 and 16 by 1.2-3x.
	opts := statusOptions + fmt.Sprintf(" -DCC=4 -DKC=%d -DNB=%d -DTS=%d -DTR=%d -DASM_COLS=%d -DSMALLF=%d -DSB=%d -DSOLVE_WG=%d -DSBL=%d -DRCH=%d",
		snKC, snNB, snTS, snTR, snAsmCols, snSmallF(dev), snSB, snSolveWG, snSBL, snRCH)
	return dev.Build(opts, clSources("sks_status.cl", "supernodal.cl")...)
}

// Kinds of steps in the factorization schedule.
const (
	snFill = iota // zero a range of U
	snAssemble
	snSmall
	snPotrf
	snTrsm
	snSyrk
)

// Kinds of steps in the solve schedules.
const (
	snFwdSmall  = iota // sn_forward, whole supernodes
	snFwdGather        // sn_forward, gather only (large supernodes)
	snFwdTrsv
	snFwdGemv
	snFwdDiag
	snBwdSmall
	snBwdGemv // and the block's triangle, in the last group to finish
)

// snStep is one command of the factorization: a kernel over tasks
// [t0, t0+count) of the task list with block column k0, or a fill of U
// (t0 and count are then the range, in doubles).
type snStep struct {
	kind      int
	t0, count int64
	k0        int
}

// snSchedule is the launch plan: the task list (4 ints per task), the
// factorization steps, and for the solves each level's supernodes.
type snSchedule struct {
	tasks     []int32
	steps     []snStep
	fwd, bwd  []snStep // solve schedules (k0 holds the block's first column)
	maxPart   int64    // sn_bgemv groups of the largest launch
	info      []int64
	childPtr  []int32
	childList []int32
	levelEnd  []int // steps[:levelEnd[i]] factor the deepest i+1 levels (progress)
	uLen      int64 // doubles of U (two regions)
	vLen      int64 // doubles of V per right-hand side
}

// snMaxTasks bounds the task list (16 bytes a task on the host and the
// device): beyond it the fronts are too large for this schedule anyway.
const snMaxTasks = 1 << 27

// snCheckSize refuses, before anything of the factor's size is allocated,
// a factor that cannot fit the device (L alone beyond its global memory
// or its largest allocation) or whose schedule would be unreasonably long.
func snCheckSize(s *sparse.Supernodal, dev *kernels.Device) error {
	info := dev.Info()
	bytes := 8 * s.LPtr[s.NS]
	if bytes > info.GlobalMemBytes || bytes > info.MaxAllocBytes {
		return &kernels.OutOfMemoryError{Device: info.Name, Requested: bytes, Live: dev.MemoryStats().Live, Global: info.GlobalMemBytes,
			MaxAlloc: info.MaxAllocBytes, Reason: "the supernodal factor L"}
	}
	var tasks int64
	for k := 0; k < s.NS; k++ {
		_, ns, F := s.Front(k)
		for k0 := 0; k0 < ns; k0 += snNB {
			nt := int64(F-k0-min(snNB, ns-k0)+snTS-1) / snTS
			tasks += nt*(nt+1)/2 + nt + 1
		}
		if tasks > snMaxTasks {
			return fmt.Errorf("%w: supernodal schedule of more than %d tasks (fronts of order %d)", ErrShape, snMaxTasks, F)
		}
	}
	return nil
}

// buildSchedule plans the factorization and the solves of s: the tree
// levels from the leaves up, each a fill of its U region, an assembly and
// the partial factorization of its fronts, then the forward solve up the
// levels and the backward solve down.
func buildSchedule(s *sparse.Supernodal, smallF int) *snSchedule {
	sc := &snSchedule{info: make([]int64, snSI*s.NS), childPtr: make([]int32, s.NS+1)}
	sc.linkChildren(s)
	levelU, region := sc.layoutUpdates(s)
	for d := len(s.Levels) - 1; d >= 0; d-- {
		if levelU[d] > 0 {
			base := int64(0)
			if d%2 == 1 {
				base = region[0]
			}
			sc.steps = append(sc.steps, snStep{kind: snFill, t0: base, count: levelU[d]})
		}
		sc.assembleSteps(s, s.Levels[d])
		sc.factorSteps(s, s.Levels[d], smallF)
		sc.levelEnd = append(sc.levelEnd, len(sc.steps))
	}
	// The solves: per level, the small supernodes whole, the large ones
	// in blocks across the device.
	for d := len(s.Levels) - 1; d >= 0; d-- {
		sc.forwardSteps(s, s.Levels[d])
	}
	for d := range s.Levels {
		sc.backwardSteps(s, s.Levels[d])
	}
	sc.maxPart = max(sc.maxPart, 1)
	return sc
}

// linkChildren fills childPtr and childList: the children of supernode p
// are childList[childPtr[p]:childPtr[p+1]].
func (sc *snSchedule) linkChildren(s *sparse.Supernodal) {
	for k := 0; k < s.NS; k++ {
		if p := s.SParent[k]; p >= 0 {
			sc.childPtr[p+1]++
		}
	}
	for k := 0; k < s.NS; k++ {
		sc.childPtr[k+1] += sc.childPtr[k]
	}
	next := append([]int32(nil), sc.childPtr[:s.NS]...)
	sc.childList = make([]int32, sc.childPtr[s.NS])
	for k := 0; k < s.NS; k++ {
		if p := s.SParent[k]; p >= 0 {
			sc.childList[next[p]] = int32(k)
			next[p]++
		}
	}
}

// layoutUpdates places the update matrices and solve vectors and fills
// info. U: level d's update matrices live in region d%2, packed. It
// returns each level's doubles of U and the two regions' sizes.
func (sc *snSchedule) layoutUpdates(s *sparse.Supernodal) (levelU []int64, region [2]int64) {
	levelU = make([]int64, len(s.Levels))
	for d, lvl := range s.Levels {
		for _, k := range lvl {
			_, ns, F := s.Front(k)
			m := int64(F - ns)
			levelU[d] += m * m
		}
		region[d%2] = max(region[d%2], levelU[d])
	}
	sc.uLen = region[0] + region[1]
	var vOff int64
	for d, lvl := range s.Levels {
		u := int64(0)
		if d%2 == 1 {
			u = region[0]
		}
		for _, k := range lvl {
			first, ns, F := s.Front(k)
			m := int64(F - ns)
			copy(sc.info[snSI*k:], []int64{int64(first), int64(ns), int64(F), s.LPtr[k], s.RowPtr[k], u, vOff})
			u += m * m
			vOff += m
		}
	}
	sc.vLen = max(vOff, 1)
	return levelU, region
}

// add appends one task.
func (sc *snSchedule) add(a, b, c int) { sc.tasks = append(sc.tasks, int32(a), int32(b), int32(c), 0) }

// ntask is the number of tasks so far.
func (sc *snSchedule) ntask() int64 { return int64(len(sc.tasks) / 4) }

// step appends a factorization launch over the tasks added since t0,
// unless there are none.
func (sc *snSchedule) step(kind int, t0 int64, k0 int) {
	sc.steps = appendStep(sc.steps, kind, t0, sc.ntask(), k0)
}

// addBlocks adds a task (k, 0, 0) for each supernode k of large that has
// columns from k0 on: the diagonal blocks at k0 of the factorization's
// POTRF and of the forward solve's triangle.
func (sc *snSchedule) addBlocks(s *sparse.Supernodal, large []int, k0 int) {
	for _, k := range large {
		if _, ns, _ := s.Front(k); ns > k0 {
			sc.add(k, 0, 0)
		}
	}
}

// addRowChunks adds, for each supernode k of large that has columns from k0
// on, a task (k, c, 0) for each chunk c of h rows below its block of
// columns k0..k0+min(nb, ns-k0)-1: the row tiles of the factorization's
// TRSM (nb = snNB, h = snTR) and of the forward solve's GEMV (snSBL,
// snRCH).
func (sc *snSchedule) addRowChunks(s *sparse.Supernodal, large []int, k0, nb, h int) {
	for _, k := range large {
		if _, ns, F := s.Front(k); ns > k0 {
			r0 := k0 + min(nb, ns-k0)
			for c := 0; r0+c*h < F; c++ {
				sc.add(k, c, 0)
			}
		}
	}
}

// assembleSteps adds the assembly of one level's fronts from their
// children's update matrices, in column blocks from the first column a
// child touches.
func (sc *snSchedule) assembleSteps(s *sparse.Supernodal, lvl []int) {
	t0 := sc.ntask()
	for _, p := range lvl {
		_, _, F := s.Front(p)
		lo := F
		for q := sc.childPtr[p]; q < sc.childPtr[p+1]; q++ {
			c := int(sc.childList[q])
			_, nsC, _ := s.Front(c)
			lo = min(lo, int(s.Rel[s.RowPtr[c]+int64(nsC)]))
		}
		for c0 := lo - lo%snAsmCols; c0 < F; c0 += snAsmCols {
			sc.add(p, c0, 0)
		}
	}
	sc.step(snAssemble, t0, 0)
}

// factorSteps adds the partial factorization of one level's fronts: the
// small ones whole in one launch, the large ones by block column (POTRF,
// TRSM, SYRK launches across every large front of the level).
func (sc *snSchedule) factorSteps(s *sparse.Supernodal, lvl []int, smallF int) {
	t0 := sc.ntask()
	var large []int
	maxNS := 0
	for _, k := range lvl {
		if _, ns, F := s.Front(k); F <= smallF {
			sc.add(k, 0, 0)
		} else {
			large = append(large, k)
			maxNS = max(maxNS, ns)
		}
	}
	sc.step(snSmall, t0, 0)
	for k0 := 0; k0 < maxNS; k0 += snNB {
		t0 = sc.ntask()
		sc.addBlocks(s, large, k0)
		sc.step(snPotrf, t0, k0)
		t0 = sc.ntask()
		sc.addRowChunks(s, large, k0, snNB, snTR)
		sc.step(snTrsm, t0, k0)
		t0 = sc.ntask()
		for _, k := range large {
			if _, ns, F := s.Front(k); ns > k0 {
				c0 := k0 + min(snNB, ns-k0)
				nt := (F - c0 + snTS - 1) / snTS
				for ti := 0; ti < nt; ti++ {
					for tj := 0; tj <= ti; tj++ {
						sc.add(k, ti, tj)
					}
				}
			}
		}
		sc.step(snSyrk, t0, k0)
	}
}

// solveSplit adds a task for each small supernode of a level (those under
// snSolveLarge) and returns the large ones and their widest ns.
func (sc *snSchedule) solveSplit(s *sparse.Supernodal, lvl []int) (large []int, maxNS int) {
	for _, k := range lvl {
		if _, ns, F := s.Front(k); int64(ns)*int64(F) >= snSolveLarge {
			large = append(large, k)
			maxNS = max(maxNS, ns)
		} else {
			sc.add(k, 0, 0)
		}
	}
	return large, maxNS
}

// forwardSteps adds one level's forward solve.
func (sc *snSchedule) forwardSteps(s *sparse.Supernodal, lvl []int) {
	t0 := sc.ntask()
	large, maxNS := sc.solveSplit(s, lvl)
	sc.fwd = appendStep(sc.fwd, snFwdSmall, t0, sc.ntask(), 0)
	if len(large) == 0 {
		return
	}
	t0 = sc.ntask()
	for _, k := range large {
		sc.add(k, 0, 0)
	}
	all := [2]int64{t0, sc.ntask()}
	sc.fwd = appendStep(sc.fwd, snFwdGather, all[0], all[1], 0)
	for jb := 0; jb < maxNS; jb += snSBL {
		t0 = sc.ntask()
		sc.addBlocks(s, large, jb)
		sc.fwd = appendStep(sc.fwd, snFwdTrsv, t0, sc.ntask(), jb)
		t0 = sc.ntask()
		sc.addRowChunks(s, large, jb, snSBL, snRCH)
		sc.fwd = appendStep(sc.fwd, snFwdGemv, t0, sc.ntask(), jb)
	}
	sc.fwd = appendStep(sc.fwd, snFwdDiag, all[0], all[1], 0)
}

// backwardSteps adds one level's backward solve.
func (sc *snSchedule) backwardSteps(s *sparse.Supernodal, lvl []int) {
	t0 := sc.ntask()
	large, maxNS := sc.solveSplit(s, lvl)
	sc.bwd = appendStep(sc.bwd, snBwdSmall, t0, sc.ntask(), 0)
	for jb := (maxNS - 1) / snSBL * snSBL; len(large) > 0 && jb >= 0; jb -= snSBL {
		t0 = sc.ntask()
		for _, k := range large {
			if _, ns, F := s.Front(k); ns > jb {
				// At least one group, even with no rows below the block
				// (a root's last block): the last of them to finish
				// solves the block's triangle. Each knows how many they
				// are (task.z).
				r0 := jb + min(snSBL, ns-jb)
				nc := max(1, (F-r0+snRCH-1)/snRCH)
				for c := 0; c < nc; c++ {
					sc.add(k, c, nc)
				}
			}
		}
		sc.maxPart = max(sc.maxPart, sc.ntask()-t0)
		sc.bwd = appendStep(sc.bwd, snBwdGemv, t0, sc.ntask(), jb)
	}
}

// appendStep appends a launch over tasks [t0, t1) unless it is empty.
func appendStep(steps []snStep, kind int, t0, t1 int64, k0 int) []snStep {
	if t1 > t0 {
		steps = append(steps, snStep{kind: kind, t0: t0, count: t1 - t0, k0: k0})
	}
	return steps
}

// snFactor is the state shared by SupernodalCholesky and SupernodalLDLT.
type snFactor struct {
	ldlt  bool
	sym   *sparse.Supernodal
	sched *snSchedule

	n, nnzA int
	dev     *kernels.Device
	prog    *kernels.Program
	status  *sparseStatus
	// Device buffers: L, U (update matrices), per-supernode info, tree,
	// relative indices, rows, tasks, permutation; the solve's work vector
	// and update vectors, sized for nrhs right-hand sides.
	L, U, info, childPtr, childList, rel, rows, tasks, perm *kernels.Buffer
	y, v, part                                              *kernels.Buffer
	cnt                                                     *kernels.Buffer // sn_bgemv's group counts
	nrhs                                                    int
	ok                                                      bool
	stats                                                   SupernodalStats

	// Hooks of the multi-device factorization (supernodal_multi.go):
	// keepU keeps U after run (a subtree's update matrices leave for
	// another front), prepare runs after the uploads and A's scatter,
	// before the first step (it brings those update matrices in).
	keepU   bool
	prepare func() error
	// solveProf times the solve's steps under OCLSOLVE_SN_PROFILE (nil:
	// not timed).
	solveProf *snProfile
}

// SupernodalStats describes a supernodal factorization and its last solve.
type SupernodalStats struct {
	N          int
	Ordering   sparse.Ordering // the fill-reducing ordering used
	NNZL       int64           // entries of L (diagonal included), without amalgamation zeros
	Stored     int64           // doubles of L's storage (dense blocks)
	Flops      float64         // Σ c_j² over L's column counts
	Supernodes int
	Levels     int
	// OrderTime is the ordering (AMD, METIS, ...), SymbolicTime the rest
	// of the host analysis and the schedule; FactorTime runs from the
	// first upload to the status read.
	OrderTime, SymbolicTime, FactorTime time.Duration
	FactorLaunches                      int64
	DeviceBytes                         int64 // device memory the factor holds
	Solves                              int
	SolveTime                           time.Duration
	SolveLaunches                       int64
	// Profile holds time/launches per kind of step when the environment
	// sets OCLSOLVE_SN_PROFILE (benchmarks only).
	Profile map[string]string `json:",omitempty"`
}

func (s SupernodalStats) String() string {
	return fmt.Sprintf("supernodal n=%d order=%s nnz(L)=%d flops=%.3g supernodes=%d levels=%d order=%v symbolic=%v factor=%v (%d launches) solve=%v (%d launches)",
		s.N, s.Ordering, s.NNZL, s.Flops, s.Supernodes, s.Levels, s.OrderTime, s.SymbolicTime, s.FactorTime, s.FactorLaunches, s.SolveTime, s.SolveLaunches)
}

func (f *snFactor) factorStats() FactorStats {
	s := f.stats
	return FactorStats{Variant: Fast, N: s.N, FactorLen: int(s.Stored), SymbolicTime: s.OrderTime + s.SymbolicTime,
		FactorTime: s.FactorTime, FactorLaunches: s.FactorLaunches, Levels: s.Levels, BlockWidth: snNB,
		Solves: s.Solves, SolveTime: s.SolveTime, SolveLaunches: s.SolveLaunches}
}

func (f *snFactor) name() string {
	if f.ldlt {
		return "SupernodalLDLT"
	}
	return "SupernodalCholesky"
}

func (f *snFactor) upload(data any, bytes int64) (*kernels.Buffer, error) {
	buf, err := f.dev.Alloc(max(bytes, 8))
	if err != nil {
		return nil, err
	}
	if bytes > 0 {
		if err := buf.Write(0, data); err != nil {
			buf.Release()
			return nil, err
		}
	}
	return buf, nil
}

// snAnalyze orders h by ordering and runs the supernodal analysis in that
// order, for the one-device factorization and the multi-device one
// (supernodal_multi.go). It returns the analysis, its Ordering set to the
// ordering used, and the time from t0 (the caller's start) to the end of
// the ordering. name names the solver in errors.
func snAnalyze(name string, h *sparse.CSC, ordering sparse.Ordering, t0 time.Time) (*sparse.Supernodal, time.Duration, error) {
	var perm []int
	used := sparse.OrderNatural
	if ordering == sparse.OrderNatural || ordering == sparse.OrderNone {
		// Run has already ordered the matrix: FillOrder would only add its
		// nnz(L) and flops prediction (a graph and column counts, thrown
		// away here), which the analysis below computes again.
		perm = make([]int, h.N)
		for i := range perm {
			perm[i] = i
		}
	} else {
		var err error
		if perm, used, _, _, err = sparse.FillOrder(h, ordering); err != nil {
			return nil, 0, fmt.Errorf("solver: %s ordering: %w", name, err)
		}
	}
	tOrder := time.Since(t0)
	sym, err := sparse.AnalyzeSupernodalPerm(h, perm)
	if err != nil {
		return nil, 0, fmt.Errorf("solver: %s symbolic analysis: %w", name, err)
	}
	sym.Ordering = used
	return sym, tOrder, nil
}

func (f *snFactor) factorize(a *afarray.CSC, ordering sparse.Ordering) error {
	f.release()
	t0 := time.Now()
	h, tr, err := beginSymbolic(a)
	if err != nil {
		return err
	}
	sym, tOrder, err := snAnalyze(f.name(), h, ordering, t0)
	if err != nil {
		return err
	}
	f.dev = a.Elements.Device()
	if err := snCheckSize(sym, f.dev); err != nil {
		return fmt.Errorf("solver: %s: %w", f.name(), err)
	}
	f.sym, f.sched = sym, buildSchedule(sym, snSmallF(f.dev))
	f.n, f.nnzA = h.N, len(h.Elements)
	// The program build is neither analysis nor factorization (Run
	// reports compile time apart).
	tSym := time.Since(t0) - tOrder
	if f.prog, err = snProgram(f.dev); err != nil {
		return err
	}
	tr.phase("factorize")
	if err := f.run(a, nil); err != nil {
		f.release()
		return err
	}
	f.stats.OrderTime, f.stats.SymbolicTime = tOrder, tSym
	return nil
}

func (f *snFactor) kernel(name string) (*kernels.Kernel, error) { return f.prog.Kernel(name) }

// run uploads the structure and runs the numeric factorization. A's
// entries go to their places in the fronts by amap (a position in L for
// each element of a.Elements) when it is given, else the device finds them
// from a's CSC structure.
func (f *snFactor) run(a *afarray.CSC, amap []int64) error {
	var err error
	sym, sc := f.sym, f.sched
	start, launches := time.Now(), f.dev.Launches()
	// OCLSOLVE_SN_PROFILE=1 waits after every step to time each kind of
	// step (for benchmarks only: it costs a wait per launch); the setup
	// splits into uploads (allocations included) and A's scatter.
	prof := snNewProfile(f.dev, os.Getenv("OCLSOLVE_SN_PROFILE") != "")
	if f.status, err = newSparseStatus(f.dev, f.prog); err != nil {
		return err
	}
	stored := sym.LPtr[sym.NS]
	if f.L, err = f.dev.Alloc(8 * max(stored, 1)); err != nil {
		return err
	}
	if f.U, err = f.dev.Alloc(8 * max(sc.uLen, 1)); err != nil {
		return err
	}
	// The schedule and the structure, each to its own buffer.
	for _, u := range []struct {
		dst   **kernels.Buffer
		data  any
		bytes int
	}{
		{&f.info, sc.info, 8 * len(sc.info)},
		{&f.childPtr, sc.childPtr, 4 * len(sc.childPtr)},
		{&f.childList, sc.childList, 4 * len(sc.childList)},
		{&f.rel, sym.Rel, 4 * len(sym.Rel)},
		{&f.rows, sym.Rows, 4 * len(sym.Rows)},
		{&f.tasks, sc.tasks, 4 * len(sc.tasks)},
	} {
		if *u.dst, err = f.upload(u.data, int64(u.bytes)); err != nil {
			return err
		}
	}
	perm32 := make([]int32, f.n)
	for i, p := range sym.Perm {
		perm32[i] = int32(p)
	}
	if f.perm, err = f.upload(perm32, int64(4*f.n)); err != nil {
		return err
	}
	if err := prof.add("setup upload", start); err != nil {
		return err
	}
	tScatter := time.Now()
	elmA, err := a.Elements.DeviceBuffer()
	if err != nil {
		return err
	}
	if err := f.status.reset(); err != nil {
		return err
	}
	if err := f.status.check(elmA, f.nnzA, stMatrix); err != nil {
		return err
	}
	if err := f.zero(f.L, 0, max(stored, 1)); err != nil {
		return err
	}
	if err := f.scatter(a, elmA, amap); err != nil {
		return err
	}
	if f.prepare != nil {
		if err := f.prepare(); err != nil {
			return err
		}
	}
	names := map[int]string{snAssemble: "sn_assemble", snSmall: "sn_small", snPotrf: "sn_potrf", snTrsm: "sn_trsm", snSyrk: "sn_syrk"}
	// On GPUs sn_syrk factors the next diagonal block in its tile (0, 0)
	// group (fuse), so only each level's first block column has a POTRF
	// launch; the assembly spreads a front's columns over 256 items.
	syrkLocal, asmLocal, fuse := 256, 256, 1
	if f.dev.Info().Type == "CPU" && !snGPUKernels {
		names[snSyrk], syrkLocal, asmLocal, fuse = "sn_syrk_cpu", snTS, snLocal, 0
	}
	ks := map[int]*kernels.Kernel{}
	for kind, name := range names {
		if ks[kind], err = f.kernel(name); err != nil {
			return err
		}
	}
	ldlt := boolArg(f.ldlt)
	if err := prof.add("setup scatter", tScatter); err != nil {
		return err
	}
	kindNames := []string{"fill", "assemble", "small", "potrf", "trsm", "syrk"}
	prog := newSnProgress(trackerOf(f.dev), sym, sc)
	for i, st := range sc.steps {
		prog.at(i)
		g, t0 := int(st.count), int(st.t0)
		tk := time.Now()
		switch st.kind {
		case snFill:
			err = f.zero(f.U, st.t0, st.count)
		case snAssemble:
			err = ks[st.kind].Launch([]int{g * asmLocal}, []int{asmLocal}, f.tasks, t0, f.info, f.childPtr, f.childList, f.rel, f.L, f.U)
		case snSmall:
			err = ks[st.kind].Launch([]int{g * snLocal}, []int{snLocal}, f.tasks, t0, f.info, f.L, f.U, ldlt, f.status.buf)
		case snPotrf:
			if fuse == 1 && st.k0 > 0 {
				continue // factored by the previous block column's sn_syrk
			}
			err = ks[st.kind].Launch([]int{g * 256}, []int{256}, f.tasks, t0, f.info, f.L, st.k0, ldlt, f.status.buf)
		case snTrsm:
			err = ks[st.kind].Launch([]int{g * snTR}, []int{snTR}, f.tasks, t0, f.info, f.L, st.k0, ldlt)
		case snSyrk:
			if fuse == 1 {
				err = ks[st.kind].Launch([]int{g * syrkLocal}, []int{syrkLocal}, f.tasks, t0, f.info, f.L, f.U, st.k0, ldlt, fuse, f.status.buf)
			} else {
				err = ks[st.kind].Launch([]int{g * syrkLocal}, []int{syrkLocal}, f.tasks, t0, f.info, f.L, f.U, st.k0, ldlt)
			}
		}
		if err != nil {
			return err
		}
		if err := prof.add(kindNames[st.kind], tk); err != nil {
			return err
		}
	}
	prog.at(len(sc.steps))
	// Every stored entry is checked (check_finite indexes with a long); one
	// past 2^31 - 2 is reported at that position, the column holding it.
	if err := f.status.check(f.L, int(stored), stFactor); err != nil {
		return err
	}
	st, pivot, err := f.status.read()
	if err != nil {
		return err
	}
	f.stats = SupernodalStats{N: f.n, Ordering: sym.Ordering, NNZL: sym.NNZL, Stored: stored, Flops: sym.Flops,
		Supernodes: sym.NS, Levels: len(sym.Levels), FactorTime: time.Since(start), FactorLaunches: f.dev.Launches() - launches}
	for _, b := range []*kernels.Buffer{f.L, f.U, f.info, f.childPtr, f.childList, f.rel, f.rows, f.tasks, f.perm} {
		f.stats.DeviceBytes += b.Size()
	}
	prof.into(&f.stats.Profile, "")
	// Columns are reported in the caller's numbering.
	if c := st[stPivot]; c != stNone && int(c) < f.n {
		st[stPivot] = int32(sym.Perm[c])
	}
	if st[stMatrix] == stNone && st[stPivot] == stNone && st[stFactor] != stNone {
		st[stFactor] = int32(snColumnOf(sym, int64(st[stFactor])))
	}
	if err := factorError(st[:], pivot, f.ldlt); err != nil {
		return err
	}
	// U is only needed during the factorization.
	if !f.keepU {
		f.U.Release()
		f.U = nil
	}
	f.ok = true
	return nil
}

// zero enqueues setting the n doubles of buf from off to zero (sn_zero,
// not Buffer.Fill: see supernodal.cl).
func (f *snFactor) zero(buf *kernels.Buffer, off, n int64) error {
	if n <= 0 {
		return nil
	}
	k, err := f.kernel("sn_zero")
	if err != nil {
		return err
	}
	groups := int(min((n+255)/256, 4096))
	return k.Launch([]int{groups * 256}, []int{256}, buf, off, n)
}

// scatter places A's entries in the zeroed fronts: by amap when given,
// else on the device from A's CSC structure (sn_scatter) and, per column,
// its new number and the supernode of each new column, so that 8n bytes
// cross the bus instead of a position for every entry.
func (f *snFactor) scatter(a *afarray.CSC, elmA *kernels.Buffer, amap []int64) error {
	glob, loc := []int{snGroups(f.nnzA, 256) * 256}, []int{256}
	if amap != nil {
		mapBuf, err := f.upload(amap, int64(8*len(amap)))
		if err != nil {
			return err
		}
		defer mapBuf.Release()
		k, err := f.kernel("sn_scatter_map")
		if err != nil {
			return err
		}
		return k.Launch(glob, loc, elmA, mapBuf, f.nnzA, f.L)
	}
	sym := f.sym
	place := make([]int32, 2*f.n)
	for i, p := range sym.Perm {
		place[p] = int32(i)
	}
	for k := 0; k < sym.NS; k++ {
		for j := sym.Super[k]; j < sym.Super[k+1]; j++ {
			place[f.n+j] = int32(k)
		}
	}
	placeBuf, err := f.upload(place, int64(4*len(place)))
	if err != nil {
		return err
	}
	defer placeBuf.Release()
	_, diagA, rowA, err := a.DeviceBuffers()
	if err != nil {
		return err
	}
	k, err := f.kernel("sn_scatter")
	if err != nil {
		return err
	}
	return k.Launch([]int{snGroups(f.n, 256) * 256}, loc, elmA, diagA, rowA, f.n, f.nnzA, placeBuf, f.info, f.rows, f.L)
}

// snColumnOf returns the original column whose storage holds position p of L.
func snColumnOf(s *sparse.Supernodal, p int64) int {
	for k := 0; k < s.NS; k++ {
		if p < s.LPtr[k+1] {
			_, _, F := s.Front(k)
			return s.Perm[s.Super[k]+int((p-s.LPtr[k])/int64(F))]
		}
	}
	return -1
}

// snGroups returns a work-group count covering n items, at most 1024.
func snGroups(n, local int) int { return min(max((n+local-1)/local, 1), 1024) }

// solveTo solves A X = B for the columns of b into dst (dst may be b).
func (f *snFactor) solveTo(dst, b *afarray.Array) error {
	if !f.ok {
		return fmt.Errorf("solver: %s has no factorization: %w", f.name(), afarray.ErrReleased)
	}
	for _, x := range []*afarray.Array{dst, b} {
		if x == nil || x.Released() {
			return fmt.Errorf("solver: %w", afarray.ErrReleased)
		}
		if x.DType() != afarray.Float64 {
			return fmt.Errorf("%w: solver needs float64 arrays, got %s", afarray.ErrDType, x.DType())
		}
		if x.Device() != f.dev {
			return afarray.ErrDevice
		}
	}
	rows, nrhs := b.Dims()
	if r, c := dst.Dims(); rows != f.n || r != rows || c != nrhs || nrhs < 1 {
		return fmt.Errorf("%w: %dx%d right-hand side and %dx%d solution for a system of order %d", afarray.ErrShape, rows, nrhs, r, c, f.n)
	}
	start, launches := time.Now(), f.dev.Launches()
	if err := f.workspace(nrhs); err != nil {
		return err
	}
	bb, x, err := f.status.startSolve(dst, b, f.n*nrhs)
	if err != nil {
		return err
	}
	var kp, ku *kernels.Kernel
	if _, err := namedKernels(f.prog, []namedKernel{{&kp, "sn_permute"}, {&ku, "sn_unpermute"}}); err != nil {
		return err
	}
	g := snGroups(f.n, 256) * 256
	if err := kp.Launch([]int{g}, []int{256}, bb, f.perm, f.n, nrhs, f.y); err != nil {
		return err
	}
	// OCLSOLVE_SN_PROFILE times each kind of solve step too, waiting
	// after each (benchmarks only), into Profile's "solve ..." entries.
	f.solveProf = nil
	if os.Getenv("OCLSOLVE_SN_PROFILE") != "" {
		f.solveProf = snNewProfile(f.dev, true)
	}
	if err := f.forwardSteps(nrhs); err != nil {
		return err
	}
	if err := f.backwardSteps(nrhs); err != nil {
		return err
	}
	if err := ku.Launch([]int{g}, []int{256}, f.y, f.perm, f.n, nrhs, x); err != nil {
		return err
	}
	err = f.status.finishSolve(x, f.n*nrhs)
	f.stats.Solves++
	f.stats.SolveTime, f.stats.SolveLaunches = time.Since(start), f.dev.Launches()-launches
	f.solveProf.into(&f.stats.Profile, "solve ")
	return err
}

// workspace allocates the solve's vectors for nrhs right-hand sides unless
// those it holds are large enough.
func (f *snFactor) workspace(nrhs int) error {
	if nrhs > f.nrhs {
		for _, p := range []**kernels.Buffer{&f.y, &f.v, &f.part} {
			if *p != nil {
				(*p).Release()
				*p = nil
			}
		}
		// Until all three are allocated the factor holds no workspace, so a
		// failed allocation makes the next solve allocate again.
		f.nrhs = 0
		var err error
		if f.y, err = f.dev.Alloc(int64(8 * f.n * nrhs)); err != nil {
			return err
		}
		if f.v, err = f.dev.Alloc(8 * f.sched.vLen * int64(nrhs)); err != nil {
			return err
		}
		if f.part, err = f.dev.Alloc(8 * snSBL * f.sched.maxPart * int64(nrhs)); err != nil {
			return err
		}
		f.nrhs = nrhs
	}
	return nil
}

// solveKernels returns the kernels of the level-by-level solves.
func (f *snFactor) solveKernels() (map[string]*kernels.Kernel, error) {
	var err error
	ks := map[string]*kernels.Kernel{}
	for _, name := range []string{"sn_forward", "sn_backward", "sn_ftrsv", "sn_fgemv", "sn_fdiag", "sn_bgemv"} {
		if ks[name], err = f.kernel(name); err != nil {
			return nil, err
		}
	}
	return ks, nil
}

// forwardSteps runs L y = b on y (n x nrhs, permuted), leaves first.
func (f *snFactor) forwardSteps(nrhs int) error {
	ks, err := f.solveKernels()
	if err != nil {
		return err
	}
	ldlt := boolArg(f.ldlt)
	ldv := int(f.sched.vLen)
	names := []string{"fwd small", "fwd gather", "fwd trsv", "fwd gemv", "fwd diag"}
	return f.solveSteps(f.sched.fwd, names, snFwdSmall, func(st snStep, glob, loc []int, t0 int) (err error) {
		switch st.kind {
		case snFwdSmall, snFwdGather:
			gather := boolArg(st.kind == snFwdGather)
			return ks["sn_forward"].Launch(glob, loc, f.tasks, t0, f.info, f.childPtr, f.childList, f.rel, f.L, f.y, f.v, f.n, ldv, nrhs, ldlt, gather)
		}
		for rh := 0; rh < nrhs && err == nil; rh++ {
			switch st.kind {
			case snFwdTrsv:
				// Beyond the first block, sn_fgemv of the block before
				// solved the triangle (fuse).
				if st.k0 == 0 {
					err = ks["sn_ftrsv"].Launch(glob, loc, f.tasks, t0, f.info, f.L, f.y, f.n, rh, st.k0, ldlt)
				}
			case snFwdGemv:
				err = ks["sn_fgemv"].Launch(glob, loc, f.tasks, t0, f.info, f.L, f.y, f.v, f.n, ldv, rh, st.k0, ldlt)
			case snFwdDiag:
				if f.ldlt {
					err = ks["sn_fdiag"].Launch(glob, loc, f.tasks, t0, f.info, f.L, f.y, f.n, rh)
				}
			}
		}
		return err
	})
}

// solveSteps runs a solve schedule, the forward or the backward one: for
// each step, its launches (launch, given the step and its geometry: count
// groups of snSolveWG items from task t0), timed into the solve profile
// under names[st.kind-first].
func (f *snFactor) solveSteps(steps []snStep, names []string, first int, launch func(st snStep, glob, loc []int, t0 int) error) error {
	for _, st := range steps {
		tk := time.Now()
		if err := launch(st, []int{int(st.count) * snSolveWG}, []int{snSolveWG}, int(st.t0)); err != nil {
			return err
		}
		if err := f.solveProf.add(names[st.kind-first], tk); err != nil {
			return err
		}
	}
	return nil
}

// backwardSteps runs Lᵀ x = y on y, root first.
func (f *snFactor) backwardSteps(nrhs int) error {
	ks, err := f.solveKernels()
	if err != nil {
		return err
	}
	ldlt := boolArg(f.ldlt)
	// The last sn_bgemv group of each supernode finishes its block: they
	// count themselves on cnt, zeroed here and left at zero by each last
	// group.
	if f.cnt == nil {
		if f.cnt, err = f.dev.Alloc(int64(4 * max(f.sym.NS, 1))); err != nil {
			return err
		}
	}
	if err := f.cnt.Fill(make([]byte, 4), 0, f.cnt.Size()); err != nil {
		return err
	}
	names := []string{"bwd small", "bwd gemv"}
	return f.solveSteps(f.sched.bwd, names, snBwdSmall, func(st snStep, glob, loc []int, t0 int) (err error) {
		if st.kind == snBwdSmall {
			return ks["sn_backward"].Launch(glob, loc, f.tasks, t0, f.info, f.rows, f.L, f.y, f.n, nrhs, ldlt)
		}
		// Each right-hand side has its own partial sums.
		for rh := 0; rh < nrhs && err == nil; rh++ {
			off := int64(rh) * snSBL * f.sched.maxPart
			err = ks["sn_bgemv"].Launch(glob, loc, f.tasks, t0, f.info, f.rows, f.L, f.y, f.n, rh, st.k0, f.part, off, ldlt, f.cnt)
		}
		return err
	})
}

func (f *snFactor) solve(b *afarray.Array) (*afarray.Array, error) {
	if !f.ok {
		return nil, fmt.Errorf("solver: %s has no factorization: %w", f.name(), afarray.ErrReleased)
	}
	if b == nil || b.Released() {
		return nil, fmt.Errorf("solver: %w", afarray.ErrReleased)
	}
	r, c := b.Dims()
	buf, err := f.dev.Alloc(int64(8 * r * c))
	if err != nil {
		return nil, err
	}
	x, err := afarray.FromBuffer(buf, afarray.Float64, r, c)
	if err != nil {
		buf.Release()
		return nil, err
	}
	if err := f.solveTo(x, b); err != nil {
		x.Release()
		return nil, err
	}
	return x, nil
}

// factor returns L's supernodal storage on the host with its symbolic
// analysis: column j of the permuted factor is column Super-relative in
// its supernode's dense block (see sparse.Supernodal).
func (f *snFactor) factor() (*sparse.Supernodal, []float64, error) {
	if !f.ok {
		return nil, nil, fmt.Errorf("solver: %s has no factorization: %w", f.name(), afarray.ErrReleased)
	}
	vals := make([]float64, f.sym.LPtr[f.sym.NS])
	if len(vals) > 0 {
		if err := f.L.Read(0, vals); err != nil {
			return nil, nil, err
		}
	}
	return f.sym, vals, nil
}

func (f *snFactor) release() {
	f.status.release()
	for _, b := range []*kernels.Buffer{f.L, f.U, f.info, f.childPtr, f.childList, f.rel, f.rows, f.tasks, f.perm, f.y, f.v, f.part, f.cnt} {
		if b != nil {
			b.Release()
		}
	}
	*f = snFactor{ldlt: f.ldlt}
}

// snProfile accumulates time and launches per kind of step, waiting for
// the device after each step (OCLSOLVE_SN_PROFILE: benchmarks only, since
// the waits cost what they measure). A nil or disabled one does nothing.
type snProfile struct {
	dev  *kernels.Device
	on   bool
	time map[string]time.Duration
	n    map[string]int
}

func snNewProfile(dev *kernels.Device, on bool) *snProfile {
	return &snProfile{dev: dev, on: on, time: map[string]time.Duration{}, n: map[string]int{}}
}

// add waits for the device and charges the time since t0 to kind.
func (p *snProfile) add(kind string, t0 time.Time) error {
	if p == nil || !p.on {
		return nil
	}
	if err := p.dev.Finish(); err != nil {
		return err
	}
	p.time[kind] += time.Since(t0)
	p.n[kind]++
	return nil
}

// into writes "prefix kind" -> "time/launches" entries into *m.
func (p *snProfile) into(m *map[string]string, prefix string) {
	if p == nil || !p.on {
		return
	}
	if *m == nil {
		*m = map[string]string{}
	}
	for k, t := range p.time {
		(*m)[prefix+k] = fmt.Sprintf("%v/%d", t, p.n[k])
	}
}
