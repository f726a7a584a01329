package dense

import (
	"fmt"
	"os"
	"strconv"

	"github.com/oclsolve/oclsolve/kernels"
)

// TrsmInverse enqueues the triangular solve of Trsm, op(T) X = alpha B
// (side Left) or X op(T) = alpha B (side Right), overwriting B with X, by
// multiplying B with the triangle's explicit inverse instead of by
// substitution: the inverse W = T^-1 is built in 1 + 2*log2(order/64)
// launches up to order 512 (64-wide diagonal blocks inverted in local
// memory in one launch, then per level one pair of small products that
// joins neighbouring inverted blocks: inv([A 0; C D]) = [inv A, 0; -inv D
// C inv A, inv D]; levels of blocks of 512 and more take the tuned GEMM,
// two launches per pair), B is copied aside (in the first launch), and X = alpha B
// op(W) (or alpha op(W) B) is one or a few GEMMs that skip W's zero
// triangle. Trsm's recursion instead makes order/32 latency-bound leaf
// launches and log2(order/32) levels of GEMMs; for the unit triangles of a
// blocked LU (order 256 to 512, thousands of rows of B) this path is much
// faster on a GPU.
//
// Numerics: substitution is backward stable, |X^ op(T) - alpha B| <=
// c n u |X^| |op(T)| with u the unit roundoff. The inverse is not: to first
// order the forward error is ||X^ - X|| <= c n u kappa(T) ||alpha B||
// ||T^-1||, the same order as substitution's forward error bound, but the
// residual is bounded only by ||X^ op(T) - alpha B|| <= c n u kappa(T)
// ||alpha B||, kappa(T) = || |T^-1| |T| || (Du Croz and Higham, "Stability
// of methods for matrix inversion", IMA J. Numer. Anal. 12, 1992): a
// backward error up to kappa(T) times substitution's. Use it where kappa(T)
// is modest, as for the unit lower triangles of an LU with pivoting of the
// matrices met in practice (max |W| below 11 for random and real matrices
// up to order 8192, blocks up to 512; gauss.luInverseMax). Bounded
// multipliers do not bound kappa(L): a unit lower L with every multiplier
// -0.5 has W entries 0.5 * 1.5^(i-j-1), 1e10 at order 64, and gave
// residuals of 1e-2 at orders 128 to 512; TrsmInverseMax reports max |W|
// so that a caller can detect such a triangle on the device and solve
// again by substitution (the blocked LU does). Keep Trsm for general
// triangles. A zero on T's diagonal (NonUnit) gives Inf or NaN in
// X, as with Trsm.
//
// work is scratch on the engine's device of at least
// TrsmInverseWorkspace(order, vectors) elements (order: T's; vectors: the
// columns of B for Left, its rows for Right), or nil to allocate it for
// this call. One work buffer must not serve two solves at once on
// different queues; solves enqueued one after another on one queue may
// share it.
//
// On a device where trinv.cl's kernels do not build or do not take their
// work-groups of 4*PB items (NewWithConfig), TrsmInverse solves by Trsm.
func (e *Engine) TrsmInverse(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b Mat, work *kernels.Buffer) error {
	return e.trsmInverse(side, uplo, trans, diag, alpha, t, b, work, nil, 0)
}

// TrsmInverseMax is TrsmInverse that also records how large the inverse
// is, for a caller that must know whether the solve was accurate without
// waiting for the device: it raises the int32 at index slot of flag
// (atomic max) to the float32 bits of max |W_ij|, W = T^-1 as computed
// (math.Float32frombits of the word read back; a magnitude beyond the
// float32 range reads +Inf, a NaN in W a NaN, which compares above +Inf
// as bits). Start the word at 0; one word may collect several solves.
// The residual of the solve grows with ||W|| ||T|| (TrsmInverse's
// numerics), so a caller compares the maximum with a bound of its own and
// solves again by substitution when it is exceeded. Where TrsmInverse
// falls back to Trsm the word is left as it was. One extra launch, which
// reads W once.
func (e *Engine) TrsmInverseMax(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b Mat, work, flag *kernels.Buffer, slot int) error {
	if flag == nil || flag.Released() || slot < 0 || int64(4*(slot+1)) > flag.Size() {
		return fmt.Errorf("dense: TrsmInverseMax: %w: flag word %d outside the buffer", ErrArgument, slot)
	}
	if flag.Device() != e.dev {
		return fmt.Errorf("dense: TrsmInverseMax: flag: %w: buffer lives on %s", ErrDevice, flag.Device().Name())
	}
	return e.trsmInverse(side, uplo, trans, diag, alpha, t, b, work, flag, slot)
}

