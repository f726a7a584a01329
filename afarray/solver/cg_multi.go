package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

var cgMultiProgram = solverProgram("dense_common.cl", "cg_common.cl", "cg_multi.cl", "cg_multi_pipe.cl")

// CG on several devices: Options.Devices with more than one device runs the
// entries registered here instead of their one-device driver.
func init() {
	registerMulti(MethodCG, FormatCSC, Fast, func(a *sparse.COO, b []float64, devs []*kernels.Device, o Options) ([]float64, *CGResult, *MultiStats, error) {
		return CGMulti(a, b, devs, CGOptions{Tol: o.Tol, MaxIter: o.MaxIter, Jacobi: o.Jacobi})
	})
}

// DeviceShare is one device's part of a multi-device solve.
//
// For CG: Rows are the rows of A it owns (a contiguous block), NNZ their
// stored entries (both triangles), Halo the entries of the vector it
// receives from other devices per exchange, Send those it sends. For the
// supernodal factorizations: Rows are the columns of L it factors (its
// subtrees, and on the first device the top), NNZ the entries of A's lower
// triangle it receives, Halo the rows of the top its subtrees reach, Send
// the doubles of update matrices it sends to the top (packed lower
// triangles, m(m+1)/2 each, from the other devices; the first device
// copies its m² on the device).
type DeviceShare struct {
	Device    string // the device's label (kernels.Device.Label)
	Rows      int
	NNZ       int
	Halo      int
	Send      int
	PeakBytes int64 // its peak device memory during the solve
}

// MultiStats describes how a multi-device solve was spread and where its
// time went.
type MultiStats struct {
	Shares []DeviceShare
	// SetupTime is building the row blocks on the host and uploading them;
	// SolveTime the iterations.
	SetupTime, SolveTime time.Duration
	// Factor describes a direct method's factorization (nil for CG); its
	// OrderTime, SymbolicTime and FactorTime are not in SetupTime.
	Factor *SupernodalStats
}

// multiSolve runs one registered entry on several devices from the host
// matrix (already in the ordering Run chose).
type multiSolve func(a *sparse.COO, b []float64, devs []*kernels.Device, o Options) ([]float64, *CGResult, *MultiStats, error)

var multiEntries = map[[3]string]multiSolve{}

// registerMulti adds a multi-device implementation of a registered method x
// format x variant (TestRegistryConsistent checks that the entry exists).
func registerMulti(m Method, f Format, v Variant, fn multiSolve) {
	key := [3]string{string(m), string(f), string(v)}
	if _, ok := multiEntries[key]; ok {
		panic(fmt.Sprintf("solver: multi-device %s/%s/%s registered twice", m, f, v))
	}
	multiEntries[key] = fn
}

// checkDevices refuses, with ErrDevice, an empty device list or one with a
// nil or repeated device, before anything uses them.
func checkDevices(name string, devs []*kernels.Device) error {
	if len(devs) == 0 {
		return fmt.Errorf("%w: %s: no device", ErrDevice, name)
	}
	for i, d := range devs {
		if d == nil {
			return fmt.Errorf("%w: %s: device %d is nil", ErrDevice, name, i)
		}
		for _, e := range devs[:i] {
			if d == e {
				return fmt.Errorf("%w: %s: device %d listed twice", ErrDevice, name, i)
			}
		}
	}
	return nil
}

// runMulti is Run on several devices: the ordering as for one device,
// then the entry's multi-device implementation on the host matrix.
func runMulti(a *sparse.COO, b []float64, e *entry, opts Options, start time.Time) ([]float64, *Report, error) {
	fn := multiEntries[[3]string{string(e.method), string(e.format), string(e.variant)}]
	if fn == nil {
		var names []string
		for _, c := range MultiDevice() {
			names = append(names, fmt.Sprintf("%s/%s/%s", c.Method, c.Format, c.Variant))
		}
		return nil, nil, fmt.Errorf("%w: %s/%s/%s runs on one device; on several devices: %s",
			ErrUnknown, e.method, e.format, e.variant, orList(names))
	}
	// The devices are checked before compile() or the entry touch them.
	if err := checkDevices("Run", opts.Devices); err != nil {
		return nil, nil, err
	}
	rep := &Report{Method: e.method, Format: e.format, Variant: e.variant, N: a.Rows, NNZ: a.NNZLower(), NNZFull: a.NNZFull()}
	// Progress follows the first device, whose work runs on this goroutine
	// (CG's iterations, the first device's subtrees and the top).
	tr, untrack := startTracking(opts.Devices[0], opts.Progress)
	defer untrack()
	tr.phase("ordering")
	t := time.Now()
	perm, pa, pb, err := reorder(a, b, opts.Order, formatSpecOf(e.format), rep)
	if err != nil {
		return nil, nil, err
	}
	rep.OrderingTime = time.Since(t)
	compile := func() (t time.Duration) {
		for _, d := range opts.Devices {
			t += d.CompileTime()
		}
		return t
	}
	c0 := compile()
	if methodSpecOf(e.method).iterate != nil {
		tr.phase("solve")
	} else {
		tr.phase("factorize")
	}
	x, res, st, err := fn(pa, pb, opts.Devices, opts)
	rep.TotalTime = time.Since(start)
	rep.CompileTime = compile() - c0
	defer func() {
		rep.OtherTime = rep.TotalTime - rep.OrderingTime - rep.UploadTime - rep.CompileTime - rep.SymbolicTime - rep.FactorizeTime - rep.SolveTime
	}()
	if st != nil {
		rep.UploadTime, rep.SolveTime, rep.Shares = st.SetupTime, st.SolveTime, st.Shares
		if st.Factor == nil {
			// CG builds its program while uploading.
			rep.UploadTime = max(rep.UploadTime-rep.CompileTime, 0)
		}
		stored := 0
		for _, s := range st.Shares {
			rep.DeviceBytes += s.PeakBytes
			stored += s.NNZ
		}
		// The thesis's CSC formula on the lower triangle's length.
		rep.ThesisMemory = formatSpecOf(e.format).thesisMemory(a.Rows, (stored+a.Rows)/2)
		if fs := st.Factor; fs != nil {
			// The programs are built while the parts are planned.
			rep.SymbolicTime, rep.FactorizeTime = max(fs.SymbolicTime-rep.CompileTime, 0), fs.FactorTime
			rep.OrderingTime += fs.OrderTime
			rep.Stats = fs.reportStats()
			rep.Launches = fs.FactorLaunches
			rep.ThesisMemory = formatSpecOf(e.format).thesisMemory(a.Rows, a.NNZLower())
		}
	}
	if res != nil {
		rep.Iterations, rep.Residual, rep.History, rep.Launches = res.Iterations, res.Residual, res.History, res.Launches
	}
	originalColumn(err, perm)
	if x == nil {
		return nil, rep, err
	}
	if perm != nil {
		y, perr := sparse.InversePermuteVec(x, perm)
		if perr != nil {
			return nil, rep, perr
		}
		x = y
	}
	tr.phase("check")
	rep.BackwardError = BackwardError(a, x, b)
	if err == nil && methodSpecOf(e.method).iterate == nil && !(rep.BackwardError <= MaxBackwardError) {
		err = &InaccurateError{Method: e.method, BackwardError: rep.BackwardError}
	}
	return x, rep, err
}

