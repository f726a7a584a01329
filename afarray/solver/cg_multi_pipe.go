package solver

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/oclsolve/oclsolve/kernels"
)

// mcgForm is the iteration CGMulti runs.
type mcgForm int

const (
	// mcgPipelined is pipelined CG (mcgIteratePipe): the host's sums and
	// the halo exchange overlap the product.
	mcgPipelined mcgForm = iota
	// mcgOneSync is Chronopoulos and Gear's CG (mcgIterate1): one host
	// round trip per iteration after the product.
	mcgOneSync
	// mcgTextbook is the textbook iteration (mcgIterate): two round trips.
	mcgTextbook
)

// mcgDefault is the form CGMulti runs (BenchmarkCGMultiModel2 and the
// tests switch it). The pipelined one is not the default: on Model 2 its
// recurrences stall above the tolerance (see mcgReplace).
var mcgDefault = mcgOneSync

// mcgFallbacks counts the pipelined solves that broke down and ran again
// in Chronopoulos and Gear's form (BenchmarkCGMultiModel2 reports it).
var mcgFallbacks atomic.Int64

// mcgReplace is the factor by which the pipelined iteration's residual
// falls between two residual replacements. On Model 2 (n = 20,000, PoCL,
// Jacobi, 1e-8), where Chronopoulos and Gear's form takes 468 iterations,
// the pipelined recurrences without replacement stall at 4e-8 after 465
// iterations (then p'Ap <= 0 at 639); one replacement at 1e-5 stalls
// them again at 1.5e-7 within 15 iterations (the rounding errors of the
// auxiliary vectors reach r multiplied by alpha); replacing every factor
// 1e-2 converges, in 921 iterations (every 1e-1: 955; every 1e-3: 980).
const mcgReplace = 1e-2

// mcgCopyQueue gives every device's exchange of the pipelined iteration a
// queue of its own (kernels.Exchange), so its transfers run beside the
// product instead of between kernels (BenchmarkCGMultiModel2 compares).
var mcgCopyQueue = false

// iterate returns the form's iteration.
func (f mcgForm) iterate() func([]*mcgPart, int, float64, int, bool) ([]float64, *CGResult, error) {
	switch f {
	case mcgOneSync:
		return mcgIterate1
	case mcgTextbook:
		return mcgIterate
	}
	return mcgIteratePipe
}

// pcgState is one part's state for the pipelined iteration.
type pcgState struct {
	u, mv, nv, z, rows         *kernels.Buffer
	nb                         int // positions of rows others read (their n values travel): whole slices, first in rows
	kInit, kSpmv, kStart, kUpd *kernels.Kernel
	kResid, kPrec, kGather     *kernels.Kernel
	local                      int // of the kernels; the vector kernels run the part's groups over ext
}

// uploadPipe lays the block out in sliced ELLPACK (from its local CSR:
// rowptr, cols, vals) and allocates the pipelined iteration's vectors and
// exchange (up allocates and uploads as in upload).
func (p *mcgPart) uploadPipe(up func(dst **kernels.Buffer, data any, count, size int) error, rowptr, cols []int32, vals []float64) error {
	st := &pcgState{}
	prog, err := cgMultiProgram.On(p.dev)
	if err != nil {
		return err
	}
	wg, err := namedKernels(prog, []namedKernel{{&st.kInit, "pcg_init"}, {&st.kSpmv, "pcg_sell"}, {&st.kStart, "pcg_start"},
		{&st.kUpd, "pcg_update"}, {&st.kResid, "pcg_resid"}, {&st.kPrec, "pcg_prec"}, {&st.kGather, "mcg_gather"}})
	if err != nil {
		return err
	}
	st.local = pow2Below(min(p.local, wg))
	p.groups = groupsFor(p.ext, st.local)
	// The rows whose values others need come first, so that their
	// product ends, and their values travel, before the rest is computed.
	rows := make([]int32, 0, p.m)
	isSend := make([]bool, p.m)
	for _, i := range p.send {
		rows = append(rows, i)
		isSend[i] = true
	}
	for i := range isSend {
		if !isSend[i] {
			rows = append(rows, int32(i))
		}
	}
	st.nb = min(p.m, (len(p.send)+sellC-1)/sellC*sellC)
	if err := p.uploadSELL(up, rowptr, cols, vals, rows); err != nil {
		return err
	}
	m, ext, S := p.m, p.ext, len(p.send)
	for _, s := range []struct {
		dst   **kernels.Buffer
		data  any
		count int
		size  int
	}{{&st.rows, rows, m, 4}, {&p.sendIdx, p.send, S, 4}, {&p.x, nil, ext, 8}, {&p.r, nil, m, 8}, {&p.q, nil, ext, 8},
		{&p.s, nil, m, 8}, {&p.p[0], nil, ext, 8}, {&st.u, nil, ext, 8}, {&p.w, nil, ext, 8}, {&st.mv, nil, ext, 8},
		{&st.nv, nil, ext, 8}, {&st.z, nil, ext, 8}, {&p.out, nil, 3*p.groups + S, 8}} {
		if err := up(s.dst, s.data, s.count, s.size); err != nil {
			return err
		}
	}
	if p.xch, err = p.dev.NewExchange(3*p.groups+S+len(p.halo), mcgCopyQueue); err != nil {
		return err
	}
	p.pipe = st
	return nil
}

