package solver

// The Cholesky and LDLT types of a storage format have the same methods and
// differ only in the method they compute. Each format implements the
// methods once, on a small generic type embedded in both (denseOf,
// supernodalOf), whose type parameter is the kind; the exported types stay
// plain (non-generic) structs, as the REPL needs.

// factorKind is the method a factor type computes.
type factorKind interface{ isLDLT() bool }

// kindCholesky and kindLDLT are the two kinds.
type (
	kindCholesky struct{}
	kindLDLT     struct{}
)

func (kindCholesky) isLDLT() bool { return false }
func (kindLDLT) isLDLT() bool     { return true }

// isLDLT reports whether kind K is LDLT.
func isLDLT[K factorKind]() bool {
	var k K
	return k.isLDLT()
}

// kindName is the method part of the factor types' names.
func kindName[K factorKind]() string {
	if isLDLT[K]() {
		return "LDLT"
	}
	return "Cholesky"
}
