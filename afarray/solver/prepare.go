package solver

import (
	"fmt"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// Prepared is the host work of a Run done ahead, without a device: the
// checks of the system and the ordering, permutation included. A caller
// whose device is still being created (a GPU driver's context takes a few
// hundred milliseconds, oclsolve solve creates it while it reads the file)
// calls Prepare meanwhile and passes the result in Options.Prepared; Run
// then starts at the upload.
type Prepared struct {
	a     *sparse.COO
	b     []float64
	e     *entry
	order sparse.Ordering

	perm   []int
	pa     *sparse.COO
	pb     []float64
	used   sparse.Ordering
	nnz    [2]int        // NNZLower, NNZFull of a
	order0 time.Duration // time spent ordering
	took   time.Duration // all of Prepare
}

// Prepare does what Run does on the host before it needs a device, for a,
// b and opts as Run will get them: the structure and input checks and the
// ordering. Its errors are Run's. It returns nil and no error when there is
// nothing to prepare ahead: opts leaves the method to Run (empty Method) or
// names several devices. The time it takes is reported by the Run that
// uses it (ordering, and the rest as other).
func Prepare(a *sparse.COO, b []float64, opts Options) (*Prepared, error) {
	start := time.Now()
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	if opts.Method == "" || len(opts.Devices) > 1 {
		return nil, nil
	}
	if err := a.CheckStructure(); err != nil {
		return nil, err
	}
	if b == nil {
		b = Ones(a.Rows)
	}
	e, err := lookup(opts.Method, opts.Format, opts.Variant)
	if err != nil {
		return nil, err
	}
	if err := checkSystem(a, b); err != nil {
		return nil, err
	}
	if err := checkMethodInput(a, e.method); err != nil {
		return nil, err
	}
	p := &Prepared{a: a, b: b, e: e, order: opts.Order, nnz: [2]int{a.NNZLower(), a.NNZFull()}}
	var rep Report
	t := time.Now()
	if p.perm, p.pa, p.pb, err = reorder(a, b, opts.Order, formatSpecOf(e.format), &rep); err != nil {
		return nil, err
	}
	p.order0, p.used = time.Since(t), rep.Ordering
	p.took = time.Since(start)
	return p, nil
}

// preparedFor returns opts.Prepared when it was made for this a, b (the
// same slices; nil b matches a prepared nil b), entry and ordering, else nil.
func preparedFor(opts Options, a *sparse.COO, b []float64, e *entry) *Prepared {
	p := opts.Prepared
	if p == nil || p.a != a || p.e != e || p.order != opts.Order {
		return nil
	}
	if b != nil && (len(b) != len(p.b) || len(b) > 0 && &b[0] != &p.b[0]) {
		return nil
	}
	return p
}