// uploadSELL uploads the block in sliced ELLPACK in the order of rows
// (sellRows).
func (p *mcgPart) uploadSELL(up func(dst **kernels.Buffer, data any, count, size int) error, rowptr, cols []int32, vals []float64, rows []int32) error {
	ptr, col, val, err := sellRows(rowptr, cols, vals, rows)
	if err != nil {
		return err
	}
	for _, e := range []error{up(&p.sptr, ptr, len(ptr), 4), up(&p.scol, col, len(col), 4), up(&p.sval, val, len(val), 8)} {
		if e != nil {
			return e
		}
	}
	return nil
}

// sellRows lays the rows of a local CSR block out in sliced ELLPACK in the
// order of rows (slices of sellC positions, padded with zeros on the row's
// own column), for pcg_sell.
func sellRows(rowptr, cols []int32, vals []float64, rows []int32) (ptr, col []int32, val []float64, err error) {
	m := len(rows)
	slices := (m + sellC - 1) / sellC
	ptr = make([]int32, slices+1)
	slots := 0
	for s := 0; s < slices; s++ {
		w := int32(0)
		for k := s * sellC; k < min(m, (s+1)*sellC); k++ {
			i := rows[k]
			w = max(w, rowptr[i+1]-rowptr[i])
		}
		slots += int(w) * sellC
		if slots > math.MaxInt32 {
			return nil, nil, nil, fmt.Errorf("%w: a block of more than %d SELL slots (%d rows)", ErrShape, math.MaxInt32, m)
		}
		ptr[s+1] = int32(slots)
	}
	col, val = make([]int32, slots), make([]float64, slots)
	for k, i := range rows {
		s := k / sellC
		e := int(ptr[s]) + k%sellC
		for t := rowptr[i]; t < rowptr[i+1]; t, e = t+1, e+sellC {
			col[e], val[e] = cols[t], vals[t]
		}
		for ; e < int(ptr[s+1]); e += sellC {
			col[e] = i
		}
	}
	return ptr, col, val, nil
}

// pipeSpmv launches y = A v on positions off..off+count-1 of the part's
// row list (send values into out).
func (p *mcgPart) pipeSpmv(off, count int, v, y *kernels.Buffer) error {
	st := p.pipe
	if count == 0 {
		return nil
	}
	return st.kSpmv.Launch([]int{groupsFor(count, st.local) * st.local}, []int{st.local}, off, off+count, sellC, st.rows,
		p.sptr, p.scol, p.sval, v, y, p.sendPos, p.out, 3*p.groups)
}

