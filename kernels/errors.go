package kernels

import (
	"errors"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels/errs"
)

// pkgErrs makes the sentinels of package kernels: each message begins
// "kernels: ".
const pkgErrs = errs.Package("kernels")

// Sentinel errors. Every error returned by this package matches one of them
// with errors.Is. Those of a shared kind (package errs) also match the other
// packages' sentinels of that kind.
var (
	// ErrNoDevice reports that no OpenCL device matched the request.
	ErrNoDevice = errors.New("kernels: no matching OpenCL device")
	// ErrOutOfMemory reports an allocation beyond what the device can hold.
	ErrOutOfMemory = pkgErrs.New(errs.ErrOutOfMemory, "device out of memory")
	// ErrBuild reports that an OpenCL program failed to compile.
	ErrBuild = errors.New("kernels: program build failed")
	// ErrOpenCL reports any other failing OpenCL call.
	ErrOpenCL = errors.New("kernels: OpenCL call failed")
	// ErrReleased reports use of a buffer after Release.
	ErrReleased = pkgErrs.New(errs.ErrReleased, "buffer already released")
	// ErrUnsupported reports a device that lacks what a program needs
	// (double precision, 64-bit atomics).
	ErrUnsupported = pkgErrs.New(errs.ErrUnsupported, "device lacks a required feature")
	// ErrLaunch reports a launch with an invalid geometry or arguments.
	ErrLaunch = errors.New("kernels: invalid kernel launch")
)

// BuildError carries the full compiler log of a failed program build.
type BuildError struct {
	Source  string // name of the source file(s) that failed
	Device  string
	Options string
	Log     string
	Err     error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("kernels: building %s for %s (options %q): %v\n%s", e.Source, e.Device, e.Options, e.Err, e.Log)
}

// Is makes a BuildError match ErrBuild.
func (e *BuildError) Is(target error) bool { return target == ErrBuild }

// Unwrap returns the OpenCL error.
func (e *BuildError) Unwrap() error { return e.Err }

// OutOfMemoryError names the sizes involved in a failed allocation.
type OutOfMemoryError struct {
	Device    string
	Requested int64 // bytes asked for
	Live      int64 // bytes held by this process on the device at the time
	Global    int64 // device global memory
	MaxAlloc  int64 // largest single allocation the device allows
	Reason    string
}

func (e *OutOfMemoryError) Error() string {
	return fmt.Sprintf("kernels: device %s out of memory: %s (requested %s, live %s, global %s, max single allocation %s)",
		e.Device, e.Reason, FormatBytes(e.Requested), FormatBytes(e.Live), FormatBytes(e.Global), FormatBytes(e.MaxAlloc))
}

// Unwrap makes an OutOfMemoryError match ErrOutOfMemory (and so every
// package's out-of-memory sentinel).
func (e *OutOfMemoryError) Unwrap() error { return ErrOutOfMemory }

// FormatBytes renders a byte count with a binary unit, e.g. "1.50 GiB".
func FormatBytes(n int64) string { return errs.FormatBytes(n) }
