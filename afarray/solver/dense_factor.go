package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/dense"
	"github.com/oclsolve/oclsolve/kernels"
)

// The dense factorizations implement both variants here (factorThesis and
// factorBlocked, solveThesis and solveBlocked).
func init() {
	for _, v := range []Variant{Fast, Thesis} {
		registerFactors(FormatDense, v, func() factorization { return &DenseCholesky{} }, func() factorization { return &DenseLDLT{} })
	}
}

// denseFactor is the state shared by DenseCholesky and DenseLDLT: the
// factor in the lower triangle of an n x n column-major device matrix (the
// upper triangle keeps the input and is never read), a status buffer, and
// one n-vector of scratch for the fast solves.
type denseFactor struct {
	ldlt    bool
	variant Variant
	dev     *kernels.Device
	n       int
	a       *afarray.Array
	owned   bool // a is the factorization's own copy, released with it
	st      *status
	work    *kernels.Buffer
	stats   FactorStats
}

func (f *denseFactor) name() string {
	if f.ldlt {
		return "DenseLDLT"
	}
	return "DenseCholesky"
}

// factorize factors a, on a device copy unless inPlace.
// as sets the method (LDLT or Cholesky) before a factorization.
func (f *denseFactor) as(ldlt bool) *denseFactor {
	f.ldlt = ldlt
	return f
}

func (f *denseFactor) factorize(a *afarray.Array, v Variant, inPlace bool) error {
	f.release()
	v, _, n, err := denseOperand(v, a, f.name()+" matrix")
	if err != nil {
		return err
	}
	m := a
	if !inPlace {
		if m, err = a.Copy(); err != nil {
			return err
		}
	}
	f.variant, f.dev, f.n, f.a, f.owned = v, a.Device(), n, m, !inPlace
	start, launches := time.Now(), f.dev.Launches()
	if err := f.run(); err != nil {
		f.release()
		return err
	}
	f.stats = FactorStats{Variant: v, N: n, FactorLen: n * n, FactorTime: time.Since(start),
		FactorLaunches: f.dev.Launches() - launches}
	return nil
}

// run enqueues the factorization and reads the status once at the end.
func (f *denseFactor) run() error {
	st, err := newStatus(f.dev)
	if err != nil {
		return err
	}
	f.st = st
	buf, err := f.a.DeviceBuffer()
	if err != nil {
		return err
	}
	n := f.n
	if err := st.checkFinite(f.dev, buf, n*n, statusInput); err != nil {
		return err
	}
	potrf := f.variant != Thesis && !f.ldlt
	switch {
	case f.variant == Thesis:
		err = f.factorThesis(buf)
	case potrf:
		err = f.factorPotrf(buf)
	default:
		err = f.factorBlocked(buf)
	}
	if err != nil {
		return err
	}
	if potrf {
		if err := f.pivotFromDiagonal(buf); err != nil {
			return err
		}
	}
	return st.failure(f.ldlt)
}

// factorPotrf factors with the dense kernel core's Potrf (afarray/dense:
// 1024-column blocks, each block column one launch per 64 columns, SYRK
// updates): on an H100 the fast dense Cholesky (copy, scan, factor,
// solve) took 143.8 ms at n = 16384 with it against 383.9 ms with
// factorBlocked's 32-column panels, 38.9 against 71.6 ms at 8192. Its first bad pivot's column goes
// to the status's pivot slot by a device copy; its value stays at A(j, j)
// (pivotFromDiagonal fetches it).
func (f *denseFactor) factorPotrf(a *kernels.Buffer) error {
	eng, err := dense.For(f.dev, dense.Float64)
	if err != nil {
		return err
	}
	info, err := dense.NewInfo(f.dev)
	if err != nil {
		return err
	}
	defer info.Release() // OpenCL keeps it until the queued commands are done
	tr := trackerOf(f.dev)
	tr.step("columns", 0, f.n, 0)
	info.OnBlockColumn(func(done, total int) { tr.step("columns", done, total, cubicFraction(done, total)) })
	if err := eng.Potrf(dense.Mat{Buf: a, Rows: f.n, Cols: f.n, LD: f.n}, info); err != nil {
		return err
	}
	return info.Buffer().CopyTo(f.st.flags, 0, 4*statusPivot, 4)
}

// pivotFromDiagonal waits for the status and, when a pivot failed, copies
// its value from the diagonal, where Potrf leaves it, into the status.
func (f *denseFactor) pivotFromDiagonal(a *kernels.Buffer) error {
	flags, err := f.st.read()
	if err != nil || !found(flags[statusPivot]) {
		return err
	}
	j := int64(flags[statusPivot])
	if j < 0 || j >= int64(f.n) {
		return nil
	}
	return a.CopyTo(f.st.pivot, 8*(j+j*int64(f.n)), 0, 8)
}

