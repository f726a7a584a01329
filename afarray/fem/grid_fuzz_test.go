package fem

import (
	"errors"
	"testing"
)

// FuzzParseGrid checks that ParseGrid either rejects its input with
// ErrMesh or returns three integers in range that FormatGrid and ParseGrid
// carry through unchanged.
func FuzzParseGrid(f *testing.F) {
	for _, s := range []string{"30x2x3", "1x1x1", "12×21×9", " 4 x 5 x 6 ", "0x1x1", "1x2", "-1x2x3", "1xx2x3", "99999999999x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b, c, err := ParseGrid(s)
		if err != nil {
			if !errors.Is(err, ErrMesh) {
				t.Fatalf("ParseGrid(%q): error %v does not wrap ErrMesh", s, err)
			}
			return
		}
		for _, v := range []int{a, b, c} {
			if v < 1 || v > 100000 {
				t.Fatalf("ParseGrid(%q) = %d %d %d: out of range", s, a, b, c)
			}
		}
		a2, b2, c2, err := ParseGrid(FormatGrid(a, b, c))
		if err != nil || a2 != a || b2 != b || c2 != c {
			t.Fatalf("round trip of %q: %d %d %d -> %d %d %d (%v)", s, a, b, c, a2, b2, c2, err)
		}
	})
}