// MultiDevice lists the method x format x variant entries that run on
// several devices.
func MultiDevice() []Combination {
	var out []Combination
	for _, c := range Combinations() {
		if multiEntries[[3]string{string(c.Method), string(c.Format), string(c.Variant)}] != nil {
			out = append(out, c)
		}
	}
	return out
}

// mcgPart is one device's block of rows and its device state.
type mcgPart struct {
	dev        *kernels.Device
	lo, m, ext int     // first global row, rows owned, rows + halo
	halo       []int32 // global index of each halo entry (sorted)
	send       []int32 // local index of each entry others need (sorted)
	nnz        int
	// from[k] says where halo entry k comes from: part and position in
	// that part's send list.
	fromPart, fromPos []int32

	bufs                               []*kernels.Buffer
	rowptr, col, val, b, dinv, sendIdx *kernels.Buffer
	x, r, z, q, out                    *kernels.Buffer
	p                                  [2]*kernels.Buffer
	kInit, kGather, kStep, kUpd        *kernels.Kernel
	// The one-sync iteration's (mcgIterate1): s and w on own rows and
	// halo, each own row's position in the send list (-1 if none).
	s, w, sendPos                 *kernels.Buffer
	kInit1, kUpd1, kSpmv1, kSell1 *kernels.Kernel
	local, groups, team           int
	outHost, haloHost             []float64
	basePeak                      int64
	pipe                          *pcgState // the pipelined iteration's (cg_multi_pipe.go)
	// The block in sliced ELLPACK (the pipelined iteration's product, and
	// the one-sync one's with mcgSELL).
	sptr, scol, sval *kernels.Buffer
	// xch holds, at [0, 3G+S), the partials and send values read after
	// each product (G groups, S send values), at [3G+S, +halo) the halo
	// values written back (kernels.Exchange), where the iteration uses it.
	// The one-sync iteration writes from 3 values further (in[] of
	// cg_multi.cl: alpha, beta, stop, then the halo), and behind a gate
	// (mcgGate) it alternates between xch and xch2, so that the next
	// iteration's transfers can be enqueued while this one's are pending.
	xch, xch2 *kernels.Exchange
	in        *kernels.Buffer // the one-sync iteration's in[] (3 + halo)
	inHost    []float64       // without exchanges: what goes into in
}

func (p *mcgPart) alloc(bytes int) (*kernels.Buffer, error) {
	b, err := p.dev.Alloc(int64(bytes))
	if err == nil {
		p.bufs = append(p.bufs, b)
	}
	return b, err
}

func (p *mcgPart) release() {
	p.xch.Release()
	p.xch2.Release()
	p.xch, p.xch2, p.pipe = nil, nil, nil
	for _, b := range p.bufs {
		b.Release()
	}
	p.bufs = nil
}

// partitionRows splits rows 0..n-1 into k contiguous blocks of about equal
// stored entries (the product's work), each at least one row. It returns
// the k+1 block boundaries.
func partitionRows(rowptr []int32, k int) []int {
	n := len(rowptr) - 1
	bounds := make([]int, k+1)
	nnz := int64(rowptr[n])
	for t := 1; t < k; t++ {
		target := nnz * int64(t) / int64(k)
		i := sort.Search(n, func(i int) bool { return int64(rowptr[i]) >= target })
		bounds[t] = min(max(i, bounds[t-1]+1), n-(k-t))
	}
	bounds[k] = n
	return bounds
}

