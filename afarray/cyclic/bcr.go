package cyclic

import (
	_ "embed"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed bcr.cl
var bcrSource string

// BCRPlan solves the 2-D Poisson problem on a fixed P x Q grid (P = 2^K - 1)
// by block cyclic reduction in Buneman's stable form, in double precision,
// entirely on the device. It holds the workspace and is reused across
// right-hand sides; it must be released.
//
// The Buneman recurrences need products of inverses of the level matrices
// A^(r) = -prod_{l=1}^{2^r} (T - 2cos(theta_l) I), theta_l = (2l-1)pi/2^(r+1),
// where T = tridiag(-rho, 2+2rho, -rho) is the scaled line operator. Rather
// than forming dense inverses, each product is expanded in partial fractions,
//
//	(A^(r))^{-1} = -sum_l c_l (T - 2cos(theta_l) I)^{-1},
//	c_l = (-1)^(l-1) sin(theta_l) / 2^r,
//
// so that every level is one batch of independent, diagonally dominant
// tridiagonal solves (one per active line and root), run by the batched
// cyclic-reduction solver, followed by a weighted sum.
type BCRPlan struct {
	dev          *kernels.Device
	P, Q, K      int
	hx, hy       float64
	rho, diag0   float64
	solver       *Plan
	init, build  *kernels.Kernel
	combine      *kernels.Kernel
	lam, coef    []*kernels.Buffer // per level r = 0..K-1
	p, q         *kernels.Buffer
	a, b, c, d   *kernels.Buffer // batch of shifted line systems
	y            *kernels.Buffer // their solutions
	launchesLast int64
}

// bcrProgram holds the block cyclic reduction kernels.
var bcrProgram = &kernels.ProgramSet{Sources: []kernels.Source{{Name: "bcr.cl", Text: bcrSource}}}

// NewBCRPlan prepares solving the P x Q grid problem with spacings hx, hy.
// opt.Method selects the tridiagonal solver for the line systems ("cr",
// "pcr" or "crpcr"; empty means "crpcr").
func NewBCRPlan(dev *kernels.Device, P, Q int, hx, hy float64, opt Options) (*BCRPlan, error) {
	if err := validateGrid(P, Q, hx, hy); err != nil {
		return nil, err
	}
	if opt.Method == "thomas" {
		return nil, fmt.Errorf("%w: the line solves of block cyclic reduction run on the device (cr, pcr or crpcr)", ErrMethod)
	}
	bp := &BCRPlan{dev: dev, P: P, Q: Q, K: bits.Len(uint(P)), hx: hx, hy: hy}
	bp.rho = (hx * hx) / (hy * hy)
	bp.diag0 = 2 + 2*bp.rho
	maxBatch := (P + 1) / 2
	var err error
	if bp.solver, err = NewPlan(dev, Q, maxBatch, false, opt); err != nil {
		return nil, err
	}
	fail := func(err error) (*BCRPlan, error) { bp.Release(); return nil, err }
	prog, err := bcrProgram.On(dev)
	if err != nil {
		return fail(err)
	}
	for name, dst := range map[string]**kernels.Kernel{"bcr_init": &bp.init, "bcr_build": &bp.build, "bcr_combine": &bp.combine} {
		if *dst, err = prog.Kernel(name); err != nil {
			return fail(err)
		}
	}
	grid := int64(P) * int64(Q) * 8
	batch := int64(maxBatch) * int64(Q) * 8
	for _, x := range []struct {
		dst  **kernels.Buffer
		size int64
	}{{&bp.p, grid}, {&bp.q, grid}, {&bp.a, batch}, {&bp.b, batch}, {&bp.c, batch}, {&bp.d, batch}, {&bp.y, batch}} {
		if *x.dst, err = dev.Alloc(x.size); err != nil {
			return fail(err)
		}
	}
	// The off-diagonals of every shifted system are -rho; the solver masks
	// the entries outside each matrix by index.
	pat := make([]byte, 8)
	bitsOf := math.Float64bits(-bp.rho)
	for i := range pat {
		pat[i] = byte(bitsOf >> (8 * i))
	}
	for _, buf := range []*kernels.Buffer{bp.a, bp.c} {
		if err := buf.Fill(pat, 0, batch); err != nil {
			return fail(err)
		}
	}
	for r := range bp.K {
		lam, coef := BunemanRoots(r)
		lb, err := dev.Alloc(int64(len(lam)) * 8)
		if err != nil {
			return fail(err)
		}
		bp.lam = append(bp.lam, lb)
		cb, err := dev.Alloc(int64(len(coef)) * 8)
		if err != nil {
			return fail(err)
		}
		bp.coef = append(bp.coef, cb)
		if err := lb.Write(0, lam); err != nil {
			return fail(err)
		}
		if err := cb.Write(0, coef); err != nil {
			return fail(err)
		}
	}
	return bp, nil
}

// BunemanRoots returns the shifts lambda_l = 2cos(theta_l),
// theta_l = (2l-1)pi/2^(r+1), l = 1..2^r, of the level-r matrix polynomial
// prod_l (T - lambda_l I), and the partial-fraction coefficients
// c_l = 1/prod_{m != l}(lambda_l - lambda_m) = (-1)^(l-1) sin(theta_l)/2^r.
func BunemanRoots(r int) (lambda, coef []float64) {
	n := 1 << r
	lambda, coef = make([]float64, n), make([]float64, n)
	for l := 1; l <= n; l++ {
		th := float64(2*l-1) * math.Pi / float64(2*n)
		lambda[l-1] = 2 * math.Cos(th)
		s := math.Sin(th) / float64(n)
		if l%2 == 0 {
			s = -s
		}
		coef[l-1] = s
	}
	return lambda, coef
}

// Release frees the plan's device memory. It is idempotent.
func (bp *BCRPlan) Release() {
	if bp.solver != nil {
		bp.solver.Release()
	}
	for _, b := range append(append([]*kernels.Buffer{bp.p, bp.q, bp.a, bp.b, bp.c, bp.d, bp.y}, bp.lam...), bp.coef...) {
		if b != nil {
			b.Release()
		}
	}
}

// Launches returns the number of kernels the last SolveTo enqueued.
func (bp *BCRPlan) Launches() int64 { return bp.launchesLast }

// SolveTo solves for the right-hand side f (P*Q doubles on the device, the
// layout of Grid2D.F) into u, which must not be f. It waits for the device
// at the end only, to read the breakdown flag.
func (bp *BCRPlan) SolveTo(u, f *kernels.Buffer) error {
	total := bp.P * bp.Q
	need := int64(total) * 8
	if u == nil || f == nil || u.Size() < need || f.Size() < need {
		return fmt.Errorf("%w: grid %d x %d needs device vectors of %d bytes", ErrShape, bp.P, bp.Q, need)
	}
	if u == f {
		return fmt.Errorf("%w: solution and right-hand side must be different buffers", ErrShape)
	}
	l0 := bp.dev.Launches()
	s := bp.solver
	if err := s.flag.Fill([]byte{0, 0, 0, 0}, 0, 4); err != nil {
		return err
	}
	const L = 256
	P, Q := bp.P, bp.Q
	// The block system u_{i-1} + A u_i + u_{i+1} = y_i with A = -T is the
	// grid equations times -hx^2.
	if err := bp.init.Launch([]int{kernels.RoundUp(total, L)}, []int{L}, total, -bp.hx*bp.hx, f, bp.p, bp.q); err != nil {
		return err
	}
	level := func(r, mode, first, step, J int) error {
		h, N := 1<<r, 1<<r
		systems := N * J
		if err := bp.build.Launch([]int{kernels.RoundUp(systems*Q, L)}, []int{L},
			Q, P, h, first, step, N, J, bp.lam[r], bp.diag0, mode, bp.p, bp.q, u, bp.b, bp.d); err != nil {
			return err
		}
		if err := s.enqueueCount(bp.y, bp.a, bp.b, bp.c, bp.d, systems); err != nil {
			return err
		}
		return bp.combine.Launch([]int{kernels.RoundUp(J*Q, L)}, []int{L},
			Q, P, h, first, step, N, J, bp.coef[r], mode, bp.y, bp.p, bp.q, u, s.flag)
	}
	// Reduction: level r eliminates the lines that are odd multiples of
	// 2^r, keeping the multiples of 2^(r+1).
	for r := 0; r <= bp.K-2; r++ {
		h := 1 << r
		if err := level(r, 0, 2*h, 2*h, (1<<(bp.K-r-1))-1); err != nil {
			return err
		}
	}
	// Back-substitution: level r solves the lines that are odd multiples of
	// 2^r, from the middle line down to every odd line.
	for r := bp.K - 1; r >= 0; r-- {
		h := 1 << r
		if err := level(r, 1, h, 2*h, 1<<(bp.K-1-r)); err != nil {
			return err
		}
	}
	bp.launchesLast = bp.dev.Launches() - l0
	return s.check()
}

// Poisson2D solves the grid problem by block cyclic reduction (Buneman) on
// the device and returns u in the layout of g.F. The report's
// BackwardError is that of the discrete system, measured on the host.
func Poisson2D(dev *kernels.Device, g *Grid2D, opt Options) ([]float64, *Report, error) {
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	bp, err := NewBCRPlan(dev, g.P, g.Q, g.Hx, g.Hy, opt)
	if err != nil {
		return nil, nil, err
	}
	defer bp.Release()
	rep := &Report{Method: "bcr", Precision: "double", N: g.P * g.Q, Count: 1, Levels: bp.K,
		LocalOrder: bp.solver.LocalOrder(), WorkGroup: bp.solver.WorkGroup()}
	fb, err := dev.Alloc(int64(len(g.F)) * 8)
	if err != nil {
		return nil, rep, err
	}
	defer fb.Release()
	ub, err := dev.Alloc(int64(len(g.F)) * 8)
	if err != nil {
		return nil, rep, err
	}
	defer ub.Release()
	if err := fb.Write(0, g.F); err != nil {
		return nil, rep, err
	}
	if err := dev.Finish(); err != nil {
		return nil, rep, err
	}
	rep.Upload = time.Since(start)
	t0 := time.Now()
	if err := bp.SolveTo(ub, fb); err != nil {
		return nil, rep, err
	}
	rep.Compute = time.Since(t0)
	rep.Launches = bp.Launches()
	t1 := time.Now()
	u := make([]float64, len(g.F))
	if err := ub.Read(0, u); err != nil {
		return nil, rep, err
	}
	rep.Download = time.Since(t1)
	rep.Elapsed = time.Since(start)
	rep.BackwardError, err = g.BackwardError(u)
	return u, rep, err
}
