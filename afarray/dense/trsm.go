package dense

import "fmt"

// Side says on which side of the unknowns the triangle stands.
type Side int

const (
	Left  Side = iota // op(T) X = alpha B
	Right             // X op(T) = alpha B
)

// Uplo says which triangle of T holds the triangular matrix.
type Uplo int

const (
	Lower Uplo = iota
	Upper
)

// Diag says whether the triangle's diagonal is taken as ones.
type Diag int

const (
	NonUnit Diag = iota
	Unit
)

// Trsm enqueues the triangular solve op(T) X = alpha B (side Left, T m x m)
// or X op(T) = alpha B (side Right, T n x n), overwriting B (m x n) with
// X. op(T) is T or, with trans, T^T; only the uplo triangle of T is read,
// its diagonal taken as ones with Unit. A zero on the diagonal gives Inf or
// NaN, as in BLAS: factorizations check their pivots before solving.
//
// Triangles wider than 32 are solved recursively: the first half, one
// GEMM that updates the second half, the second half; 32-wide leaves are
// solved by one launch each with the block in local memory.
func (e *Engine) Trsm(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b Mat) error {
	order, _, err := e.checkTriangular("Trsm", side, uplo, diag, t, b)
	if err != nil || b.Rows == 0 || b.Cols == 0 {
		return err
	}
	// The vector problem M x = alpha b: M = op(T) on the left, op(T)^T on
	// the right; tr says whether M(i,k) is T(k,i).
	tr := trans != (side == Right)
	lowerM := (uplo == Lower) != tr
	return e.trsmRec(side, lowerM, tr, diag == Unit, alpha, t, b, 0, order)
}

// checkTriangular checks the arguments of a triangular solve named op
// (Trsm, TrsmInverse): the enums, T square of B's order on its side, both
// matrices on the engine's device and dtype and not overlapping. It
// returns the order and the number of vectors (B's other dimension).
func (e *Engine) checkTriangular(op string, side Side, uplo Uplo, diag Diag, t, b Mat) (order, vectors int, err error) {
	if side != Left && side != Right || uplo != Lower && uplo != Upper || diag != NonUnit && diag != Unit {
		return 0, 0, fmt.Errorf("dense: %s: %w: side %d, uplo %d, diag %d", op, ErrArgument, side, uplo, diag)
	}
	order, vectors = b.Rows, b.Cols
	if side == Right {
		order, vectors = b.Cols, b.Rows
	}
	if t.Rows != order || t.Cols != order {
		return 0, 0, fmt.Errorf("dense: %s: %w: triangle %dx%d, B %dx%d", op, ErrShape, t.Rows, t.Cols, b.Rows, b.Cols)
	}
	if err := e.checkAll(op, namedMat{"T", t}, namedMat{"B", b}); err != nil {
		return 0, 0, err
	}
	if err := checkDisjoint(op, namedMat{"B", b}, namedMat{"T", t}); err != nil {
		return 0, 0, err
	}
	return order, vectors, nil
}

// trsmRec solves the elements [k0, k1) of every vector for the right-hand
// sides scaled by alpha (their updates from earlier elements already
// applied): it halves the range, solves the half that comes first in
// substitution order, updates the other half with one GEMM of depth half
// the range (deep products run at full GEMM speed, unlike a sequence of
// 32-deep updates), and solves the other half. Ranges of at most 32 go to
// the local-memory kernel.
func (e *Engine) trsmRec(side Side, lowerM, tr, unit bool, alpha float64, t, b Mat, k0, k1 int) error {
	if k1-k0 <= trsmBlock {
		return e.trsmBlock(side, lowerM, tr, unit, alpha, t.Sub(k0, k0, k1-k0, k1-k0), b, k0, k1-k0)
	}
	// Split at a multiple of 32 so the leaves are whole blocks.
	mid := k0 + ((k1-k0)/2+trsmBlock-1)/trsmBlock*trsmBlock
	first0, first1, second0, second1 := k0, mid, mid, k1
	if !lowerM {
		first0, first1, second0, second1 = mid, k1, k0, mid
	}
	if err := e.trsmRec(side, lowerM, tr, unit, alpha, t, b, first0, first1); err != nil {
		return err
	}
	kb, rest := first1-first0, second1-second0
	// M(second, first): T(second, first), or T(first, second)^T when tr.
	mt := t.Sub(second0, first0, rest, kb)
	if tr {
		mt = t.Sub(first0, second0, kb, rest)
	}
	var err error
	if side == Left {
		// B(second, :) = alpha B(second, :) - M(second, first) X(first, :)
		err = e.gemmLaunch(tr, false, -1, mt, b.Sub(first0, 0, kb, b.Cols), alpha, b.Sub(second0, 0, rest, b.Cols), false)
	} else {
		// B(:, second) = alpha B(:, second) - X(:, first) M(second, first)^T
		err = e.gemmLaunch(false, !tr, -1, b.Sub(0, first0, b.Rows, kb), mt, alpha, b.Sub(0, second0, b.Rows, rest), false)
	}
	if err != nil {
		return err
	}
	return e.trsmRec(side, lowerM, tr, unit, 1, t, b, second0, second1)
}

// trsmBlock solves the elements [k, k+kb) of every vector of B with the
// diagonal block mkk (kb <= trsmBlock) in one launch.
func (e *Engine) trsmBlock(side Side, lowerM, tr, unit bool, alpha float64, mkk, b Mat, k, kb int) error {
	var nv int
	var vstride, estride int32
	var sub Mat
	if side == Left {
		sub = b.Sub(k, 0, kb, b.Cols)
		nv, vstride, estride = b.Cols, b.ld(), 1
	} else {
		sub = b.Sub(0, k, b.Rows, kb)
		nv, vstride, estride = b.Rows, 1, b.ld()
	}
	g := (nv + trsmVectors - 1) / trsmVectors
	return e.trsmBlockK.LaunchOn(e.q, []int{g * trsmVectors}, []int{trsmVectors},
		int32(kb), int32(nv), b2i(lowerM), b2i(tr), b2i(unit), e.scalar(alpha),
		mkk.Buf, mkk.Off, mkk.ld(), sub.Buf, sub.Off, vstride, estride)
}