// mcgIteratePipe runs pipelined preconditioned CG (Ghysels and Vanroose,
// 2014; cg_multi_pipe.cl has the recurrences) on the parts and downloads
// x. Every iteration each device runs the update (which leaves the
// partials of r'u, w'u and r'r), the product n = A m on the rows whose
// values others need, a read of the partials with those values (without
// waiting), and the product on its other rows. The host waits for the
// reads alone, sums the partials in part order, forms alpha and beta and
// writes each device's halo of n, while the devices still compute the
// product; the next update is queued behind it. So the one host round trip
// per iteration runs beside the larger part of the product instead of
// between kernels. In exact arithmetic it is CG; in floating point its
// recurrences drift further from the true residual than CG's (Ghysels and
// Vanroose), which CGMulti's check of the true residual at convergence
// catches (mcgRefine). Launches go from this one goroutine: none of them
// waits.
func mcgIteratePipe(parts []*mcgPart, n int, tol float64, maxIter int, jacobi bool) ([]float64, *CGResult, error) {
	jac := boolArg(jacobi)
	track := newMCGTrack(parts, tol, maxIter)
	lm := func(p *mcgPart) kernels.Local { return kernels.Local(8 * p.pipe.local) }
	vec := func(p *mcgPart) ([]int, []int) { return []int{p.groups * p.pipe.local}, []int{p.pipe.local} }
	halos := func(dst func(p *mcgPart) *kernels.Buffer) error { return mcgHalos(parts, dst) }
	wait := func() error { return mcgWait(parts) }
	// The start: w = A u, whose halo travels once.
	for _, p := range parts {
		st := p.pipe
		g, l := vec(p)
		if err := st.kInit.Launch(g, l, p.m, p.ext, jac, p.b, p.dinv, p.x, p.r, st.u, st.z, p.q, p.s, p.p[0]); err != nil {
			return nil, nil, err
		}
		if err := p.pipeSpmv(0, p.m, st.u, p.w); err != nil {
			return nil, nil, err
		}
		if err := p.xch.ReadFrom(p.out, 3*p.groups, 3*p.groups, len(p.send)); err != nil {
			return nil, nil, err
		}
		if err := p.dev.Flush(); err != nil {
			return nil, nil, err
		}
	}
	if err := wait(); err != nil {
		return nil, nil, err
	}
	if err := halos(func(p *mcgPart) *kernels.Buffer { return p.w }); err != nil {
		return nil, nil, err
	}
	// all launches y = A v on every own row of every part.
	all := func(v, y func(p *mcgPart) *kernels.Buffer) error {
		for _, p := range parts {
			if err := p.pipeSpmv(0, p.m, v(p), y(p)); err != nil {
				return err
			}
		}
		return nil
	}
	// exchange gives each v's halo on every part the owners' values, one
	// vector after the other.
	exchange := func(vs ...func(p *mcgPart) *kernels.Buffer) error {
		for _, v := range vs {
			if err := wait(); err != nil {
				return err
			}
			for _, p := range parts {
				st := p.pipe
				if S := len(p.send); S > 0 {
					if err := st.kGather.Launch([]int{groupsFor(S, st.local) * st.local}, []int{st.local}, S, 3*p.groups,
						p.sendIdx, v(p), p.out); err != nil {
						return err
					}
				}
				if err := p.xch.ReadFrom(p.out, 3*p.groups, 3*p.groups, len(p.send)); err != nil {
					return err
				}
			}
			if err := wait(); err != nil {
				return err
			}
			if err := halos(v); err != nil {
				return err
			}
		}
		return nil
	}
	// products exchanges the halos of a and b, then launches y = A a and
	// z = A b on every own row.
	products := func(a, y, b, z func(p *mcgPart) *kernels.Buffer) error {
		if err := exchange(a, b); err != nil {
			return err
		}
		if err := all(a, y); err != nil {
			return err
		}
		return all(b, z)
	}
	// replace computes r, u, w, s, q and z afresh from x and p (residual
	// replacement, cg_multi_pipe.cl); m and n follow in a start pass.
	replace := func() error {
		x := func(p *mcgPart) *kernels.Buffer { return p.x }
		pp := func(p *mcgPart) *kernels.Buffer { return p.p[0] }
		u := func(p *mcgPart) *kernels.Buffer { return p.pipe.u }
		q := func(p *mcgPart) *kernels.Buffer { return p.q }
		w := func(p *mcgPart) *kernels.Buffer { return p.w }
		z := func(p *mcgPart) *kernels.Buffer { return p.pipe.z }
		nv := func(p *mcgPart) *kernels.Buffer { return p.pipe.nv }
		s := func(p *mcgPart) *kernels.Buffer { return p.s }
		if err := products(x, nv, pp, s); err != nil {
			return err
		}
		for _, p := range parts {
			g, l := vec(p)
			if err := p.pipe.kResid.Launch(g, l, p.m, jac, p.b, p.pipe.nv, p.dinv, p.r, p.pipe.u); err != nil {
				return err
			}
			if err := p.pipe.kPrec.Launch(g, l, p.m, jac, p.s, p.dinv, p.q); err != nil {
				return err
			}
		}
		if err := products(u, w, q, z); err != nil {
			return err
		}
		return exchange(w, z)
	}
	it := 0
	converged := false
	// start: the next pass starts from w (m = M^-1 w) instead of updating;
	// fresh: its vectors were just computed afresh (its r'r is the true
	// residual's).
	start, fresh := true, false
	relLast := 1.0
	var alpha, beta, alphaOld, gammaOld float64
	for {
		for _, p := range parts {
			st := p.pipe
			g, l := vec(p)
			var err error
			if start {
				err = st.kStart.Launch(g, l, p.m, p.ext, jac, p.r, st.u, p.w, p.dinv, st.mv, p.out, lm(p))
			} else {
				err = st.kUpd.Launch(g, l, p.m, p.ext, alpha, beta, jac, p.x, p.r, st.u, p.w, st.mv, st.nv, st.z,
					p.q, p.s, p.p[0], p.dinv, p.out, lm(p))
			}
			if err != nil {
				return nil, nil, err
			}
			if err := p.pipeSpmv(0, st.nb, st.mv, st.nv); err != nil {
				return nil, nil, err
			}
			if err := p.xch.ReadFrom(p.out, 0, 0, 3*p.groups+len(p.send)); err != nil {
				return nil, nil, err
			}
			if err := p.pipeSpmv(st.nb, p.m-st.nb, st.mv, st.nv); err != nil {
				return nil, nil, err
			}
			if err := p.dev.Flush(); err != nil {
				return nil, nil, err
			}
		}
		if err := wait(); err != nil {
			return nil, nil, err
		}
		var gamma, delta, rr float64
		for _, p := range parts {
			G, h := p.groups, p.xch.Host()
			for g := 0; g < G; g++ {
				gamma += h[g]
				delta += h[G+g]
				rr += h[2*G+g]
			}
		}
		if math.IsNaN(rr) || math.IsInf(rr, 0) {
			if it == 0 {
				return nil, nil, &NonFiniteError{Where: "right-hand side", Index: -1}
			}
			return nil, nil, &NonFiniteError{Where: "CG residual (breakdown: is the matrix positive definite?)", Index: it}
		}
		switch {
		case it == 0:
			var err error
			if converged, err = track.begin(rr); err != nil {
				return nil, nil, err
			}
		case fresh:
			// The true residual replaces the recurrence's in the history.
			converged = track.restate(rr)
		default:
			converged = track.step(rr)
		}
		beta = 0
		den := delta
		if it > 0 {
			beta = gamma / gammaOld
			den = delta - beta*gamma/alphaOld
		}
		// den is p'Ap of the next search direction.
		bad := math.IsNaN(den) || math.IsInf(den, 0) || !(den > 0) || math.IsNaN(gamma) || math.IsInf(gamma, 0)
		// The recurrences' residual is checked against the true one at
		// convergence, and replaced by it whenever it has fallen a factor
		// mcgReplace since the last time, or on a breakdown.
		rel := track.hist[len(track.hist)-1]
		if it > 0 && !fresh && (converged || bad || rel <= relLast*mcgReplace) {
			if err := replace(); err != nil {
				return nil, nil, err
			}
			relLast = rel
			start, fresh = true, true
			continue
		}
		start, fresh = false, false
		if converged || it >= maxIter {
			break
		}
		if math.IsNaN(den) || math.IsInf(den, 0) || math.IsNaN(gamma) || math.IsInf(gamma, 0) {
			return nil, nil, &NonFiniteError{Where: "CG p'Ap (breakdown: is the matrix positive definite?)", Index: it}
		}
		if !(den > 0) {
			return nil, nil, fmt.Errorf("%w: CG found p'Ap = %g <= 0 at iteration %d", ErrNotPositiveDefinite, den, it)
		}
		alpha = gamma / den
		alphaOld, gammaOld = alpha, gamma
		if err := halos(func(p *mcgPart) *kernels.Buffer { return p.pipe.nv }); err != nil {
			return nil, nil, err
		}
		it++
	}
	return track.finish(n, it, converged)
}

// mcgHalos fills every part's halo values in its exchange from the send
// values in the owners' exchanges (after the partials: [3G, 3G+S) of
// each) and writes them to dst(p) at the halo's offset, without waiting.
func mcgHalos(parts []*mcgPart, dst func(p *mcgPart) *kernels.Buffer) error {
	for _, p := range parts {
		if len(p.halo) == 0 {
			continue
		}
		at := 3*p.groups + len(p.send)
		h := p.xch.Host()[at : at+len(p.halo)]
		for k := range p.halo {
			src := parts[p.fromPart[k]]
			h[k] = src.xch.Host()[3*src.groups+int(p.fromPos[k])]
		}
		if err := p.xch.WriteTo(dst(p), p.m, at, len(p.halo)); err != nil {
			return err
		}
	}
	return nil
}

// mcgWait waits for every part's exchange.
func mcgWait(parts []*mcgPart) error {
	for _, p := range parts {
		if err := p.xch.Wait(); err != nil {
			return err
		}
	}
	return nil
}
