package gauss

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/mat"
)

// Variant names accepted by Options.Variant.
const (
	VariantBuffer  = "buffer"  // ping-pong double buffers
	VariantVec4    = "vec4"    // ping-pong double4 buffers
	VariantImage   = "image"   // ping-pong float images (float32 accuracy)
	VariantBlocked = "blocked" // blocked LU (the fast path)
)

// Variants lists the variant names in the order the documents present them,
// the blocked LU last.
func Variants() []string {
	return []string{VariantBuffer, VariantVec4, VariantImage, VariantBlocked}
}

// Options selects how Solve works. The zero value is the double-buffer
// variant without pivoting.
type Options struct {
	// Pivot selects partial pivoting (row exchanges by largest magnitude).
	// Without it a zero pivot fails with ErrSingular even when the matrix
	// is regular, and accuracy relies on the matrix (diagonally dominant or
	// symmetric positive definite matrices are safe).
	Pivot bool
	// Variant is one of VariantBuffer (the default when empty), VariantVec4,
	// VariantImage and VariantBlocked.
	Variant string
	// BackSubTile is the number of rows the back-substitution solves per
	// work-group launch; its local buffer holds 2*BackSubTile values. Zero
	// takes the largest tile that fits the device's local memory (all n rows
	// when 2n values fit, as in the documents); tests set it small to
	// exercise the tiled path. For the blocked variant zero solves each
	// triangle in a single launch (row blocks handed on through flags) and
	// a positive value takes the tiled solve with that many rows per tile.
	BackSubTile int
	// BlockSize is the panel width of the blocked LU; zero means
	// LU.BlockSize's default (64 or 32 on a GPU, 16 on other devices).
	BlockSize int
	// Pivoting chooses the blocked LU's pivoting when Pivot is set
	// (LU.Pivoting): PivotingAuto, the zero value, takes tournament
	// pivoting on a GPU (above order 4096 only with NVIDIA's warp
	// shuffles) and exact partial pivoting elsewhere.
	Pivoting Pivoting
}

// Report describes one solve. Durations are wall-clock times on the host;
// the phases are separated by waiting for the device.
type Report struct {
	Device  string
	Variant string
	Pivot   bool
	N       int // number of unknowns

	Upload           time.Duration // host packing, transfer to the device
	Eliminate        time.Duration // elimination, or LU factorization
	BackSubstitution time.Duration // triangular solve(s) and reading x back
	// Compile is the time spent building programs on their first use,
	// wherever it fell; the three phases above exclude it, so the four
	// add up to about Total.
	Compile time.Duration
	Total   time.Duration

	Launches     int64 // kernels enqueued
	BackSubTiles int   // back-substitution tiles (1 when 2n values fit in local memory)
	BlockSize    int   // panel width of the blocked LU (0 for the other variants)
	Tournament   bool  // the blocked LU's pivots came from the tournament (PivotingTournament)
	// Refactored says that the blocked LU's first factorization multiplied
	// by an outer block's inverse too large to trust (LU.Refactored) and the
	// factors came from a second one by substitution; SolveSubstituted that
	// the solve's inverted diagonal blocks were too ill-conditioned and it
	// was done by substitution. Both are correct, only slower.
	Refactored, SolveSubstituted bool
	// GFlops is the rate of the nominal 2/3 n^3 + 2 n^2 operations over Total.
	GFlops float64
}

func (r *Report) finish(start time.Time, launches0 int64, dev *kernels.Device) {
	r.Total = time.Since(start)
	r.Launches = dev.Launches() - launches0
	n := float64(r.N)
	if s := r.Total.Seconds(); s > 0 {
		r.GFlops = (2.0/3.0*n*n*n + 2*n*n) / s / 1e9
	}
}

// Solve solves a x = b on dev with the variant and pivoting chosen by opts
// and returns x with a report of the phases. a must be square and b as long
// as a has rows. Errors: ErrShape, ErrVariant, ErrSingular (a
// *SingularError), ErrNotFinite, or a device error from package kernels.
func Solve(dev *kernels.Device, a mat.Matrix, b []float64, opts Options) ([]float64, *Report, error) {
	if dev == nil {
		return nil, nil, fmt.Errorf("%w: nil device", ErrVariant)
	}
	n, err := checkSystem(a, b)
	if err != nil {
		return nil, nil, err
	}
	if opts.BackSubTile < 0 || opts.BlockSize < 0 {
		return nil, nil, fmt.Errorf("%w: negative BackSubTile %d or BlockSize %d", ErrVariant, opts.BackSubTile, opts.BlockSize)
	}
	switch opts.Variant {
	case "", VariantBuffer:
		return solvePingPong(dev, a, b, n, opts, bufferStorage)
	case VariantVec4:
		return solvePingPong(dev, a, b, n, opts, vec4Storage)
	case VariantImage:
		return solvePingPong(dev, a, b, n, opts, imageStorage)
	case VariantBlocked:
		return solveBlocked(dev, a, b, n, opts)
	}
	return nil, nil, fmt.Errorf("%w: %q (want one of %v)", ErrVariant, opts.Variant, Variants())
}

