package solver

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The registry: every method x format x variant that Run can execute is one
// entry, registered from an init function in the file that implements it.
// Run, `oclsolve solve`, `oclsolve bench` and their help texts read the
// registry (Methods, Formats, Variants, Combinations); nothing else lists
// methods, formats or variants. See "How to add a solver" in doc.go.

// Method names a solution method.
type Method string

// Format names a storage format on the device.
type Format string

// The thesis's methods and formats.
const (
	MethodGaussJordan Method = "gj"
	MethodCholesky    Method = "cholesky"
	MethodLDLT        Method = "ldlt"
	MethodCG          Method = "cg"

	FormatDense Format = "dense"
	FormatCSC   Format = "csc"
	FormatSKS   Format = "sks"

	// FormatAuto stands for the method's default format.
	FormatAuto Format = "auto"
)

// String returns the name.
func (m Method) String() string { return string(m) }

// String returns the name.
func (f Format) String() string { return string(f) }

// factorization is what the direct driver (runDirect) needs of a factor
// type: factor Run's own device copy of the matrix (so in place where the
// type can), solve, describe, release.
type factorization interface {
	// factorizeOwned factors m, the format's device matrix (*afarray.Array,
	// *afarray.CSC, *afarray.SKS, ...), which the factor may overwrite.
	factorizeOwned(m any, v Variant) error
	Solve(b *afarray.Array) (*afarray.Array, error)
	Stats() FactorStats
	Release()
}

// factorizeAs is the body of every factor type's factorizeOwned: Run hands
// the format's device matrix as an any, and factorize is the type's own
// FactorizeInPlace (or Factorize where the type cannot work in place).
func factorizeAs[M any](factorize func(M, Variant) error, m any, v Variant) error {
	return factorize(m.(M), v)
}

// iteration is what the iterative driver (runIterative) calls: solve with
// the operator, and describe the run.
type iteration func(op Operator, b *afarray.Array, o Options, v Variant) (*afarray.Array, *CGResult, error)

// entry is one method x format x variant. Exactly one of newFactor,
// newOperator and solveOnce is set.
type entry struct {
	method  Method
	format  Format
	variant Variant
	// priority ranks the method's formats for "" and "auto" (FormatAuto):
	// the method's default format is that of its entry of highest
	// priority, the first in the thesis's column order among equals. The
	// thesis's entries leave it 0; an entry that should become its
	// method's default declares a higher one.
	priority int
	// newFactor returns an empty factor of a direct method.
	newFactor func() factorization
	// newOperator wraps the format's device matrix as the operator of an
	// iterative method.
	newOperator func(m any, v Variant) (Operator, error)
	// solveOnce solves without a reusable factor (Gauss-Jordan).
	solveOnce func(m any, b *afarray.Array, v Variant) (*afarray.Array, error)
}

// methodSpec describes a method: its table label and, for an iterative
// method, its iteration. Its default format is registry data too: the
// format of its entry of highest priority (defaultFormat).
type methodSpec struct {
	name    Method
	label   string    // column label in `oclsolve bench` ("Ch")
	iterate iteration // iterative methods only
}

// formatSpec describes a storage format: how Run builds it on the device
// from a COO matrix, the ordering "" and "auto" mean for it, and the
// thesis's memory formula.
type formatSpec struct {
	name  Format
	label string // column prefix in `oclsolve bench` ("SKS")
	// defaultOrder is what an empty Options.Order means; autoOrder what
	// "auto" means.
	defaultOrder, autoOrder sparse.Ordering
	// upload builds the device matrix on the host and uploads it; it
	// returns the matrix with its stored length (the thesis's le) and its
	// release.
	upload func(a *sparse.COO) (m any, le int, release func(), err error)
	// convert, when set, builds the device matrix from the COO already on
	// the device (Run's default: only the entries cross the bus).
	convert func(a *afarray.COO) (m any, le int, release func(), err error)
	// orderFree formats store the same whatever the numbering (dense): Run
	// never orders them.
	orderFree bool
	// thesisMemory is the thesis's formula in bytes for order n and stored
	// length le (of the factor for the factorizations).
	thesisMemory func(n, le int) float64
}

