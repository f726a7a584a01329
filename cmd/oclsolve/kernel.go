package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oclsolve/oclsolve/notebook"
)

func init() {
	register(&command{
		name:    "kernel",
		usage:   "CONNECTION_FILE | install [--user | --prefix DIR]",
		summary: "run as a Jupyter kernel, or install the oclsolve kernelspec",
		run:     runKernel,
	})
}

func runKernel(args []string) error {
	if len(args) > 0 && args[0] == "install" {
		return installKernel(args[1:])
	}
	pos, err := parseFlags(newFlagSet("kernel"), args, 1, 1, "a connection file, or install")
	if err != nil {
		return err
	}
	conn, err := notebook.ReadConnectionFile(pos[0])
	if err != nil {
		return err
	}
	// The interpreter runs in a supervised worker process: the kernel
	// itself (sockets, heartbeat) survives whatever a cell does to it.
	x, err := notebook.NewSupervisor(nil)
	if err != nil {
		return err
	}
	defer x.Close()
	return notebook.ServeKernel(context.Background(), conn, x)
}

func installKernel(args []string) error {
	fs := newFlagSet("kernel install")
	user := fs.Bool("user", false, "install for the current user (the default)")
	prefix := fs.String("prefix", "", "install under `DIR`/share/jupyter/kernels")
	if _, err := parseFlags(fs, args, 0, 0, ""); err != nil {
		return err
	}
	if *user && *prefix != "" {
		return fmt.Errorf("%w: kernel install takes --user or --prefix DIR", errUsage)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	var dir string
	if *prefix != "" {
		abs, err := filepath.Abs(*prefix)
		if err != nil {
			return err
		}
		dir = notebook.PrefixKernelsDir(abs)
	} else if dir, err = notebook.UserKernelsDir(); err != nil {
		return err
	}
	spec, err := notebook.InstallKernelSpec(dir, exe)
	if err != nil {
		return err
	}
	fmt.Printf("installed kernelspec %s in %s\n", notebook.KernelName, spec)
	return nil
}
