package main

// boundPackage is one package whose exported symbols the interpreter gets.
type boundPackage struct {
	path string
	// optional packages are skipped, with a note, when they do not build yet:
	// oclsolve packages are written in parallel with the interpreter, and a
	// package that does not compile must not stop the others from being bound.
	optional bool
}

// packages is the one list of everything the REPL and the notebooks can
// import. Adding a package here and running `go generate ./repl/` is all it
// takes to make it importable in interpreted code.
var boundPackages = []boundPackage{
	// The standard packages users expect in a numerical session.
	{path: "bufio"},
	{path: "bytes"},
	{path: "context"},
	{path: "encoding/csv"},
	{path: "encoding/json"},
	{path: "errors"},
	{path: "fmt"},
	{path: "image"},
	{path: "image/color"},
	{path: "io"},
	{path: "math"},
	{path: "math/bits"},
	{path: "math/cmplx"},
	{path: "math/rand"},
	{path: "os"},
	{path: "path/filepath"},
	{path: "runtime"},
	{path: "sort"},
	{path: "strconv"},
	{path: "strings"},
	{path: "sync"},
	{path: "sync/atomic"},
	{path: "text/tabwriter"},
	{path: "time"},

	// gonum: dense linear algebra, statistics and plotting.
	{path: "gonum.org/v1/gonum/blas"},
	{path: "gonum.org/v1/gonum/floats"},
	{path: "gonum.org/v1/gonum/mat"},
	{path: "gonum.org/v1/gonum/stat"},
	{path: "gonum.org/v1/plot"},
	{path: "gonum.org/v1/plot/plotter"},
	{path: "gonum.org/v1/plot/plotutil"},
	{path: "gonum.org/v1/plot/vg"},
	{path: "gonum.org/v1/plot/vg/draw"},

	// oclsolve itself.
	{path: "github.com/oclsolve/oclsolve/repl/display"},
	{path: "github.com/oclsolve/oclsolve/notebook/study", optional: true},
	{path: "github.com/oclsolve/oclsolve/kernels", optional: true},
	{path: "github.com/oclsolve/oclsolve/kernels/errs", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray/sparse", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray/gauss", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray/cyclic", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray/solver", optional: true},
	{path: "github.com/oclsolve/oclsolve/afarray/fem", optional: true},
	// The PETSc engine: the same API with and without the petsc build tag
	// (without it every solve returns petsc.ErrNotBuilt), so one binding
	// serves both binaries.
	{path: "github.com/oclsolve/oclsolve/afarray/solver/petsc", optional: true},
}
