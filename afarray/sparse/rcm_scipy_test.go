package sparse

import "testing"

// indexRow holds the INDEX.md figures of one shared matrix.
type indexRow struct {
	name                 string
	n, nnzLower, nnzFull int
	bwOrig, bwRCM        int
	profileOrig, profRCM int64
}

// indexTable is INDEX.md's table (computed there with SciPy 1.10.1).
var indexTable = []indexRow{
	{"LFAT5", 14, 30, 46, 5, 3, 43, 19},
	{"LF10", 18, 50, 82, 3, 3, 40, 40},
	{"bcsstk01", 48, 224, 400, 35, 27, 851, 654},
	{"mesh1e1", 48, 177, 306, 47, 15, 685, 440},
	{"bcsstk02", 66, 2211, 4356, 65, 65, 2145, 2145},
	{"nos4", 100, 347, 594, 13, 16, 766, 816},
	{"bcsstk03", 112, 376, 640, 7, 3, 544, 272},
	{"lund_a", 147, 1298, 2449, 23, 23, 2870, 2303},
	{"nos3", 960, 8402, 15844, 43, 79, 39101, 46171},
	{"nasa1824", 1824, 20516, 39208, 239, 263, 205547, 227277},
	{"bcsstk13", 2003, 42943, 83883, 1250, 562, 434798, 611110},
	{"bcsstk24", 3562, 81736, 159910, 3333, 305, 2028160, 603200},
	{"bcsstk15", 3948, 60882, 117816, 437, 560, 994170, 1439697},
	{"msc04515", 4515, 51111, 97707, 162, 176, 700487, 435264},
	{"crystm01", 4875, 55107, 105339, 237, 130, 1078200, 360168},
	{"bcsstk16", 4884, 147631, 290378, 140, 320, 610382, 622603},
	{"bcsstk38", 8032, 181746, 355460, 6029, 609, 1683633, 2435526},
}

// TestIndexFigures checks n, nnz, bandwidth and profile of the natural
// ordering exactly against INDEX.md, and logs the RCM comparison with SciPy.
// The RCM figures must be within 25% of SciPy's: both are heuristics with
// different start vertices and tie breaks.
func TestIndexFigures(t *testing.T) {
	for _, r := range indexTable {
		c := readShared(t, r.name)
		full, err := c.Full()
		if err != nil {
			t.Fatal(err)
		}
		bw, err := Bandwidth(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		prof, _ := Profile(c, nil)
		if c.Rows != r.n || c.NNZ() != r.nnzLower || full.NNZ() != r.nnzFull || bw != r.bwOrig || prof != r.profileOrig {
			t.Errorf("%s: n=%d nnz=%d/%d bw=%d profile=%d, INDEX says %d %d/%d %d %d", r.name, c.Rows, c.NNZ(), full.NNZ(), bw, prof, r.n, r.nnzLower, r.nnzFull, r.bwOrig, r.profileOrig)
		}
		perm, err := ReverseCuthillMcKee(c)
		if err != nil {
			t.Fatal(err)
		}
		bwR, _ := Bandwidth(c, perm)
		profR, _ := Profile(c, perm)
		t.Logf("| %-9s | %6d | %4d -> %4d (scipy %4d) | %9d | %9d | %9d | %+6.1f%% |", r.name, r.n, r.bwOrig, bwR, r.bwRCM, r.profileOrig, profR, r.profRCM, 100*float64(profR-r.profRCM)/float64(r.profRCM))
		if float64(profR) > 1.25*float64(r.profRCM) {
			t.Errorf("%s: RCM profile %d much worse than SciPy's %d", r.name, profR, r.profRCM)
		}
	}
}
