package fem

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// File formats accepted by WriteFiles.
const (
	FormatOpenFEM      = "openfem" // .nz .row .col (1-based full COO) and .fzs
	FormatMatrixMarket = "mtx"     // <name>.mtx (symmetric, lower triangle) and <name>_b.mtx
	FormatBoth         = "both"
	// FormatNPZ writes <name>.npz, the lower triangle of K as
	// scipy.sparse.save_npz writes a CSC matrix (uncompressed, with the
	// "oclsolve_symmetric" mark that sparse.ReadNPZ honours; in SciPy the
	// full matrix is L + L.T - diags(L.diagonal())), and <name>_b.npy, F.
	FormatNPZ = "npz"
)

// FileName returns the base name WriteFiles uses: the model name and the
// order, with "_rcm" appended for RCM numbering, e.g. "model2_10452_rcm".
func (s *System) FileName() string {
	name := fmt.Sprintf("%s_%d", s.Name, s.NumDOF)
	if s.Name == "" {
		name = fmt.Sprintf("system_%d", s.NumDOF)
	}
	if s.Numbering == RCM {
		name += "_rcm"
	}
	return name
}

// WriteFiles writes the system into directory dir (created if needed) in
// the given format and returns the paths written:
//
//   - FormatOpenFEM: the thesis's OpenFEM file set, <name>.nz, .row and
//     .col holding the full symmetric K in 1-based COO, sorted by column,
//     and <name>.fzs holding F (sparse.WriteOpenFEM);
//   - FormatMatrixMarket: <name>.mtx, K as a "coordinate real symmetric"
//     Matrix Market file (lower triangle), and <name>_b.mtx, F as an n×1
//     array;
//   - FormatBoth: both of them;
//   - FormatNPZ: <name>.npz and <name>_b.npy, for SciPy and NumPy.
//
// <name> is FileName().
func (s *System) WriteFiles(dir, format string) ([]string, error) {
	openfem := format == FormatOpenFEM || format == FormatBoth
	mtx := format == FormatMatrixMarket || format == FormatBoth
	npz := format == FormatNPZ
	if !openfem && !mtx && !npz {
		return nil, fmt.Errorf("%w: unknown file format %q (want openfem, mtx, both or npz)", ErrMesh, format)
	}
	if s.K == nil || len(s.F) != s.K.Rows {
		return nil, fmt.Errorf("%w: system has no matrix or a load vector of the wrong length", ErrMesh)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	prefix := filepath.Join(dir, s.FileName())
	var paths []string
	if openfem {
		if err := sparse.WriteOpenFEM(prefix, s.K, s.F); err != nil {
			return nil, fmt.Errorf("fem: writing %s: %w", prefix, err)
		}
		for _, ext := range []string{sparse.OpenFEMValues, sparse.OpenFEMRows, sparse.OpenFEMCols, sparse.OpenFEMForce} {
			paths = append(paths, prefix+ext)
		}
	}
	var lower *sparse.COO
	if mtx || npz {
		var err error
		if lower, err = s.K.Lower(); err != nil {
			return nil, fmt.Errorf("fem: %w", err)
		}
	}
	if npz {
		if err := writeFile(prefix+".npz", func(f *os.File) error { return sparse.WriteNPZ(f, lower, "csc") }); err != nil {
			return nil, err
		}
		if err := writeFile(prefix+"_b.npy", func(f *os.File) error { return sparse.WriteNPY(f, s.F) }); err != nil {
			return nil, err
		}
		paths = append(paths, prefix+".npz", prefix+"_b.npy")
	}
	if mtx {
		comment := fmt.Sprintf("oclsolve fem %s, mesh %s, %s numbering, n = %d\nE = %.6g Pa, nu = %g; units N, m",
			s.Name, s.Grid, s.Numbering, s.NumDOF, s.Material.E, s.Material.Nu)
		if err := writeFile(prefix+".mtx", func(f *os.File) error { return sparse.WriteMatrixMarket(f, lower, comment) }); err != nil {
			return nil, err
		}
		if err := writeFile(prefix+"_b.mtx", func(f *os.File) error { return sparse.WriteMatrixMarketVector(f, s.F) }); err != nil {
			return nil, err
		}
		paths = append(paths, prefix+".mtx", prefix+"_b.mtx")
	}
	return paths, nil
}

// writeFile creates path and runs write on it, reporting the first error,
// including the one from Close.
func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("fem: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("fem: writing %s: %w", path, err)
	}
	return nil
}
