package main

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/gauss"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"gonum.org/v1/gonum/mat"
)

// Dense Gaussian elimination in `oclsolve solve`:
//
//	--method gauss         elimination without row exchanges (fails with a
//	                       zero-pivot error on matrices that need them)
//	--method gauss-pivot   elimination with partial pivoting
//	--variant buffer|vec4|image|blocked
//	                       buffer, vec4 and image are the documents' ping-pong
//	                       kernels (one launch per pivot; image works in
//	                       float32); blocked is the blocked LU fast path
//
// The matrix comes from a Matrix Market file (array or coordinate, general
// or symmetric) or a generator such as random:N; it is expanded to a dense
// matrix on the host. The right-hand side is a file or --rhs ones|random.
func init() {
	for _, name := range []string{"gauss", "gauss-pivot"} {
		registerSolveMethod(&solveMethod{name: name, formats: []string{"dense"}, variants: gauss.Variants(), run: runGauss})
	}
}

// denseLimit keeps the expanded matrix within int32 indexing on the device.
const denseLimit = 46340

func runGauss(p *solveProblem, o *solveOptions) (*solveOutcome, error) {
	if p.A == nil {
		return nil, fmt.Errorf("%w: method %s needs an assembled matrix, and %s is matrix-free", errUsage, o.Method, p.Source)
	}
	if p.N > denseLimit {
		return nil, fmt.Errorf("%w: a dense matrix of order %d has more than 2^31 entries", errUsage, p.N)
	}
	if err := sparse.CheckHostMemory(fmt.Sprintf("a dense matrix of order %d", p.N), 8*int64(p.N)*int64(p.N)); err != nil {
		return nil, err
	}
	a := mat.NewDense(p.N, p.N, nil)
	c := p.A
	for k, v := range c.V {
		i, j := int(c.I[k]), int(c.J[k])
		a.Set(i, j, a.At(i, j)+v) // duplicate coordinate entries add up
		if c.Symmetric && i != j {
			a.Set(j, i, a.At(j, i)+v)
		}
	}
	opts := gauss.Options{Pivot: o.Method == "gauss-pivot", Variant: o.Variant}
	x, rep, err := gauss.Solve(o.Device, a, p.B, opts)
	if err != nil {
		return nil, err
	}
	notes := []string{fmt.Sprintf("%d kernel launches, back-substitution in %d tile(s), %.1f GFLOP/s (2/3 n^3 over the total)",
		rep.Launches, rep.BackSubTiles, rep.GFlops)}
	switch o.Variant {
	case gauss.VariantImage:
		notes = append(notes, "image variant: float32 textures, accuracy of float32")
	case gauss.VariantBlocked:
		notes = append(notes, fmt.Sprintf("blocked LU, panel width %d", rep.BlockSize))
		if rep.Refactored {
			notes = append(notes, "an outer block's triangle was too ill-conditioned for its inverse: factorized again by substitution")
		}
		if rep.SolveSubstituted {
			notes = append(notes, "the solve's diagonal blocks were too ill-conditioned for their inverses: solved by substitution")
		}
	default:
		notes = append(notes, "ping-pong elimination, one launch per pivot step")
	}
	return &solveOutcome{X: x, Single: o.Variant == gauss.VariantImage, Times: timeSplit{
		Upload: rep.Upload.Seconds(), Factorize: rep.Eliminate.Seconds(),
		Solve: rep.BackSubstitution.Seconds(), Compile: rep.Compile.Seconds(), Total: rep.Total.Seconds(),
	}, Notes: notes}, nil
}