// CGMulti solves A x = b by Jacobi-preconditioned (opts.Jacobi) or plain
// conjugate gradients spread over devs: the rows of A in contiguous blocks
// of about equal stored entries (Run's ordering, RCM for large systems,
// keeps the blocks' halos small), one block per device, stored in sliced
// ELLPACK. The iteration is Chronopoulos and Gear's form of CG
// (mcgIterate1), whose three dot products (r'u, w'u with w = A u, and r'r)
// come from one reduction, so the host reads one small buffer per device
// and iteration: the per-group partials, with the values of w the other
// devices need; it enqueues every device's work and read from one
// goroutine, waits for the reads (kernels.Exchange), and writes each
// block's halo of w back without waiting; every device advances its
// halo's r and u itself. (mcgGate instead enqueues each iteration while
// the devices compute the one before, behind a gate.) The host sums the
// partials in a fixed order, so every device works with the same scalars. Start, stop and limits are
// those of CG's fast variant (x0 = 0, ||r||/||b|| <= Tol, default 1e-8, at
// most MaxIter = 10n iterations); convergence is tested every iteration at
// no extra cost. As on one device it iterates on b scaled by a power of two
// near 1/||b||∞ and, on convergence, checks the true residual b - A x on
// the host, restarting from it while it exceeds 10 Tol (cg_check.go). The
// recurrences and reductions differ from one-device CG's, so results agree
// with it to rounding, not bit for bit, and iteration counts follow
// one-device CG's closely without matching it (each rounds differently; on
// ill-conditioned systems at tight tolerances they can part by more).
//
// a is square, one triangle (Symmetric) or both; b has its order. With one
// device it runs the same code on that device alone. Errors are those of
// CG: *NotConvergedError (x and the result are returned), *NonFiniteError,
// *NotPositiveDefiniteError (a non-positive diagonal under Jacobi),
// ErrNotPositiveDefinite (p'Ap <= 0), ErrShape, and the devices' errors.
func CGMulti(a *sparse.COO, b []float64, devs []*kernels.Device, opts CGOptions) ([]float64, *CGResult, *MultiStats, error) {
	if err := checkDevices("CGMulti", devs); err != nil {
		return nil, nil, nil, err
	}
	if v, err := normVariant(opts.Variant); err != nil || v != Fast {
		return nil, nil, nil, fmt.Errorf("%w: CGMulti runs CG's fast variant only, not %q", ErrUnknown, opts.Variant)
	}
	if opts.Tol < 0 || math.IsNaN(opts.Tol) || opts.MaxIter < 0 {
		return nil, nil, nil, fmt.Errorf("solver: CGMulti: bad options %+v", opts)
	}
	if err := checkSystem(a, b); err != nil {
		return nil, nil, nil, err
	}
	start := time.Now()
	n := a.Rows
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-8
	}
	maxIter := opts.MaxIter
	if maxIter == 0 {
		maxIter = 10 * n
	}
	csr, err := sparse.CSRFromCOO(a)
	if err != nil {
		return nil, nil, nil, err
	}
	var dinv []float64
	if opts.Jacobi {
		dinv = make([]float64, n)
		for i := 0; i < n; i++ {
			d := 0.0
			for k := csr.RowPtr[i]; k < csr.RowPtr[i+1]; k++ {
				if int(csr.ColIdx[k]) == i {
					d += csr.Values[k]
				}
			}
			if !(d > 0) {
				return nil, nil, nil, &NotPositiveDefiniteError{Column: i, Pivot: d}
			}
			dinv[i] = 1 / d
		}
	}
	k := min(len(devs), max(n, 1))
	parts, err := mcgSplit(csr, devs[:k])
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		for _, p := range parts {
			p.release()
		}
	}()
	// The iteration runs on b·2^-e, ||b·2^-e||∞ in [1, 2), and x is
	// scaled back: exact, and r'r neither underflows nor overflows for a
	// badly scaled b (cg_check.go).
	bInf := 0.0
	for _, v := range b {
		bInf = max(bInf, math.Abs(v))
	}
	e := cgScaleExp(bInf)
	bs := b
	if e != 0 {
		bs = make([]float64, n)
		for i, v := range b {
			bs[i] = math.Ldexp(v, -e)
		}
	}
	for _, p := range parts {
		p.basePeak = p.dev.MemoryStats().Live
		p.dev.ResetPeak()
		if err := p.upload(csr, bs, dinv, mcgDefault); err != nil {
			return nil, nil, nil, err
		}
	}
	stats := &MultiStats{SetupTime: time.Since(start)}
	t := time.Now()
	form := mcgDefault
	iterate := form.iterate()
	x, res, err := iterate(parts, n, tol, maxIter, opts.Jacobi)
	if form == mcgPipelined && (errors.Is(err, ErrNotPositiveDefinite) || errors.Is(err, ErrNonFinite)) {
		// The pipelined recurrences can break down where CG does not
		// (p'Ap <= 0 from the drift of w, z and s on an ill-conditioned
		// system): start again with Chronopoulos and Gear's form, which
		// reports the breakdown itself if the matrix is to blame.
		mcgFallbacks.Add(1)
		form = mcgOneSync
		iterate = form.iterate()
		for _, p := range parts {
			p.release()
			if err := p.upload(csr, bs, dinv, form); err != nil {
				return nil, nil, nil, err
			}
		}
		x, res, err = iterate(parts, n, tol, maxIter, opts.Jacobi)
	}
	if err == nil {
		err = mcgRefine(parts, csr, bs, x, res, tol, maxIter, opts.Jacobi, iterate)
	}
	if x != nil && e != 0 {
		for i, v := range x {
			x[i] = math.Ldexp(v, e)
		}
	}
	stats.SolveTime = time.Since(t)
	for _, p := range parts {
		stats.Shares = append(stats.Shares, DeviceShare{Device: p.dev.Label(), Rows: p.m, NNZ: p.nnz,
			Halo: len(p.halo), Send: len(p.send), PeakBytes: p.dev.MemoryStats().Peak - p.basePeak})
	}
	return x, res, stats, err
}

// mcgSplit partitions the rows and works out each block's halo and send
// lists.
func mcgSplit(csr *sparse.CSR, devs []*kernels.Device) ([]*mcgPart, error) {
	n, k := csr.Rows, len(devs)
	bounds := partitionRows(csr.RowPtr, k)
	owner := func(j int32) int { return sort.SearchInts(bounds[1:], int(j)+1) }
	parts := make([]*mcgPart, k)
	need := make([]map[int32]bool, k) // per owner: global rows others read
	for d := range parts {
		lo, hi := bounds[d], bounds[d+1]
		p := &mcgPart{dev: devs[d], lo: lo, m: hi - lo, nnz: int(csr.RowPtr[hi] - csr.RowPtr[lo])}
		seen := map[int32]bool{}
		for _, j := range csr.ColIdx[csr.RowPtr[lo]:csr.RowPtr[hi]] {
			if (int(j) < lo || int(j) >= hi) && !seen[j] {
				seen[j] = true
				p.halo = append(p.halo, j)
			}
		}
		slices32(p.halo)
		p.ext = p.m + len(p.halo)
		parts[d] = p
		need[d] = map[int32]bool{}
	}
	for _, p := range parts {
		for _, j := range p.halo {
			need[owner(j)][j] = true
		}
	}
	for d, p := range parts {
		for j := range need[d] {
			p.send = append(p.send, j-int32(p.lo))
		}
		slices32(p.send)
	}
	for _, p := range parts {
		p.fromPart = make([]int32, len(p.halo))
		p.fromPos = make([]int32, len(p.halo))
		for h, j := range p.halo {
			o := owner(j)
			loc := j - int32(parts[o].lo)
			pos := sort.Search(len(parts[o].send), func(i int) bool { return parts[o].send[i] >= loc })
			p.fromPart[h], p.fromPos[h] = int32(o), int32(pos)
		}
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: order %d beyond 32-bit indices", ErrShape, n)
	}
	return parts, nil
}

