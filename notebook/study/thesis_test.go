package study

import "testing"

// TestThesisTables checks the transcription in thesis_tables.json: every
// table present, its rows as wide as the thesis prints them, and a few
// entries read back from the thesis.
func TestThesisTables(t *testing.T) {
	for _, tc := range []struct {
		name        string
		table       map[int][]float64
		rows, width int
	}{
		{"Table 10", ThesisModel1Memory, 10, 10},
		{"Table 11", ThesisModel1Time, 10, 10},
		{"Table 12", ThesisModel2Memory, 10, 10},
		{"Table 13", ThesisModel2Time, 5, 10},
		{"Table 14", ThesisModel2Best, 8, 4},
		{"Tables 16, 18", ThesisModel2SKSTime, 16, 4},
	} {
		if len(tc.table) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(tc.table), tc.rows)
		}
		for n, row := range tc.table {
			if len(row) != tc.width {
				t.Errorf("%s, n = %d: %d columns, want %d", tc.name, n, len(row), tc.width)
			}
		}
	}
	if len(ThesisModel2SKSLen) != 16 {
		t.Errorf("Table 15: %d rows, want 16", len(ThesisModel2SKSLen))
	}
	for _, c := range []struct {
		got, want float64
	}{
		{ThesisModel1Memory[1080][0], 9.34},
		{ThesisModel1Time[10044][9], 160.84},
		{ThesisModel2Memory[51156][0], 20935.90},
		{ThesisModel2Time[10449][6], 281.13},
		{ThesisModel2Best[28773][1], 176.27},
		{ThesisModel2SKSLen[142422], 185245727},
		{ThesisModel2SKSTime[142422][3], 23.86},
	} {
		if c.got != c.want {
			t.Errorf("entry %g, want %g", c.got, c.want)
		}
	}
}