func (e *Engine) trsmInverse(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b Mat, work, flag *kernels.Buffer, slot int) error {
	order, nv, err := e.checkTriangular("TrsmInverse", side, uplo, diag, t, b)
	if err != nil || b.Rows == 0 || b.Cols == 0 {
		return err
	}
	if e.trinvPrepK == nil {
		return e.Trsm(side, uplo, trans, diag, alpha, t, b)
	}
	need := TrsmInverseWorkspace(order, nv)
	if work == nil {
		w, err := e.dev.Alloc(need * e.dt.Size())
		if err != nil {
			return err
		}
		// Released once enqueued: OpenCL keeps it while commands use it.
		defer w.Release()
		work = w
	}
	if work.Released() {
		return fmt.Errorf("dense: TrsmInverse: work: %w", kernels.ErrReleased)
	}
	if work.Device() != e.dev {
		return fmt.Errorf("dense: TrsmInverse: work: %w: buffer lives on %s", ErrDevice, work.Device().Name())
	}
	if work.Size() < need*e.dt.Size() {
		return fmt.Errorf("dense: TrsmInverse: %w: work has %d bytes, the solve needs %d", ErrShape, work.Size(), need*e.dt.Size())
	}
	if b.Buf == work || t.Buf == work {
		return fmt.Errorf("dense: TrsmInverse: %w: work is an operand's buffer", ErrArgument)
	}
	n := order
	tmpOff := int64(n) * int64(n)
	sOff := tmpOff + trinvTmp(n)
	w := Mat{Buf: work, Rows: n, Cols: n, LD: n}
	tr := trans != (side == Right)
	lowerT := uplo == Lower

	// The inverse's diagonal blocks and the rest of W, with B copied to S
	// by the same launch.
	tg := 4 * e.pb
	ntri := (n + e.pb - 1) / e.pb
	nw := ((n + tg - 1) / tg) * ((n + trinvCopyCols - 1) / trinvCopyCols)
	nc := ((b.Rows + tg - 1) / tg) * ((b.Cols + trinvCopyCols - 1) / trinvCopyCols)
	if err := e.trinvPrepK.LaunchOn(e.q, []int{(ntri + nw + nc) * tg}, []int{tg},
		int32(n), b2i(lowerT), b2i(tr), b2i(diag == Unit), t.Buf, t.Off, t.ld(), work, int32(ntri),
		int32(b.Rows), int32(b.Cols), b.Buf, b.Off, b.ld(), sOff); err != nil {
		return err
	}
	// The levels join blocks of s into blocks of 2s.
	for s := e.pb; s < n; s *= 2 {
		pairs := (n - s + 2*s - 1) / (2 * s)
		if s >= trinvTunedFrom {
			if err := e.trinvLevelTuned(w, tmpOff, n, s, pairs, lowerT); err != nil {
				return err
			}
			continue
		}
		tiles := (s + trinvTile - 1) / trinvTile
		for step := int32(0); step < 2; step++ {
			a := 1.0
			if step == 1 {
				a = -1
			}
			if err := e.trinvLevelK.LaunchOn(e.q, []int{tiles * 16, tiles * 16, pairs}, []int{16, 16, 1},
				int32(n), int32(s), step, b2i(!lowerT), e.scalar(a), work, tmpOff); err != nil {
				return err
			}
		}
	}
	if flag != nil {
		if err := e.trinvMax(work, n, flag, slot); err != nil {
			return err
		}
	}
	// X = alpha S op(W) (Right) or alpha op(W) S (Left), S = B's copy
	// (leading dimension b.Rows), in parts of X's columns (Right) or rows
	// (Left): each part's product runs only over the depth where op(W)
	// is not zero for it.
	s := Mat{Buf: work, Off: sOff, Rows: b.Rows, Cols: b.Cols, LD: max(1, b.Rows)}
	vLower := lowerT != trans // op(W) is lower
	parts := trinvParts(e, n, nv)
	for p := 0; p < parts; p++ {
		j0, j1 := trinvSplit(n, parts, p), trinvSplit(n, parts, p+1)
		if j0 == j1 {
			continue
		}
		// Right: X(:, J) = S(:, K) op(W)(K, J), op(W)(K, J) nonzero for
		// K = [j0, n) when lower, [0, j1) when upper. Left: X(J, :) =
		// op(W)(J, K) S(K, :), K = [0, j1) when lower, [j0, n) when upper.
		k0, k1 := 0, j1
		if vLower == (side == Right) {
			k0, k1 = j0, n
		}
		// op(W)(r, c) is W(r, c), or W(c, r) when trans.
		opw := func(r0, c0, r, c int) Mat {
			if trans {
				return w.Sub(c0, r0, c, r)
			}
			return w.Sub(r0, c0, r, c)
		}
		var err error
		if side == Right {
			err = e.gemmLaunch(false, trans, alpha, s.Sub(0, k0, b.Rows, k1-k0), opw(k0, j0, k1-k0, j1-j0), 0, b.Sub(0, j0, b.Rows, j1-j0), false)
		} else {
			err = e.gemmLaunch(trans, false, alpha, opw(j0, k0, j1-j0, k1-k0), s.Sub(k0, 0, k1-k0, b.Cols), 0, b.Sub(j0, 0, j1-j0, b.Cols), false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// trinvMax launches trinv_maxabs over the n x n inverse at the start of
// work: up to 256 groups of up to 64 items, each item striding over the
// elements, so that W of order 512 (2 MB) is read in one short launch.
func (e *Engine) trinvMax(work *kernels.Buffer, n int, flag *kernels.Buffer, slot int) error {
	ls := 64
	for ls > e.trinvMaxK.MaxWorkGroupSize() && ls > 1 {
		ls /= 2
	}
	nn := int64(n) * int64(n)
	groups := int(min(256, max(1, nn/int64(16*ls))))
	return e.trinvMaxK.LaunchOn(e.q, []int{groups * ls}, []int{ls}, nn, work, flag, int32(slot), kernels.Local(4*ls))
}

// Geometry of trinv.cl: TRINV_CC columns per copying work-group, TT-wide
// output tiles of trinv_level.
const (
	trinvCopyCols = 32
	trinvTile     = 32
)

// trinvTunedFrom is the block order from which a level's products run the
// tuned GEMM, one pair at a time, instead of trinv_level: its small tiles
// suit the products of the LU's triangles (s <= 256: a few to a few dozen
// work-groups, where the depth of one item's loop is the time), not large
// ones (on an H100, 2026-11-23, TrsmInverse of order 8192 spent 32 of its
// 71 ms in trinv_level).
const trinvTunedFrom = 512

// trinvLevelTuned is one level of trinv_level's products (see trinv.cl)
// by the tuned GEMM, two launches per pair.
func (e *Engine) trinvLevelTuned(w Mat, tmpOff int64, n, s, pairs int, lowerT bool) error {
	for p := 0; p < pairs; p++ {
		f0 := 2 * s * p
		g0 := f0 + s
		s2 := min(s, n-g0)
		// lower: tmp = C inv(A), C = -inv(D) tmp; upper: tmp = B inv(D),
		// B = -inv(A) tmp.
		rows, cols := s2, s // the off-diagonal block
		o, left, right := w.Sub(g0, f0, s2, s), w.Sub(g0, g0, s2, s2), w.Sub(f0, f0, s, s)
		if !lowerT {
			rows, cols = s, s2
			o, left, right = w.Sub(f0, g0, s, s2), w.Sub(f0, f0, s, s), w.Sub(g0, g0, s2, s2)
		}
		tmp := Mat{Buf: w.Buf, Off: tmpOff + int64(p)*int64(s)*int64(s), Rows: rows, Cols: cols, LD: s}
		if err := e.gemmLaunch(false, false, 1, o, right, 0, tmp, false); err != nil {
			return err
		}
		if err := e.gemmLaunch(false, false, -1, left, tmp, 0, o, false); err != nil {
			return err
		}
	}
	return nil
}

// TrsmInverseWorkspace returns the elements of scratch TrsmInverse needs
// for a triangle of the given order and as many right-hand-side vectors:
// the inverse (order^2), the levels' intermediate products (at most
// order^2) and a copy of B (order*vectors).
func TrsmInverseWorkspace(order, vectors int) int64 {
	if order <= 0 || vectors <= 0 {
		return 0
	}
	n := int64(order)
	return n*n + trinvTmp(order) + n*int64(vectors)
}

// trinvTmp is the room of the levels' products: pair p of the level of
// blocks of s keeps an s x s product at p*s*s. The block size below the
// first level is at least 8 (the smallest PB), so start there: a larger PB
// only skips levels.
func trinvTmp(n int) int64 {
	var most int64
	for s := 8; s < n; s *= 2 {
		pairs := int64((n - s + 2*s - 1) / (2 * s))
		most = max(most, pairs*int64(s)*int64(s))
	}
	return most
}

// trinvSplit is the start of part p of parts over order n: multiples of 32.
func trinvSplit(n, parts, p int) int {
	if p >= parts {
		return n
	}
	return min(n, (n*p/parts+31)/32*32)
}

// trinvParts is how many GEMMs TrsmInverse's product takes. One part of
// order n runs the whole depth; p parts skip 1/2 - 1/(2p) of it (op(W)'s
// zero triangle) but each runs on 1/p of the grid, so they pay only where
// one GEMM fills the device several times over. OCLSOLVE_TRINV_PARTS
// fixes it (benchmarks).
func trinvParts(e *Engine, n, nv int) int {
	if v, err := strconv.Atoi(os.Getenv("OCLSOLVE_TRINV_PARTS")); err == nil && v >= 1 {
		return min(v, max(1, n/32))
	}
	cfg := e.tiled
	groups := ((nv + cfg.MT - 1) / cfg.MT) * ((n + cfg.NT - 1) / cfg.NT)
	if n >= 128 && groups >= 4*e.dev.Info().ComputeUnits {
		return 2
	}
	return 1
}