func slices32(s []int32) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }

// upload builds the block's local CSR (own columns first, then the halo)
// and allocates its vectors.
func (p *mcgPart) upload(csr *sparse.CSR, b, dinv []float64, form mcgForm) error {
	lo, hi := p.lo, p.lo+p.m
	base := csr.RowPtr[lo]
	rowptr := make([]int32, p.m+1)
	for i := 0; i <= p.m; i++ {
		rowptr[i] = csr.RowPtr[lo+i] - base
	}
	cols := make([]int32, p.nnz)
	for t, j := range csr.ColIdx[base:csr.RowPtr[hi]] {
		if int(j) >= lo && int(j) < hi {
			cols[t] = j - int32(lo)
		} else {
			h := sort.Search(len(p.halo), func(i int) bool { return p.halo[i] >= j })
			cols[t] = int32(p.m + h)
		}
	}
	dev := p.dev
	var err error
	prog, err := cgMultiProgram.On(dev)
	if err != nil {
		return err
	}
	if p.kGather, err = prog.Kernel("mcg_gather"); err != nil {
		return err
	}
	wg, err := namedKernels(prog, []namedKernel{{&p.kInit, "mcg_init"}, {&p.kStep, "mcg_step"}, {&p.kUpd, "mcg_update"},
		{&p.kInit1, "mcg1_init"}, {&p.kUpd1, "mcg1_update"}, {&p.kSpmv1, "mcg1_spmv"}, {&p.kSell1, "mcg1_sell"}})
	if err != nil {
		return err
	}
	p.local = pow2Below(min(cgLocal, wg))
	p.team = 1
	if !strings.Contains(dev.Info().Type, "CPU") && p.m > 0 {
		// A team of lanes per row reads the row's entries coalesced on a
		// GPU; about one lane per entry, up to a warp.
		p.team = min(32, p.local, pow2Below(max(1, p.nnz/p.m)))
	}
	p.groups = groupsFor(p.m, p.local)
	up := func(dst **kernels.Buffer, data any, count, size int) error {
		if *dst, err = p.alloc(count * size); err != nil {
			return err
		}
		if data != nil && count > 0 {
			return (*dst).Write(0, data)
		}
		return nil
	}
	ext := p.ext
	zero := make([]byte, 8)
	// b and M^-1 on own rows and halo (the one-sync iteration advances the
	// halo's r and u itself).
	bExt := p.extOf(b)
	sendPos := make([]int32, p.m)
	for i := range sendPos {
		sendPos[i] = -1
	}
	for k, i := range p.send {
		sendPos[i] = int32(k)
	}
	steps := []error{
		up(&p.b, bExt, ext, 8),
		up(&p.sendPos, sendPos, p.m, 4),
	}
	for _, e := range steps {
		if e != nil {
			return e
		}
	}
	p.dinv = p.b // not read without jacobi
	if dinv != nil {
		dExt := append(make([]float64, 0, ext), dinv[lo:hi]...)
		for _, j := range p.halo {
			dExt = append(dExt, dinv[j])
		}
		if err := up(&p.dinv, dExt, ext, 8); err != nil {
			return err
		}
	}
	if form == mcgPipelined {
		return p.uploadPipe(up, rowptr, cols, csr.Values[base:csr.RowPtr[hi]])
	}
	if form == mcgOneSync && mcgSELL {
		rows := make([]int32, p.m)
		for i := range rows {
			rows[i] = int32(i)
		}
		if err := p.uploadSELL(up, rowptr, cols, csr.Values[base:csr.RowPtr[hi]], rows); err != nil {
			return err
		}
	} else {
		steps = []error{
			up(&p.rowptr, rowptr, p.m+1, 4),
			up(&p.col, cols, p.nnz, 4),
			up(&p.val, csr.Values[base:csr.RowPtr[hi]], p.nnz, 8),
		}
		for _, e := range steps {
			if e != nil {
				return e
			}
		}
	}
	steps = []error{
		up(&p.sendIdx, p.send, len(p.send), 4),
		up(&p.x, nil, p.m, 8),
		up(&p.r, nil, ext, 8),
		up(&p.q, nil, p.m, 8),
		up(&p.s, nil, ext, 8),
		up(&p.w, nil, ext, 8),
		up(&p.p[0], nil, ext, 8),
		up(&p.p[1], nil, ext, 8),
		up(&p.out, nil, 3*p.groups+len(p.send), 8),
		up(&p.in, nil, 3+len(p.halo), 8),
	}
	for _, e := range steps {
		if e != nil {
			return e
		}
	}
	p.z = p.r
	if dinv != nil {
		if err := up(&p.z, nil, ext, 8); err != nil {
			return err
		}
	} else {
		p.dinv = p.r
	}
	for _, buf := range []*kernels.Buffer{p.p[0], p.p[1], p.r, p.z, p.s, p.w} {
		if err := buf.Fill(zero, 0, int64(8*ext)); err != nil {
			return err
		}
	}
	if form == mcgOneSync && mcgExchange {
		size := 3*p.groups + len(p.send) + 3 + len(p.halo)
		if p.xch, err = p.dev.NewExchange(size, false); err != nil || !mcgGate {
			return err
		}
		p.xch2, err = p.dev.NewExchange(size, false)
		return err
	}
	p.outHost = make([]float64, 3*p.groups+len(p.send))
	p.haloHost = make([]float64, len(p.halo))
	p.inHost = make([]float64, 3+len(p.halo))
	return nil
}

