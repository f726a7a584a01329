package solver

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// The supernodal factorizations on several devices: subtree-to-device
// mapping of the assembly tree (supernodal_split.go). Each device factors
// the subtrees mapped to it with the one-device schedule and kernels
// (supernodal_factor.go) on a structure of its own numbering; the update
// matrices of the subtrees' roots then travel once, through the host's
// pinned staging buffers (a device-side copy on the first device), into
// the first device's top factorization, whose fronts receive them as
// children without columns. The solves go the same way: forward through
// the subtrees on every device at once, their update vectors to the top,
// the top's forward and backward solves, the top's solution back to every
// device, and the backward solves of the subtrees at once.

var snMultiProgram = solverProgram("supernodal_multi.cl")

// snPackLocal is the work-group size of sn_pack.
const snPackLocal = 256

// snPacked is the packed length of an m x m update matrix's lower triangle.
func snPacked(m int) int64 { return int64(m) * int64(m+1) / 2 }

// snPackLaunch packs (or unpacks) the update matrix at element off of U
// through P on U's device.
func snPackLaunch(U *kernels.Buffer, off int64, m int, P *kernels.Buffer, unpack int) error {
	prog, err := snMultiProgram.On(U.Device())
	if err != nil {
		return err
	}
	k, err := prog.Kernel("sn_pack")
	if err != nil {
		return err
	}
	local := pow2Below(min(snPackLocal, k.MaxWorkGroupSize()))
	return k.Launch([]int{min(m, 4096) * local}, []int{local}, U, off, m, P, unpack)
}

func init() {
	registerMulti(MethodCholesky, FormatSupernodal, Fast, func(a *sparse.COO, b []float64, devs []*kernels.Device, o Options) ([]float64, *CGResult, *MultiStats, error) {
		return runSupernodalMulti(a, b, devs, false)
	})
	registerMulti(MethodLDLT, FormatSupernodal, Fast, func(a *sparse.COO, b []float64, devs []*kernels.Device, o Options) ([]float64, *CGResult, *MultiStats, error) {
		return runSupernodalMulti(a, b, devs, true)
	})
}

// runSupernodalMulti is the registry's multi-device entry: a is already in
// Run's ordering, so only the postorder is added.
func runSupernodalMulti(a *sparse.COO, b []float64, devs []*kernels.Device, ldlt bool) ([]float64, *CGResult, *MultiStats, error) {
	start := time.Now()
	h, err := sparse.CSCFromCOO(a)
	if err != nil {
		return nil, nil, nil, err
	}
	m := &snMulti{ldlt: ldlt}
	defer m.release()
	err = m.factorize(h, devs, sparse.OrderNatural)
	st := m.stats
	st.SetupTime = time.Since(start)
	if fs := st.Factor; fs != nil {
		st.SetupTime -= fs.FactorTime + fs.SymbolicTime + fs.OrderTime
	}
	if err != nil {
		return nil, nil, &st, err
	}
	t := time.Now()
	x, err := m.solve(b)
	st.SolveTime = time.Since(t)
	return x, nil, &st, err
}

// SupernodalCholeskyMulti is SupernodalCholesky spread over several
// devices: P A Pᵀ = L Lᵀ with L's subtrees factored on the devices they are
// mapped to and the top separators on the first device (see
// supernodal_multi.go). Matrix and vectors live on the host; each device
// receives only its share. Column errors name the caller's numbering, as
// on one device. A factor is not safe for concurrent use.
type SupernodalCholeskyMulti struct{ snMultiOf[kindCholesky] }

// SupernodalLDLTMulti is SupernodalLDLT spread over several devices, as
// SupernodalCholeskyMulti.
type SupernodalLDLTMulti struct{ snMultiOf[kindLDLT] }

// snMultiOf holds the methods of SupernodalCholeskyMulti and
// SupernodalLDLTMulti (factor_kind.go).
type snMultiOf[K factorKind] struct{ m snMulti }

