package sparse

// #cgo LDFLAGS: -lmetis -lm
// #include <stdlib.h>
// #include <metis.h>
import "C"

import (
	"fmt"
	"unsafe"
)

// metisNodeND returns METIS's nested-dissection ordering of g, whose vertex v
// stands for weight[v] unknowns (nil: one each), in this package's
// permutation convention (perm[new] = old). METIS's perm output already is
// that: its iperm is the inverse.
func metisNodeND(g *graph, weight []int32) ([]int, error) {
	n := g.n
	if n == 0 {
		return nil, nil
	}
	if C.IDXTYPEWIDTH != 32 {
		return nil, fmt.Errorf("%w: METIS built with %d-bit indices", ErrUnsupported, C.IDXTYPEWIDTH)
	}
	// METIS reads these arrays through C pointers: keep them in C memory so
	// that cgo's pointer rules hold whatever METIS does with them.
	alloc := func(k int) *C.idx_t {
		return (*C.idx_t)(C.malloc(C.size_t(max(k, 1)) * C.size_t(unsafe.Sizeof(C.idx_t(0)))))
	}
	xadj, adj, vw, perm, iperm := alloc(n+1), alloc(len(g.adj)), alloc(n), alloc(n), alloc(n)
	defer func() {
		for _, p := range []*C.idx_t{xadj, adj, vw, perm, iperm} {
			C.free(unsafe.Pointer(p))
		}
	}()
	copy(unsafe.Slice(xadj, n+1), unsafe.Slice((*C.idx_t)(unsafe.Pointer(unsafe.SliceData(g.ptr))), n+1))
	if len(g.adj) > 0 {
		copy(unsafe.Slice(adj, len(g.adj)), unsafe.Slice((*C.idx_t)(unsafe.Pointer(unsafe.SliceData(g.adj))), len(g.adj)))
	}
	var vwgt *C.idx_t
	if weight != nil {
		w := unsafe.Slice(vw, n)
		for v := range w {
			w[v] = C.idx_t(weight[v])
		}
		vwgt = vw
	}
	var opts [C.METIS_NOPTIONS]C.idx_t
	C.METIS_SetDefaultOptions(&opts[0])
	opts[C.METIS_OPTION_NUMBERING] = 0
	nv := C.idx_t(n)
	if rc := C.METIS_NodeND(&nv, xadj, adj, vwgt, &opts[0], perm, iperm); rc != C.METIS_OK {
		return nil, fmt.Errorf("%w: METIS_NodeND returned %d", ErrUnsupported, int(rc))
	}
	out := make([]int, n)
	for i, p := range unsafe.Slice(perm, n) {
		out[i] = int(p)
	}
	return out, nil
}