// extOf returns v's entries on the part's own rows, then on its halo.
func (p *mcgPart) extOf(v []float64) []float64 {
	out := append(make([]float64, 0, p.ext), v[p.lo:p.lo+p.m]...)
	for _, j := range p.halo {
		out = append(out, v[j])
	}
	return out
}

// mcgRefine checks the true residual b - A x of a converged run on the
// host (which holds A) and, while it exceeds cgTrueFactor·tol, iterations
// remain and each restart at least halves it, solves A d = r on the parts
// and adds d to x (cg_check.go says why).
func mcgRefine(parts []*mcgPart, csr *sparse.CSR, b, x []float64, res *CGResult, tol float64, maxIter int, jacobi bool,
	iterate func([]*mcgPart, int, float64, int, bool) ([]float64, *CGResult, error)) error {
	n := len(b)
	nb := 0.0
	for _, v := range b {
		nb += v * v
	}
	nb = math.Sqrt(nb)
	if nb == 0 {
		return nil
	}
	r := make([]float64, n)
	prev := math.Inf(1)
	for {
		rel := math.Sqrt(residualTo(r, csr, b, x)) / nb
		left := maxIter - res.Iterations
		if rel <= cgTrueFactor*tol {
			return nil
		}
		if math.IsNaN(rel) || math.IsInf(rel, 0) {
			res.Converged = false
			return &NonFiniteError{Where: "CG true residual", Index: res.Iterations}
		}
		if left <= 0 || !(rel <= prev/2) {
			res.Converged, res.Residual = false, rel
			return &NotConvergedError{Iterations: res.Iterations, Residual: rel, Tolerance: tol}
		}
		prev = rel
		for _, p := range parts {
			if err := p.b.Write(0, p.extOf(r)); err != nil {
				return err
			}
		}
		d, dres, err := iterate(parts, n, tol/rel, left, jacobi)
		if d == nil {
			return err
		}
		for i, v := range d {
			x[i] += v
		}
		res.addRestart(dres, rel)
		if err != nil {
			res.Converged = false
			return &NotConvergedError{Iterations: res.Iterations, Residual: res.History[len(res.History)-1], Tolerance: tol}
		}
	}
}

// residualTo sets r = b - A x and returns ||r||², the rows in fixed
// chunks on every core (a system of a million rows takes 0.1 s on one),
// the chunks' sums added in order, so the result does not depend on the
// number of cores.
func residualTo(r []float64, csr *sparse.CSR, b, x []float64) float64 {
	const chunks = 64
	n := len(b)
	sums := make([]float64, chunks)
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	for w := 0; w < min(runtime.GOMAXPROCS(0), chunks); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				nr := 0.0
				for i := n * c / chunks; i < n*(c+1)/chunks; i++ {
					s := b[i]
					for k := csr.RowPtr[i]; k < csr.RowPtr[i+1]; k++ {
						s -= csr.Values[k] * x[csr.ColIdx[k]]
					}
					r[i] = s
					nr += s * s
				}
				sums[c] = nr
			}
		}()
	}
	wg.Wait()
	nr := 0.0
	for _, v := range sums {
		nr += v
	}
	return nr
}

// mcgSELL makes the one-sync iteration's product read the block in sliced
// ELLPACK (mcg1_sell) rather than CSR with a team of lanes per row
// (mcg1_spmv); mcgExchange makes it exchange through kernels.Exchange,
// every device's reads enqueued from one goroutine without waiting,
// rather than with a goroutine per device and blocking reads
// (BenchmarkCGMultiModel2 compares).
var mcgSELL, mcgExchange = true, true

// mcgSerial makes mcgIterate visit the devices one after the other in each
// phase (BenchmarkCGMultiModel2 compares).
var mcgSerial bool

// mcgIterate runs the iteration (see CGMulti) and downloads x. Each
// phase runs on every device at once, one goroutine per device: write the
// halo, launch, flush, read the partials; the host then sums the partials
// in device order. So the devices' round trips overlap instead of adding
// up.
func mcgIterate(parts []*mcgPart, n int, tol float64, maxIter int, jacobi bool) ([]float64, *CGResult, error) {
	jac := boolArg(jacobi)
	track := newMCGTrack(parts, tol, maxIter)
	onAll := func(f func(p *mcgPart) error) error { return mcgOnAll(parts, f) }
	lm := func(p *mcgPart) kernels.Local { return kernels.Local(8 * p.local) }
	// gatherRead launches the gather of z's send values and reads the r'z
	// and r'r partials with them.
	gatherRead := func(p *mcgPart) error {
		if len(p.send) > 0 {
			if err := p.kGather.Launch([]int{groupsFor(len(p.send), p.local) * p.local}, []int{p.local},
				len(p.send), 2*p.groups, p.sendIdx, p.z, p.out); err != nil {
				return err
			}
		}
		if err := p.dev.Flush(); err != nil {
			return err
		}
		return p.out.Read(0, p.outHost)
	}
	// sums adds the r'z and r'r partials of every part, in part order, and
	// assembles each part's halo values from the owners' send values.
	sums := func() (rz, rr float64) {
		for _, p := range parts {
			for _, v := range p.outHost[:p.groups] {
				rz += v
			}
			for _, v := range p.outHost[p.groups : 2*p.groups] {
				rr += v
			}
		}
		for _, p := range parts {
			for h := range p.halo {
				src := parts[p.fromPart[h]]
				p.haloHost[h] = src.outHost[2*src.groups+int(p.fromPos[h])]
			}
		}
		return rz, rr
	}
	writeHalo := func(p *mcgPart) error {
		if len(p.halo) == 0 {
			return nil
		}
		return p.z.WriteNoWait(int64(8*p.m), p.haloHost)
	}

	err := onAll(func(p *mcgPart) error {
		if err := p.kInit.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, jac, p.b, p.dinv, p.x, p.r, p.z, p.out, lm(p)); err != nil {
			return err
		}
		return gatherRead(p)
	})
	if err != nil {
		return nil, nil, err
	}
	rz, rr := sums()
	converged, err := track.begin(rr)
	if err != nil {
		return nil, nil, err
	}
	it := 0
	rzOld := 0.0
	for ; !converged && it < maxIter; it++ {
		beta := 0.0
		if it > 0 {
			beta = rz / rzOld
		}
		err := onAll(func(p *mcgPart) error {
			if err := writeHalo(p); err != nil {
				return err
			}
			if err := p.kStep.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, p.ext, beta, p.rowptr, p.col, p.val,
				p.z, p.p[it%2], p.p[(it+1)%2], p.q, p.out, p.team, lm(p)); err != nil {
				return err
			}
			if err := p.dev.Flush(); err != nil {
				return err
			}
			return p.out.Read(0, p.outHost[:p.groups])
		})
		if err != nil {
			return nil, nil, err
		}
		pq := 0.0
		for _, p := range parts {
			for _, v := range p.outHost[:p.groups] {
				pq += v
			}
		}
		if math.IsNaN(pq) || math.IsInf(pq, 0) {
			return nil, nil, &NonFiniteError{Where: "CG p'Ap (breakdown: is the matrix positive definite?)", Index: it}
		}
		if !(pq > 0) {
			return nil, nil, fmt.Errorf("%w: CG found p'Ap = %g <= 0 at iteration %d", ErrNotPositiveDefinite, pq, it)
		}
		alpha := rz / pq
		err = onAll(func(p *mcgPart) error {
			if err := p.kUpd.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, alpha, jac, p.x, p.r, p.z,
				p.p[(it+1)%2], p.q, p.dinv, p.out, lm(p)); err != nil {
				return err
			}
			return gatherRead(p)
		})
		if err != nil {
			return nil, nil, err
		}
		rzOld = rz
		rz, rr = sums()
		converged = track.step(rr)
		if math.IsNaN(rr) || math.IsInf(rr, 0) || math.IsNaN(rz) || math.IsInf(rz, 0) {
			return nil, nil, &NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: it + 1}
		}
	}
	return track.finish(n, it, converged)
}

