package sparse

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxToken bounds the length of one number in a text file, so that a file
// with no whitespace cannot make a reader buffer all of it.
const maxToken = 512

// maxPrealloc caps the capacity reserved from a count in a file header. A
// header can lie; slices grow from there as data actually arrives.
const maxPrealloc = 1 << 20

// tokenizer splits a text stream into whitespace-separated tokens and keeps
// the line number of each, for error messages. Lines whose first non-blank
// character is '%' are comments when comments is set.
type tokenizer struct {
	r        *bufio.Reader
	file     string
	line     int  // line of the last token returned (1-based)
	cur      int  // line the reader is on
	bol      bool // at the beginning of a line
	comments bool
	buf      []byte
}

func newTokenizer(r *bufio.Reader, file string, line int, comments bool) *tokenizer {
	return &tokenizer{r: r, file: file, cur: line, line: line, bol: true, comments: comments, buf: make([]byte, 0, 64)}
}

// errorf builds a ParseError at the line of the last token.
func (t *tokenizer) errorf(format string, args ...any) error {
	return &ParseError{File: t.file, Line: t.line, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next token, or io.EOF at the end of the stream. The slice
// is valid until the following call.
func (t *tokenizer) next() ([]byte, error) {
	t.buf = t.buf[:0]
	for {
		b, err := t.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(t.buf) > 0 {
					return t.buf, nil
				}
				return nil, io.EOF
			}
			return nil, &ParseError{File: t.file, Line: t.cur, Msg: "read: " + err.Error()}
		}
		switch b {
		case ' ', '\t', '\r', '\v', '\f', '\n', ',':
			// Commas separate values too: MATLAB's dlmwrite and csvwrite use them.
			if b == '\n' {
				t.cur++
				t.bol = true
			}
			if len(t.buf) > 0 {
				return t.buf, nil
			}
			continue
		case '%':
			if t.comments && t.bol && len(t.buf) == 0 {
				if err := t.skipLine(); err != nil {
					return nil, err
				}
				continue
			}
		}
		if len(t.buf) == 0 {
			t.line = t.cur
		}
		t.bol = false
		if len(t.buf) >= maxToken {
			return nil, t.errorf("token longer than %d bytes", maxToken)
		}
		t.buf = append(t.buf, b)
	}
}

// skipLine discards the rest of the current line.
func (t *tokenizer) skipLine() error {
	for {
		b, err := t.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return &ParseError{File: t.file, Line: t.cur, Msg: "read: " + err.Error()}
		}
		if b == '\n' {
			t.cur++
			t.bol = true
			return nil
		}
	}
}

// float reads the next token as a finite float64. what names the value in
// error messages.
func (t *tokenizer) float(what string) (float64, error) {
	tok, err := t.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, t.errorf("unexpected end of file, want %s", what)
		}
		return 0, err
	}
	return t.parseFloat(tok, what)
}

func (t *tokenizer) parseFloat(tok []byte, what string) (float64, error) {
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0)) {
		return 0, t.errorf("bad %s %q", what, tok)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &ParseError{File: t.file, Line: t.line, Msg: fmt.Sprintf("%s %q is not finite", what, tok), Err: ErrNaN}
	}
	return v, nil
}

// integer reads the next token as an integer in [lo, hi]. Integers written
// as integral floats ("12.0", "1.2e+01", as MATLAB may print them) are
// accepted.
func (t *tokenizer) integer(what string, lo, hi int64) (int64, error) {
	tok, err := t.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, t.errorf("unexpected end of file, want %s", what)
		}
		return 0, err
	}
	return t.parseInt(tok, what, lo, hi)
}

// parseInt is parseMMInt (mmscan.go) with the tokenizer's line in the
// error.
func (t *tokenizer) parseInt(tok []byte, what string, lo, hi int64) (int64, error) {
	v, msg := parseMMInt(tok, what, lo, hi)
	if msg != "" {
		return 0, t.errorf("%s", msg)
	}
	return v, nil
}

// expectEOF reports trailing data after the expected content.
func (t *tokenizer) expectEOF() error {
	tok, err := t.next()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	return t.errorf("unexpected extra data %q", tok)
}

// maybeGunzip returns a reader that decompresses r when it starts with the
// gzip magic bytes 0x1f 0x8b, and r itself otherwise.
func maybeGunzip(r io.Reader, file string) (*bufio.Reader, io.Closer, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: file, Msg: "gzip: " + err.Error()}
		}
		return bufio.NewReaderSize(zr, 1<<16), zr, nil
	}
	return br, io.NopCloser(nil), nil
}
