package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/cyclic"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Cyclic reduction in `oclsolve solve`:
//
//	--method cr|pcr|crpcr   tridiagonal systems (a Matrix Market file whose
//	                        entries all lie on the three central diagonals,
//	                        or poisson1d:N); --variant double|float
//	--method bcr            block cyclic reduction (Buneman) for poisson2d:PxQ,
//	                        P = 2^k - 1; --variant names the line solver
//	                        crpcr|cr|pcr
//
// Generators:
//
//	poisson1d:N    -u'' = f on (0,1), u = sin(pi x), n interior points,
//	               tridiag(-1, 2, -1) x = h^2 f; the reference is the exact u
//	poisson2d:PxQ  -Δu = f on the unit square, five-point stencil on P x Q
//	               interior points, manufactured u = sin(pi x)sin(2 pi y) +
//	               e^x cos y (Dirichlet values from u); the reference is u
//
// Small generated problems are also assembled as a sparse matrix so that the
// other methods can solve them; large ones are matrix-free.
func init() {
	for _, m := range []string{"cr", "pcr", "crpcr"} {
		registerSolveMethod(&solveMethod{name: m, formats: []string{"tridiag"}, variants: []string{"double", "float"}, run: runCyclic})
	}
	registerSolveMethod(&solveMethod{name: "bcr", formats: []string{"grid"}, variants: []string{"crpcr", "cr", "pcr"}, run: runBCR})
	registerGenerator("poisson1d", poisson1dProblem)
	registerGenerator("poisson2d", poisson2dProblem)
}

// assembleLimit is the largest order for which generated problems are also
// assembled as a COO matrix.
const assembleLimit = 1 << 20

func poisson1dProblem(arg string, o *solveOptions) (*solveProblem, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("%w: want a positive order, got %q", errUsage, arg)
	}
	t, err := cyclic.Poisson1D(n)
	if err != nil {
		return nil, err
	}
	exact, _ := cyclic.Poisson1DExact(n, 1)
	p := &solveProblem{Spec: t, N: n, NNZ: 2*n - 1, NNZFull: 3*n - 2, B: append([]float64(nil), t.RHS...), Ref: exact, NormInf: 4}
	if n == 1 {
		p.NormInf = 2
	}
	p.MatVec = func(x []float64) []float64 { return tridiagMatVec(t, x) }
	if n <= assembleLimit {
		p.A = tridiagCOO(t)
	}
	return p, nil
}

func poisson2dProblem(arg string, o *solveOptions) (*solveProblem, error) {
	a, b, ok := strings.Cut(strings.ToLower(arg), "x")
	P, err1 := strconv.Atoi(a)
	Q, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: want PxQ (P = 2^k - 1 grid lines of Q points), got %q", errUsage, arg)
	}
	g, err := cyclic.Poisson2DManufactured(P, Q)
	if err != nil {
		return nil, err
	}
	n := P * Q
	p := &solveProblem{Spec: g, N: n, NNZ: (6*n - 2*P - 2*Q) / 2, NNZFull: 5*n - 2*P - 2*Q, B: append([]float64(nil), g.F...), Ref: g.Exact,
		NormInf: 4/(g.Hx*g.Hx) + 4/(g.Hy*g.Hy)}
	p.MatVec = func(x []float64) []float64 {
		y := make([]float64, len(x))
		g.Apply(y, x) // lengths match by construction
		return y
	}
	if n <= assembleLimit {
		p.A = gridCOO(g)
	}
	return p, nil
}

// tridiagMatVec multiplies one tridiagonal system (Count 1) by x.
func tridiagMatVec(t *cyclic.Tridiag, x []float64) []float64 {
	n := t.N
	y := make([]float64, n)
	for i := range n {
		v := t.Diag[i] * x[i]
		if i > 0 {
			v += t.Sub[i] * x[i-1]
		}
		if i < n-1 {
			v += t.Sup[i] * x[i+1]
		}
		y[i] = v
	}
	return y
}

func tridiagCOO(t *cyclic.Tridiag) *sparse.COO {
	n := t.N
	c := &sparse.COO{Rows: n, Cols: n}
	for j := range n { // column-major, like the rest of oclsolve
		if j > 0 {
			c.I, c.J, c.V = append(c.I, int32(j-1)), append(c.J, int32(j)), append(c.V, t.Sup[j-1])
		}
		c.I, c.J, c.V = append(c.I, int32(j)), append(c.J, int32(j)), append(c.V, t.Diag[j])
		if j < n-1 {
			c.I, c.J, c.V = append(c.I, int32(j+1)), append(c.J, int32(j)), append(c.V, t.Sub[j+1])
		}
	}
	return c
}

