package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/oclsolve/oclsolve/kernels"
)

// The warmup command builds every OpenCL program oclsolve has for the
// chosen device ahead of use, so that the first real solve does not wait
// for the compiler (tens of seconds with a cold PoCL). It does so the one
// way that builds exactly what solves use: it runs every method x format x
// variant of `oclsolve solve` once on a small system (a tridiagonal one for
// the cyclic-reduction suites, a Poisson grid for bcr, a random SPD matrix
// otherwise). Launching also makes drivers that finish compiling at the
// first launch (PoCL, per work-group size) do so. The programs land in the
// disk cache (kernels.CacheDir) and PoCL's own.
func init() {
	register(&command{
		name:    "warmup",
		usage:   "[-q]",
		summary: "build every OpenCL program for the device (OCLSOLVE_DEVICE) ahead of the first solve",
		run:     runWarmup,
	})
}

// warmupProblem is the small system a storage format is warmed up on.
func warmupProblem(format string) string {
	switch format {
	case "tridiag":
		return "poisson1d:64"
	case "grid":
		return "poisson2d:7x8"
	}
	return "randspd:48"
}

func runWarmup(args []string) error {
	fs := newFlagSet("warmup")
	quiet := fs.Bool("q", false, "print only the summary")
	if _, err := parseFlags(fs, args, 0, 0, ""); err != nil {
		return err
	}
	dev, err := kernels.Default()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(solveMethods))
	for n := range solveMethods {
		names = append(names, n)
	}
	sort.Strings(names)
	start, compile0 := time.Now(), dev.CompileTime()
	runs, failed := 0, 0
	for _, name := range names {
		m := solveMethods[name]
		for _, format := range m.formats {
			for _, variant := range m.variants {
				if m.has != nil && !m.has(format, variant) {
					continue // not registered (supernodal has no thesis variant)
				}
				o := solveOptions{Method: name, Format: format, Variant: variant, Order: "natural", Seed: 1, Device: dev}
				t, c := time.Now(), dev.CompileTime()
				err := warmupOne(m, &o)
				runs++
				switch {
				case err != nil:
					failed++
					fmt.Fprintf(os.Stderr, "warmup: %s %s %s: %v\n", name, format, variant, err)
				case !*quiet:
					fmt.Printf("%-12s %-8s %-8s built in %6.2f s (run %6.2f s)\n", name, format, variant,
						(dev.CompileTime() - c).Seconds(), time.Since(t).Seconds())
				}
			}
		}
	}
	fmt.Printf("warmup: %d method/format/variant runs on %s, %.1f s building programs, %.1f s in all; cache %s\n",
		runs, dev.Name(), (dev.CompileTime() - compile0).Seconds(), time.Since(start).Seconds(), cacheWhere())
	if failed > 0 {
		return fmt.Errorf("%d of %d warm-up runs failed", failed, runs)
	}
	return nil
}

// warmupOne runs one method x format x variant on its small system.
func warmupOne(m *solveMethod, o *solveOptions) error {
	p, err := loadProblem(warmupProblem(o.Format), o)
	if err != nil {
		return err
	}
	if p.B == nil {
		if p.B, err = makeRHS("ones", p.N, o.Seed); err != nil {
			return err
		}
	}
	_, err = m.run(p, o)
	return err
}

func cacheWhere() string {
	if dir := kernels.CacheDir(); dir != "" {
		return dir
	}
	return "off"
}
