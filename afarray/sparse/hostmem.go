package sparse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// Readers and generators estimate what a problem needs before they allocate
// it, so that a header or an order that cannot fit fails at once with the
// sizes named, instead of growing until the system kills the process.

// HostMemoryAvailable returns the bytes of host memory available to new
// allocations (MemAvailable of /proc/meminfo on Linux) and whether it is
// known. It is read once per process: the figure only bounds requests that
// could never succeed, it is not a reservation.
func HostMemoryAvailable() (int64, bool) {
	hostMemOnce.Do(func() { hostMem, hostMemKnown = readMemAvailable() })
	return hostMem, hostMemKnown
}

var (
	hostMemOnce  sync.Once
	hostMem      int64
	hostMemKnown bool
)

func readMemAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("MemAvailable:")) {
			continue
		}
		fields := bytes.Fields(line[len("MemAvailable:"):])
		if len(fields) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil || kb <= 0 {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}

// CheckHostMemory returns an error wrapping ErrTooLarge when need bytes
// exceed the host memory available; what names the thing being sized
// ("Model 2 with 100000000 equations", "entries of a.mtx"). need < 0 means
// the size overflowed int64 and always fails.
func CheckHostMemory(what string, need int64) error {
	avail, ok := HostMemoryAvailable()
	if need >= 0 && (!ok || need <= avail) {
		return nil
	}
	if need < 0 {
		return fmt.Errorf("%w: %s needs more than 8 EiB of host memory", ErrTooLarge, what)
	}
	return fmt.Errorf("%w: %s needs %s of host memory, %s available", ErrTooLarge, what, FormatBytes(need), FormatBytes(avail))
}

// FormatBytes renders a byte count with a binary unit, e.g. "1.50 GiB".
func FormatBytes(n int64) string { return errs.FormatBytes(n) }

// mulSat returns a·b, or -1 when the product overflows int64 (a, b >= 0).
func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (1<<63-1)/b {
		return -1
	}
	return a * b
}
