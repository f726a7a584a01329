package sparse

// #cgo CFLAGS: -I/usr/include/suitesparse
// #cgo LDFLAGS: -l:libamd.a -l:libsuitesparseconfig.a -lm
// #include <stdlib.h>
// #include <amd.h>
import "C"

import (
	"fmt"
	"unsafe"
)

// amdOrder returns SuiteSparse AMD's approximate-minimum-degree ordering of
// g in this package's permutation convention (AMD's P[k] is the old index of
// the k-th pivot, which is that convention). AMD finds indistinguishable
// vertices itself, so it sees the uncompressed graph. It links statically
// (libamd.a ships with Debian's libsuitesparse-dev), so the binary carries
// it.
func amdOrder(g *graph) ([]int, error) {
	n := g.n
	if n == 0 {
		return nil, nil
	}
	alloc := func(k int) *C.int {
		return (*C.int)(C.malloc(C.size_t(max(k, 1)) * 4))
	}
	ap, ai, p := alloc(n+1), alloc(len(g.adj)), alloc(n)
	defer func() {
		for _, q := range []*C.int{ap, ai, p} {
			C.free(unsafe.Pointer(q))
		}
	}()
	copy(unsafe.Slice(ap, n+1), unsafe.Slice((*C.int)(unsafe.Pointer(unsafe.SliceData(g.ptr))), n+1))
	if len(g.adj) > 0 {
		copy(unsafe.Slice(ai, len(g.adj)), unsafe.Slice((*C.int)(unsafe.Pointer(unsafe.SliceData(g.adj))), len(g.adj)))
	}
	var control [C.AMD_CONTROL]C.double
	var info [C.AMD_INFO]C.double
	C.amd_defaults(&control[0])
	rc := C.amd_order(C.int(n), ap, ai, p, &control[0], &info[0])
	if rc != C.AMD_OK && rc != C.AMD_OK_BUT_JUMBLED {
		return nil, fmt.Errorf("%w: amd_order returned %d", ErrUnsupported, int(rc))
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int(v)
	}
	return out, nil
}
