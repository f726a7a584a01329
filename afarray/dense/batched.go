package dense

import (
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

// Batch is a set of column-major matrices of different sizes in one device
// buffer, described on the device by four int64 per matrix: offset (in
// elements), rows, columns, leading dimension. The batched operations take
// one launch for the whole set, whatever the sizes: the grid covers the
// largest matrix and the work-groups beyond a smaller matrix's size leave
// at once. Build it once (NewBatch checks every matrix against the buffer
// on the host and uploads the descriptors) and reuse it across launches.
type Batch struct {
	dt   DType // the element type its matrices were checked for
	buf  *kernels.Buffer
	mats []Mat
	desc *kernels.Buffer
	// largest rows and columns of the set
	maxRows, maxCols int
}

// NewBatch describes mats, views into buf (their Buf fields are ignored
// and taken as buf), for the engine's element type.
func (e *Engine) NewBatch(buf *kernels.Buffer, mats []Mat) (*Batch, error) {
	if buf == nil || buf.Released() {
		return nil, fmt.Errorf("dense: NewBatch: %w", kernels.ErrReleased)
	}
	if buf.Device() != e.dev {
		return nil, fmt.Errorf("dense: NewBatch: %w: buffer lives on %s", ErrDevice, buf.Device().Name())
	}
	b := &Batch{dt: e.dt, buf: buf, mats: make([]Mat, len(mats))}
	d := make([]int64, 4*max(1, len(mats)))
	for i, m := range mats {
		m.Buf = buf
		if err := m.check(e.dt, fmt.Sprintf("NewBatch matrix %d", i)); err != nil {
			return nil, err
		}
		b.mats[i] = m
		d[4*i], d[4*i+1], d[4*i+2], d[4*i+3] = m.Off, int64(m.Rows), int64(m.Cols), int64(max(1, m.LD))
		b.maxRows, b.maxCols = max(b.maxRows, m.Rows), max(b.maxCols, m.Cols)
	}
	desc, err := e.dev.Alloc(int64(8 * len(d)))
	if err != nil {
		return nil, err
	}
	if err := desc.Write(0, d); err != nil {
		desc.Release()
		return nil, err
	}
	b.desc = desc
	return b, nil
}

// Len returns the number of matrices.
func (b *Batch) Len() int { return len(b.mats) }

// Mat returns the i-th matrix's view.
func (b *Batch) Mat(i int) Mat { return b.mats[i] }

// Descriptors returns the device buffer of descriptors (4 int64 per
// matrix: offset, rows, cols, ld), for kernels of other packages.
func (b *Batch) Descriptors() *kernels.Buffer { return b.desc }

// Release frees the descriptors (not the data buffer).
func (b *Batch) Release() {
	if b != nil && b.desc != nil {
		b.desc.Release()
	}
}

func (b *Batch) usable(e *Engine, what string) error {
	if b == nil || b.desc == nil || b.desc.Released() || b.buf.Released() {
		return fmt.Errorf("dense: %s: %w", what, kernels.ErrReleased)
	}
	// Its matrices were checked against the buffer for one element size:
	// another engine's kernels would read beyond them.
	if b.dt != e.dt || b.buf.Device() != e.dev {
		return fmt.Errorf("dense: %s: %w: a batch made for %v on %s given to the %v engine on %s",
			what, ErrArgument, b.dt, b.buf.Device().Name(), e.dt, e.dev.Name())
	}
	return nil
}

func (e *Engine) sameLen(op string, bs ...*Batch) error {
	for _, b := range bs {
		if err := b.usable(e, op); err != nil {
			return err
		}
		if b.Len() != bs[0].Len() {
			return fmt.Errorf("dense: %s: %w: batches of %d and %d matrices", op, ErrShape, bs[0].Len(), b.Len())
		}
	}
	return nil
}

// GemmBatched enqueues C_q = alpha*op(A_q)*op(B_q) + beta*C_q for every q
// in one launch. The shapes must agree per q as in Gemm.
func (e *Engine) GemmBatched(transA, transB bool, alpha float64, a, b *Batch, beta float64, c *Batch) error {
	return e.gemmBatched("GemmBatched", transA, transB, alpha, a, b, beta, c, false)
}

// SyrkBatched enqueues the lower triangles of C_q = alpha*op(A_q)*op(A_q)^T
// + beta*C_q (op(A) = A, or A^T with trans) for every q in one launch.
func (e *Engine) SyrkBatched(trans bool, alpha float64, a *Batch, beta float64, c *Batch) error {
	return e.gemmBatched("SyrkBatched", trans, !trans, alpha, a, a, beta, c, true)
}

func (e *Engine) gemmBatched(op string, transA, transB bool, alpha float64, a, b *Batch, beta float64, c *Batch, lower bool) error {
	if err := e.sameLen(op, a, b, c); err != nil {
		return err
	}
	for q := range c.mats {
		am, bm, cm := a.mats[q], b.mats[q], c.mats[q]
		m, k, kb, n := GemmShape(transA, transB, am.Rows, am.Cols, bm.Rows, bm.Cols)
		if kb != k || cm.Rows != m || cm.Cols != n || (lower && m != n) {
			return fmt.Errorf("dense: %s: %w: matrix %d: op(A) %dx%d, op(B) %dx%d, C %dx%d", op, ErrShape, q, m, k, kb, n, cm.Rows, cm.Cols)
		}
	}
	if c.Len() == 0 || c.maxRows == 0 || c.maxCols == 0 {
		return nil
	}
	cfg := e.tiled
	wx, wy := cfg.MT/cfg.TM, cfg.NT/cfg.TN
	gm, gn := (c.maxRows+cfg.MT-1)/cfg.MT, (c.maxCols+cfg.NT-1)/cfg.NT
	return e.gemmBatchedK.Launch([]int{gm * wx, gn * wy, c.Len()}, []int{wx, wy, 1},
		b2i(transA), b2i(transB), e.scalar(alpha), a.buf, a.desc, b.buf, b.desc,
		e.scalar(beta), c.buf, c.desc, b2i(lower))
}

// TrsmBatched enqueues the triangular solves of Trsm for every q in one
// launch: op(T_q) X_q = alpha B_q (Left) or X_q op(T_q) = alpha B_q (Right).
// Each work-item substitutes one right-hand-side vector with the triangle
// read from global memory, so any order works; it suits the many small
// solves of a supernodal factorization (Right, Lower, trans: L21 =
// A21 L11^-T, whose rows are the vectors and coalesce).
func (e *Engine) TrsmBatched(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b *Batch) error {
	if side != Left && side != Right || uplo != Lower && uplo != Upper || diag != NonUnit && diag != Unit {
		return fmt.Errorf("dense: TrsmBatched: %w: side %d, uplo %d, diag %d", ErrArgument, side, uplo, diag)
	}
	if err := e.sameLen("TrsmBatched", t, b); err != nil {
		return err
	}
	nv := 0
	for q := range b.mats {
		tm, bm := t.mats[q], b.mats[q]
		order, v := bm.Rows, bm.Cols
		if side == Right {
			order, v = bm.Cols, bm.Rows
		}
		if tm.Rows != order || tm.Cols != order {
			return fmt.Errorf("dense: TrsmBatched: %w: matrix %d: triangle %dx%d, B %dx%d", ErrShape, q, tm.Rows, tm.Cols, bm.Rows, bm.Cols)
		}
		nv = max(nv, v)
	}
	if b.Len() == 0 || nv == 0 {
		return nil
	}
	tr := trans != (side == Right)
	lowerM := (uplo == Lower) != tr
	g := (nv + trsmVectors - 1) / trsmVectors
	return e.trsmBatchedK.Launch([]int{g * trsmVectors, b.Len()}, []int{trsmVectors, 1},
		b2i(side == Right), b2i(lowerM), b2i(tr), b2i(diag == Unit), e.scalar(alpha),
		t.buf, t.desc, b.buf, b.desc)
}

// PotrfBatched enqueues the Cholesky factorization of every (square)
// matrix of a in one launch, one work-group per matrix: in local memory up
// to order 64 (32 where local memory is small), in global memory beyond
// (fine for a few hundred; factor larger fronts with Potrf). infos (at
// least 4*a.Len() bytes) receives per matrix the first failing column as
// int32, or math.MaxInt32 when the matrix was positive definite.
func (e *Engine) PotrfBatched(a *Batch, infos *kernels.Buffer) error {
	if err := a.usable(e, "PotrfBatched"); err != nil {
		return err
	}
	for q, m := range a.mats {
		if m.Rows != m.Cols {
			return fmt.Errorf("dense: PotrfBatched: %w: matrix %d is %dx%d", ErrShape, q, m.Rows, m.Cols)
		}
	}
	if infos == nil || infos.Released() || infos.Size() < 4*int64(a.Len()) || infos.Device() != e.dev {
		return fmt.Errorf("dense: PotrfBatched: %w: infos must hold %d int32 on %s", ErrArgument, a.Len(), e.dev.Name())
	}
	if a.Len() == 0 {
		return nil
	}
	l := e.potrfLocal()
	return e.potrfBat.Launch([]int{l * a.Len()}, []int{l}, a.buf, a.desc, infos)
}
