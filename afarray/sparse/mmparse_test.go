package sparse

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// bigCOO is a random symmetric lower-triangle COO large enough for the
// parallel reader to cut its file into many chunks.
func bigCOO(n, nnz int) *COO {
	r := rand.New(rand.NewPCG(1, 2))
	c := &COO{Rows: n, Cols: n, Symmetric: true}
	for k := 0; k < nnz; k++ {
		i, j := r.IntN(n), r.IntN(n)
		if i < j {
			i, j = j, i
		}
		v := r.NormFloat64() * 1e6
		if k%3 == 0 {
			v = float64(r.IntN(1000)) / 8 // short values take the fast float path
		}
		c.I, c.J, c.V = append(c.I, int32(i)), append(c.J, int32(j)), append(c.V, v)
	}
	return c
}

// TestMatrixMarketParallelEqualsSequential writes a large matrix, reads it
// through the parallel path (from a file and from a reader) and through the
// sequential scanner (a body with a comment line forces it), and checks that
// all give the matrix written, bit for bit.
func TestMatrixMarketParallelEqualsSequential(t *testing.T) {
	c := bigCOO(5000, 200000)
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, c, "big"); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 4*mmMinChunk {
		t.Fatalf("file of %d bytes is too small to test chunking", buf.Len())
	}
	p := filepath.Join(t.TempDir(), "big.mtx")
	os.WriteFile(p, buf.Bytes(), 0o644)
	fromFile, err := ReadMatrixMarketFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fromReader, err := ReadMatrixMarket(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// A comment among the entries: legal, but only for the sequential scanner.
	text := buf.String()
	mid := strings.Index(text[len(text)/2:], "\n") + len(text)/2 + 1
	seq, err := ReadMatrixMarket(strings.NewReader(text[:mid] + "% a comment\n\n" + text[mid:]))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]*COO{"file": fromFile.COO, "reader": fromReader, "sequential": seq} {
		if !got.Symmetric || got.Rows != c.Rows || !slices.Equal(got.I, c.I) || !slices.Equal(got.J, c.J) || !slices.Equal(got.V, c.V) {
			t.Errorf("%s: matrix differs from the one written", name)
		}
	}
}

// TestMatrixMarketErrorLines puts one bad entry deep in a large file and
// checks that the error names its exact line, whichever chunk holds it.
func TestMatrixMarketErrorLines(t *testing.T) {
	c := bigCOO(3000, 100000)
	var buf bytes.Buffer
	WriteMatrixMarket(&buf, c, "")
	lines := strings.Split(buf.String(), "\n")
	// lines[0] banner, lines[1] size line, entries from lines[2] (file line 3).
	for _, k := range []int{2, 777, 50001, 100001} {
		for _, bad := range []struct{ entry, msg string }{
			{"1 1 x", "bad value"},
			{"3001 1 1", "row index"},
			{"1 2 1", "above the diagonal"},
			{"1 1 1 1", "extra"},
		} {
			mod := slices.Clone(lines)
			mod[k] = bad.entry
			_, err := ReadMatrixMarket(strings.NewReader(strings.Join(mod, "\n")))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("line %d %q: %v", k+1, bad.entry, err)
			}
			want := k + 1
			if bad.msg == "extra" {
				want = k + 2 // the extra token is read as the next entry's row, then its column fails or its value
			}
			if bad.msg != "extra" && (pe.Line != want || !strings.Contains(pe.Msg, bad.msg)) {
				t.Errorf("%q at line %d: got %v", bad.entry, k+1, err)
			}
			if bad.msg == "extra" && pe.Line < k+1 {
				t.Errorf("%q at line %d: error before it: %v", bad.entry, k+1, err)
			}
		}
	}
}

// TestMatrixMarketUpperTriangle: a symmetric (or skew-symmetric) file stores
// the lower triangle; an entry above the diagonal is an error at its line.
func TestMatrixMarketUpperTriangle(t *testing.T) {
	for _, sym := range []string{"symmetric", "skew-symmetric"} {
		text := "%%MatrixMarket matrix coordinate real " + sym + "\n3 3 3\n2 1 1\n3 2 1\n1 3 5\n"
		_, err := ReadMatrixMarket(strings.NewReader(text))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 5 || !strings.Contains(err.Error(), "(1,3)") {
			t.Errorf("%s: %v", sym, err)
		}
	}
}

// TestMatrixMarketHugeHeaders: headers that declare a huge order or entry
// count fail at once, with the sizes named, whatever the file holds.
func TestMatrixMarketHugeHeaders(t *testing.T) {
	cases := []struct{ text, want string }{
		{"%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 2000000000\n1 1 1\n", "2000000000 entries"},
		{"%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 2000000000\n", "2000000000 entries"},
		{"%%MatrixMarket matrix coordinate pattern general\n1000 1000 1000000\n1 1\n2 2\n", "1000000 entries"},
		{"%%MatrixMarket matrix array real general\n2000000000 2000000000\n1\n2\n", "2000000000x2000000000"},
	}
	for _, tc := range cases {
		start := time.Now()
		_, err := ReadMatrixMarketData(strings.NewReader(tc.text))
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%q: refusal took %v", tc.text, el)
		}
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %q", tc.text, err, tc.want)
		}
	}
	// A file that really holds what its header says, but more than the
	// host has, is ErrTooLarge at the size line; simulated by a limit far
	// below the file: CheckHostMemory with an absurd request.
	if err := CheckHostMemory("test", 1<<62); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "EiB") {
		if avail, ok := HostMemoryAvailable(); ok {
			t.Errorf("CheckHostMemory(4 EiB) with %d available: %v", avail, err)
		}
	}
}
