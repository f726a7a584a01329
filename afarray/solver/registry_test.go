package solver

import (
	"errors"
	"strings"
	"testing"
)

// Every entry names a registered method, format and variant, has exactly
// one way to run, and the thesis's ten combinations are there in both
// variants, in the thesis's column order.
func TestRegistryConsistent(t *testing.T) {
	for _, e := range registry.entries {
		if methodSpecOf(e.method) == nil || formatSpecOf(e.format) == nil || !containsVariant(Variants(), e.variant) {
			t.Errorf("%s/%s/%s: unregistered name", e.method, e.format, e.variant)
		}
		ways := 0
		for _, set := range []bool{e.newFactor != nil, e.newOperator != nil, e.solveOnce != nil} {
			if set {
				ways++
			}
		}
		if ways != 1 {
			t.Errorf("%s/%s/%s: %d ways to run", e.method, e.format, e.variant, ways)
		}
		if e.newOperator != nil && methodSpecOf(e.method).iterate == nil {
			t.Errorf("%s/%s/%s: an operator for a method without an iteration", e.method, e.format, e.variant)
		}
	}
	// Formats beyond the thesis's (supernodal) have no thesis variant.
	thesisFormat := map[Format]bool{}
	for _, c := range Combinations() {
		if c.Variant == Thesis {
			thesisFormat[c.Format] = true
		}
	}
	var labels []string
	for _, c := range Combinations() {
		if c.Variant == Thesis {
			labels = append(labels, c.Label)
		}
		if c.Variant == Fast && thesisFormat[c.Format] && (len(labels) == 0 || labels[len(labels)-1] != c.Label) {
			t.Errorf("%s has a fast variant and no thesis variant", c.Label)
		}
	}
	want := []string{"D GJ", "D Ch", "D LDL", "D CG", "CSC Ch", "CSC LDL", "CSC CG", "SKS Ch", "SKS LDL", "SKS CG"}
	if len(labels) < len(want) {
		t.Fatalf("thesis columns %v, want %v first", labels, want)
	}
	for i, w := range want {
		if labels[i] != w {
			t.Errorf("thesis column %d is %s, want %s", i, labels[i], w)
		}
	}
}

func containsVariant(list []Variant, v Variant) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestParseNames(t *testing.T) {
	if m, err := ParseMethod("Cholesky"); err != nil || m != MethodCholesky {
		t.Errorf("ParseMethod: %v %v", m, err)
	}
	if f, err := ParseFormat("SKS"); err != nil || f != FormatSKS {
		t.Errorf("ParseFormat: %v %v", f, err)
	}
	if v, err := ParseVariant(""); err != nil || v != Fast {
		t.Errorf("ParseVariant: %v %v", v, err)
	}
	for _, err := range []error{
		func() error { _, err := ParseMethod("qr"); return err }(),
		func() error { _, err := ParseFormat("coo"); return err }(),
		func() error { _, err := ParseVariant("slow"); return err }(),
		func() error { _, err := lookup(MethodGaussJordan, FormatSKS, Fast); return err }(),
	} {
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("%v does not match ErrUnknown", err)
		}
	}
	if e, err := lookup(MethodCG, "", ""); err != nil || e.format != FormatCSC || e.variant != Fast {
		t.Errorf("cg defaults: %+v %v", e, err)
	}
}

// A method's default format ("" and auto) is registry data: the format of
// its entry of highest priority (supernodal for the factorizations, CSC
// for CG), listed first by Methods, and what lookup and the automatic
// choice use.
func TestDefaultFormat(t *testing.T) {
	want := map[Method]Format{MethodGaussJordan: FormatDense, MethodCholesky: FormatSupernodal, MethodLDLT: FormatSupernodal, MethodCG: FormatCSC}
	for m, f := range want {
		if got := defaultFormat(m); got != f {
			t.Errorf("defaultFormat(%s) = %s, want %s", m, got, f)
		}
		for _, format := range []Format{"", FormatAuto} {
			if e, err := lookup(m, format, Fast); err != nil || e.format != f {
				t.Errorf("lookup(%s, %q): %v %v", m, format, e, err)
			}
		}
	}
	for _, info := range Methods() {
		if info.Formats[0] != want[info.Name] {
			t.Errorf("Methods: %s lists %v first", info.Name, info.Formats)
		}
	}
	if e := autoCholesky(); e == nil || e.format != FormatSupernodal {
		t.Errorf("autoCholesky: %v", e)
	}
	if defaultFormat("qr") != "" {
		t.Errorf("a method without entries has a default format")
	}
}

// An entry's figures print grouped, zero ones left out, in the REPL's
// report and its HTML.
func TestReportStats(t *testing.T) {
	r := &Report{Method: MethodCholesky, Format: FormatSupernodal, Variant: Fast, Stats: SupernodalStats{NNZL: 7, Flops: 2.5e8, Supernodes: 3}.reportStats()}
	if got := StatLines(r.Stats); len(got) != 1 || got[0] != [2]string{"factor", "nnz(L) 7, 2.5e+08 flops, 3 supernodes"} {
		t.Errorf("StatLines: %q", got)
	}
	if !strings.HasSuffix(r.String(), "\n  factor: nnz(L) 7, 2.5e+08 flops, 3 supernodes") || !strings.Contains(r.HTML(), "nnz(L) 7") {
		t.Errorf("report:\n%s", r.String())
	}
	if v, ok := r.Stat("supernodes"); !ok || v != 3 {
		t.Errorf("Stat(supernodes) = %v %v", v, ok)
	}
	if _, ok := r.Stat("nope"); ok {
		t.Errorf("Stat(nope) found")
	}
}