// mcgTrack is what both multi-device iterations (mcgIterate, mcgIterate1)
// keep alike: the launch count, the residual history relative to ||r0||,
// the convergence test and the end (x gathered from the parts, checked,
// and the result).
type mcgTrack struct {
	parts []*mcgPart
	tr    *tracker // the Run's progress on the first device (nil-safe)
	tol   float64
	limit int   // the iteration limit, for the progress
	start int64 // launches before the solve
	rr0   float64
	hist  []float64
}

func newMCGTrack(parts []*mcgPart, tol float64, limit int) *mcgTrack {
	t := &mcgTrack{parts: parts, tol: tol, limit: limit, tr: trackerOf(parts[0].dev)}
	t.start = t.launches()
	return t
}

// launches sums the parts' devices' launch counters.
func (t *mcgTrack) launches() int64 {
	var s int64
	for _, p := range t.parts {
		s += p.dev.Launches()
	}
	return s
}

// begin records ||r0||² and says whether b is already solved.
func (t *mcgTrack) begin(rr0 float64) (converged bool, err error) {
	t.rr0, t.hist = rr0, []float64{1}
	if rr0 == 0 {
		t.hist[0] = 0
	}
	if math.IsNaN(rr0) || math.IsInf(rr0, 0) {
		return false, &NonFiniteError{Where: "right-hand side", Index: -1}
	}
	return rr0 <= t.tol*t.tol*rr0, nil
}

// step records an iteration's ||r||² and says whether it converged.
func (t *mcgTrack) step(rr float64) (converged bool) {
	rel := math.Sqrt(rr)
	if t.rr0 > 0 {
		rel = math.Sqrt(rr / t.rr0)
	}
	t.hist = append(t.hist, rel)
	t.tr.residual(len(t.hist)-1, t.limit, rel, 1, t.tol)
	return rr <= t.tol*t.tol*t.rr0
}

// restate replaces the last iteration's ||r||² by that of the true
// residual and says whether it converged.
func (t *mcgTrack) restate(rr float64) (converged bool) {
	t.hist = t.hist[:len(t.hist)-1]
	return t.step(rr)
}

// finish reads x from the parts and returns it with the result of it
// iterations.
func (t *mcgTrack) finish(n, it int, converged bool) ([]float64, *CGResult, error) {
	x := make([]float64, n)
	for _, p := range t.parts {
		if err := p.x.Read(0, x[p.lo:p.lo+p.m]); err != nil {
			return nil, nil, err
		}
	}
	if i := firstNonFinite(x); i >= 0 {
		return nil, nil, &NonFiniteError{Where: "solution", Index: i}
	}
	res := &CGResult{Iterations: it, Residual: t.hist[len(t.hist)-1], History: t.hist, Converged: converged,
		Launches: t.launches() - t.start}
	if !converged {
		return x, res, &NotConvergedError{Iterations: it, Residual: res.Residual, Tolerance: t.tol}
	}
	return x, res, nil
}

// mcgOnAll runs f on every part, concurrently (one goroutine each) unless
// there is one part or mcgSerial asks for one after the other, and returns
// the errors joined.
func mcgOnAll(parts []*mcgPart, f func(p *mcgPart) error) error {
	if len(parts) == 1 || mcgSerial {
		for _, p := range parts {
			if err := f(p); err != nil {
				return err
			}
		}
		return nil
	}
	return onDevices(len(parts), func(d int) error { return f(parts[d]) })
}

// mcgGate makes the one-sync iteration with exchanges enqueue each
// iteration behind a kernels.Gate while the devices still compute the one
// before, so that between two iterations the host only waits, sums, fills
// in[] and opens the gates; otherwise it enqueues the halo's write, the two
// launches and the read of every device there (BenchmarkCGMultiModel2
// compares). It is off: on an H100 (Model 2, n = 1,000,032, Jacobi, 2,241
// iterations) the gates cut the host's time between the read and the
// devices' next work from 28 to 9 us per iteration on one device and from
// 126 to 43 us on two instances of it, yet the iterations took longer,
// 499.8 against 474.1 us (819.4 against 800.6 us on the two instances):
// NVIDIA's OpenCL starts commands held by a user event later than ones
// enqueued at once. (Measured when both forms wrote alpha and beta into
// in[]; the other form passes them as arguments again, as before gates.)
var mcgGate bool