func gridCOO(g *cyclic.Grid2D) *sparse.COO {
	n := g.P * g.Q
	ix, iy := 1/(g.Hx*g.Hx), 1/(g.Hy*g.Hy)
	c := &sparse.COO{Rows: n, Cols: n}
	add := func(i, j int, v float64) {
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
	}
	for k := range n { // column k, rows ascending
		line, pt := k/g.Q, k%g.Q
		if line > 0 {
			add(k-g.Q, k, -ix)
		}
		if pt > 0 {
			add(k-1, k, -iy)
		}
		add(k, k, 2*ix+2*iy)
		if pt < g.Q-1 {
			add(k+1, k, -iy)
		}
		if line < g.P-1 {
			add(k+g.Q, k, -ix)
		}
	}
	return c
}

// cyclicSystem returns the problem as one tridiagonal system with right-hand
// side p.B.
func cyclicSystem(p *solveProblem) (*cyclic.Tridiag, error) {
	if t, ok := p.Spec.(*cyclic.Tridiag); ok {
		c := *t
		c.RHS = p.B
		return &c, nil
	}
	if _, grid := p.Spec.(*cyclic.Grid2D); grid || p.A == nil {
		return nil, fmt.Errorf("%w: %s is not a tridiagonal system (cr, pcr and crpcr take a tridiagonal Matrix Market file or poisson1d:N; use bcr for poisson2d)", errUsage, p.Source)
	}
	st, err := sparse.TridiagFromCOO(p.A)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Source, err)
	}
	n := st.N()
	t, err := cyclic.NewTridiag(n, 1)
	if err != nil {
		return nil, err
	}
	copy(t.Diag, st.Diag)
	copy(t.Sub[1:], st.Sub)
	copy(t.Sup, st.Super)
	copy(t.RHS, p.B)
	return t, nil
}

func cyclicNotes(rep *cyclic.Report) []string {
	return []string{fmt.Sprintf("%d global CR levels, then systems of order %d in work-groups of %d; download %.4f s; device-side backward error %.2e",
		rep.Levels, rep.LocalOrder, rep.WorkGroup, rep.Download.Seconds(), rep.BackwardError)}
}

func runCyclic(p *solveProblem, o *solveOptions) (*solveOutcome, error) {
	t, err := cyclicSystem(p)
	if err != nil {
		return nil, err
	}
	opt := cyclic.Options{Method: o.Method}
	var x []float64
	var rep *cyclic.Report
	if o.Variant == "float" {
		var x32 []float32
		x32, rep, err = cyclic.Solve32(o.Device, t.Float32(), opt)
		if err == nil {
			x = make([]float64, len(x32))
			for i, v := range x32 {
				x[i] = float64(v)
			}
		}
	} else {
		x, rep, err = cyclic.Solve(o.Device, t, opt)
	}
	if err != nil {
		if errors.Is(err, cyclic.ErrBreakdown) {
			return nil, fmt.Errorf("%s: %w (cyclic reduction does not pivot)", o.Method, err)
		}
		return nil, err
	}
	if err := finiteOrError(x); err != nil {
		return nil, err
	}
	return &solveOutcome{X: x, Single: o.Variant == "float", Times: timeSplit{Upload: rep.Upload.Seconds(), Solve: rep.Compute.Seconds(), Total: rep.Elapsed.Seconds()},
		Notes: cyclicNotes(rep)}, nil
}

func runBCR(p *solveProblem, o *solveOptions) (*solveOutcome, error) {
	g, ok := p.Spec.(*cyclic.Grid2D)
	if !ok {
		return nil, fmt.Errorf("%w: bcr solves generated 2-D Poisson problems (poisson2d:PxQ with P = 2^k - 1), not %s", errUsage, p.Source)
	}
	c := *g
	c.F = p.B
	u, rep, err := cyclic.Poisson2D(o.Device, &c, cyclic.Options{Method: o.Variant})
	if err != nil {
		return nil, err
	}
	if err := finiteOrError(u); err != nil {
		return nil, err
	}
	return &solveOutcome{X: u, Times: timeSplit{Upload: rep.Upload.Seconds(), Solve: rep.Compute.Seconds(), Total: rep.Elapsed.Seconds()},
		Notes: []string{fmt.Sprintf("Buneman block cyclic reduction, %d levels, line systems of order %d solved by %s in batches (partial fractions); download %.4f s; backward error of the grid equations %.2e",
			rep.Levels, rep.LocalOrder, o.Variant, rep.Download.Seconds(), rep.BackwardError)}}, nil
}
