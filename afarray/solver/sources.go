package solver

import (
	"embed"
	"fmt"
	"math"

	"github.com/oclsolve/oclsolve/kernels"
)

// The package's OpenCL sources. Every .cl file of this folder is embedded
// here once, and a program names the files it is built from with
// clSources, in the order OpenCL must see them (a helper file before the
// files that call it). A solver's .cl still lies beside the Go that
// launches it; it needs no go:embed string of its own.
//
//go:embed *.cl
var clFiles embed.FS

// solverProgram is a program of the package built from the named .cl
// files (clSources): every one needs double precision and gets the status
// slots' numbers (statusOptions).
func solverProgram(names ...string) *kernels.ProgramSet {
	return &kernels.ProgramSet{NeedFP64: true, Options: statusOptions, Sources: clSources(names...)}
}

// namedKernel is a kernel of a program to look up by name, and where to
// keep it.
type namedKernel struct {
	k    **kernels.Kernel
	name string
}

// namedKernels looks up each kernel of ks in prog and returns the smallest
// of their maximum work-group sizes: the local size every one of them can
// be launched with.
func namedKernels(prog *kernels.Program, ks []namedKernel) (int, error) {
	wg := math.MaxInt
	for _, kp := range ks {
		k, err := prog.Kernel(kp.name)
		if err != nil {
			return 0, err
		}
		*kp.k, wg = k, min(wg, k.MaxWorkGroupSize())
	}
	return wg, nil
}

// clSources returns the named .cl files of this folder as build sources.
// A name that is not there is a mistake in this package, which it reports
// by panicking: at package initialization for the programs declared at
// package level (cgProgram, denseProgram, ...), so any binary importing
// the package fails at start, and at the first build for the others
// (every test builds them all).
func clSources(names ...string) []kernels.Source {
	srcs := make([]kernels.Source, len(names))
	for i, name := range names {
		text, err := clFiles.ReadFile(name)
		if err != nil {
			panic(fmt.Sprintf("solver: no OpenCL source %s: %v", name, err))
		}
		srcs[i] = kernels.Source{Name: name, Text: string(text)}
	}
	return srcs
}