// factorThesis makes the thesis's launches: per column, scale (sstep 0)
// and trailing update (sstep 1); for Cholesky, the delayed square roots once
// at the end (sstep 2). 2n+1 launches (2n for LDLT).
func (f *denseFactor) factorThesis(a *kernels.Buffer) error {
	k, err := denseProgram.Kernel(f.dev, f.thesisKernel())
	if err != nil {
		return err
	}
	g, l := thesisGeometry(k)
	part := kernels.Local(8 * l[0])
	launch := func(step, sstep int) error {
		return k.Launch(g, l, a, a, part, f.n, step, sstep, f.st.flags, f.st.pivot)
	}
	tr := trackerOf(f.dev)
	for j := 0; j < f.n; j++ {
		tr.step("columns", j, f.n, cubicFraction(j, f.n))
		if err := launch(j, 0); err != nil {
			return err
		}
		if err := launch(j, 1); err != nil {
			return err
		}
	}
	tr.step("columns", f.n, f.n, 1)
	if !f.ldlt {
		return launch(0, 2)
	}
	return nil
}

func (f *denseFactor) thesisKernel() string {
	if f.ldlt {
		return "ldlt_thesis"
	}
	return "cholesky_thesis"
}

// factorBlocked (LDLT; Cholesky runs factorPotrf) makes two launches per 32-column block, the panel (diagonal
// block and the rows below it) and the update of the trailing matrix, and
// one last launch that stores the last diagonal block. The Cholesky update
// A22 -= L21 L21^T is the dense kernel core's SYRK (afarray/dense: the
// register-blocked GEMM tuned for the device); LDLT's A22 -= L21 D L21^T
// keeps the local tiled kernel.
//
// Why not dense.Potrf outright: on an H100 its recursive form (64-column
// leaves, recursive TRSM) factored n = 2047 in 10.8 ms and n = 8192 in
// 67 ms against 3.8 and 39.8 ms for this panel scheme with the old update:
// the leaves are latency-bound, and this panel solves the rows below the
// diagonal block in the same launch that factors it.
func (f *denseFactor) factorBlocked(a *kernels.Buffer) error {
	ks, err := denseProgram.Kernels(f.dev, "blocked_panel", "blocked_update", "blocked_store_diag")
	if err != nil {
		return err
	}
	panel, update, store := ks[0], ks[1], ks[2]
	eng, err := dense.For(f.dev, dense.Float64)
	if err != nil {
		return err
	}
	// Two slots of a 32x32 block plus its diagonal: the panel launch of
	// block k keeps its factored diagonal block there (see blocked_panel).
	scratch, err := f.dev.Alloc(8 * 2 * (denseNB*denseNB + denseNB))
	if err != nil {
		return err
	}
	defer scratch.Release() // OpenCL keeps it until the queued kernels are done
	n, mode, ldlt := f.n, 0, 0
	if f.ldlt {
		mode, ldlt = 1, 1
	}
	last := 0
	tr := trackerOf(f.dev)
	for k := 0; k < n; k += denseNB {
		tr.step("columns", k, n, cubicFraction(k, n))
		last = k
		nb := min(denseNB, n-k)
		rest := n - k - nb
		if err := panel.Launch([]int{groupsFor(rest, denseLocal) * denseLocal}, []int{denseLocal}, n, k, ldlt, a, f.st.flags, f.st.pivot, scratch); err != nil {
			return err
		}
		if rest == 0 {
			break
		}
		if !f.ldlt {
			l21 := dense.Mat{Buf: a, Off: int64(k+nb) + int64(k)*int64(n), Rows: rest, Cols: nb, LD: n}
			a22 := dense.Mat{Buf: a, Off: int64(k+nb) * int64(n+1), Rows: rest, Cols: rest, LD: n}
			if err := eng.Syrk(false, -1, l21, 1, a22); err != nil {
				return err
			}
			continue
		}
		t := (rest + denseTile - 1) / denseTile
		if err := update.Launch([]int{16 * t, 16 * t}, []int{16, 16}, mode, n, k, nb, rest, rest, k+nb, rest, 0, k+nb, a, scratch); err != nil {
			return err
		}
	}
	tr.step("columns", n, n, 1)
	return store.Launch([]int{denseLocal}, []int{denseLocal}, n, last, a, scratch)
}

