package main

import (
	"fmt"
	"strings"

	"github.com/oclsolve/oclsolve/afarray/solver"
	"github.com/oclsolve/oclsolve/kernels"
)

// devicesHelp documents --devices on solve and bench.
const devicesHelp = "devices to spread the solve over: all (every device of the default's type), or a comma-separated list of " +
	"indices or names (0,1 or gpu), NAME:K splitting a device into K parts (cpu:2); default the one default device (OCLSOLVE_DEVICE)"

// deviceShareReport is one device's part of a multi-device solve in the
// JSON report.
type deviceShareReport struct {
	Device    string `json:"device"`
	Rows      int    `json:"rows"`
	NNZ       int    `json:"nnz"`
	Halo      int    `json:"halo"`
	Send      int    `json:"send"`
	PeakBytes int64  `json:"peak_bytes"`
}

// selectDevices resolves --devices; a list of more than one device is
// refused (listing what can run on several) unless the method, format and
// variant have a multi-device implementation. Empty format and variant mean
// the method's defaults and are checked against every registered pair.
func selectDevices(spec, method, format, variant string) ([]*kernels.Device, error) {
	devs, err := kernels.SelectDevices(spec)
	if err != nil {
		return nil, fmt.Errorf("--devices: %w", err)
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("--devices %q: no device", spec)
	}
	if len(devs) == 1 || method == "" || multiDevice(method, format, variant) {
		return devs, nil
	}
	var names []string
	for _, c := range solver.MultiDevice() {
		names = append(names, fmt.Sprintf("--method %s --format %s --variant %s", c.Method, c.Format, c.Variant))
	}
	return nil, fmt.Errorf("%w: --devices names %d devices (%s); only %s run on several",
		errUsage, len(devs), kernels.Labels(devs), strings.Join(names, "; "))
}

func multiDevice(method, format, variant string) bool {
	for _, c := range solver.MultiDevice() {
		if string(c.Method) == method && string(c.Format) == format && string(c.Variant) == variant {
			return true
		}
	}
	return false
}

func deviceLaunches(devs []*kernels.Device) int64 {
	var n int64
	for _, d := range devs {
		n += d.Launches()
	}
	return n
}
