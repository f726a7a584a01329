package notebook

import (
	"io"
	"sync"
	"unicode/utf8"
)

// pumpRunes reads r until it fails (its write end closed) and hands what it
// reads to deliver in whole UTF-8 sequences: an incomplete one at the end of
// a read waits for the next, so a character split across two reads reaches
// a cell whole; what is left at the end goes as it is. Both the cell
// capture and the worker's supervisor forward output this way. deliver
// runs with mu held, so that waiting on mu waits for a chunk being
// delivered; seen, when not nil, sees the bytes of every read first, under
// mu too.
func pumpRunes(r io.Reader, mu *sync.Mutex, seen func([]byte), deliver func(string)) {
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := r.Read(buf)
		mu.Lock()
		if seen != nil && n > 0 {
			seen(buf[:n])
		}
		pending = append(pending, buf[:n]...)
		cut := len(pending)
		if err == nil {
			cut = completeRunes(pending)
		}
		if cut > 0 {
			deliver(string(pending[:cut]))
			pending = append(pending[:0], pending[cut:]...)
		}
		mu.Unlock()
		if err != nil {
			return
		}
	}
}

// completeRunes returns how many bytes of b end on a whole UTF-8 sequence:
// an incomplete rune at the end waits for the next read.
func completeRunes(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return len(b) - i
			}
			break
		}
	}
	return len(b)
}
