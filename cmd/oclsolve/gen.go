package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/fem"
)

// The gen command generates the thesis's structural test systems (package
// fem) and writes them as OpenFEM and/or Matrix Market files.

func init() {
	register(&command{
		name:    "gen",
		usage:   "model1|model2 (--order N | --mesh AxBxC) [--numbering natural|rcm] [--format openfem|mtx|both|npz] -o DIR",
		summary: "generate a thesis FE stiffness system (cantilever or bridge pier)",
		run:     func(args []string) error { return runGen(args, os.Stdout) },
	})
}

func runGen(args []string, stdout io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("%w: gen needs a model name, model1 or model2", errUsage)
	}
	model := args[0]
	if model != "model1" && model != "model2" {
		return fmt.Errorf("%w: unknown model %q (want model1 or model2)", errUsage, model)
	}
	fs := newFlagSet("gen " + model)
	order := fs.Int("order", 0, "system order n: the mesh with exactly n DOFs, else the nearest")
	meshArg := fs.String("mesh", "", "mesh AxBxC (model1: divisions along length, width, depth; model2: see package fem)")
	numArg := fs.String("numbering", "", "node numbering, natural or rcm (default: natural for model1, rcm for model2, as in the thesis)")
	format := fs.String("format", fem.FormatBoth, "output files: openfem, mtx, both, or npz (SciPy save_npz CSC of the lower triangle and a .npy load vector)")
	dir := fs.String("o", "", "output directory (required)")
	if _, err := parseFlags(fs, args[1:], 0, 0, ""); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("%w: -o DIR is required", errUsage)
	}
	if (*order == 0) == (*meshArg == "") {
		return fmt.Errorf("%w: give exactly one of --order and --mesh", errUsage)
	}
	if *format != fem.FormatOpenFEM && *format != fem.FormatMatrixMarket && *format != fem.FormatBoth && *format != fem.FormatNPZ {
		return fmt.Errorf("%w: unknown format %q (want openfem, mtx, both or npz)", errUsage, *format)
	}
	numName := *numArg
	if numName == "" {
		numName = map[string]string{"model1": "natural", "model2": "rcm"}[model]
	}
	num, err := fem.ParseNumbering(numName)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}

	var a, b, c int
	if *order != 0 {
		var exact bool
		if model == "model1" {
			a, b, c, exact, err = fem.Model1ForOrder(*order)
		} else {
			a, b, c, exact, err = fem.Model2ForOrder(*order)
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		if !exact {
			fmt.Fprintf(stdout, "no %s mesh has exactly %d DOFs; using the nearest, %s\n", model, *order, fem.FormatGrid(a, b, c))
		}
	} else if a, b, c, err = fem.ParseGrid(*meshArg); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}

	var sys *fem.System
	if model == "model1" {
		sys, err = fem.Model1(fem.Model1Options{NX: a, NY: b, NZ: c, Numbering: num})
	} else {
		sys, err = fem.Model2(fem.Model2Options{A: a, B: b, C: c, Numbering: num})
	}
	if err != nil {
		return err
	}
	paths, err := sys.WriteFiles(*dir, *format)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s mesh %s (%s numbering): n = %d, nnz = %d (full), %d nodes, %d elements, assembled in %v\n",
		sys.Name, sys.Grid, sys.Numbering, sys.NumDOF, sys.K.NNZ(), sys.Mesh.NumNodes(), sys.Mesh.NumElems(), sys.AssemblyTime)
	for _, p := range paths {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return nil
}
