package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzMethods are the method and format a fuzz input's first byte picks.
var fuzzMethods = [][2]string{
	{"cholesky", "sks"}, {"cholesky", "csc"}, {"cholesky", "dense"},
	{"ldlt", "sks"}, {"ldlt", "csc"}, {"ldlt", "dense"},
	{"cg", "csc"}, {"gj", "dense"}, {"gauss-pivot", "dense"},
}

// FuzzSolve runs `oclsolve solve` on arbitrary Matrix Market files with
// every method: whatever the file, the command must end with a status of
// its own (0, 1, 3 or 4), never a panic, a usage error or a Go runtime
// abort. Run it under a memory limit, as CI's fuzz smoke does:
//
//	go test -c -o /tmp/oclsolve.test ./cmd/oclsolve
//	(ulimit -v 4000000; /tmp/oclsolve.test -test.run '^$' -test.fuzz FuzzSolve -test.fuzztime 60s)
//
// Seeds are the bad inputs of TestBadInputs; testdata/fuzz/FuzzSolve keeps
// the corpus found so far.
func FuzzSolve(f *testing.F) {
	for k, s := range []string{
		"coordinate real symmetric\n2000000000 2000000000 1\n1 1 4.0\n",
		"coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n1 2 3\n",
		"coordinate real general\n2 2 4\n1 1 1\n2 1 2\n1 2 0\n2 2 1\n",
		"array real general\n2 2\n1\n2\n0\n1\n",
		"coordinate real symmetric\n2 2 2\n1 1 1\n2 1 1\n",
		"coordinate real symmetric\n2 2 3\n1 1 1e-17\n2 1 1\n2 2 1\n",
		"coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n",
		"coordinate real symmetric\n3 3 5\n1 1 4\n2 1 nan\n2 2 4\n3 2 -1\n3 3 4\n",
		"coordinate pattern symmetric\n3 3 3\n1 1\n2 2\n3 3\n",
		"coordinate real symmetric\n3 3 3\n1 1 -4\n2 2 4\n3 3 4\n",
	} {
		f.Add(byte(k), []byte("%%MatrixMarket matrix "+s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pick byte, file []byte) {
		m := fuzzMethods[int(pick)%len(fuzzMethods)]
		path := filepath.Join(dir, "a.mtx")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		var code int
		_, stderr := withStdio(t, "", func() {
			code = runMain([]string{"solve", "--method", m[0], "--format", m[1], "--rhs", "random", path}, os.Stdout, os.Stderr)
		})
		switch code {
		case 0, exitFailure, exitNotConverged, exitInaccurate:
		default:
			t.Fatalf("solve --method %s --format %s: exit %d\n%s", m[0], m[1], code, stderr)
		}
		if code != 0 && !strings.HasPrefix(stderr, "oclsolve solve: ") {
			t.Fatalf("exit %d without a message: %q", code, stderr)
		}
	})
}
