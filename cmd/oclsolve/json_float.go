package main

import (
	"encoding/json"
	"math"
)

// jsonFloat is a figure of a report that may be NaN or infinite: the
// backward error or residual of a solve that failed. JSON has no such
// numbers and encoding/json refuses them, so a failed run's --json used to
// print only the encoder's complaint; jsonFloat writes null instead, and
// the report's "error" field says what went wrong.
type jsonFloat float64

// MarshalJSON writes f as encoding/json writes a float64, or null when f
// is not finite.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	return marshalFinite(float64(f))
}

// marshalFinite is json.Marshal(v) for a finite v and null otherwise.
func marshalFinite(v float64) ([]byte, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// jsonFloats converts a history of figures (residual norms) to jsonFloat.
func jsonFloats(v []float64) []jsonFloat {
	if v == nil {
		return nil
	}
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return out
}
