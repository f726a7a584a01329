package kernels

import (
	"fmt"
	"io"
	"strings"

	"github.com/jgillich/go-opencl/cl"
)

// DeviceInfo describes one OpenCL device, like NVIDIA's oclDeviceQuery. Field
// names are the JSON document of `oclsolve info --json`.
type DeviceInfo struct {
	Index            int      `json:"index"` // position in Devices()
	Platform         string   `json:"platform"`
	PlatformVersion  string   `json:"platform_version"`
	Name             string   `json:"name"`
	Vendor           string   `json:"vendor"`
	Type             string   `json:"type"` // "GPU", "CPU", "Accelerator", ...
	DriverVersion    string   `json:"driver_version"`
	DeviceVersion    string   `json:"device_version"`
	OpenCLCVersion   string   `json:"opencl_c_version"`
	ComputeUnits     int      `json:"compute_units"`
	ClockMHz         int      `json:"clock_mhz"`
	GlobalMemBytes   int64    `json:"global_mem_bytes"`
	LocalMemBytes    int64    `json:"local_mem_bytes"`
	MaxAllocBytes    int64    `json:"max_alloc_bytes"`
	MaxWorkGroupSize int      `json:"max_work_group_size"`
	MaxWorkItemSizes []int    `json:"max_work_item_sizes"`
	FP64             bool     `json:"fp64"`
	Int64Atomics     bool     `json:"int64_atomics"`
	ImageSupport     bool     `json:"image_support"`
	Image2DMax       [2]int   `json:"image2d_max"` // width, height
	Extensions       []string `json:"extensions"`
	// NVComputeMajor and NVComputeMinor are an NVIDIA device's compute
	// capability (cl_nv_device_attribute_query), 0 where the device does
	// not list that extension. Kernels gate PTX instructions on it (the
	// LU's redux.sync needs 8.0).
	NVComputeMajor int      `json:"nv_compute_major,omitempty"`
	NVComputeMinor int      `json:"nv_compute_minor,omitempty"`
	Errors         []string `json:"errors,omitempty"` // properties the driver failed to report
}

// queryInfo reads a device's properties. go-opencl's getters panic on a
// driver error; each is guarded so that one bad property does not hide the
// device.
func queryInfo(index int, p *cl.Platform, d *cl.Device) DeviceInfo {
	info := DeviceInfo{Index: index}
	get := func(what string, f func()) {
		defer func() {
			if r := recover(); r != nil {
				info.Errors = append(info.Errors, fmt.Sprintf("%s: %v", what, r))
			}
		}()
		f()
	}
	get("platform", func() { info.Platform = strings.TrimSpace(p.Name()) })
	get("platform version", func() { info.PlatformVersion = strings.TrimSpace(p.Version()) })
	get("name", func() { info.Name = strings.TrimSpace(d.Name()) })
	get("vendor", func() { info.Vendor = strings.TrimSpace(d.Vendor()) })
	get("type", func() { info.Type = d.Type().String() })
	get("driver", func() { info.DriverVersion = d.DriverVersion() })
	get("version", func() { info.DeviceVersion = d.Version() })
	get("opencl c", func() { info.OpenCLCVersion = d.OpenCLCVersion() })
	get("compute units", func() { info.ComputeUnits = d.MaxComputeUnits() })
	get("clock", func() { info.ClockMHz = d.MaxClockFrequency() })
	get("global memory", func() { info.GlobalMemBytes = d.GlobalMemSize() })
	get("local memory", func() { info.LocalMemBytes = d.LocalMemSize() })
	get("max allocation", func() { info.MaxAllocBytes = d.MaxMemAllocSize() })
	get("max work-group", func() { info.MaxWorkGroupSize = d.MaxWorkGroupSize() })
	get("max work-item sizes", func() { info.MaxWorkItemSizes = d.MaxWorkItemSizes() })
	get("image support", func() { info.ImageSupport = d.ImageSupport() })
	if info.ImageSupport {
		get("image2d limits", func() { info.Image2DMax = [2]int{d.Image2DMaxWidth(), d.Image2DMaxHeight()} })
	}
	get("extensions", func() { info.Extensions = strings.Fields(d.Extensions()) })
	for _, e := range info.Extensions {
		switch e {
		case "cl_khr_fp64":
			info.FP64 = true
		case "cl_khr_int64_base_atomics":
			info.Int64Atomics = true
		case "cl_nv_device_attribute_query":
			if major, minor, err := nvComputeCapability(d); err != nil {
				info.Errors = append(info.Errors, fmt.Sprintf("compute capability: %v", err))
			} else {
				info.NVComputeMajor, info.NVComputeMinor = major, minor
			}
		}
	}
	return info
}

// The codes of cl_nv_device_attribute_query's compute capability
// (CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, _MINOR_NV in cl_ext.h).
const (
	clDeviceComputeCapabilityMajorNV = 0x4000
	clDeviceComputeCapabilityMinorNV = 0x4001
)

// nvComputeCapability reads an NVIDIA device's compute capability.
func nvComputeCapability(d *cl.Device) (major, minor int, err error) {
	ma, err := deviceUint(d, clDeviceComputeCapabilityMajorNV)
	if err != nil {
		return 0, 0, err
	}
	mi, err := deviceUint(d, clDeviceComputeCapabilityMinorNV)
	if err != nil {
		return 0, 0, err
	}
	return int(ma), int(mi), nil
}

// WriteText prints the info in oclDeviceQuery's style.
func (i DeviceInfo) WriteText(w io.Writer) {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(w, "Device %d: %s\n", i.Index, i.Name)
	fmt.Fprintf(w, "  platform:             %s (%s)\n", i.Platform, i.PlatformVersion)
	fmt.Fprintf(w, "  vendor:               %s\n", i.Vendor)
	fmt.Fprintf(w, "  type:                 %s\n", i.Type)
	fmt.Fprintf(w, "  driver version:       %s\n", i.DriverVersion)
	fmt.Fprintf(w, "  device version:       %s\n", i.DeviceVersion)
	fmt.Fprintf(w, "  OpenCL C version:     %s\n", i.OpenCLCVersion)
	fmt.Fprintf(w, "  compute units:        %d\n", i.ComputeUnits)
	fmt.Fprintf(w, "  clock:                %d MHz\n", i.ClockMHz)
	fmt.Fprintf(w, "  global memory:        %s\n", FormatBytes(i.GlobalMemBytes))
	fmt.Fprintf(w, "  local memory:         %s\n", FormatBytes(i.LocalMemBytes))
	fmt.Fprintf(w, "  max allocation:       %s\n", FormatBytes(i.MaxAllocBytes))
	fmt.Fprintf(w, "  max work-group size:  %d\n", i.MaxWorkGroupSize)
	fmt.Fprintf(w, "  max work-item sizes:  %v\n", i.MaxWorkItemSizes)
	fmt.Fprintf(w, "  fp64:                 %s\n", yes(i.FP64))
	fmt.Fprintf(w, "  int64 atomics:        %s\n", yes(i.Int64Atomics))
	if i.NVComputeMajor > 0 {
		fmt.Fprintf(w, "  compute capability:   %d.%d\n", i.NVComputeMajor, i.NVComputeMinor)
	}
	fmt.Fprintf(w, "  images:               %s", yes(i.ImageSupport))
	if i.ImageSupport {
		fmt.Fprintf(w, " (2-D up to %d x %d)", i.Image2DMax[0], i.Image2DMax[1])
	}
	fmt.Fprintln(w)
	for _, e := range i.Errors {
		fmt.Fprintf(w, "  (not reported: %s)\n", e)
	}
}
