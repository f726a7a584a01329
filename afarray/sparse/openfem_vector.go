package sparse

import "os"

// ReadOpenFEMVector reads one vector file of an OpenFEM set (.fzs loads or
// .def displacements): numbers separated by any whitespace. Malformed input
// returns a *ParseError with the file and line.
func ReadOpenFEMVector(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFloats(f, path)
}
