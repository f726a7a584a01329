package solver

import "fmt"

// Variant selects the thesis-faithful or the fast implementation of a
// method.
type Variant string

const (
	// Fast is the default: the best implementation within the format.
	Fast Variant = "fast"
	// Thesis reproduces the thesis's kernels and launch structure.
	Thesis Variant = "thesis"
)

// ParseVariant accepts "fast", "thesis" and "" (Fast).
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "", "fast":
		return Fast, nil
	case "thesis":
		return Thesis, nil
	}
	return "", fmt.Errorf("%w: variant %q (want fast or thesis)", ErrUnknown, s)
}

// ThesisGroups and ThesisLocal are the thesis's fixed launch geometry:
// BLOCK_SIZE² = 1024 work-items per group and 32 groups, whatever n is
// (§2.3 of the design extraction). The thesis variants use them, clamped to
// what the device allows.
const (
	ThesisGroups = 32
	ThesisLocal  = 1024
)
