package gauss

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed trsv.cl
var trsvSource string

// Row placement modes of trsv.cl: which memory object holds row r.
const (
	rowsByParity      = 0 // no pivoting: row r in the object of r's parity
	rowsByParityShift = 1 // partial pivoting: row r with r+1's parity, the last row with its predecessor
	rowsInOne         = 2 // one buffer (blocked LU)
)

// triangle is a triangular matrix as the elimination left it on the device.
type triangle struct {
	even, odd any     // *kernels.Buffer or *kernels.Image (the same object for rowsInOne)
	stride    int     // values per row (buffers only)
	mode      int     // one of the row placement modes
	n         int     // order
	elem      int     // bytes per value: 8 for double buffers, 4 for float images
	tol       float64 // diagonal entries of at most this magnitude count as zero
}

// Work-group sizes of the triangular solve kernels. trsvBlockLocal is a
// variable only so that a benchmark can compare sizes.
var trsvBlockLocal = 256 // one work-group walks a whole tile

const trsvUpdateLocal = 64 // one work-group per row of the GEMV update

// tileRows returns the back-substitution tile: the number of rows whose 2T
// values fit the device's local memory, at most n, at most requested when
// requested > 0.
func tileRows(dev *kernels.Device, n, elem, requested int) int {
	budget := int(dev.Info().LocalMemBytes) - 1024 // leave room for the kernel's own local data
	t := budget / (2 * elem)
	if requested > 0 && requested < t {
		t = requested
	}
	if t > n {
		t = n
	}
	if t < 1 {
		t = 1
	}
	return t
}

// gather loads column rhsCol of the matrix (the augmented right-hand side)
// into x.
func (t triangle) gather(prog *kernels.Program, rhsCol int, x *kernels.Buffer) error {
	k, err := prog.Kernel("trsv_gather")
	if err != nil {
		return err
	}
	const local = 64
	return k.Launch([]int{kernels.RoundUp(t.n, local)}, []int{local}, t.even, t.odd, t.stride, t.mode, t.n, rhsCol, x)
}

// solve overwrites x with the solution of the triangular system (upper or
// unit lower) whose right-hand side x holds, tile rows at a time: each tile
// is solved in one work-group with a 2*tile local buffer (trsv_block), then
// its unknowns are removed from the rows still to solve by a GEMV over many
// work-groups (trsv_update). With tile >= n this is one launch, the
// documents' back-substitution. It returns the number of tiles. Zero
// diagonal entries (unless unit) are recorded in status. With cache (and
// when tile*tile more values fit local memory) each tile's triangle is
// staged in local memory first.
func (t triangle) solve(dev *kernels.Device, prog *kernels.Program, x, status *kernels.Buffer, upper, unit bool, tile int, cache bool) (int, error) {
	blk, err := prog.Kernel("trsv_block")
	if err != nil {
		return 0, err
	}
	upd, err := prog.Kernel("trsv_update")
	if err != nil {
		return 0, err
	}
	bl := floorPow2(min(trsvBlockLocal, blk.MaxWorkGroupSize()))
	ul := floorPow2(min(trsvUpdateLocal, upd.MaxWorkGroupSize()))
	up, un := boolInt(upper), boolInt(unit)
	var tol any = t.tol
	if t.elem == 4 {
		tol = float32(t.tol)
	}
	cached := 0
	if cache && int64((2*tile+tile*tile)*t.elem) <= dev.Info().LocalMemBytes-1024 {
		cached = 1
	}
	tiles := 0
	launchBlock := func(r0, r1 int) error {
		tiles++
		T := r1 - r0
		return blk.Launch([]int{bl}, []int{bl}, t.even, t.odd, t.stride, t.mode, t.n, up, un, r0, r1, x, status, tol,
			cached, kernels.Local((2*T+cached*T*T)*t.elem))
	}
	launchUpdate := func(r0, r1, rows int) error {
		return upd.Launch([]int{ul, rows}, []int{ul, 1}, t.even, t.odd, t.stride, t.mode, t.n, up, r0, r1, x,
			kernels.Local(ul*t.elem))
	}
	if upper {
		for r1 := t.n; r1 > 0; {
			r0 := max(0, r1-tile)
			if err := launchBlock(r0, r1); err != nil {
				return tiles, err
			}
			if r0 > 0 {
				if err := launchUpdate(r0, r1, r0); err != nil {
					return tiles, err
				}
			}
			r1 = r0
		}
		return tiles, nil
	}
	for r0 := 0; r0 < t.n; {
		r1 := min(t.n, r0+tile)
		if err := launchBlock(r0, r1); err != nil {
			return tiles, err
		}
		if r1 < t.n {
			if err := launchUpdate(r0, r1, t.n-r1); err != nil {
				return tiles, err
			}
		}
		r0 = r1
	}
	return tiles, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// floorPow2 returns the largest power of two <= v (v >= 1).
func floorPow2(v int) int {
	p := 1
	for p*2 <= v {
		p *= 2
	}
	return p
}

// errKernel wraps a launch failure with the variant's name.
func errKernel(what string, err error) error {
	return fmt.Errorf("gauss: %s: %w", what, err)
}
