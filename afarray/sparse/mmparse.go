package sparse

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The body of a Matrix Market file (the lines after the size line) is
// parsed by every core at once. The file is in memory; it is cut into
// chunks at line boundaries; a first parallel pass counts the newlines of
// each chunk (bytes.Count, vectorised), which gives every chunk its first
// line number and, when the file has one entry per line, its first entry
// index; a second parallel pass parses each chunk's lines straight into the
// final COO arrays (or the array file's values). Nothing is allocated per
// entry and no chunk waits for another.
//
// The fast path assumes what every writer of the format produces: exactly
// one entry per line, no blank or comment lines among the entries. When the
// file has a different number of lines than entries, or a chunk meets any
// line that it cannot take (a comment, a wrong token count, a bad number, an
// index out of range), the whole body is parsed again by the sequential
// scanner, which accepts every file the format allows and reports the first
// problem with its exact line: the parallel path can only ever be a faster
// way to the same result.

// mmMinChunk is the smallest chunk worth a goroutine.
const mmMinChunk = 1 << 18

// mmBody describes what the body holds: count entries of k tokens each.
type mmBody struct {
	data   []byte // the body: from the line after the size line to the end, trailing blanks trimmed
	line   int    // line number of data[0]
	count  int    // entries
	k      int    // tokens per entry
	parse  func(idx int, toks *[3][]byte, line int) bool
	chunks []mmChunk
}

type mmChunk struct {
	lo, hi     int // byte range in data
	line       int // line of data[lo]
	entry      int // index of the first entry
	lines      int // lines that start in the chunk
	bad        bool
	badLine    int
	badMessage string
}

// trimTrailingSpace drops the whitespace at the end of a body, so that a
// final newline or blank lines do not count as lines.
func trimTrailingSpace(b []byte) []byte {
	e := len(b)
	for e > 0 && isMMSpace(b[e-1]) {
		e--
	}
	return b[:e]
}

// parallel runs the fast path and reports whether it succeeded. On false the
// destination may hold partial results and the caller must parse again
// sequentially.
func (m *mmBody) parallel() bool {
	if len(m.data) == 0 {
		return m.count == 0
	}
	workers := runtime.GOMAXPROCS(0)
	nch := min(4*workers, max(1, len(m.data)/mmMinChunk))
	m.chunks = m.chunks[:0]
	lo := 0
	for c := 1; c <= nch && lo < len(m.data); c++ {
		hi := len(m.data) * c / nch
		if hi < lo {
			hi = lo
		}
		if c == nch {
			hi = len(m.data)
		} else if nl := bytes.IndexByte(m.data[hi:], '\n'); nl >= 0 {
			hi += nl + 1
		} else {
			hi = len(m.data)
		}
		m.chunks = append(m.chunks, mmChunk{lo: lo, hi: hi})
		lo = hi
	}
	// Pass 1: lines per chunk. The trimmed body does not end with a
	// newline, so every chunk but the last ends with one, and the lines of
	// a chunk are its newlines (plus one for the last chunk).
	run(len(m.chunks), workers, func(c int) {
		ch := &m.chunks[c]
		ch.lines = bytes.Count(m.data[ch.lo:ch.hi], []byte{'\n'})
		if c == len(m.chunks)-1 {
			ch.lines++
		}
	})
	total := 0
	for c := range m.chunks {
		m.chunks[c].line = m.line + total
		m.chunks[c].entry = total
		total += m.chunks[c].lines
	}
	if total != m.count {
		return false
	}
	// Pass 2: parse.
	run(len(m.chunks), workers, func(c int) { m.parseChunk(&m.chunks[c]) })
	for c := range m.chunks {
		if m.chunks[c].bad {
			return false
		}
	}
	return true
}

