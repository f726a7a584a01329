package gauss

import (
	"fmt"
	"testing"
)

// When 2n values exceed local memory the back-substitution runs in tiles.
// Forcing small tiles at moderate n covers that path (including a last tile
// shorter than the others) without a huge matrix.
func TestTiledBackSubstitution(t *testing.T) {
	dev := testDevice(t)
	const n = 100
	for _, variant := range Variants() {
		for _, tile := range []int{1, 7, 32, 99} {
			t.Run(fmt.Sprintf("%s/tile=%d", variant, tile), func(t *testing.T) {
				a, b := randomSystem(n, 11, false)
				x, rep, err := Solve(dev, a, b, Options{Variant: variant, Pivot: true, BackSubTile: tile, BlockSize: 16})
				if err != nil {
					t.Fatal(err)
				}
				bwd, _ := tolerances(variant, n)
				if be := backwardError(a, x, b); be > bwd {
					t.Errorf("backward error %.3g > %.3g", be, bwd)
				}
				tiles := (n + tile - 1) / tile
				if variant == VariantBlocked {
					ld := (n + 15) / 16 * 16
					tiles = 2 * ((ld + tile - 1) / tile) // forward and back substitution
				}
				if rep.BackSubTiles != tiles {
					t.Errorf("%d tiles, want %d", rep.BackSubTiles, tiles)
				}
			})
		}
	}
}

// The default tile is all n rows whenever 2n values fit local memory: the
// documents' single-work-group back-substitution.
func TestUntiledBackSubstitution(t *testing.T) {
	dev := testDevice(t)
	a, b := randomSystem(64, 3, true)
	_, rep, err := Solve(dev, a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BackSubTiles != 1 {
		t.Errorf("%d tiles for n = 64, want 1", rep.BackSubTiles)
	}
	if got := tileRows(dev, 1<<30, 8, 0); int64(2*8*got) > dev.Info().LocalMemBytes {
		t.Errorf("tile of %d rows does not fit %d bytes of local memory", got, dev.Info().LocalMemBytes)
	}
}
