package gauss

import (
	"encoding/binary"
	"os"
	"strconv"
	"testing"
)

// TestTselClock breaks a tournament column step into its parts on an
// NVIDIA GPU (compute capability 8.0+, where the steps take redux.sync):
// OCLSOLVE_LU_CLOCK=n factorizes a random matrix of order n with
// tselSource's kernels instrumented (tselClock) and prints, for the panel
// at column OCLSOLVE_LU_CLOCK_K (default 0; rounded down to the panel
// width) with OCLSOLVE_LU_CLOCK_ROWS rows per item (1 or 2; default
// panelRows's choice), its leaf and root nodes the mean cycles of item 0 of group 0 in
// each part of a step: the item's best row and the warp's winner up to
// the barrier (own), waiting at the barrier (wait), the reduction of the
// warps' results (scan), and the pivot row's loads and the elimination up
// to the next step (elim); besides, the node's start (rows loaded) to its
// first step, and its last step to its picks written. The clock reads
// (volatile PTX) constrain the compiler's scheduling: the parts add up to
// more than an uninstrumented step.
func TestTselClock(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("OCLSOLVE_LU_CLOCK"))
	if err != nil || n <= 0 {
		t.Skip("OCLSOLVE_LU_CLOCK=n not set")
	}
	dev := testDevice(t)
	if !warpRedux(dev.Info()) {
		t.Skipf("%s: no redux.sync (NVIDIA compute capability 8.0+ only)", dev.Name())
	}
	defer func(r int) { tselClock, tselClockBuf, tselClockK, tselRows = false, nil, 0, r }(tselRows)
	tselClock = true
	if v, err := strconv.Atoi(os.Getenv("OCLSOLVE_LU_CLOCK_K")); err == nil && v >= 0 {
		tselClockK = v / 32 * 32
	}
	if v, err := strconv.Atoi(os.Getenv("OCLSOLVE_LU_CLOCK_ROWS")); err == nil && (v == 1 || v == 2) {
		tselRows = v
	}
	const levels = 4
	nb := smallBlockSize // the GPU's default panel width
	slots := tselClocks(nb)
	buf, err := dev.Alloc(int64(8 * levels * slots))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	if err := buf.Fill(make([]byte, 8), 0, int64(8*levels*slots)); err != nil {
		t.Fatal(err)
	}
	tselClockBuf = buf
	a, _ := randomSystem(n, 5, false)
	lu := LU{BlockSize: nb, Pivoting: PivotingTournament}
	if err := lu.Factorize(dev, a); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 8*levels*slots)
	if err := buf.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	c := func(l, i int) int64 { return int64(binary.LittleEndian.Uint64(raw[8*(l*slots+i):])) }
	for l := 0; l < levels; l++ {
		if c(l, 4*nb) == 0 {
			break
		}
		var own, wait, scan, elim int64
		for j := 0; j < nb; j++ {
			own += c(l, 4*j+1) - c(l, 4*j)
			wait += c(l, 4*j+2) - c(l, 4*j+1)
			scan += c(l, 4*j+3) - c(l, 4*j+2)
			if j+1 < nb {
				elim += c(l, 4*(j+1)) - c(l, 4*j+3)
			}
		}
		total := c(l, 4*nb+1) - c(l, 4*nb)
		t.Logf("n=%d k=%d rows/item %s level %d: node %d cycles; start->step 0 %d; per step own %.0f wait %.0f scan %.0f elim %.0f (steps %.0f); last step->picks written %d",
			n, tselClockK, os.Getenv("OCLSOLVE_LU_CLOCK_ROWS"), l, total, c(l, 0)-c(l, 4*nb), float64(own)/float64(nb), float64(wait)/float64(nb), float64(scan)/float64(nb),
			float64(elim)/float64(nb-1), float64(c(l, 4*(nb-1)+3)-c(l, 0))/float64(nb), c(l, 4*nb+1)-c(l, 4*(nb-1)+3))
	}
}
