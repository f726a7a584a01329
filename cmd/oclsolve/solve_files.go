package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// readNPZMatrix reads a scipy.sparse.save_npz file as the system matrix.
// SciPy has no symmetric storage: a file whose entries all lie in one
// triangle (what a Python user saves with scipy.sparse.tril) is taken as
// the symmetric matrix that triangle stores, and the note says so; files
// written by oclsolve gen --format npz carry that mark themselves.
func readNPZMatrix(path string) (*sparse.COO, string, error) {
	a, err := sparse.ReadNPZ(path)
	if err != nil {
		return nil, "", err
	}
	if a.Symmetric || a.Rows != a.Cols || a.NNZ() == 0 {
		return a, "", nil
	}
	lower, upper := true, true
	for k := range a.I {
		lower = lower && a.I[k] >= a.J[k]
		upper = upper && a.I[k] <= a.J[k]
	}
	if lower == upper { // both: diagonal; neither: a full matrix
		return a, "", nil
	}
	a.Symmetric = true
	if upper {
		a.I, a.J = a.J, a.I
		return a, "the .npz holds only the upper triangle: solved as the symmetric matrix it stores", nil
	}
	return a, "the .npz holds only the lower triangle: solved as the symmetric matrix it stores", nil
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
