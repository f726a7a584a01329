package main

import (
	"strings"
	"testing"
)

// --devices 0:2 splits the one CI device in two and runs CG on both parts;
// lists that cannot work are usage errors that name the devices.
func TestSolveDevices(t *testing.T) {
	rep, code, stderr := solveJSON(t, "--method", "cg", "--jacobi", "--tol", "1e-10", "--devices", "0:2", "model1:500")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	devs, _ := rep["devices"].([]any)
	if len(devs) != 2 || !strings.Contains(rep["device"].(string), "2/2") {
		t.Fatalf("devices %v, device %q", rep["devices"], rep["device"])
	}
	rows := 0.0
	for _, d := range devs {
		rows += d.(map[string]any)["rows"].(float64)
	}
	if rows != rep["n"].(float64) || rep["backward_error"].(float64) > 1e-13 || rep["iterations"].(float64) < 1 {
		t.Errorf("report %v", rep)
	}
	// The supernodal Cholesky (the default format) on both parts.
	rep, code, stderr = solveJSON(t, "--method", "cholesky", "--order", "nd", "--devices", "0:2", "model1:2000")
	if code != 0 {
		t.Fatalf("cholesky: exit %d: %s", code, stderr)
	}
	devs, _ = rep["devices"].([]any)
	rows = 0
	for _, d := range devs {
		rows += d.(map[string]any)["rows"].(float64)
	}
	if len(devs) != 2 || rows != rep["n"].(float64) || rep["backward_error"].(float64) > 1e-14 || rep["nnz_l"].(float64) <= 0 {
		t.Errorf("cholesky report %v", rep)
	}
	for _, tc := range []struct{ args, want string }{
		{"--method gj --devices 0:2", "--method cholesky --format supernodal"},
		{"--method cholesky --format sks --devices 0:2", "run on several"},
		{"--method cg --devices nosuch", "matches none of"},
		{"--method cg --devices 0,0", "twice"},
	} {
		_, code, stderr := solveJSON(t, append(strings.Fields(tc.args), "model1:500")...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q", tc.args, code, stderr)
		}
	}
}
