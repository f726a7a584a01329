package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withStdio runs f with os.Stdin reading input and returns what it wrote
// to os.Stdout and os.Stderr.
func withStdio(t *testing.T, input string, f func()) (stdout, stderr string) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { inW.WriteString(input); inW.Close() }()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	oldIn, oldOut, oldErr := os.Stdin, os.Stdout, os.Stderr
	os.Stdin, os.Stdout, os.Stderr = inR, outW, errW
	outC, errC := make(chan string), make(chan string)
	go func() { var b bytes.Buffer; b.ReadFrom(outR); outC <- b.String() }()
	go func() { var b bytes.Buffer; b.ReadFrom(errR); errC <- b.String() }()
	f()
	outW.Close()
	errW.Close()
	os.Stdin, os.Stdout, os.Stderr = oldIn, oldOut, oldErr
	inR.Close()
	return <-outC, <-errC
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.go")
	os.WriteFile(good, []byte("x := 6\nfunc sq(v int) int { return v * v }\nfmt.Println(\"square\", sq(x))\n"), 0o644)
	var code int
	out, _ := withStdio(t, "", func() { code = runMain([]string{"run", good}, os.Stdout, os.Stderr) })
	if code != 0 || out != "square 36\n" {
		t.Fatalf("run good.go: exit %d, output %q", code, out)
	}

	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("fmt.Println(\"first\")\nvar s []int\n_ = s[1]\nfmt.Println(\"not reached\")\n"), 0o644)
	var errBuf bytes.Buffer
	out, _ = withStdio(t, "", func() { code = runMain([]string{"run", bad}, os.Stdout, &errBuf) })
	if code != 1 || out != "first\n" || !strings.Contains(errBuf.String(), "bad.go") {
		t.Fatalf("run bad.go: exit %d, output %q, error %q", code, out, errBuf.String())
	}

	// A program from standard input: package main and func main.
	prog := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"from main\")\n}\n"
	out, _ = withStdio(t, prog, func() { code = runMain([]string{"run", "-"}, os.Stdout, os.Stderr) })
	if code != 0 || out != "from main\n" {
		t.Fatalf("run -: exit %d, output %q", code, out)
	}

	errBuf.Reset()
	if code = runMain([]string{"run"}, os.Stdout, &errBuf); code != 2 {
		t.Fatalf("run without a file: exit %d", code)
	}
	if code = runMain([]string{"run", filepath.Join(dir, "missing.go")}, os.Stdout, &errBuf); code != 1 {
		t.Fatalf("run of a missing file: exit %d", code)
	}
}