// Factorize orders a (amd, nd, rcm, none or auto; see sparse.FillOrder),
// analyzes it, maps its assembly tree onto devs and factors it. Errors are
// those of SupernodalCholesky.Factorize, from whichever device met them,
// and ErrDevice for an empty or repeated device list.
func (c *snMultiOf[K]) Factorize(a *sparse.CSC, devs []*kernels.Device, ordering sparse.Ordering) error {
	c.m.ldlt = isLDLT[K]()
	return c.m.factorize(a, devs, ordering)
}

// Solve solves A x = b (b of the matrix's order, on the host).
func (c *snMultiOf[K]) Solve(b []float64) ([]float64, error) { return c.m.solve(b) }

// Stats describes each device's share and the factorization.
func (c *snMultiOf[K]) Stats() MultiStats { return c.m.stats }

// Release frees the factor's device memory on every device.
func (c *snMultiOf[K]) Release() { c.m.release() }

// Positions in a supernode's info record (supernodal.cl's S_* names).
const (
	snInfoFirst = iota
	snInfoNS
	snInfoF
	snInfoL
	snInfoRow
	snInfoU
	snInfoV
)

// snSend is one subtree root's update matrix (and, in the solves, update
// vector) on its way to the top: from supernode src of device dev's part to
// phantom dst of the top, m rows.
type snSend struct {
	dev, src, dst, m int
	// For dev > 0: the packed matrix on the host, read in chunks; chunks
	// delivers the length read so far after each, then closes.
	host   []float64
	chunks chan int
}

// snChunk is the doubles of each piece of an update matrix's way through
// the host: the write to the first device of one piece overlaps the read
// of the next from its device.
const snChunk = 4 << 20

// snMulti is the state of SupernodalCholeskyMulti and SupernodalLDLTMulti.
type snMulti struct {
	ldlt   bool
	g      *sparse.Supernodal // the whole analysis
	devs   []*kernels.Device
	subs   []*snFactor // per device: its subtrees, nil if none
	subLoc []*snPartSym
	top    *snFactor // on devs[0], nil when nothing lies above the subtrees
	topLoc *snPartSym
	sends  []snSend
	inputs []snPartInput // each part's share of A until run uploads it (the top last)
	ok     bool
	stats  MultiStats
}

// factorize analyzes a in the given ordering, splits the tree and factors.
func (m *snMulti) factorize(a *sparse.CSC, devs []*kernels.Device, ordering sparse.Ordering) error {
	m.release()
	// A failed factorization must not leave the previous one's Stats.
	m.stats = MultiStats{}
	if err := checkDevices(m.name(), devs); err != nil {
		return err
	}
	if a == nil {
		return fmt.Errorf("%w: nil CSC matrix", ErrShape)
	}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrShape, err)
	}
	if i := firstNonFinite(a.Elements); i >= 0 {
		return &NonFiniteError{Where: "matrix", Index: i}
	}
	t0 := time.Now()
	g, tOrder, err := snAnalyze(m.name(), a, ordering, t0)
	if err != nil {
		return err
	}
	amap, err := g.MapEntries(a)
	if err != nil {
		return fmt.Errorf("solver: %s symbolic analysis: %w", m.name(), err)
	}
	m.g, m.devs = g, devs
	if err := m.plan(a, amap); err != nil {
		m.release()
		return err
	}
	tSym := time.Since(t0) - tOrder
	err = m.run()
	m.stats.Factor.OrderTime, m.stats.Factor.SymbolicTime = tOrder, tSym
	if err != nil {
		m.release()
		return err
	}
	m.ok = true
	return nil
}

func (m *snMulti) name() string {
	if m.ldlt {
		return "SupernodalLDLTMulti"
	}
	return "SupernodalCholeskyMulti"
}

// snPartInput is what one part scatters: A's values and their positions
// in the part's L.
type snPartInput struct {
	vals []float64
	pos  []int64
}

