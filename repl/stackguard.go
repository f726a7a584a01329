package repl

import (
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// ErrStackOverflow marks an evaluation stopped because its goroutine
// stacks grew past StackLimit: runaway recursion in interpreted code.
var ErrStackOverflow = errors.New("stack overflow")

// StackLimit is how many bytes of goroutine stack an evaluation may add
// before it is stopped. gomacro runs an interpreted call as several
// nested Go calls, so infinite recursion in a cell grows a goroutine's
// stack until the Go runtime's own limit (1 GiB), where the runtime aborts
// the whole process with "fatal error: stack overflow", which no recover
// can catch: the session and all its state would be lost. Stopping at a
// quarter of that limit leaves the runtime's abort out of reach while
// allowing recursion hundreds of thousands of calls deep.
const StackLimit = 256 << 20

// stackPoll is how often the guard samples the stack size. A stack grows
// by doubling; going from StackLimit to the runtime's limit takes two
// doublings and filling 768 MiB of frames, far longer than this.
const stackPoll = 2 * time.Millisecond

const stackMetric = "/memory/classes/heap/stacks:bytes"

// stackBytes returns the bytes of goroutine stack the process holds.
func stackBytes() uint64 {
	s := []metrics.Sample{{Name: stackMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// stackGuard watches one evaluation and calls interrupt when the process's
// goroutine stacks have grown by more than StackLimit since it started.
type stackGuard struct {
	stop     chan struct{}
	done     sync.WaitGroup
	tripped  bool // read after stopGuard
	baseline uint64
}

func startStackGuard(interrupt func()) *stackGuard {
	g := &stackGuard{stop: make(chan struct{}), baseline: stackBytes()}
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		tick := time.NewTicker(stackPoll)
		defer tick.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-tick.C:
				if s := stackBytes(); s > g.baseline && s-g.baseline >= StackLimit {
					g.tripped = true
					interrupt()
					return
				}
			}
		}
	}()
	return g
}

// finish stops the guard and reports whether it interrupted the
// evaluation.
func (g *stackGuard) finish() bool {
	close(g.stop)
	g.done.Wait()
	return g.tripped
}

// shrink makes the runtime give back the stack a stopped runaway
// evaluation left on the engine's goroutine. It must run while that
// goroutine is idle: each collection halves an idle goroutine's oversized
// stack. Left at hundreds of MiB, the stack would let the next runaway
// recursion reach the runtime's limit without growing (no allocation for
// the guard to see), and each later halving would allocate enough to look
// like a runaway itself.
func (g *stackGuard) shrink() {
	for i := 0; i < 12 && stackBytes() > g.baseline+StackLimit/8; i++ {
		runtime.GC()
	}
}
