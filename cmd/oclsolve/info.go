package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/oclsolve/oclsolve/kernels"
)

// version is set at link time (-ldflags "-X main.version=..."); otherwise the
// module's build information is used.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
		if v != "" {
			return v + " (" + bi.GoVersion + ")"
		}
	}
	return "devel"
}

func init() {
	register(&command{
		name: "version", summary: "print the oclsolve version",
		run: func(args []string) error {
			if _, err := parseFlags(newFlagSet("version"), args, 0, 0, ""); err != nil {
				return err
			}
			fmt.Println("oclsolve", versionString())
			return nil
		},
	})
	register(&command{
		name: "info", usage: "[--json]", summary: "describe every OpenCL platform and device",
		run: runInfo,
	})
}

// infoDocument is the JSON of `oclsolve info --json`: every device with the
// fields of kernels.DeviceInfo (each carries "name" and the "fp64" boolean),
// and the index of the device oclsolve would use by default.
type infoDocument struct {
	Version      string               `json:"version"`
	Devices      []kernels.DeviceInfo `json:"devices"`
	Default      int                  `json:"default"` // index into devices, -1 if none
	DefaultError string               `json:"default_error,omitempty"`
	CacheDir     string               `json:"program_cache"`
}

func runInfo(args []string) error {
	fs := newFlagSet("info")
	asJSON := fs.Bool("json", false, "print one JSON document")
	if _, err := parseFlags(fs, args, 0, 0, ""); err != nil {
		return err
	}
	devs, err := kernels.Devices()
	if err != nil {
		return err
	}
	doc := infoDocument{Version: versionString(), Default: -1, CacheDir: kernels.CacheDir()}
	for _, d := range devs {
		doc.Devices = append(doc.Devices, d.Info())
	}
	if d, err := kernels.Default(); err == nil {
		doc.Default = d.Info().Index
	} else {
		doc.DefaultError = err.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Printf("oclsolve %s: %d OpenCL device(s)\n\n", doc.Version, len(devs))
	for _, d := range doc.Devices {
		d.WriteText(os.Stdout)
		fmt.Println()
	}
	if doc.Default >= 0 {
		fmt.Printf("default device: %d (%s); set OCLSOLVE_DEVICE to an index, a name fragment, gpu or cpu to change it\n", doc.Default, doc.Devices[doc.Default].Name)
	} else {
		fmt.Printf("no default device: %s\n", doc.DefaultError)
	}
	if doc.CacheDir != "" {
		fmt.Printf("program cache: %s\n", doc.CacheDir)
	}
	return nil
}