// plan splits the tree, builds each part's structure and schedule, and
// sorts A's entries by part (the parts' scatter inputs stay in m.inputs
// until run uploads them).
func (m *snMulti) plan(a *sparse.CSC, amap []int64) error {
	g, ndev := m.g, len(m.devs)
	gpu := true
	for _, d := range m.devs {
		gpu = gpu && !strings.Contains(d.Info().Type, "CPU")
	}
	owner, _, _ := splitTree(g, ndev, snXferFlops(gpu))
	nodes := make([][]int, ndev)
	var topNodes []int
	for k := 0; k < g.NS; k++ {
		switch o := owner[k]; {
		case o >= 0:
			nodes[o] = append(nodes[o], k)
			if p := g.SParent[k]; p >= 0 && owner[p] < 0 {
				topNodes = append(topNodes, k) // a phantom of the top
			}
		default:
			topNodes = append(topNodes, k)
		}
	}
	m.subs, m.subLoc = make([]*snFactor, ndev), make([]*snPartSym, ndev)
	for d := range nodes {
		if len(nodes[d]) == 0 {
			continue
		}
		l, err := localStructure(g, nodes[d], func(int) bool { return false })
		if err != nil {
			return err
		}
		m.subLoc[d] = l
		if m.subs[d], err = m.newPart(m.devs[d], l); err != nil {
			return err
		}
	}
	if len(topNodes) > 0 {
		l, err := localStructure(g, topNodes, func(k int) bool { return owner[k] >= 0 })
		if err != nil {
			return err
		}
		m.topLoc = l
		if m.top, err = m.newPart(m.devs[0], l); err != nil {
			return err
		}
		// The phantoms: info records of their own (layoutUpdates skips
		// supernodes without a level), their update matrices and vectors
		// beyond the ping-pong regions, where no level's fill reaches.
		sc := m.top.sched
		uOff, vOff := sc.uLen, sc.vLen
		for i, k := range l.nodes {
			if !l.phantom[i] {
				continue
			}
			first, _, F := l.sym.Front(i)
			copy(sc.info[snSI*i:], []int64{int64(first), 0, int64(F), l.sym.LPtr[i], l.sym.RowPtr[i], uOff, vOff})
			d := owner[k]
			m.sends = append(m.sends, snSend{dev: d, src: m.subLoc[d].index[k], dst: i, m: F})
			uOff += int64(F) * int64(F)
			vOff += int64(F)
		}
		sc.uLen, sc.vLen = uOff, vOff
		// The phantoms enlarge the top's update storage beyond what
		// newPart checked: check it again before anything is allocated.
		if err := snCheckUpdates(l.sym, sc, m.devs[0]); err != nil {
			return fmt.Errorf("solver: %s: the top: %w", m.name(), err)
		}
	}
	// A's entries by part: entry (r, j) of a lies in column min(r', j') of
	// the postordered factor, whose supernode's block sits at the same
	// offset in its part's L as in the whole L, shifted by delta.
	inv, err := sparse.InversePermutation(g.Perm)
	if err != nil {
		return err
	}
	part := make([]int32, g.NS)
	delta := make([]int64, g.NS)
	for k := 0; k < g.NS; k++ {
		p, l := ndev, m.topLoc
		if o := owner[k]; o >= 0 {
			p, l = o, m.subLoc[o]
		}
		part[k], delta[k] = int32(p), l.sym.LPtr[l.index[k]]-g.LPtr[k]
	}
	colPart := make([]int32, g.N) // the supernode of each column
	for k := 0; k < g.NS; k++ {
		for j := g.Super[k]; j < g.Super[k+1]; j++ {
			colPart[j] = int32(k)
		}
	}
	entry := func(e, j int, r int32) (k int32) {
		c := inv[j]
		if e != int(a.DiagPos[j]) {
			c = min(c, inv[r])
		}
		return colPart[c]
	}
	// Two passes over blocks of columns on every core: count each block's
	// entries per part, then place them from the blocks' offsets.
	nb := min(runtime.GOMAXPROCS(0), max(a.N/1024, 1))
	count := make([][]int, nb)
	forBlocks := func(f func(b, j int)) {
		forEachBlock(nb, func(b int) {
			for j := b * a.N / nb; j < (b+1)*a.N/nb; j++ {
				f(b, j)
			}
		})
	}
	for b := range count {
		count[b] = make([]int, ndev+1)
	}
	forBlocks(func(b, j int) {
		d := int(a.DiagPos[j])
		rows, _ := a.ColRows(j)
		count[b][part[entry(d, j, 0)]]++
		for q, r := range rows {
			count[b][part[entry(d+1+q, j, r)]]++
		}
	})
	m.inputs = make([]snPartInput, ndev+1) // the top last
	for p := range m.inputs {
		total := 0
		for b := range count {
			// count[b][p] becomes block b's first position in part p.
			total, count[b][p] = total+count[b][p], total
		}
		m.inputs[p] = snPartInput{vals: make([]float64, total), pos: make([]int64, total)}
	}
	forBlocks(func(b, j int) {
		at := count[b]
		add := func(e int, k int32) {
			p := part[k]
			in := &m.inputs[p]
			in.vals[at[p]] = a.Elements[e]
			in.pos[at[p]] = amap[e] + delta[k]
			at[p]++
		}
		d := int(a.DiagPos[j])
		rows, _ := a.ColRows(j)
		add(d, entry(d, j, 0))
		for q, r := range rows {
			add(d+1+q, entry(d+1+q, j, r))
		}
	})
	return nil
}

