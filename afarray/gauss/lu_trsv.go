package gauss

import (
	_ "embed"
	"errors"
	"unsafe"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed lu_trsv.cl
var luTrsvSource string

// trsvRows returns the block of the single-launch triangular solve
// (TS in lu_trsv.cl): 64 rows where its diagonal block's inverse, a staged
// chunk and the unknowns (about 42 KiB) fit the device's local memory, else 32.
func trsvRows(dev *kernels.Device) int {
	if dev.Info().LocalMemBytes >= 48<<10 {
		return 64
	}
	return 32
}

// solveEpochLimit bounds the launch epochs and tickets of the chained
// solves before their flags are cleared (a variable so that a test can
// reach the reset).
var solveEpochLimit = 1 << 30

// solveBatchBytes bounds the solutions and right-hand sides of one round
// of SolveTo's columns on the device: wider right-hand sides are solved in
// several rounds, one read-back each (a variable so that a test can make
// rounds of a few columns).
var solveBatchBytes = 64 << 20

// trinvGuardExp is the guard on the inverted diagonal blocks (lu_trsv.cl):
// a solve whose largest block estimate is at least 2^trinvGuardExp is
// redone by substitution (the tiled solve), and so are the
// factorization's later solves. A block's estimate is the smaller of
// max|B| max|inv(B)| and the same for B with its rows divided by their
// diagonal entries (lu_trinv's inversion and the product by the inverse
// commute with that scaling, up to rounding, so a block well conditioned
// either way is solved accurately; stiffness matrices, scaled
// symmetrically, are large in the first and moderate in the second).
// Measured on PoCL (2026-11-23, TestTrinvGuardEstimates and one-off runs;
// blocks of 64 rows, partial and tournament pivoting), the largest
// exponents (ilogb of the estimate) were:
//   - random matrices of order 5 .. 700 (and diagonally dominant ones
//     without pivoting): at most 4;
//   - the collection (all but bcsstk38, partial pivoting for the five of
//     order 3562 .. 4884): LFAT5 17, LF10 19, bcsstk01 21, bcsstk03 20,
//     lund_a 13, nasa1824 16, bcsstk13 24, bcsstk24 22, bcsstk15 19,
//     msc04515 10, the others at most 1 (backward errors of the chained
//     solve 3e-23 .. 2e-15);
//   - the review's U graded within 64 rows (A = L U, L random with |l| <=
//     0.3; notes/review8.md finding 2), by how many decades its diagonal
//     falls within a block: 1.5: 13, 1.75: 23 (backward errors 1e-17, as
//     substitution's); 2: 35 (2e-12 and 3e-13 against 9e-18); 2.5: 50
//     (2e-9); 3: 52 (2e-8 .. 9e-8); 8: 53 (3e-11). Substitution gave 4e-18
//     .. 1e-17 throughout.
//
// 2^30 lies 6 binary orders above the largest well-behaved case and 5
// below the first one where the product by the inverse lost accuracy.
// (A variable so that a test can switch the guard off.)
var trinvGuardExp = 30

// errInverseGuard is solveChained's answer when the guard fired: no
// solution was copied out, and the caller solves by substitution instead.
var errInverseGuard = errors.New("gauss: an inverted diagonal block is too ill-conditioned for the chained solve")

// solverAtFactorize makes Factorize allocate the chained solves' scratch
// (with its matrix, before the upload's wait) instead of the first solve,
// which otherwise waits for the driver's allocation: on an H100
// (2026-11-23, BenchmarkLUFirstSolve, 10 runs) the first solve after
// Factorize took 317 against 513 us at n = 2047, 1017 against 1260 us at
// 8192. A variable so that the benchmark can compare.
var solverAtFactorize = true

// luSolver is the device scratch of the chained solves (lu_trsv.cl), made
// by Factorize (or the first solve) and kept until Release, so that a
// solve is one write of b, one launch per right-hand side and one read of
// the solutions and the status together. It is one buffer (one allocation;
// layout in lu_trsv.cl): the ready flags, the ticket counter, the
// factorization's status and the inverses' guard; the row exchanges as a
// gather, applied by the
// launch as it reads b; the inverses of the diagonal blocks of L and U
// (lu_trinv, computed by the first solve); y and the status slot; then
// room for the solutions and right-hand sides of cols columns.
type luSolver struct {
	trinv, trsv *kernels.Kernel
	ts, nblk    int
	buf         *kernels.Buffer
	invOff      int  // doubles: the inverses
	yOff        int  // doubles: y, then the status slot, then the solutions
	cols        int  // right-hand sides the buffer has room for
	prepared    bool // the exchanges written, the inversion enqueued
	// epoch is the next launch's, less one; tickets counts the tickets
	// taken since the counter was cleared, to clear it long before it
	// wraps (the kernel takes them modulo 2 nblk, so a launch the count
	// missed does no harm).
	epoch, tickets int
	// guard is the inverses' largest condition exponent (lu_trsv.cl), as
	// the last solve read it; -1 before.
	guard int
}

func (s *luSolver) release() {
	if s != nil && s.buf != nil {
		s.buf.Release()
	}
}

// xOff and bOff are the offsets (in doubles) of the solution and the
// right-hand side of column j.
func (s *luSolver) xOff(ld, j int) int    { return s.yOff + ld + 1 + j*ld }
func (s *luSolver) bOff(ld, n, j int) int { return s.xOff(ld, s.cols) + j*n }

// size is the buffer's size in doubles for cols columns.
func (s *luSolver) size(ld, n, cols int) int { return s.yOff + ld + 1 + cols*(ld+n) }

// newSolver allocates the chained solves' scratch for cols columns of
// order n (ld padded) and enqueues the write of its flags and status;
// nothing waits for the device.
func newSolver(dev *kernels.Device, prog *kernels.Program, ld, n, cols int) (*luSolver, error) {
	ks, err := prog.Kernels("lu_trinv", "lu_trsv")
	if err != nil {
		return nil, err
	}
	ts := trsvRows(dev)
	s := &luSolver{trinv: ks[0], trsv: ks[1], ts: ts, nblk: (ld + ts - 1) / ts, cols: cols, guard: -1}
	head := make([]int32, 2*s.nblk+3) // flags, counter, status, guard (0: estimates are at least 1)
	head[2*s.nblk+1] = noSingular
	s.invOff = (len(head) + ld + 1) / 2 // then the exchanges, ld ints
	s.yOff = s.invOff + 2*s.nblk*ts*ts
	if s.buf, err = dev.Alloc(int64(8 * s.size(ld, n, cols))); err != nil {
		return nil, err
	}
	if err := s.buf.WriteNoWait(0, head); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// prepare writes the row exchanges as a gather and enqueues the inversion
// of the diagonal blocks, once per factorization; nothing waits.
func (s *luSolver) prepare(lu *LU) error {
	perm := make([]int32, lu.ld)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i, p := range lu.ipiv {
		perm[i], perm[p] = perm[p], perm[i]
	}
	if err := s.buf.WriteNoWait(int64(4*(2*s.nblk+3)), perm); err != nil {
		return err
	}
	if err := s.trinv.Launch([]int{2 * s.nblk * s.ts}, []int{s.ts}, lu.a, lu.ld, s.buf, s.invOff, lu.tol); err != nil {
		return errKernel("lu_trinv", err)
	}
	s.prepared = true
	return nil
}

// grow makes room for cols columns: a larger buffer, into which the flags,
// exchanges and inverses are copied on the device.
func (s *luSolver) grow(dev *kernels.Device, ld, n, cols int) error {
	if cols <= s.cols {
		return nil
	}
	nb, err := dev.Alloc(int64(8 * s.size(ld, n, cols)))
	if err != nil {
		return err
	}
	if err := s.buf.CopyTo(nb, 0, 0, int64(8*s.yOff)); err != nil {
		nb.Release()
		return err
	}
	s.buf.Release() // the copy keeps it alive
	s.buf, s.cols = nb, cols
	return nil
}

// solveChained solves L U X = P B for the k right-hand sides in b (column
// after column, n values each) into x (likewise), with one write, k
// launches of lu_trsv and one read; x and b may be the same slice. A
// non-finite solution returns the column that has it. Where the guard on
// the inverted blocks fired it returns errInverseGuard and leaves x alone.
// The LU's mutex is held.
func (lu *LU) solveChained(x, b []float64, k int) (int, error) {
	n, ld := lu.n, lu.ld
	if lu.solver == nil {
		s, err := newSolver(lu.dev, lu.prog, ld, n, k)
		if err != nil {
			return 0, err
		}
		lu.solver = s
	}
	s := lu.solver
	if !s.prepared {
		if err := s.prepare(lu); err != nil {
			return 0, err
		}
	}
	if err := s.grow(lu.dev, ld, n, k); err != nil {
		return 0, err
	}
	if err := s.buf.WriteNoWait(int64(8*s.bOff(ld, n, 0)), b[:k*n]); err != nil {
		return 0, err
	}
	groups := 2 * s.nblk
	for j := 0; j < k; j++ {
		if s.epoch >= solveEpochLimit || s.tickets > solveEpochLimit-groups {
			// Clear the flags and the ticket counter (not the status).
			if err := s.buf.Fill([]byte{0, 0, 0, 0}, 0, int64(4*(groups+1))); err != nil {
				return 0, err
			}
			s.epoch, s.tickets = 0, 0
		}
		s.epoch++
		if err := s.trsv.Launch([]int{groups * s.ts}, []int{s.ts}, lu.a, ld, n, s.buf,
			s.invOff, s.yOff, s.xOff(ld, j), s.bOff(ld, n, j), s.epoch); err != nil {
			return 0, errKernel("lu_trsv", err)
		}
		s.tickets += groups
	}
	// One read brings the status slot (the status and the guard, two
	// int32 in the device's byte order, which is the host's) and the
	// solutions.
	out := make([]float64, 1+(k-1)*ld+n)
	if err := s.buf.Read(int64(8*(s.yOff+ld)), out); err != nil {
		return 0, err
	}
	slot := (*[2]int32)(unsafe.Pointer(&out[0]))
	if st := slot[0]; st != noSingular {
		return 0, &SingularError{Pivot: int(st), Pivoting: !lu.NoPivot}
	}
	if s.guard = int(slot[1]); s.guard >= trinvGuardExp {
		return 0, errInverseGuard
	}
	for j := 0; j < k; j++ {
		xj := out[1+j*ld : 1+j*ld+n]
		if err := checkFinite(xj); err != nil {
			return j, err
		}
		copy(x[j*n:], xj)
	}
	return 0, nil
}
