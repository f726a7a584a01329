package dense

import (
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

// GemmShape returns the shapes of op(A), m x k, and op(B), kb x n, for A
// ar x ac and B br x bc (op(X) = X, or X^T with trans): a product needs
// kb == k and C m x n.
func GemmShape(transA, transB bool, ar, ac, br, bc int) (m, k, kb, n int) {
	m, k, kb, n = ar, ac, br, bc
	if transA {
		m, k = k, m
	}
	if transB {
		kb, n = n, kb
	}
	return m, k, kb, n
}

// Gemm enqueues C = alpha*op(A)*op(B) + beta*C, where op(X) is X or its
// transpose. op(A) is m x k, op(B) k x n, C m x n. With beta == 0 C is not
// read (it may hold anything, NaN included). k == 0 scales C by beta. C
// must not share elements with A or B (ErrArgument).
func (e *Engine) Gemm(transA, transB bool, alpha float64, a, b Mat, beta float64, c Mat) error {
	m, k, kb, n := GemmShape(transA, transB, a.Rows, a.Cols, b.Rows, b.Cols)
	if kb != k || c.Rows != m || c.Cols != n {
		return fmt.Errorf("dense: Gemm: %w: op(A) %dx%d, op(B) %dx%d, C %dx%d", ErrShape, m, k, kb, n, c.Rows, c.Cols)
	}
	if err := e.checkAll("Gemm", namedMat{"A", a}, namedMat{"B", b}, namedMat{"C", c}); err != nil {
		return err
	}
	if err := checkDisjoint("Gemm", namedMat{"C", c}, namedMat{"A", a}, namedMat{"B", b}); err != nil {
		return err
	}
	return e.gemmLaunch(transA, transB, alpha, a, b, beta, c, false)
}

// Syrk enqueues the lower triangle of C = alpha*op(A)*op(A)^T + beta*C,
// where op(A) is A (n x k) or, with trans, A^T (A is k x n). The strict
// upper triangle of C is neither read nor written.
func (e *Engine) Syrk(trans bool, alpha float64, a Mat, beta float64, c Mat) error {
	n, k := a.Rows, a.Cols
	if trans {
		n, k = k, n
	}
	if c.Rows != n || c.Cols != n {
		return fmt.Errorf("dense: Syrk: %w: op(A) %dx%d, C %dx%d", ErrShape, n, k, c.Rows, c.Cols)
	}
	if err := e.checkAll("Syrk", namedMat{"A", a}, namedMat{"C", c}); err != nil {
		return err
	}
	if err := checkDisjoint("Syrk", namedMat{"C", c}, namedMat{"A", a}); err != nil {
		return err
	}
	return e.gemmLaunch(trans, !trans, alpha, a, a, beta, c, true)
}

// gemmLaunch enqueues the product on checked operands: thin products on
// the thin path (gemm_small.go), on CPUs the packed or direct kernel where
// they apply, else the tuned tiled kernel; lower restricts the output to
// C's lower triangle.
func (e *Engine) gemmLaunch(transA, transB bool, alpha float64, a, b Mat, beta float64, c Mat, lower bool) error {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if transA {
		k = a.Rows
	}
	if m == 0 || n == 0 {
		return nil
	}
	if e.small != nil {
		if done, err := e.launchSmall(transA, transB, alpha, a, b, beta, c, k, lower); done {
			return err
		}
	}
	if e.packed != nil && e.usePacked(transA, m, n, k) {
		return e.packed.launch(e.q, e.dt, transA, transB, e.scalar(alpha), e.scalar(beta), a, b, c, k, lower)
	}
	if e.gemmDirectK != nil && !transA {
		cfg := e.cfg
		wx, wy := cfg.MT/cfg.TM, cfg.NT/cfg.TN
		gm, gn := (m+cfg.MT-1)/cfg.MT, (n+cfg.NT-1)/cfg.NT
		return e.gemmDirectK.LaunchOn(e.q, []int{gm * wx, gn * wy}, []int{wx, wy},
			int32(m), int32(n), int32(k), b2i(transB), e.scalar(alpha),
			bufOf(a, c), a.Off, a.ld(), bufOf(b, c), b.Off, b.ld(),
			e.scalar(beta), c.Buf, c.Off, c.ld(), b2i(lower))
	}
	return e.launchTiled(e.gemmK, e.tiled, transA, transB, alpha, a, b, beta, c, k, lower)
}

// bufOf returns m's buffer, or (for an empty operand, whose buffer may be
// nil) the output's, which the kernel then never reads.
func bufOf(m, out Mat) *kernels.Buffer {
	if m.Buf == nil || m.Rows == 0 || m.Cols == 0 {
		return out.Buf
	}
	return m.Buf
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