// newPart prepares the factor of one part on dev (structure, schedule,
// program; nothing on the device yet).
func (m *snMulti) newPart(dev *kernels.Device, l *snPartSym) (*snFactor, error) {
	if err := snCheckSize(l.sym, dev); err != nil {
		return nil, fmt.Errorf("solver: %s: %w", m.name(), err)
	}
	f := &snFactor{ldlt: m.ldlt, sym: l.sym, sched: buildSchedule(l.sym, snSmallF(dev)), n: l.sym.N, dev: dev}
	if err := snCheckUpdates(l.sym, f.sched, dev); err != nil {
		return nil, fmt.Errorf("solver: %s: %w", m.name(), err)
	}
	var err error
	if f.prog, err = snProgram(dev); err != nil {
		return nil, err
	}
	return f, nil
}

// snCheckUpdates refuses, before anything is allocated, a part whose update
// storage U (8·uLen bytes, one allocation) exceeds the device's largest
// allocation, or whose L and U together exceed its global memory.
func snCheckUpdates(s *sparse.Supernodal, sc *snSchedule, dev *kernels.Device) error {
	info := dev.Info()
	u, l := 8*sc.uLen, 8*s.LPtr[s.NS]
	if u > info.MaxAllocBytes || u+l > info.GlobalMemBytes {
		return &kernels.OutOfMemoryError{Device: info.Name, Requested: u, Live: dev.MemoryStats().Live, Global: info.GlobalMemBytes,
			MaxAlloc: info.MaxAllocBytes, Reason: fmt.Sprintf("the supernodal update matrices U (with L of %s)", kernels.FormatBytes(l))}
	}
	return nil
}

// errTopSkipped stops the top's factorization when a subtree failed.
var errTopSkipped = errors.New("solver: top factorization skipped")

