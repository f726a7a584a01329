package gauss

import (
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// phaseClock splits a solve's wall time into its phases and the program
// builds that fell inside them. A program is built on its first use, which
// for the blocked LU can be deep inside the factorization (the dense GEMM
// engine tunes its tiles on first use, compiling a kernel per candidate), so
// a phase's time excludes the build time spent in it and Report.Compile
// collects it: the phases and Compile then add up to the total instead of
// counting a build twice.
type phaseClock struct {
	dev     *kernels.Device
	t       time.Time
	built   time.Duration // the device's compile counter at t
	compile time.Duration // builds seen by the laps so far
}

func newPhaseClock(dev *kernels.Device) *phaseClock {
	return &phaseClock{dev: dev, t: time.Now(), built: dev.CompileTime()}
}

// lap returns the time since the last lap (or the start) less the program
// builds in it, and starts the next phase.
func (p *phaseClock) lap() time.Duration {
	now, built := time.Now(), p.dev.CompileTime()
	b := built - p.built
	d := now.Sub(p.t) - b
	p.t, p.built, p.compile = now, built, p.compile+b
	return max(d, 0)
}