// mcgTimes is where mcgIterate1 spends the host's time, summed over the
// iterations of the runs while mcgTimeline points to it (the benchmark's
// per-iteration timeline): Wait blocked on the devices' reads, Host summing
// partials and filling in[], Release opening the gates or (without them)
// enqueuing the iteration, Ahead enqueuing the next iteration behind its
// gates while the devices compute. A device waits at least Host + Release
// per iteration, plus the transfers' and the wake-up's latency.
type mcgTimes struct {
	Iterations                 int
	Wait, Host, Release, Ahead time.Duration
}

var mcgTimeline *mcgTimes

// mcgRun is a run of a part's halo entries that come one after the other
// from one owner's send values: n values from position pos of part's to
// halo entry at.
type mcgRun struct{ at, part, pos, n int }

// haloRuns cuts the part's halo into runs (one per neighbour, on two
// parts: the halo is sorted and so are the send lists), so that the host
// fills it by copies instead of value by value.
func (p *mcgPart) haloRuns() []mcgRun {
	var runs []mcgRun
	for h := range p.halo {
		src, pos := int(p.fromPart[h]), int(p.fromPos[h])
		if k := len(runs) - 1; k >= 0 && runs[k].part == src && runs[k].pos+runs[k].n == pos {
			runs[k].n++
			continue
		}
		runs = append(runs, mcgRun{at: h, part: src, pos: pos, n: 1})
	}
	return runs
}