// run factors every part: the subtrees on their devices at once, then the
// top on the first device, which waits in its prepare hook for the other
// devices' update matrices.
func (m *snMulti) run() error {
	ndev := len(m.devs)
	start := time.Now()
	base := make([]int64, ndev)
	launches := make([]int64, ndev)
	for d, dev := range m.devs {
		base[d] = dev.MemoryStats().Live
		launches[d] = dev.Launches()
		dev.ResetPeak()
	}
	errs := make([]error, ndev+1)
	// abort tells the other devices that the first failed: the top will
	// not be factored, so they stop instead of reading their updates back.
	var abort atomic.Bool
	var others sync.WaitGroup // the subtrees of devices 1..ndev-1, read back
	// Where the time goes, for the profile: each device's subtrees (with
	// the read-back of their update matrices), the top's wait and receive,
	// the top.
	subTime := make([]time.Duration, ndev)
	var waitTime, recvTime time.Duration
	runSub := func(d int) error {
		defer func() { subTime[d] = time.Since(start) }()
		if d > 0 {
			// Whatever happens, the top stops waiting for this device.
			defer func() {
				for i := range m.sends {
					if s := &m.sends[i]; s.dev == d {
						close(s.chunks)
					}
				}
			}()
		}
		f := m.subs[d]
		if f == nil {
			return nil
		}
		for _, s := range m.sends {
			if s.dev == d {
				f.keepU = true
			}
		}
		if err := m.runPart(f, &m.inputs[d]); err != nil {
			return err
		}
		if d == 0 {
			return nil
		}
		err := m.sendAll(d, &abort)
		if f.U != nil {
			f.U.Release()
			f.U = nil
		}
		return err
	}
	for i := range m.sends {
		if s := &m.sends[i]; s.dev > 0 {
			s.chunks = make(chan int, 1+int(snPacked(s.m)/snChunk))
		}
	}
	for d := 1; d < ndev; d++ {
		others.Add(1)
		go func() {
			defer others.Done()
			errs[d] = runSub(d)
		}()
	}
	if errs[0] = runSub(0); errs[0] != nil {
		abort.Store(true)
	} else if m.top != nil {
		m.top.prepare = func() error {
			t := time.Now()
			err := m.receive(&waitTime)
			recvTime = time.Since(t) - waitTime
			if err != nil {
				abort.Store(true)
			}
			others.Wait()
			for _, e := range errs[1:ndev] {
				if e != nil {
					return errTopSkipped
				}
			}
			return err
		}
		if errs[ndev] = m.runPart(m.top, &m.inputs[ndev]); errs[ndev] != nil {
			abort.Store(true)
		}
	}
	others.Wait()
	if m.subs[0] != nil && m.subs[0].U != nil {
		m.subs[0].U.Release()
		m.subs[0].U = nil
	}
	if m.top != nil && m.top.U != nil {
		m.top.U.Release()
		m.top.U = nil
	}
	m.inputs = nil
	// Statistics: each device's share.
	g := m.g
	fs := &SupernodalStats{N: g.N, Ordering: g.Ordering, NNZL: g.NNZL, Stored: g.LPtr[g.NS], Flops: g.Flops,
		Supernodes: g.NS, Levels: len(g.Levels), FactorTime: time.Since(start)}
	m.stats = MultiStats{Factor: fs}
	fs.Profile = map[string]string{"wait": waitTime.String(), "receive": recvTime.String()}
	for d, t := range subTime {
		fs.Profile[fmt.Sprintf("subtrees %d", d)] = t.String()
	}
	for d, dev := range m.devs {
		sh := DeviceShare{Device: dev.Label(), PeakBytes: dev.MemoryStats().Peak - base[d]}
		for _, f := range []*snFactor{m.subs[d], m.partOnTop(d)} {
			if f != nil {
				fs.DeviceBytes += f.stats.DeviceBytes
				sh.NNZ += f.nnzA
			}
		}
		if l := m.subLoc[d]; l != nil {
			sh.Rows += l.own
			sh.Halo = l.sym.N - l.own
		}
		if d == 0 && m.topLoc != nil {
			sh.Rows += m.topLoc.own
		}
		for _, s := range m.sends {
			switch {
			case s.dev == d && d == 0:
				sh.Send += s.m * s.m // copied on the device, whole
			case s.dev == d:
				sh.Send += int(snPacked(s.m)) // through the host, packed
			}
		}
		fs.FactorLaunches += dev.Launches() - launches[d]
		m.stats.Shares = append(m.stats.Shares, sh)
	}
	return m.factorError(errs)
}

// partOnTop returns the top's factor for device d (the first), else nil.
func (m *snMulti) partOnTop(d int) *snFactor {
	if d == 0 {
		return m.top
	}
	return nil
}

// runPart uploads a part's share of A and runs its factorization.
func (m *snMulti) runPart(f *snFactor, in *snPartInput) error {
	f.nnzA = len(in.vals)
	buf, err := f.upload(in.vals, int64(8*len(in.vals)))
	if err != nil {
		return err
	}
	defer buf.Release()
	arr, err := afarray.FromBuffer(buf, afarray.Float64, max(len(in.vals), 1), 1)
	if err != nil {
		return err
	}
	return f.run(&afarray.CSC{Elements: arr}, in.pos)
}

