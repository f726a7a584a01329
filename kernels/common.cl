// Prepended to every oclsolve program (see program.go). Double precision is
// required: every solver works in float64 unless asked otherwise.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifdef OCLSOLVE_INT64_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
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
