package solver

import (
	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The thesis's methods and storage formats, in the column order of its
// tables (docs/thesis.md, §5): formats dense, CSC, SKS; methods
// Gauss-Jordan, Cholesky, LDLᵀ, CG. Each method x format x variant registers
// itself in the file that implements it.
func init() {
	// A method's default format is that of its entry of highest priority
	// (registry.go): the supernodal storage for Cholesky and LDLᵀ
	// (supernodal_cholesky.go), CSC for CG (spmv.go), dense for
	// Gauss-Jordan (its only one).
	registerMethod(&methodSpec{name: MethodGaussJordan, label: "GJ"})
	registerMethod(&methodSpec{name: MethodCholesky, label: "Ch"})
	registerMethod(&methodSpec{name: MethodLDLT, label: "LDL"})
	registerMethod(&methodSpec{name: MethodCG, label: "CG", iterate: cgIterate})

	registerFormat(&formatSpec{name: FormatDense, label: "D",
		defaultOrder: sparse.OrderNatural, autoOrder: sparse.OrderNatural, orderFree: true,
		upload: uploadDense, convert: convertDense, thesisMemory: func(n, _ int) float64 { return sparse.ThesisMemoryDense(n) }})
	registerFormat(&formatSpec{name: FormatCSC, label: "CSC",
		defaultOrder: sparse.OrderAuto, autoOrder: sparse.OrderAutoProfile,
		upload: uploadCSC, convert: convertCSC, thesisMemory: sparse.ThesisMemoryCSC})
	registerFormat(&formatSpec{name: FormatSKS, label: "SKS",
		defaultOrder: sparse.OrderAuto, autoOrder: sparse.OrderAuto,
		upload: uploadSKS, convert: convertSKS, thesisMemory: sparse.ThesisMemorySKS})
}

func uploadDense(a *sparse.COO) (any, int, func(), error) {
	d, err := a.ToDense()
	if err != nil {
		return nil, 0, nil, err
	}
	m, err := afarray.FromDense(d)
	if err != nil {
		return nil, 0, nil, err
	}
	return m, a.Rows * a.Rows, m.Release, nil
}

func uploadCSC(a *sparse.COO) (any, int, func(), error) {
	return uploadVia(a, sparse.CSCFromCOO, afarray.UploadCSC)
}

func uploadSKS(a *sparse.COO) (any, int, func(), error) {
	return uploadVia(a, sparse.SKSFromCOO, afarray.UploadSKS)
}

// uploadVia builds a host format from a with build and uploads it with up,
// returning the device matrix, its stored length and its release.
func uploadVia[H interface{ Len() int }, M interface{ Release() }](a *sparse.COO, build func(*sparse.COO) (H, error), up func(H) (M, error)) (any, int, func(), error) {
	h, err := build(a)
	if err != nil {
		return nil, 0, nil, err
	}
	m, err := up(h)
	if err != nil {
		return nil, 0, nil, err
	}
	return m, h.Len(), m.Release, nil
}

// convertDense builds the dense matrix on the device from the uploaded
// entries (afarray.COO.ToDense): only the entries cross the bus.
func convertDense(a *afarray.COO) (any, int, func(), error) {
	m, err := a.ToDense()
	if err != nil {
		return nil, 0, nil, err
	}
	return m, a.Rows * a.Cols, m.Release, nil
}

func convertCSC(a *afarray.COO) (any, int, func(), error) {
	m, err := a.ToCSC()
	if err != nil {
		return nil, 0, nil, err
	}
	return m, m.Elements.Len(), m.Release, nil
}

func convertSKS(a *afarray.COO) (any, int, func(), error) {
	m, err := a.ToSKS()
	if err != nil {
		return nil, 0, nil, err
	}
	return m, m.Elements.Len(), m.Release, nil
}
