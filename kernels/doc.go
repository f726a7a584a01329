// Package kernels is oclsolve's OpenCL layer: device discovery and selection,
// one context and in-order queue per device, device buffers with memory
// accounting, programs built once per device and cached on disk, and kernel
// launches that never wait for the device.
//
// Nothing else in oclsolve calls the OpenCL binding directly. The OpenCL C
// sources live beside the Go code that launches them, in the packages that
// own them, embedded with go:embed; they are compiled here with Build.
//
// A typical launcher:
//
//	dev, _ := kernels.Default()
//	prog, err := dev.Build("-DREAL=double", kernels.Source{Name: "axpy.cl", Text: axpySource})
//	k, err := prog.Kernel("axpy")
//	err = k.Launch([]int{kernels.RoundUp(n, 256)}, []int{256}, int32(n), alpha, x, y)
//
// Buffer.Write and Buffer.Read of a megabyte or more on a GPU go through two
// pinned (page-locked) staging buffers per device, in 16 MB chunks whose DMA
// overlaps the copy of the next (staging.go): about 26 GB/s up and 24 GB/s
// down for 256 MB on an H100, against 6 and 12 GB/s from pageable memory
// (BenchmarkTransfer).
//
// Errors match the sentinels ErrNoDevice, ErrOutOfMemory, ErrBuild, ErrOpenCL,
// ErrReleased and ErrLaunch with errors.Is.
package kernels