// solveTo solves A x = b into dst. It checks b and the solution for NaN and
// Inf, so it waits for the device once.
func (f *denseFactor) solveTo(dst, b *afarray.Array) error {
	if f.a == nil || f.a.Released() || f.st == nil {
		return errNotFactorized
	}
	bb, err := float64Buffer(b, f.name()+" right-hand side")
	if err != nil {
		return err
	}
	if _, err := float64Buffer(dst, f.name()+" destination"); err != nil {
		return err
	}
	if err := sameDevice(f.a, b, dst); err != nil {
		return err
	}
	if br, bc := b.Dims(); br != f.n || bc != 1 {
		return fmt.Errorf("%w: %s: right-hand side is %dx%d, want a vector of %d", ErrShape, f.name(), br, bc, f.n)
	}
	if dr, dc := dst.Dims(); dr != f.n || dc != 1 {
		return fmt.Errorf("%w: %s: destination is %dx%d, want a vector of %d", ErrShape, f.name(), dr, dc, f.n)
	}
	a, err := f.a.DeviceBuffer()
	if err != nil {
		return err
	}
	start, launches := time.Now(), f.dev.Launches()
	x, err := dst.DeviceBuffer()
	if err != nil {
		return err
	}
	if err := f.st.reset(); err != nil {
		return err
	}
	if err := f.st.checkFinite(f.dev, bb, f.n, statusRHS); err != nil {
		return err
	}
	if x != bb {
		if err := bb.CopyTo(x, 0, 0, 8*int64(f.n)); err != nil {
			return err
		}
	}
	if f.variant == Thesis {
		err = f.solveThesis(a, x)
	} else {
		err = f.solveBlocked(a, x)
	}
	if err != nil {
		return err
	}
	if err := f.st.checkFinite(f.dev, x, f.n, statusOutput); err != nil {
		return err
	}
	if err := f.st.failure(f.ldlt); err != nil {
		return err
	}
	f.stats.Solves++
	f.stats.SolveTime, f.stats.SolveLaunches = time.Since(start), f.dev.Launches()-launches
	return nil
}

// solveThesis overwrites x (holding b) with the solution through the
// thesis's phases: a forward launch per column, one diagonal launch, and a
// single-group backward launch per unknown (2n+1 launches).
func (f *denseFactor) solveThesis(a, x *kernels.Buffer) error {
	k, err := denseProgram.Kernel(f.dev, f.thesisKernel())
	if err != nil {
		return err
	}
	g, l := thesisGeometry(k)
	part := kernels.Local(8 * l[0])
	fwd, diag, back := 3, 4, 5
	if f.ldlt {
		fwd, diag, back = 2, 3, 4
	}
	for j := 0; j < f.n; j++ {
		if err := k.Launch(g, l, a, x, part, f.n, j, fwd, f.st.flags, f.st.pivot); err != nil {
			return err
		}
	}
	if err := k.Launch(g, l, a, x, part, f.n, 0, diag, f.st.flags, f.st.pivot); err != nil {
		return err
	}
	for s := 0; s < f.n; s++ {
		if err := k.Launch(g, l, a, x, part, f.n, s, back, f.st.flags, f.st.pivot); err != nil {
			return err
		}
	}
	return nil
}

// solveBlocked makes one launch per 32-row block for each triangular solve:
// forward from x (holding b) into the scratch vector, backward from the
// scratch into x. The LDLT diagonal solve is fused into the forward
// launches.
func (f *denseFactor) solveBlocked(a, x *kernels.Buffer) error {
	if f.work == nil {
		w, err := f.dev.Alloc(8 * int64(f.n))
		if err != nil {
			return err
		}
		f.work = w
	}
	ks, err := denseProgram.Kernels(f.dev, "blocked_forward", "blocked_backward")
	if err != nil {
		return err
	}
	fwd, back := ks[0], ks[1]
	n, ldlt := f.n, 0
	if f.ldlt {
		ldlt = 1
	}
	for k := 0; k < n; k += denseNB {
		rest := n - k - min(denseNB, n-k)
		if err := fwd.Launch([]int{groupsFor(rest, denseLocal) * denseLocal}, []int{denseLocal}, n, k, ldlt, a, x, f.work); err != nil {
			return err
		}
	}
	last := (n - 1) / denseNB * denseNB
	for k := last; k >= 0; k -= denseNB {
		if err := back.Launch([]int{groupsFor(k, denseBWLocal) * denseBWLocal}, []int{denseBWLocal}, n, k, ldlt, a, f.work, x); err != nil {
			return err
		}
	}
	return nil
}

// SolveTo solves A x = b into dst (vectors of n; dst may be b). It reports
// NaN or Inf in b or in the solution as a *NonFiniteError, so it waits for
// the device once.
func (f *denseFactor) SolveTo(dst, b *afarray.Array) error { return f.solveTo(dst, b) }

// Solve returns the solution of A x = b in a new array.
func (f *denseFactor) Solve(b *afarray.Array) (*afarray.Array, error) {
	if _, err := float64Buffer(b, f.name()+" right-hand side"); err != nil {
		return nil, err
	}
	x, err := b.Copy()
	if err != nil {
		return nil, err
	}
	if err := f.solveTo(x, x); err != nil {
		x.Release()
		return nil, err
	}
	return x, nil
}

// Variant returns the variant of the last Factorize.
func (f *denseFactor) Variant() Variant { return f.variant }

// Order returns n (0 before Factorize).
func (f *denseFactor) Order() int { return f.n }

// Stats describes the last factorization and solve.
func (f *denseFactor) Stats() FactorStats { return f.stats }

// Release frees the factorization's device memory (the factor itself when
// Factorize made the copy). Release is idempotent.
func (f *denseFactor) Release() { f.release() }

func (f *denseFactor) release() {
	if f.owned && f.a != nil {
		f.a.Release()
	}
	f.a, f.owned, f.stats = nil, false, FactorStats{}
	f.st.release()
	f.st = nil
	if f.work != nil {
		f.work.Release()
		f.work = nil
	}
}
