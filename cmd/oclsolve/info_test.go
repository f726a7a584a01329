package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// captureStdout runs f with os.Stdout redirected and returns what it wrote.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		b.ReadFrom(r)
		done <- b.Bytes()
	}()
	f()
	w.Close()
	os.Stdout = old
	return string(<-done)
}

func TestInfoJSON(t *testing.T) {
	var stderr bytes.Buffer
	var code int
	out := captureStdout(t, func() { code = runMain([]string{"info", "--json"}, os.Stdout, &stderr) })
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc struct {
		Devices []map[string]any `json:"devices"`
		Default int              `json:"default"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Devices) == 0 || doc.Default < 0 {
		t.Fatalf("no devices: %s", out)
	}
	for _, d := range doc.Devices {
		if _, ok := d["name"].(string); !ok {
			t.Errorf("device without name: %v", d)
		}
		if _, ok := d["fp64"].(bool); !ok {
			t.Errorf("device without fp64 boolean: %v", d)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"no-such-command"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d", code)
	}
}
