package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpExitsZero asks every subcommand for help, with -h and --help:
// each prints its usage on standard output, does nothing else, and exits
// 0. A command with flags lists them.
func TestHelpExitsZero(t *testing.T) {
	withFlags := map[string]string{"info": "-json", "stat": "-json", "solve": "-method", "repl": "-history",
		"bench thesis": "-sizes", "gen model1": "-order", "notebook run": "-q", "kernel install": "-prefix"}
	var cmds []string
	for name := range commands {
		cmds = append(cmds, name)
	}
	for words := range withFlags {
		if strings.Contains(words, " ") {
			cmds = append(cmds, words)
		}
	}
	for _, words := range cmds {
		for _, h := range []string{"-h", "--help"} {
			args := append(strings.Fields(words), h)
			var out, errOut bytes.Buffer
			code := runMain(args, &out, &errOut)
			name := strings.Fields(words)[0]
			if code != 0 || !strings.HasPrefix(out.String(), "usage: oclsolve "+name) || errOut.Len() != 0 {
				t.Errorf("oclsolve %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out.String(), errOut.String())
			}
			if flag, ok := withFlags[words]; ok && !strings.Contains(out.String(), flag) {
				t.Errorf("oclsolve %s does not list %s: %q", strings.Join(args, " "), flag, out.String())
			}
		}
	}
	var out bytes.Buffer
	if code := runMain([]string{"help", "stat"}, &out, &out); code != 0 {
		t.Errorf("oclsolve help stat: exit %d", code)
	}
	if code := runMain([]string{"stat", "--bogus"}, &out, &out); code != 2 {
		t.Errorf("an unknown flag: exit %d, want 2", code)
	}
}
