package sparse

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ReadFile reads the matrix in any file this package understands, chosen by
// name and content, the way scipy.io.mmread or scipy.sparse.load_npz is
// the one call a SciPy user makes:
//
//   - an OpenFEM set: a path ending in .nz, or a prefix P for which P.nz
//     exists (the matrix only; ReadOpenFEM also gives the load and the
//     reference solution);
//   - a Matrix Market file, coordinate or array, gzip-compressed or not (an
//     array file gives the COO of its nonzero entries);
//   - a NumPy .npz archive as scipy.sparse.save_npz writes it (ReadNPZ).
//
// The result is square or not, symmetric (one triangle, Symmetric set) or
// general, as the file stores it.
func ReadFile(path string) (*COO, error) {
	if prefix, ok := openFEMPrefix(path); ok {
		set, err := ReadOpenFEM(prefix)
		if err != nil {
			return nil, err
		}
		return set.A, nil
	}
	kind, err := sniff(path)
	if err != nil {
		return nil, err
	}
	if kind == "zip" {
		return ReadNPZ(path)
	}
	d, err := ReadMatrixMarketFile(path)
	if err != nil {
		return nil, err
	}
	if d.COO != nil {
		return d.COO, nil
	}
	return COOFromDense(d.Dense)
}

// openFEMPrefix reports whether path names an OpenFEM set, and its prefix.
func openFEMPrefix(path string) (string, bool) {
	if strings.HasSuffix(path, OpenFEMValues) {
		return strings.TrimSuffix(path, OpenFEMValues), true
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(path + OpenFEMValues); err == nil {
			return path, true
		}
	}
	return "", false
}

// sniff looks at the first bytes of a file: "zip" for a zip archive (npz),
// "" otherwise.
func sniff(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("sparse: %w", err)
	}
	defer f.Close()
	magic, _ := bufio.NewReader(f).Peek(4)
	if string(magic) == "PK\x03\x04" {
		return "zip", nil
	}
	return "", nil
}