// registry holds what the init functions registered. It is written only
// during package initialization, so it needs no lock.
var registry = struct {
	methods  []*methodSpec
	formats  []*formatSpec
	variants []Variant
	entries  []*entry
}{}

func registerMethod(m *methodSpec) {
	for _, x := range registry.methods {
		if x.name == m.name {
			panic(fmt.Sprintf("solver: method %q registered twice", m.name))
		}
	}
	registry.methods = append(registry.methods, m)
}

func registerFormat(f *formatSpec) {
	for _, x := range registry.formats {
		if x.name == f.name {
			panic(fmt.Sprintf("solver: format %q registered twice", f.name))
		}
	}
	registry.formats = append(registry.formats, f)
}

func registerVariant(v Variant) {
	for _, x := range registry.variants {
		if x == v {
			panic(fmt.Sprintf("solver: variant %q registered twice", v))
		}
	}
	registry.variants = append(registry.variants, v)
}

// register adds one method x format x variant. Its method, format and
// variant are registered apart (names.go holds the thesis's); the tests
// check that every entry names registered ones.
func register(e *entry) {
	for _, x := range registry.entries {
		if x.method == e.method && x.format == e.format && x.variant == e.variant {
			panic(fmt.Sprintf("solver: %s/%s/%s registered twice", e.method, e.format, e.variant))
		}
	}
	registry.entries = append(registry.entries, e)
}

// registerFactors registers a direct format's Cholesky and LDLT factor types
// for variant v.
func registerFactors(f Format, v Variant, cholesky, ldlt func() factorization) {
	register(&entry{method: MethodCholesky, format: f, variant: v, newFactor: cholesky})
	register(&entry{method: MethodLDLT, format: f, variant: v, newFactor: ldlt})
}

// registerOperator registers CG on format f, both variants, through the
// operator newOp makes, with the entries' priority (see entry).
func registerOperator(f Format, priority int, newOp func(m any, v Variant) (Operator, error)) {
	for _, v := range []Variant{Fast, Thesis} {
		register(&entry{method: MethodCG, format: f, variant: v, newOperator: newOp, priority: priority})
	}
}

// defaultFormat is what "" and "auto" mean for method m: the format of
// its entry of highest priority, the first in the thesis's column order
// (Combinations) among equals; "" when m has no entry.
func defaultFormat(m Method) Format {
	var best Format
	top := 0
	for _, e := range sortedEntries() {
		if e.method == m && (best == "" || e.priority > top) {
			best, top = e.format, e.priority
		}
	}
	return best
}

func methodSpecOf(m Method) *methodSpec {
	for _, x := range registry.methods {
		if x.name == m {
			return x
		}
	}
	return nil
}

func formatSpecOf(f Format) *formatSpec {
	for _, x := range registry.formats {
		if x.name == f {
			return x
		}
	}
	return nil
}

// rank orders entries as the thesis's tables do: by format, then method,
// then variant, each in registration order.
func rank(e *entry) [3]int {
	var r [3]int
	for i, f := range registry.formats {
		if f.name == e.format {
			r[0] = i
		}
	}
	for i, m := range registry.methods {
		if m.name == e.method {
			r[1] = i
		}
	}
	for i, v := range registry.variants {
		if v == e.variant {
			r[2] = i
		}
	}
	return r
}

// Combination is one registered method x format x variant, with the labels
// `oclsolve bench` prints.
type Combination struct {
	Method  Method
	Format  Format
	Variant Variant
	// Label is the thesis-table column: format and method ("SKS Ch").
	Label string
}

