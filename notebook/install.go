package notebook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// KernelName is the name of oclsolve's kernelspec.
const KernelName = "oclsolve"

// KernelSpec is the kernel.json that tells Jupyter how to start the
// kernel: `oclsolve kernel CONNECTION_FILE`, interrupted by a message on
// the control channel.
func KernelSpec(executable string) map[string]any {
	return map[string]any{
		"argv":           []string{executable, "kernel", "{connection_file}"},
		"display_name":   "Go (oclsolve)",
		"language":       "go",
		"interrupt_mode": "message",
		"metadata":       map[string]any{"debugger": false},
	}
}

// UserKernelsDir is where Jupyter looks for a user's kernelspecs:
// $JUPYTER_DATA_DIR/kernels, else ~/.local/share/jupyter/kernels.
func UserKernelsDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "jupyter", "kernels"), nil
}

// PrefixKernelsDir is the kernelspec directory under an installation
// prefix, as `jupyter kernelspec install --prefix` uses it.
func PrefixKernelsDir(prefix string) string {
	return filepath.Join(prefix, "share", "jupyter", "kernels")
}

// InstallKernelSpec writes kernelsDir/oclsolve/kernel.json for the given
// executable, which must be an absolute path, and returns the directory.
func InstallKernelSpec(kernelsDir, executable string) (string, error) {
	if !filepath.IsAbs(executable) {
		return "", fmt.Errorf("notebook: kernel executable %q is not an absolute path", executable)
	}
	dir := filepath.Join(kernelsDir, KernelName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(KernelSpec(executable), "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	return dir, nil
}
