package sparse

// METIS is loaded at run time (dlopen) rather than linked: Debian ships no
// static libmetis, and a binary linked against libmetis.so.5 would not
// start on a machine without it (the GPU hosts have none). Without the
// library, nested dissection reports ErrUnsupported and the automatic fill
// ordering keeps AMD, which is linked statically.

// #cgo LDFLAGS: -ldl
// #include <dlfcn.h>
// #include <stdlib.h>
// #include <metis.h> // types and constants only: nothing is linked
//
// typedef int (*metis_setdef_t)(idx_t *);
// typedef int (*metis_nodend_t)(idx_t *, idx_t *, idx_t *, idx_t *, idx_t *, idx_t *, idx_t *);
//
// #if IDXTYPEWIDTH != 32
// #error "METIS with 64-bit indices: oclsolve passes 32-bit ones"
// #endif
// static metis_setdef_t metis_setdef;
// static metis_nodend_t metis_nodend;
//
// // metis_load opens libmetis once; 1 when METIS_NodeND is there.
// static int metis_load(void) {
// 	static int state = 0; // 0 untried, 1 loaded, -1 missing
// 	if (state == 0) {
// 		const char *names[] = {"libmetis.so.5", "libmetis.so", NULL};
// 		void *h = NULL;
// 		for (int i = 0; names[i] && !h; i++)
// 			h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
// 		if (h) {
// 			metis_setdef = (metis_setdef_t)dlsym(h, "METIS_SetDefaultOptions");
// 			metis_nodend = (metis_nodend_t)dlsym(h, "METIS_NodeND");
// 		}
// 		state = (metis_setdef && metis_nodend) ? 1 : -1;
// 	}
// 	return state == 1;
// }
//
// static int metis_nodend_call(idx_t n, idx_t *xadj, idx_t *adj, idx_t *vwgt, idx_t *perm, idx_t *iperm) {
// 	idx_t opts[METIS_NOPTIONS];
// 	metis_setdef(opts);
// 	opts[METIS_OPTION_NUMBERING] = 0;
// 	return metis_nodend(&n, xadj, adj, vwgt, opts, perm, iperm);
// }
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// metisMu serializes the first dlopen (metis_load's static state).
var metisMu sync.Mutex

// MetisAvailable says whether nested dissection can run: libmetis.so.5
// (Debian's libmetis5, 32-bit indices) was found at run time.
func MetisAvailable() bool {
	metisMu.Lock()
	defer metisMu.Unlock()
	return C.metis_load() == 1
}

// metisNodeND returns METIS's nested-dissection ordering of g, whose vertex v
// stands for weight[v] unknowns (nil: one each), in this package's
// permutation convention (perm[new] = old). METIS's perm output already is
// that: its iperm is the inverse.
func metisNodeND(g *graph, weight []int32) ([]int, error) {
	n := g.n
	if n == 0 {
		return nil, nil
	}
	if !MetisAvailable() {
		return nil, fmt.Errorf("%w: nested dissection needs METIS (libmetis.so.5, Debian package libmetis5), not found", ErrUnsupported)
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
	if rc := C.metis_nodend_call(C.idx_t(n), xadj, adj, vwgt, perm, iperm); rc != C.METIS_OK {
		return nil, fmt.Errorf("%w: METIS_NodeND returned %d", ErrUnsupported, int(rc))
	}
	out := make([]int, n)
	for i, p := range unsafe.Slice(perm, n) {
		out[i] = int(p)
	}
	return out, nil
}
