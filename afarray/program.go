package afarray

import (
	_ "embed"
	"fmt"

	"github.com/oclsolve/oclsolve/kernels"
)

var (
	//go:embed elementwise.cl
	elementwiseSource string
	//go:embed reduce.cl
	reduceSource string
	//go:embed blas.cl
	blasSource string
)

// The afarray kernels are one program per element type, built with T set to
// the OpenCL type (and ACC to the accumulation type the device supports).
var programs = [...]*kernels.ProgramSet{Float64: programFor(Float64), Float32: programFor(Float32), Int32: programFor(Int32)}

func programFor(t DType) *kernels.ProgramSet {
	srcs := []kernels.Source{{Name: "elementwise.cl", Text: elementwiseSource}, {Name: "reduce.cl", Text: reduceSource}}
	if t.isFloat() {
		srcs = append(srcs, kernels.Source{Name: "blas.cl", Text: blasSource})
	}
	return &kernels.ProgramSet{Sources: srcs, OptionsFor: func(dev *kernels.Device) string {
		acc := "double"
		if !dev.Info().FP64 {
			acc = "float"
		}
		opts := fmt.Sprintf("-DT=%s -DACC=%s", t.clType(), acc)
		if t.isFloat() {
			opts += " -DT_IS_FLOAT"
		}
		return opts
	}}
}

func program(dev *kernels.Device, t DType) (*kernels.Program, error) { return programs[t].On(dev) }

// localSize is the work-group size of afarray's 1-D kernels.
const localSize = 256

func (a *Array) kernel(name string) (*kernels.Kernel, error) {
	p, err := program(a.dev, a.dtype)
	if err != nil {
		return nil, err
	}
	return p.Kernel(name)
}

// launchElementwise launches a 1-D kernel with one work-item per element.
func (a *Array) launchElementwise(name string, n int, args ...any) error {
	if n == 0 {
		return nil
	}
	k, err := a.kernel(name)
	if err != nil {
		return err
	}
	local := min(localSize, k.MaxWorkGroupSize())
	a.touch()
	return k.Launch([]int{kernels.RoundUp(n, local)}, []int{local}, append([]any{int32(n)}, args...)...)
}
