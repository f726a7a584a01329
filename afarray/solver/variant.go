package solver

import (
	"fmt"
	"strings"
)

// Variant selects an implementation of a method: the thesis-faithful one,
// the fast one, or another registered variant.
type Variant string

const (
	// Fast is the default: the best implementation within the format.
	Fast Variant = "fast"
	// Thesis reproduces the thesis's kernels and launch structure.
	Thesis Variant = "thesis"
)

func init() {
	registerVariant(Thesis)
	registerVariant(Fast)
}

// String returns the name.
func (v Variant) String() string { return string(v) }

// ParseVariant accepts a registered variant name, case-insensitively, and
// "" (Fast).
func ParseVariant(s string) (Variant, error) {
	if s == "" {
		return Fast, nil
	}
	var names []string
	for _, v := range Variants() {
		if string(v) == strings.ToLower(s) {
			return v, nil
		}
		names = append(names, string(v))
	}
	return "", fmt.Errorf("%w: variant %q (want %s)", ErrUnknown, s, orList(names))
}

// ThesisGroups and ThesisLocal are the thesis's fixed launch geometry:
// BLOCK_SIZE² = 1024 work-items per group and 32 groups, whatever n is
// (docs/thesis.md, §2.3). The thesis variants use them, clamped to what the
// device allows.
const (
	ThesisGroups = 32
	ThesisLocal  = 1024
)
