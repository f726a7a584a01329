package gauss

import (
	_ "embed"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed lu_trsv.cl
var luTrsvSource string

// trsvRows returns the block of the single-launch triangular solve
// (TS in lu_trsv.cl): 64 rows where its diagonal block, a staged chunk and
// the unknowns (about 42 KiB) fit the device's local memory, else 32.
func trsvRows(dev *kernels.Device) int {
	if dev.Info().LocalMemBytes >= 48<<10 {
		return 64
	}
	return 32
}

// solveChained overwrites x (lu.ld values, the exchanged right-hand side)
// with the solution of L U x = x: two launches of lu_trsv (unit lower,
// then upper), each one work-group per block of rows handing its unknowns
// to the next through ready flags (see lu_trsv.cl). It returns the number
// of row blocks of each solve.
func (lu *LU) solveChained(x, status *kernels.Buffer) (int, error) {
	k, err := lu.prog.Kernel("lu_trsv")
	if err != nil {
		return 0, err
	}
	ts := trsvRows(lu.dev)
	blocks := (lu.ld + ts - 1) / ts
	flags, err := lu.dev.Alloc(int64(4 * (blocks + 1)))
	if err != nil {
		return 0, err
	}
	defer flags.Release() // queued commands keep it alive
	for _, upper := range []bool{false, true} {
		if err := flags.Fill([]byte{0, 0, 0, 0}, 0, int64(4*(blocks+1))); err != nil {
			return 0, err
		}
		if err := k.Launch([]int{blocks * ts}, []int{ts}, lu.a, lu.ld, lu.ld, boolInt(upper), boolInt(!upper),
			x, flags, status, lu.tol); err != nil {
			return 0, errKernel("lu_trsv", err)
		}
	}
	return blocks, nil
}
