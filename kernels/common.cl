// Prepended to every oclsolve program (see program.go). Double precision is
// required: every solver works in float64 unless asked otherwise.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifdef OCLSOLVE_INT64_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

// device_fence orders the calling work-item's global-memory accesses before
// it against those after it as every work-item of the device sees them, as
// a hand-over between work-groups needs: data stored, device_fence, then a
// flag or counter that another group polls; and on the other side the flag
// seen, device_fence, then the data read (through volatile pointers, which
// bypass a compute unit's cache). OpenCL 1.2's mem_fence(CLK_GLOBAL_MEM_FENCE)
// only promises ordering within the work-group, and NVIDIA's OpenCL gives
// exactly that (a CTA-scope fence; the same was found by Futhark,
// github.com/diku-dk/futhark/issues/734), so on NVIDIA's platform
// (OCLSOLVE_PTX_FENCE, set by kernels/program.go) it is PTX's membar.gl,
// a device-scope fence (fence.sc.gpu from sm_70 on). On an H100 the LU's
// chained triangular solve read another group's unknowns before they
// arrived without it (a NaN from poisoned scratch, 1 solve in ~20).
#ifdef OCLSOLVE_PTX_FENCE
#define device_fence() asm volatile("membar.gl;" ::: "memory")
#else
#define device_fence() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

// atomic_add_f64 adds v to *p with a compare-and-swap loop. The loop compares
// the integer bit patterns so that a NaN cannot make it spin forever.
#ifdef OCLSOLVE_INT64_ATOMICS
inline void atomic_add_f64(volatile __global double *p, double v) {
	volatile __global long *q = (volatile __global long *)p;
	long old = *q, assumed;
	do {
		assumed = old;
		old = atom_cmpxchg(q, assumed, as_long(as_double(assumed) + v));
	} while (old != assumed);
}
#endif
