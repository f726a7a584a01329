package sparse

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// mmScanner splits the bytes of a whole text file into whitespace-separated
// tokens and keeps the line of each, for error messages. It follows the rules
// of the streaming tokenizer (tokens.go) exactly: spaces, tabs, CR, VT, FF,
// newlines and commas separate tokens; a '%' that starts a line's first token
// begins a comment that runs to the end of the line; a token is at most
// maxToken bytes. The Matrix Market reader uses it for the header, and for
// the whole file when the parallel path does not apply (see mmparse.go).
type mmScanner struct {
	data []byte
	pos  int
	file string
	line int  // line of the last token returned (1-based)
	cur  int  // line of pos
	bol  bool // pos is at the beginning of a line
}

func isMMSpace(b byte) bool { return mmSpace[b] }

// mmSpace marks the separator bytes. Commas separate values too: MATLAB's
// dlmwrite and csvwrite use them.
var mmSpace = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true, '\n': true, ',': true}

// errorf builds a ParseError at the line of the last token.
func (s *mmScanner) errorf(format string, args ...any) error {
	return &ParseError{File: s.file, Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next token, or ok false at the end of the data. The
// token aliases the data.
func (s *mmScanner) next() (tok []byte, ok bool, err error) {
	d := s.data
	for s.pos < len(d) {
		b := d[s.pos]
		if isMMSpace(b) {
			if b == '\n' {
				s.cur++
				s.bol = true
			}
			s.pos++
			continue
		}
		if b == '%' && s.bol {
			for s.pos < len(d) && d[s.pos] != '\n' {
				s.pos++
			}
			continue
		}
		start := s.pos
		s.line = s.cur
		s.bol = false
		for s.pos < len(d) && !isMMSpace(d[s.pos]) {
			if s.pos-start >= maxToken {
				return nil, false, s.errorf("token longer than %d bytes", maxToken)
			}
			s.pos++
		}
		return d[start:s.pos], true, nil
	}
	return nil, false, nil
}

// atEOF skips blanks and comments and reports whether the data ends there.
func (s *mmScanner) atEOF() bool {
	d := s.data
	for s.pos < len(d) {
		b := d[s.pos]
		switch {
		case isMMSpace(b):
			if b == '\n' {
				s.cur++
				s.bol = true
			}
			s.pos++
		case b == '%' && s.bol:
			for s.pos < len(d) && d[s.pos] != '\n' {
				s.pos++
			}
		default:
			return false
		}
	}
	return true
}

// integer reads the next token as an integer in [lo, hi].
func (s *mmScanner) integer(what string, lo, hi int64) (int64, error) {
	tok, ok, err := s.next()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, s.errorf("unexpected end of file, want %s", what)
	}
	v, msg := parseMMInt(tok, what, lo, hi)
	if msg != "" {
		return 0, s.errorf("%s", msg)
	}
	return v, nil
}

// float reads the next token as a finite float64.
func (s *mmScanner) float(what string) (float64, error) {
	tok, ok, err := s.next()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, s.errorf("unexpected end of file, want %s", what)
	}
	v, msg, nan := parseMMFloat(tok, what)
	if msg != "" {
		pe := &ParseError{File: s.file, Line: s.line, Msg: msg}
		if nan {
			pe.Err = ErrNaN
		}
		return 0, pe
	}
	return v, nil
}

// expectEOF reports trailing data after the expected content.
func (s *mmScanner) expectEOF() error {
	tok, ok, err := s.next()
	if err != nil || !ok {
		return err
	}
	return s.errorf("unexpected extra data %q", tok)
}

// bytesString views b as a string without copying; b must not change while
// the string is in use (the reader's buffer never does).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseMMInt parses an integer token in [lo, hi]. Integers written as
// integral floats ("12.0", "1.2e+01", as MATLAB may print them) are
// accepted. A non-empty msg describes what is wrong. Plain digit strings,
// nearly every token of a real file, take a short path.
func parseMMInt(tok []byte, what string, lo, hi int64) (v int64, msg string) {
	if len(tok) > 0 && len(tok) <= 18 {
		var x int64
		plain := true
		for _, c := range tok {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			x = x*10 + int64(c-'0')
		}
		if plain {
			if x < lo || x > hi {
				return 0, fmt.Sprintf("%s %d outside [%d, %d]", what, x, lo, hi)
			}
			return x, ""
		}
	}
	v, err := strconv.ParseInt(bytesString(tok), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(bytesString(tok), 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Sprintf("bad %s %q", what, tok)
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		return 0, fmt.Sprintf("%s %d outside [%d, %d]", what, v, lo, hi)
	}
	return v, ""
}

// parseMMFloat parses a finite float64 token; nan reports that the token was
// a number but not finite.
func parseMMFloat(tok []byte, what string) (v float64, msg string, nan bool) {
	if v, ok := fastFloat(tok); ok {
		return v, "", false
	}
	v, err := strconv.ParseFloat(bytesString(tok), 64)
	if err != nil && !(isRangeErr(err) && math.IsInf(v, 0)) {
		return 0, fmt.Sprintf("bad %s %q", what, tok), false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("%s %q is not finite", what, tok), true
	}
	return v, "", false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// fastFloat converts the common decimal form [sign]digits[.digits][e[sign]digits]
// when the significand (its digits as an integer) is below 2^53 and the power of ten is at most 22 in magnitude: then both are
// exact doubles and one correctly rounded multiplication or division gives
// the correctly rounded result (Clinger's fast path), the value
// strconv.ParseFloat returns. Everything else (17-digit significands, large
// exponents, hexadecimal, inf, malformed tokens) reports ok false and goes
// to strconv.
func fastFloat(t []byte) (float64, bool) {
	i, n := 0, len(t)
	neg := false
	if i < n && (t[i] == '-' || t[i] == '+') {
		neg = t[i] == '-'
		i++
	}
	var m uint64
	digits, sig, exp := 0, 0, 0
	for ; i < n && t[i] >= '0' && t[i] <= '9'; i++ {
		digits++
		if m == 0 && t[i] == '0' {
			continue
		}
		sig++
		m = m*10 + uint64(t[i]-'0')
	}
	if i < n && t[i] == '.' {
		for i++; i < n && t[i] >= '0' && t[i] <= '9'; i++ {
			digits++
			exp--
			if m == 0 && t[i] == '0' {
				continue
			}
			sig++
			m = m*10 + uint64(t[i]-'0')
		}
	}
	if digits == 0 || sig > 19 {
		return 0, false
	}
	if i < n && (t[i] == 'e' || t[i] == 'E') {
		i++
		eneg := false
		if i < n && (t[i] == '-' || t[i] == '+') {
			eneg = t[i] == '-'
			i++
		}
		if i == n {
			return 0, false
		}
		e := 0
		for ; i < n && t[i] >= '0' && t[i] <= '9'; i++ {
			if e < 10000 {
				e = e*10 + int(t[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != n || m >= 1<<53 {
		return 0, false
	}
	f := float64(m)
	switch {
	case m == 0:
	case exp < 0 && exp >= -22:
		f /= pow10[-exp]
	case exp >= 0 && exp <= 22:
		f *= pow10[exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