// sendAll packs device d's update matrices for the top and reads them to
// the host piece by piece, announcing each piece.
func (m *snMulti) sendAll(d int, abort *atomic.Bool) error {
	f := m.subs[d]
	for i := range m.sends {
		s := &m.sends[i]
		if s.dev != d {
			continue
		}
		if abort.Load() {
			return errTopSkipped
		}
		n := snPacked(s.m)
		P, err := f.dev.Alloc(8 * n)
		if err != nil {
			return err
		}
		err = snPackLaunch(f.U, f.sched.info[snSI*s.src+snInfoU], s.m, P, 0)
		s.host = make([]float64, n)
		for at := int64(0); err == nil && at < n && !abort.Load(); at += snChunk {
			c := min(snChunk, n-at)
			if err = P.Read(8*at, s.host[at:at+c]); err == nil {
				s.chunks <- int(at + c)
			}
		}
		P.Release()
		if err != nil {
			return err
		}
		if abort.Load() {
			return errTopSkipped
		}
	}
	return nil
}

// receive brings the subtrees' update matrices into the top's phantoms: a
// device-side copy from the first device's own subtrees; the other
// devices' packed matrices written piece by piece as they arrive (through
// the pinned staging buffers) and unpacked. It adds the time spent waiting
// for pieces to wait, and stops at the first device that fails (a closed
// channel before the end).
func (m *snMulti) receive(wait *time.Duration) error {
	top := m.top
	for i := range m.sends {
		s := &m.sends[i]
		dst := top.sched.info[snSI*s.dst+snInfoU]
		if s.dev == 0 {
			src := m.subs[0]
			if err := src.U.CopyTo(top.U, 8*src.sched.info[snSI*s.src+snInfoU], 8*dst, int64(8*s.m*s.m)); err != nil {
				return err
			}
		}
	}
	// The first device's subtrees' U is no longer needed: free it before
	// the top factors (OpenCL releases it once the copies have run).
	if src := m.subs[0]; src != nil && src.U != nil {
		src.U.Release()
		src.U = nil
	}
	for i := range m.sends {
		s := &m.sends[i]
		if s.dev == 0 {
			continue
		}
		n := snPacked(s.m)
		P, err := top.dev.Alloc(8 * n)
		if err != nil {
			return err
		}
		at := int64(0)
		for err == nil && at < n {
			t := time.Now()
			end, ok := <-s.chunks
			*wait += time.Since(t)
			if !ok {
				break
			}
			err = P.Write(8*at, s.host[at:end])
			at = int64(end)
		}
		if err == nil && at == n {
			err = snPackLaunch(top.U, top.sched.info[snSI*s.dst+snInfoU], s.m, P, 1)
		}
		// Release waits for nothing: OpenCL frees P once the unpack has run.
		P.Release()
		s.host = nil
		if err != nil {
			return err
		}
		if at < n {
			return errTopSkipped
		}
	}
	return nil
}

// factorError picks the error to report: a device's own failure first,
// then among column failures (a subtree's come alone: the top is not
// factored after one) the first column of the factor, as one device would
// report it, mapped to the caller's numbering.
func (m *snMulti) factorError(errs []error) error {
	var devErr, colErr error
	first := math.MaxInt
	for _, err := range errs {
		if err == nil || errors.Is(err, errTopSkipped) {
			continue
		}
		var npd *NotPositiveDefiniteError
		var zp *ZeroPivotError
		var nf *NonFiniteError
		col, set := -1, func(int) {}
		switch {
		case errors.As(err, &npd):
			col, set = npd.Column, func(c int) { npd.Column = c }
		case errors.As(err, &zp):
			col, set = zp.Column, func(c int) { zp.Column = c }
		case errors.As(err, &nf) && nf.Where == "factor":
			col, set = nf.Index, func(c int) { nf.Index = c }
		}
		switch {
		case col < 0:
			if devErr == nil {
				devErr = err
			}
		case col < first:
			first, colErr = col, err
			if col < m.g.N {
				set(m.g.Perm[col])
			}
		}
	}
	if devErr != nil {
		return devErr
	}
	return colErr
}