// checkSystem returns the order of a square system or ErrShape.
func checkSystem(a mat.Matrix, b []float64) (int, error) {
	if a == nil {
		return 0, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	r, c := a.Dims()
	if r != c {
		return 0, fmt.Errorf("%w: matrix is %dx%d, not square", ErrShape, r, c)
	}
	if r == 0 {
		return 0, fmt.Errorf("%w: empty matrix", ErrShape)
	}
	if len(b) != r {
		return 0, fmt.Errorf("%w: right-hand side has %d entries for %d equations", ErrShape, len(b), r)
	}
	return r, nil
}

// checkFinite returns ErrNotFinite if x holds NaN or Inf: a solver never
// hands such a vector back silently.
func checkFinite(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: x[%d] = %v (overflow, or a nearly singular matrix)", ErrNotFinite, i, v)
		}
	}
	return nil
}

// Machine epsilons of the double and float variants.
const (
	epsilon64 = 0x1p-52
	epsilon32 = 0x1p-23
)

// pivotTolerance returns n eps amax, amax = max|a_ij|: a pivot of at most
// this magnitude means the matrix is singular to working precision (or,
// without pivoting, that elimination broke down), and is reported as
// ErrSingular rather than divided by. Exact zeros are not enough: rounding
// rarely leaves a singular matrix an exactly zero pivot.
func pivotTolerance(n int, eps, amax float64) float64 {
	return float64(n) * eps * amax
}

// checkEntries rejects a matrix holding NaN or Inf (amax is the largest
// magnitude found by copyRow, NaN if any entry is NaN).
func checkEntries(amax float64) error {
	if math.IsNaN(amax) || math.IsInf(amax, 0) {
		return fmt.Errorf("%w: the matrix holds NaN or Inf", ErrNotFinite)
	}
	return nil
}

// packRows runs pack on consecutive row ranges [i0, i1) covering 0..n-1,
// in parallel on the host's cores (packing a matrix of order 8192 is a
// 512 MB copy), and returns the largest value pack returned, NaN if any was.
func packRows(n int, pack func(i0, i1 int) float64) float64 {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	chunk := (n + workers - 1) / workers
	res := make([]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		i0, i1 := w*chunk, min(n, (w+1)*chunk)
		if i0 >= i1 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[w] = pack(i0, i1)
		}()
	}
	wg.Wait()
	m := 0.0
	for _, v := range res {
		m = math.Max(m, v) // math.Max keeps a NaN
	}
	return m
}

// copyRow copies row i of the n x n matrix a into dst and returns the
// largest magnitude in it. A *mat.Dense (any RawMatrixer) is copied
// directly, other matrices element by element.
func copyRow(dst []float64, a mat.Matrix, i, n int) float64 {
	if d, ok := a.(mat.RawMatrixer); ok {
		raw := d.RawMatrix()
		copy(dst[:n], raw.Data[i*raw.Stride:i*raw.Stride+n])
	} else {
		for j := 0; j < n; j++ {
			dst[j] = a.At(i, j)
		}
	}
	m := 0.0
	for _, v := range dst[:n] {
		if av := math.Abs(v); av > m || av != av {
			m = av // a NaN entry makes the maximum NaN (see checkEntries)
		}
	}
	return m
}

// noSingular is the initial status word: no zero pivot seen.
const noSingular = math.MaxInt32

// newStatus allocates the device word in which kernels record the first
// zero pivot.
func newStatus(dev *kernels.Device) (*kernels.Buffer, error) {
	s, err := dev.Alloc(4)
	if err != nil {
		return nil, err
	}
	if err := s.Write(0, []int32{noSingular}); err != nil {
		s.Release()
		return nil, err
	}
	return s, nil
}

// readStatus returns a *SingularError if a kernel recorded a zero pivot.
func readStatus(s *kernels.Buffer, pivoting bool) error {
	v := make([]int32, 1)
	if err := s.Read(0, v); err != nil {
		return err
	}
	if v[0] != noSingular {
		return &SingularError{Pivot: int(v[0]), Pivoting: pivoting}
	}
	return nil
}
