package main

import (
	"fmt"
	"os"
	"time"
)

// OCLSOLVE_TRACE=1 prints on standard error when each step of a command
// happened, in milliseconds since the process's Go code started (and that
// start as Unix time, to compare with a clock read before the process was
// started): what a time split inside the command cannot show, such as
// waiting for the OpenCL context or the time after the report.
var (
	traceStart = time.Now()
	traceOn    = os.Getenv("OCLSOLVE_TRACE") != ""
)

// trace notes that step happened now, when tracing is on.
func trace(step string) {
	if !traceOn {
		return
	}
	fmt.Fprintf(os.Stderr, "trace %9.2f ms  %s (start %.3f)\n", float64(time.Since(traceStart).Microseconds())/1000, step,
		float64(traceStart.UnixMicro())/1e6)
}
