package study

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"sort"
)

// The thesis's published numbers, measured on a GeForce GT 630M (2 GB,
// 2019) and, for Tables 16 and 18, also a GTX 1070: what the study
// notebooks put beside their own measurements. Rows are keyed by the
// system's order; the ten-column tables are in the order of
// ThesisTechniques (D GJ, D Ch, D LDL, D CG, CSC Ch, CSC LDL, CSC CG,
// SKS Ch, SKS LDL, SKS CG). See docs/thesis.md for the tables.

// ThesisDevice names the device of the thesis's tables.
const ThesisDevice = "GeForce GT 630M (thesis, 2019)"

// thesisTables holds the tables, transcribed to thesis_tables.json as the
// thesis prints them, a row per order (data, kept apart from the code that
// plots it). The file is embedded: a malformed one fails every test of the
// package at its start, never a user.
//
//go:embed thesis_tables.json
var thesisTablesJSON []byte

var thesisTables = func() (t struct {
	Model1Memory  map[int][]float64 `json:"table10_model1_memory_mb"`
	Model1Time    map[int][]float64 `json:"table11_model1_time_s"`
	Model2Memory  map[int][]float64 `json:"table12_model2_memory_mb"`
	Model2Time    map[int][]float64 `json:"table13_model2_time_s"`
	Model2Best    map[int][]float64 `json:"table14_model2_best_time_s"`
	Model2SKSLen  map[int]float64   `json:"table15_model2_skyline_length"`
	Model2SKSTime map[int][]float64 `json:"tables16_18_model2_sks_time_s"`
}) {
	d := json.NewDecoder(bytes.NewReader(thesisTablesJSON))
	d.DisallowUnknownFields()
	if err := d.Decode(&t); err != nil {
		panic("study: thesis_tables.json: " + err.Error())
	}
	return t
}()

// Model 1 (the cantilever), Table 10: memory, MB.
var ThesisModel1Memory = thesisTables.Model1Memory

// Model 1, Table 11: factorization + solve time, s.
var ThesisModel1Time = thesisTables.Model1Time

// Model 2 (the bridge pier), Table 12: memory, MB.
var ThesisModel2Memory = thesisTables.Model2Memory

// Model 2, Table 13: time, s, the ten techniques.
var ThesisModel2Time = thesisTables.Model2Time

// Model 2, Table 14: CSC Ch, CSC LDL, SKS Ch, SKS LDL, s.
var ThesisModel2Best = thesisTables.Model2Best

// Model 2, Table 15: the skyline's length (len(elements)).
var ThesisModel2SKSLen = thesisTables.Model2SKSLen

// Model 2, Tables 16 and 18: SKS Ch, SKS LDL on the GT 630M, then on the
// GTX 1070, s.
var ThesisModel2SKSTime = thesisTables.Model2SKSTime

// ThesisColumn returns column j of a thesis table at the orders it has,
// sorted: the (x, y) of a dashed reference series.
func ThesisColumn(table map[int][]float64, j int) (x, y []float64) {
	for _, n := range sortedKeys(table) {
		if row := table[n]; j < len(row) {
			x, y = append(x, float64(n)), append(y, row[j])
		}
	}
	return x, y
}

func sortedKeys(table map[int][]float64) []int {
	keys := make([]int, 0, len(table))
	for n := range table {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	return keys
}
