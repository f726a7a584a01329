package solver

import (
	"errors"
	"sync"
)

// The host-side fan-out of the package: the multi-device solvers run one
// goroutine per device (onDevices), and host loops over large inputs
// (BackwardError, the multi-device supernodal split of A's entries) run
// one goroutine per block of the input (forEachBlock).

// forEachBlock runs f(0), ..., f(n-1) each on a goroutine of its own and
// returns when all have returned.
func forEachBlock(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// onDevices runs f(d) for every device at once and returns their errors
// joined (nil when all succeeded).
func onDevices(n int, f func(d int) error) error {
	errs := make([]error, n)
	forEachBlock(n, func(d int) { errs[d] = f(d) })
	return errors.Join(errs...)
}
