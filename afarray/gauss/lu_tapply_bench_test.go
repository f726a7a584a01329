package gauss

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
)

// BenchmarkLUApply times lu_tapply alone, back to back on the queue (one
// wait at the end), for the panels at the first, middle and last columns
// of orders 2048 and 8192 with the GPU's 32-column panels (16 on a CPU),
// so that its cost is seen without a wait per launch; with
// OCLSOLVE_PROFILE=1 it also reports the device's time per launch.
// H100, 2026-11-23, the kernel before its solves became loops (lu.cl,
// STEP_LOOP): 15.3-17.4 us per launch (gpu-us) at every n and k, the
// kernel before this one 15.7-19.5 us.
func BenchmarkLUApply(b *testing.B) {
	dev := testDevice(b)
	nb := smallBlockSize
	if !isGPU(dev) {
		nb = cpuBlockSize
	}
	prog, err := luProgram(dev, nb)
	if err != nil {
		b.Fatal(err)
	}
	apply, err := prog.Kernel("lu_tapply")
	if err != nil {
		b.Fatal(err)
	}
	inputs := map[int]*applyInput{}
	defer func() {
		for _, in := range inputs {
			in.release()
		}
	}()
	for _, n := range []int{2048, 8192} {
		ow := outerBlock(dev, nb, n)
		for _, k := range []int{0, n/2 - nb, n - 2*nb} {
			cend := min(n, k/ow*ow+ow)
			b.Run(fmt.Sprintf("n=%d/k=%d", n, k), func(b *testing.B) {
				in := inputs[n]
				if in == nil {
					in = newApplyInput(b, dev, n, nb)
					inputs[n] = in
				}
				benchApply(b, dev, apply, in, k, cend)
			})
		}
	}
}

// applyInput is a benchmark's matrix, exchanges and factors on the device.
type applyInput struct {
	n, nb         int
	a, ipiv, f, s *kernels.Buffer
}

// newApplyInput draws pivot rows from anywhere below, as the tournament
// picks them, and F close to the identity, so that repeated solves stay
// finite.
func newApplyInput(b *testing.B, dev *kernels.Device, n, nb int) *applyInput {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	host := make([]float64, n*n)
	for i := range host {
		host[i] = 2*rng.Float64() - 1
	}
	ipiv := make([]int32, n)
	for i := range ipiv {
		ipiv[i] = int32(i + rng.IntN(n-i))
	}
	f := make([]float64, nb*nb)
	for i := range f {
		f[i] = 1e-3 * (2*rng.Float64() - 1)
	}
	for i := 0; i < nb; i++ {
		f[i*nb+i] = 1
	}
	in := &applyInput{n: n, nb: nb}
	for _, x := range []struct {
		dst  **kernels.Buffer
		data any
		size int
	}{{&in.a, host, 8 * n * n}, {&in.ipiv, ipiv, 4 * n}, {&in.f, f, 8 * nb * nb}, {&in.s, f, 8 * nb * nb}} {
		buf, err := dev.Alloc(int64(x.size))
		if err != nil {
			b.Fatal(err)
		}
		*x.dst = buf
		if err := buf.Write(0, x.data); err != nil {
			b.Fatal(err)
		}
	}
	return in
}

func (in *applyInput) release() {
	for _, x := range []*kernels.Buffer{in.a, in.ipiv, in.f, in.s} {
		if x != nil {
			x.Release()
		}
	}
}

func benchApply(b *testing.B, dev *kernels.Device, apply *kernels.Kernel, in *applyInput, k, cend int) {
	n, nb, a, ib, fb, sb := in.n, in.nb, in.a, in.ipiv, in.f, in.s
	al := applyLocal(dev, apply, nb)
	launch := func() error { return launchApply(apply, al, n, nb, k, cend, a, ib, fb, sb) }
	if err := launch(); err != nil {
		b.Fatal(err)
	}
	if _, err := dev.Profile(); err != nil { // waits; resets the profile
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := launch(); err != nil {
			b.Fatal(err)
		}
	}
	p, err := dev.Profile()
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	// With OCLSOLVE_PROFILE=1 the device's own time per launch.
	for _, kt := range p.Kernels {
		if kt.Name == apply.Name() {
			b.ReportMetric(float64(kt.Mean().Nanoseconds())/1e3, "gpu-us")
			b.ReportMetric(float64(kt.Min.Nanoseconds())/1e3, "gpu-min-us")
		}
	}
}