// solve solves A x = b: forward through the subtrees on every device at
// once, their update vectors to the top, the top's two solves, the top's
// solution to every device, the subtrees' backward solves at once.
func (m *snMulti) solve(b []float64) ([]float64, error) {
	if !m.ok {
		return nil, fmt.Errorf("solver: %s has no factorization: %w", m.name(), afarray.ErrReleased)
	}
	g := m.g
	if len(b) != g.N {
		return nil, fmt.Errorf("%w: right-hand side of length %d for a system of order %d", afarray.ErrShape, len(b), g.N)
	}
	if i := firstNonFinite(b); i >= 0 {
		return nil, &NonFiniteError{Where: "right-hand side", Index: i}
	}
	y := make([]float64, g.N) // the postordered solution vector
	for i, p := range g.Perm {
		y[i] = b[p]
	}
	local := func(l *snPartSym, from, to int) []float64 {
		v := make([]float64, to-from)
		for i := range v {
			v[i] = y[l.sym.Perm[from+i]]
		}
		return v
	}
	// Forward through the subtrees.
	vecs := make([][]float64, len(m.sends))
	err := onDevices(len(m.devs), func(d int) error {
		f, l := m.subs[d], m.subLoc[d]
		if f == nil {
			return nil
		}
		if err := f.workspace(1); err != nil {
			return err
		}
		v := local(l, 0, l.own)
		v = append(v, make([]float64, l.sym.N-l.own)...)
		if err := f.y.Write(0, v); err != nil {
			return err
		}
		if err := f.forwardSteps(1); err != nil {
			return err
		}
		for i, s := range m.sends {
			if s.dev == d && d > 0 {
				vecs[i] = make([]float64, s.m)
				if err := f.v.Read(8*f.sched.info[snSI*s.src+snInfoV], vecs[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The top.
	if top := m.top; top != nil {
		if err := top.workspace(1); err != nil {
			return nil, err
		}
		if err := top.y.Write(0, local(m.topLoc, 0, m.topLoc.own)); err != nil {
			return nil, err
		}
		for i, s := range m.sends {
			dst := 8 * top.sched.info[snSI*s.dst+snInfoV]
			if s.dev == 0 {
				src := m.subs[0]
				err = src.v.CopyTo(top.v, 8*src.sched.info[snSI*s.src+snInfoV], dst, int64(8*s.m))
			} else {
				err = top.v.Write(dst, vecs[i])
			}
			if err != nil {
				return nil, err
			}
		}
		if err := top.forwardSteps(1); err != nil {
			return nil, err
		}
		if err := top.backwardSteps(1); err != nil {
			return nil, err
		}
		v := make([]float64, m.topLoc.own)
		if err := top.y.Read(0, v); err != nil {
			return nil, err
		}
		for i, x := range v {
			y[m.topLoc.sym.Perm[i]] = x
		}
	}
	// Backward through the subtrees with the top's solution.
	err = onDevices(len(m.devs), func(d int) error {
		f, l := m.subs[d], m.subLoc[d]
		if f == nil {
			return nil
		}
		if l.sym.N > l.own {
			if err := f.y.Write(int64(8*l.own), local(l, l.own, l.sym.N)); err != nil {
				return err
			}
		}
		if err := f.backwardSteps(1); err != nil {
			return err
		}
		v := make([]float64, l.own)
		if err := f.y.Read(0, v); err != nil {
			return err
		}
		// Parts own disjoint columns: no two goroutines write the same y.
		for i, x := range v {
			y[l.sym.Perm[i]] = x
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	x := make([]float64, g.N)
	for i, p := range g.Perm {
		x[p] = y[i]
	}
	if i := firstNonFinite(x); i >= 0 {
		return nil, &NonFiniteError{Where: "solution", Index: i}
	}
	return x, nil
}

func (m *snMulti) release() {
	for _, f := range m.subs {
		if f != nil {
			f.release()
		}
	}
	if m.top != nil {
		m.top.release()
	}
	*m = snMulti{ldlt: m.ldlt, stats: m.stats}
}