// mcgIterate1 runs Chronopoulos and Gear's form of (preconditioned) CG,
// which needs one host read per iteration and device: with s = A p kept by
// recurrence, gamma = r'u, delta = w'u (w = A u) and r'r come from one
// reduction after the product, and
//
//	beta = gamma/gamma_old, alpha = gamma / (delta - beta gamma/alpha_old),
//
// p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, u = M^-1 r.
// The halo travels as w's values, read with the partials and written back
// without waiting (in[], cg_multi.cl). With gates (mcgGate) iteration
// k+1's write (alpha, beta and a stop flag with the halo), launches and
// read are enqueued behind a gate per device while iteration k runs, into
// the other of the part's two exchanges; once the host has k's scalars and
// halos in that exchange it opens the gates. The iteration enqueued when
// the run ends (converged, limit, breakdown or error) runs with the stop
// flag and changes nothing. In exact arithmetic it is CG; in floating
// point its iterations follow CG's closely (the tests compare counts).
func mcgIterate1(parts []*mcgPart, n int, tol float64, maxIter int, jacobi bool) ([]float64, *CGResult, error) {
	jac := boolArg(jacobi)
	track := newMCGTrack(parts, tol, maxIter)
	lm := func(p *mcgPart) kernels.Local { return kernels.Local(8 * p.local) }
	// With exchanges (mcgExchange) every phase is enqueued on every device
	// from this goroutine, reads included, before the host waits for the
	// reads; otherwise each device has a goroutine that ends with a
	// blocking read.
	xch, gated := parts[0].xch != nil, parts[0].xch2 != nil
	prof, timing := mcgTimeline, mcgTimeline != nil
	if !timing {
		prof = &mcgTimes{}
	}
	clock := time.Now()
	lap := func(d *time.Duration) {
		if timing {
			now := time.Now()
			*d += now.Sub(clock)
			clock = now
		}
	}
	// exOf is a part's exchange for iteration k (-1: the start).
	exOf := func(p *mcgPart, k int) *kernels.Exchange {
		if gated && k%2 != 0 {
			return p.xch2
		}
		return p.xch
	}
	// at is where in[] lies in an exchange, after the partials and the send
	// values.
	at := func(p *mcgPart) int { return 3*p.groups + len(p.send) }
	// outOf is what a part's product of iteration k left on the host.
	outOf := func(p *mcgPart, k int) []float64 {
		if xch {
			return exOf(p, k).Host()
		}
		return p.outHost
	}
	// product launches w = A u and reads the partials with w's send values
	// into x (nil: blocking, into outHost).
	product := func(p *mcgPart, x *kernels.Exchange) error {
		var err error
		if p.sptr != nil {
			err = p.kSell1.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, sellC, p.sptr, p.scol, p.sval,
				p.z, p.r, p.w, p.sendPos, p.out, p.in, lm(p))
		} else {
			err = p.kSpmv1.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, p.rowptr, p.col, p.val,
				p.z, p.r, p.w, p.sendPos, p.out, p.in, p.team, lm(p))
		}
		if err != nil {
			return err
		}
		if x != nil {
			return x.ReadFrom(p.out, 0, 0, at(p))
		}
		if err := p.dev.Flush(); err != nil {
			return err
		}
		return p.out.Read(0, p.outHost)
	}
	// write enqueues the write of iteration k's in[] on a part: behind the
	// gate g, all of it; otherwise the halo alone (alpha and beta go as
	// arguments), if any.
	write := func(p *mcgPart, k int, g *kernels.Gate) error {
		H := len(p.halo)
		switch {
		case g != nil:
			return exOf(p, k).WriteAfter(g, p.in, 0, at(p), 3+H)
		case H == 0:
			return nil
		case xch:
			return exOf(p, k).WriteTo(p.in, 3, at(p)+3, H)
		}
		return p.in.WriteNoWait(8*3, p.inHost[3:])
	}
	// launch enqueues iteration k's update, product and read on a part.
	launch := func(p *mcgPart, k int, alpha, beta float64) error {
		if err := p.kUpd1.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, p.ext, alpha, beta, boolArg(gated), jac,
			p.x, p.r, p.z, p.p[0], p.s, p.w, p.in, p.dinv); err != nil {
			return err
		}
		if xch {
			return product(p, exOf(p, k))
		}
		return product(p, nil)
	}
	// gates are those of the iteration enqueued ahead (pending), if any.
	var gates []*kernels.Gate
	pending := 0
	ahead := func(k int) error {
		gates, pending = make([]*kernels.Gate, len(parts)), k
		for i, p := range parts {
			g, err := p.dev.NewGate()
			if err != nil {
				return err
			}
			gates[i] = g
			if err := write(p, k, g); err != nil {
				return err
			}
			if err := launch(p, k, 0, 0); err != nil {
				return err
			}
		}
		return nil
	}
	// drain lets an iteration enqueued ahead run with the stop flag and
	// waits for every transfer, so that none is pending when the
	// iteration returns, whatever ends it.
	drain := func() error {
		var errs []error
		for i, g := range gates {
			if g != nil {
				exOf(parts[i], pending).Host()[at(parts[i])+2] = 1
				errs = append(errs, g.Open())
			}
		}
		gates = nil
		if xch {
			for _, p := range parts {
				errs = append(errs, p.xch.Wait())
				if p.xch2 != nil {
					errs = append(errs, p.xch2.Wait())
				}
			}
		}
		return errors.Join(errs...)
	}
	defer drain()
	// fill puts iteration k's scalars and each part's halo of w (from the
	// owners' send values read after iteration k-1) where step writes
	// in[] from.
	sends := make([][]float64, len(parts)) // each part's send values, for fill
	runs := make([][]mcgRun, len(parts))
	for i, p := range parts {
		runs[i] = p.haloRuns()
	}
	fill := func(k int, alpha, beta float64) {
		for i, p := range parts {
			sends[i] = outOf(p, k-1)[3*p.groups:]
		}
		for i, p := range parts {
			in := p.inHost
			if xch {
				in = exOf(p, k).Host()[at(p) : at(p)+3+len(p.halo)]
			}
			in[0], in[1], in[2] = alpha, beta, 0
			for _, r := range runs[i] {
				copy(in[3+r.at:3+r.at+r.n], sends[r.part][r.pos:])
			}
		}
	}
	// sums adds every part's partials of iteration k in part order.
	sums := func(k int) (gamma, delta, rr float64) {
		for _, p := range parts {
			G, out := p.groups, outOf(p, k)
			for g := 0; g < G; g++ {
				gamma += out[g]
				delta += out[G+g]
				rr += out[2*G+g]
			}
		}
		return gamma, delta, rr
	}
	// wait waits for every part's read of iteration k.
	wait := func(k int) error {
		if !xch {
			return nil
		}
		for _, p := range parts {
			if err := exOf(p, k).Wait(); err != nil {
				return err
			}
		}
		return nil
	}

	// The start: in[] without the stop flag, then x = 0, r = b, u = M^-1 b
	// and the first product.
	zero := make([]byte, 8)
	err := mcgOnAll(parts, func(p *mcgPart) error {
		if err := p.in.Fill(zero, 0, int64(8*(3+len(p.halo)))); err != nil {
			return err
		}
		if err := p.kInit1.Launch([]int{p.groups * p.local}, []int{p.local}, p.m, p.ext, jac, p.b, p.dinv,
			p.x, p.r, p.z, p.p[0], p.s); err != nil {
			return err
		}
		if xch {
			return product(p, exOf(p, -1))
		}
		return product(p, nil)
	})
	if err == nil && gated {
		err = ahead(0)
	}
	if err == nil {
		err = wait(-1)
	}
	if err != nil {
		return nil, nil, err
	}
	gamma, delta, rr := sums(-1)
	converged, err := track.begin(rr)
	if err != nil {
		return nil, nil, err
	}
	it := 0
	alphaOld, gammaOld := 0.0, 0.0
	clock = time.Now()
	for ; !converged && it < maxIter; it++ {
		beta, den := 0.0, delta
		if it > 0 {
			beta = gamma / gammaOld
			den = delta - beta*gamma/alphaOld
		}
		// den is p'Ap.
		if math.IsNaN(den) || math.IsInf(den, 0) {
			return nil, nil, &NonFiniteError{Where: "CG p'Ap (breakdown: is the matrix positive definite?)", Index: it}
		}
		if !(den > 0) {
			return nil, nil, fmt.Errorf("%w: CG found p'Ap = %g <= 0 at iteration %d", ErrNotPositiveDefinite, den, it)
		}
		alpha := gamma / den
		fill(it, alpha, beta)
		lap(&prof.Host)
		var err error
		switch {
		case gated:
			// Every gate whatever the errors, keeping the first: a gate
			// left closed holds its device's writes forever, and drain's
			// Exchange.Wait with them. Open lets go of the user event even
			// when it fails, so every gate here has been opened as far as
			// the host can, and drain has none left to open.
			for _, g := range gates {
				if e := g.Open(); e != nil && err == nil {
					err = e
				}
			}
			gates = nil
		case xch:
			// Every halo first, as each part's update waits for its own.
			for _, p := range parts {
				if err == nil {
					err = write(p, it, nil)
				}
			}
			for _, p := range parts {
				if err == nil {
					err = launch(p, it, alpha, beta)
				}
			}
		default:
			err = mcgOnAll(parts, func(p *mcgPart) error {
				if err := write(p, it, nil); err != nil {
					return err
				}
				return launch(p, it, alpha, beta)
			})
		}
		lap(&prof.Release)
		if err == nil && gated && it+1 < maxIter {
			// The next iteration, behind its gates, while this one runs.
			err = ahead(it + 1)
			lap(&prof.Ahead)
		}
		if err == nil {
			err = wait(it)
			lap(&prof.Wait)
		}
		if err != nil {
			return nil, nil, err
		}
		alphaOld, gammaOld = alpha, gamma
		gamma, delta, rr = sums(it)
		converged = track.step(rr)
		if math.IsNaN(rr) || math.IsInf(rr, 0) || math.IsNaN(gamma) || math.IsInf(gamma, 0) || math.IsNaN(delta) || math.IsInf(delta, 0) {
			return nil, nil, &NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: it + 1}
		}
	}
	if err := drain(); err != nil {
		return nil, nil, err
	}
	prof.Iterations += it
	return track.finish(n, it, converged)
}