// parseChunk parses the lines of one chunk, one entry each.
func (m *mmBody) parseChunk(ch *mmChunk) {
	d := m.data[:ch.hi]
	p := ch.lo
	var toks [3][]byte
	for idx, line := ch.entry, ch.line; p < len(d); idx, line = idx+1, line+1 {
		e := bytes.IndexByte(d[p:], '\n')
		if e < 0 {
			e = len(d)
		} else {
			e += p
		}
		// Split the line into exactly k tokens.
		nt := 0
		q := p
		for q < e {
			for q < e && isMMSpace(d[q]) {
				q++
			}
			if q == e {
				break
			}
			if nt == m.k || (nt == 0 && d[q] == '%') {
				ch.bad = true
				return
			}
			s := q
			for q < e && !isMMSpace(d[q]) {
				q++
			}
			if q-s > maxToken {
				ch.bad = true
				return
			}
			toks[nt] = d[s:q]
			nt++
		}
		if nt != m.k || idx >= m.count || !m.parse(idx, &toks, line) {
			ch.bad = true
			return
		}
		p = e + 1
	}
}

// run calls body(0..n-1) on up to workers goroutines.
func run(n, workers int, body func(i int)) {
	if n <= 1 || workers <= 1 {
		for i := 0; i < n; i++ {
			body(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				body(i)
			}
		}()
	}
	wg.Wait()
}

// coordinateBody returns the fast-path description of a coordinate file's
// body whose entries go to c (allocated to the final length).
func coordinateBody(data []byte, line int, h MatrixMarketHeader, c *COO, nnz int) *mmBody {
	sym, skew := h.Symmetry == "symmetric", h.Symmetry == "skew-symmetric"
	rows, cols := int64(c.Rows), int64(c.Cols)
	m := &mmBody{data: trimTrailingSpace(data), line: line, count: nnz, k: 3}
	field := 0 // real
	switch h.Field {
	case "pattern":
		m.k, field = 2, 1
	case "integer":
		field = 2
	}
	m.parse = func(idx int, t *[3][]byte, _ int) bool {
		i, msg := parseMMInt(t[0], "row index", 1, rows)
		if msg != "" {
			return false
		}
		j, msg := parseMMInt(t[1], "column index", 1, cols)
		if msg != "" {
			return false
		}
		v := 1.0
		switch field {
		case 0:
			var nan bool
			if v, msg, nan = parseMMFloat(t[2], "value"); msg != "" || nan {
				return false
			}
		case 2:
			iv, msg := parseMMInt(t[2], "integer value", -1<<53, 1<<53)
			if msg != "" {
				return false
			}
			v = float64(iv)
		}
		if (sym || skew) && i < j || skew && i == j {
			return false
		}
		if skew {
			c.I[2*idx], c.J[2*idx], c.V[2*idx] = int32(i-1), int32(j-1), v
			c.I[2*idx+1], c.J[2*idx+1], c.V[2*idx+1] = int32(j-1), int32(i-1), -v
			return true
		}
		c.I[idx], c.J[idx], c.V[idx] = int32(i-1), int32(j-1), v
		return true
	}
	return m
}

// arrayBody returns the fast-path description of an array file's body whose
// values go to vals.
func arrayBody(data []byte, line int, h MatrixMarketHeader, vals []float64) *mmBody {
	m := &mmBody{data: trimTrailingSpace(data), line: line, count: len(vals), k: 1}
	integer := h.Field == "integer"
	m.parse = func(idx int, t *[3][]byte, _ int) bool {
		if integer {
			iv, msg := parseMMInt(t[0], "integer value", -1<<53, 1<<53)
			vals[idx] = float64(iv)
			return msg == ""
		}
		v, msg, _ := parseMMFloat(t[0], "value")
		vals[idx] = v
		return msg == ""
	}
	return m
}

// upperEntryError is the error for an entry above the diagonal of a
// symmetric or skew-symmetric file, which stores the lower triangle only.
func upperEntryError(s *mmScanner, sym string, i, j int64) error {
	return s.errorf("entry (%d,%d) lies above the diagonal; a %s file stores only the lower triangle", i, j, sym)
}

func sizeError(s *mmScanner, format string, args ...any) error {
	return &ParseError{File: s.file, Line: s.line, Msg: fmt.Sprintf(format, args...), Err: ErrTooLarge}
}
