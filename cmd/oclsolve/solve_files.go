package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// A file whose entries all lie in one triangle (what a Python user saves
// with scipy.sparse.tril, or a general Matrix Market file of one triangle)
// is ambiguous: a triangular matrix, or one triangle of a symmetric one.
// The rule: it is symmetric only when the file says so (a Matrix Market
// "symmetric" header, the marker oclsolve gen --format npz writes into its
// .npz) or the caller does (--symmetric). Otherwise it is the triangular
// matrix it stores: the elimination methods solve it as such, and the
// symmetric methods (cholesky, ldlt, cg) refuse it with an error matching
// sparse.ErrNotSymmetric that says to pass --symmetric, never answering a
// different system than the file holds.

// triangleOf reports which triangle holds every entry of the square,
// general matrix a: "lower", "upper", or "" (both, or only the diagonal).
func triangleOf(a *sparse.COO) string {
	if a.Symmetric || a.Rows != a.Cols || a.NNZ() == 0 {
		return ""
	}
	lower, upper := true, true
	for k := range a.I {
		lower = lower && a.I[k] >= a.J[k]
		upper = upper && a.I[k] <= a.J[k]
	}
	switch {
	case lower == upper: // both: diagonal; neither: a full matrix
		return ""
	case lower:
		return "lower"
	}
	return "upper"
}

// applyTriangleRule applies the rule above to the matrix just read.
func applyTriangleRule(p *solveProblem, o *solveOptions) error {
	tri := triangleOf(p.A)
	switch {
	case tri == "":
		return nil
	case o.Symmetric:
		a := p.A
		a.Symmetric = true
		if tri == "upper" {
			a.I, a.J = a.J, a.I
		}
		p.Notes = append(p.Notes, fmt.Sprintf("%s stores only the %s triangle: solved as the symmetric matrix it stores (--symmetric)", p.Source, tri))
		return nil
	case o.Method == "cholesky" || o.Method == "ldlt" || o.Method == "cg":
		return fmt.Errorf("%s needs a symmetric matrix: %w: %s stores only the %s triangle and is not marked symmetric, so it is a triangular matrix; if it stores one triangle of a symmetric matrix (scipy.sparse.tril), pass --symmetric",
			o.Method, sparse.ErrNotSymmetric, p.Source, tri)
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s stores only the %s triangle and is not marked symmetric: solved as the triangular matrix it is (--symmetric for one triangle of a symmetric matrix)", p.Source, tri))
	return nil
}

// checkDeviceFits refuses, before anything is uploaded, a problem whose
// storage cannot fit the device: dense storage needs 8n² bytes, every
// other format at least the COO's entries (16 bytes each) on the device.
func checkDeviceFits(p *solveProblem, o *solveOptions) error {
	if p.A == nil || o.Device == nil {
		return nil
	}
	global := o.Device.MemoryStats().Global
	if global <= 0 {
		return nil
	}
	need, what := 16*int64(p.A.NNZ()), fmt.Sprintf("the %d entries of %s", p.A.NNZ(), p.Source)
	if o.Format == "dense" {
		need, what = 8*int64(p.N)*int64(p.N), fmt.Sprintf("dense storage of order %d", p.N)
	}
	if need > global {
		return fmt.Errorf("%w: %s need %s on the device, %s has %s", sparse.ErrTooLarge, what,
			sparse.FormatBytes(need), o.Device.Name(), sparse.FormatBytes(global))
	}
	return nil
}

// writeSolution writes x to path by its extension: .npy (NumPy float64),
// .mtx (Matrix Market n×1 array), or "-" (Matrix Market on standard output).
func writeSolution(path string, x []float64) error {
	if path == "-" {
		w := bufio.NewWriter(os.Stdout)
		if err := sparse.WriteMatrixMarketVector(w, x); err != nil {
			return err
		}
		return w.Flush()
	}
	write := sparse.WriteMatrixMarketVector
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".npy"):
		write = sparse.WriteNPY
	case strings.HasSuffix(strings.ToLower(path), ".mtx"):
	default:
		return fmt.Errorf("%w: -o %q: want FILE.mtx, FILE.npy or -", errUsage, path)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, x); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
