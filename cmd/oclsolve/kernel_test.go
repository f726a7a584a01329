package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestKernelInstall(t *testing.T) {
	dir := t.TempDir()
	var code int
	withStdio(t, "", func() { code = runMain([]string{"kernel", "install", "--prefix", dir}, os.Stdout, io.Discard) })
	if code != 0 {
		t.Fatalf("kernel install: exit %d", code)
	}
	b, err := os.ReadFile(filepath.Join(dir, "share", "jupyter", "kernels", "oclsolve", "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Argv     []string `json:"argv"`
		Language string   `json:"language"`
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if err := json.Unmarshal(b, &spec); err != nil || spec.Language != "go" || len(spec.Argv) != 3 || spec.Argv[0] != exe || spec.Argv[1] != "kernel" {
		t.Fatalf("kernel.json: %s", b)
	}

	t.Setenv("JUPYTER_DATA_DIR", filepath.Join(dir, "data"))
	withStdio(t, "", func() { code = runMain([]string{"kernel", "install", "--user"}, os.Stdout, io.Discard) })
	if _, err := os.Stat(filepath.Join(dir, "data", "kernels", "oclsolve", "kernel.json")); code != 0 || err != nil {
		t.Fatalf("kernel install --user: exit %d, %v", code, err)
	}

	for _, args := range [][]string{{"kernel"}, {"kernel", "install", "--user", "--prefix", dir}, {"kernel", "a", "b"}} {
		if code := runMain(args, io.Discard, io.Discard); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	conn := filepath.Join(dir, "conn.json")
	os.WriteFile(conn, []byte(`{"transport":"tcp","ip":"127.0.0.1","key":"","signature_scheme":"hmac-sha256"}`), 0o600)
	if code := runMain([]string{"kernel", conn}, io.Discard, io.Discard); code != 1 {
		t.Errorf("a connection file without a key: exit %d, want 1", code)
	}
}
