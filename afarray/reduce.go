package afarray

import "github.com/oclsolve/oclsolve/kernels"

const (
	opSum    = 0
	opDot    = 1
	opSumSq  = 2
	opMaxAbs = 3
)

// reduceGroups caps the work-groups of the first reduction stage; each
// work-item folds a grid-stride slice first, so a few hundred groups keep
// every compute unit busy while the second stage stays one group.
const reduceGroups = 256

// reduce enqueues a two-stage reduction and returns a 1-element Float64
// array (Float32 on devices without double precision) holding the result.
// Nothing waits for the device.
func reduce(name string, op int32, x, y *Array) (*Array, error) {
	if y == nil {
		y = x
	}
	if err := sameShape(name, x, y); err != nil {
		return nil, err
	}
	accType := Float64
	if !x.dev.Info().FP64 {
		accType = Float32
	}
	out, err := newArray(x.dev, accType, 1, 1, true)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	if n == 0 {
		return out, out.fill(0)
	}
	kp, err := x.kernel("reduce_partial")
	if err != nil {
		out.Release()
		return nil, err
	}
	kf, err := x.kernel("reduce_final")
	if err != nil {
		out.Release()
		return nil, err
	}
	local := pow2Floor(min(localSize, kp.MaxWorkGroupSize(), kf.MaxWorkGroupSize()))
	groups := min(reduceGroups, (n+local-1)/local)
	part, err := x.dev.Alloc(int64(groups) * accType.Size())
	if err != nil {
		out.Release()
		return nil, err
	}
	defer part.Release() // OpenCL keeps it alive until the queued kernels finish
	lm := kernels.Local(int64(local) * accType.Size())
	if err := kp.Launch([]int{groups * local}, []int{local}, int32(n), op, x.buf, y.buf, part, lm); err != nil {
		out.Release()
		return nil, err
	}
	sqrt := int32(0)
	if op == opSumSq {
		sqrt = 1
	}
	if err := kf.Launch([]int{local}, []int{local}, int32(groups), op, sqrt, part, out.buf, lm); err != nil {
		out.Release()
		return nil, err
	}
	out.touch()
	return out, nil
}

func pow2Floor(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

func scalarOf(a *Array, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	defer a.Release()
	return a.Scalar()
}

// DotArray returns x·y as a 1-element device array, without waiting for the
// device. Float32 inputs are accumulated in double precision where the
// device has it.
func DotArray(x, y *Array) (*Array, error) { return reduce("Dot", opDot, x, y) }

// Dot returns x·y (the arrays are treated as flat vectors). It waits for the
// result.
func Dot(x, y *Array) (float64, error) {
	if err := needFloat("Dot", x); err != nil {
		return 0, err
	}
	return scalarOf(DotArray(x, y))
}

// Norm2 returns the Euclidean norm of the array's elements.
func Norm2(x *Array) (float64, error) {
	if err := needFloat("Norm2", x); err != nil {
		return 0, err
	}
	return scalarOf(reduce("Norm2", opSumSq, x, nil))
}

// Sum returns the sum of the elements.
func Sum(x *Array) (float64, error) { return scalarOf(reduce("Sum", opSum, x, nil)) }

// MaxAbs returns the largest absolute value of the elements (0 for an empty
// array).
func MaxAbs(x *Array) (float64, error) { return scalarOf(reduce("MaxAbs", opMaxAbs, x, nil)) }
