package afarray

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

//go:embed scan.cl
var scanSource string

// scanOp names one of the exclusive scans of scan.cl.
type scanOp string

const (
	scanAddInt32 scanOp = "scan_add_i32" // int32 running sums
	scanMaxInt32 scanOp = "scan_max_i32" // int32 running maxima (identity INT_MIN)
	scanAddInt64 scanOp = "scan_add_i64" // int64 running sums
)

// scanPer is SCAN_PER of scan.cl: elements per work-item.
const scanPer = 4

// elemSize returns the bytes of one element of the scan's type.
func (op scanOp) elemSize() int64 {
	if op == scanAddInt64 {
		return 8
	}
	return 4
}

// scan enqueues the exclusive scan of n elements of in into out, which must
// hold n+1 elements: out[0] is the identity and out[n] the total. in and out
// may be the same buffer. The block sums of a large scan are scanned
// recursively, so a scan of n elements takes about 2·log_(4·local)(n)
// launches and never waits for the device.
func scan(p *kernels.Program, op scanOp, n int, in, out *kernels.Buffer) error {
	blockK, err := p.Kernel(string(op) + "_block")
	if err != nil {
		return err
	}
	addK, err := p.Kernel(string(op) + "_add")
	if err != nil {
		return err
	}
	local := min(256, blockK.MaxWorkGroupSize(), addK.MaxWorkGroupSize())
	span := local * scanPer
	groups := (n + 1 + span - 1) / span // covers positions 0..n
	dev := in.Device()
	sums, err := dev.Alloc(int64(groups) * op.elemSize())
	if err != nil {
		return fmt.Errorf("afarray: scan of %d elements: %w", n, err)
	}
	// Released buffers stay alive on the device until the commands queued on
	// them complete, so the temporaries can go as soon as they are enqueued.
	defer sums.Release()
	if err := blockK.Launch([]int{groups * local}, []int{local}, int32(n), in, out, sums, kernels.Local(int64(local)*op.elemSize())); err != nil {
		return err
	}
	if groups == 1 {
		return nil
	}
	offsets, err := dev.Alloc(int64(groups+1) * op.elemSize())
	if err != nil {
		return fmt.Errorf("afarray: scan of %d elements: %w", n, err)
	}
	defer offsets.Release()
	if err := scan(p, op, groups, sums, offsets); err != nil {
		return err
	}
	return addK.Launch([]int{groups * local}, []int{local}, int32(n), out, offsets)
}
