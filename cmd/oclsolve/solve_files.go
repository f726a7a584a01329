package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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

// applyTriangleRule applies the rule above to the matrix just read.
func applyTriangleRule(p *solveProblem, o *solveOptions) error {
	tri := p.A.OneTriangle()
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

// checkOutPath refuses, before anything is read, an -o path of no known
// kind: FILE.npy, FILE.mtx or "-".
func checkOutPath(path string) error {
	lower := strings.ToLower(path)
	if path == "" || path == "-" || strings.HasSuffix(lower, ".npy") || strings.HasSuffix(lower, ".mtx") {
		return nil
	}
	return fmt.Errorf("%w: -o %q: want FILE.mtx, FILE.npy or -", errUsage, path)
}

// The -o file holds an answer that passed the checks, or nothing: it is
// written to a temporary file beside it and renamed over it only when
// complete (a failed write leaves no half file), and when the answer fails
// its checks (exit 3 or 4) a file of that name from an earlier run is
// removed, so that no stale answer sits where a script expects this one.

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
	if err := checkOutPath(path); err != nil {
		return err
	}
	write := sparse.WriteMatrixMarketVector
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		write = sparse.WriteNPY
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f, x)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// removeStaleSolution removes the regular file at the -o path after an
// answer failed its checks, and says so in the report's notes.
func removeStaleSolution(path string, rep *solveReport) {
	if path == "" || path == "-" {
		return
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return
	}
	if err := os.Remove(path); err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("-o %s: an earlier answer is left there (could not remove it: %v); this answer failed its checks and was not written", path, err))
		return
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("-o %s: removed the earlier file; this answer failed its checks and was not written", path))
}