// Combinations returns every registered method x format x variant, ordered
// by format, method and variant (the thesis's column order).
func Combinations() []Combination {
	es := sortedEntries()
	out := make([]Combination, len(es))
	for i, e := range es {
		out[i] = Combination{Method: e.method, Format: e.format, Variant: e.variant,
			Label: formatSpecOf(e.format).label + " " + methodSpecOf(e.method).label}
	}
	return out
}

// sortedEntries returns the entries in the thesis's column order (rank).
func sortedEntries() []*entry {
	es := append([]*entry(nil), registry.entries...)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := rank(es[i]), rank(es[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	return es
}

// MethodInfo describes a registered method for command lines and help
// texts: the formats and variants it has, the default first.
type MethodInfo struct {
	Name     Method
	Formats  []Format
	Variants []Variant
}

// Methods returns the registered methods in registration order.
func Methods() []MethodInfo {
	combos := Combinations()
	out := make([]MethodInfo, 0, len(registry.methods))
	for _, m := range registry.methods {
		info := MethodInfo{Name: m.name, Formats: []Format{defaultFormat(m.name)}}
		if hasVariant(combos, m.name, Fast) {
			info.Variants = []Variant{Fast}
		}
		for _, c := range combos {
			if c.Method != m.name {
				continue
			}
			if !slices.Contains(info.Formats, c.Format) {
				info.Formats = append(info.Formats, c.Format)
			}
			if !slices.Contains(info.Variants, c.Variant) {
				info.Variants = append(info.Variants, c.Variant)
			}
		}
		out = append(out, info)
	}
	return out
}

// Variants returns the registered variants: Thesis, Fast, then any other
// in registration order.
func Variants() []Variant {
	return append([]Variant(nil), registry.variants...)
}

func hasVariant(cs []Combination, m Method, v Variant) bool {
	return slices.ContainsFunc(cs, func(c Combination) bool { return c.Method == m && c.Variant == v })
}

// ParseMethod accepts a registered method name, case-insensitively.
func ParseMethod(s string) (Method, error) {
	names := make([]Method, len(registry.methods))
	for i, m := range registry.methods {
		names[i] = m.name
	}
	return parseName("method", s, names)
}

// ParseFormat accepts a registered format name, case-insensitively.
func ParseFormat(s string) (Format, error) {
	names := make([]Format, len(registry.formats))
	for i, f := range registry.formats {
		names[i] = f.name
	}
	return parseName("format", s, names)
}

// parseName returns the name in names that s spells, case-insensitively, or
// an ErrUnknown listing them.
func parseName[T ~string](kind, s string, names []T) (T, error) {
	list := make([]string, len(names))
	for i, n := range names {
		if string(n) == strings.ToLower(s) {
			return n, nil
		}
		list[i] = string(n)
	}
	return "", fmt.Errorf("%w: %s %q (want %s)", ErrUnknown, kind, s, orList(list))
}

// lookup resolves the method, format and variant Run was given ("" format:
// the method's default; "" variant: Fast) to its entry.
func lookup(method Method, format Format, v Variant) (*entry, error) {
	m, err := ParseMethod(string(method))
	if err != nil {
		return nil, err
	}
	if v, err = ParseVariant(string(v)); err != nil {
		return nil, err
	}
	f := defaultFormat(m)
	if format != "" && format != FormatAuto {
		if f, err = ParseFormat(string(format)); err != nil {
			return nil, err
		}
	}
	var formats []string
	for _, e := range registry.entries {
		if e.method == m && e.format == f && e.variant == v {
			return e, nil
		}
		if e.method == m && e.variant == v && !slices.Contains(formats, string(e.format)) {
			formats = append(formats, string(e.format))
		}
	}
	if len(formats) == 0 {
		return nil, fmt.Errorf("%w: method %s has no %s variant", ErrUnknown, m, v)
	}
	return nil, fmt.Errorf("%w: method %s in its %s variant works on %s storage, not %q", ErrUnknown, m, v, orList(formats), format)
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
