package kernels

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jgillich/go-opencl/cl"
)

// Device lists: the devices one solve spreads over (`--devices`). A list is
// "all", or comma-separated items each naming one device as Select does
// ("0", "gpu", "h200"), optionally with ":K" to split that device into K
// parts: K sub-devices of equal compute units (clCreateSubDevices with
// CL_DEVICE_PARTITION_EQUALLY) where the driver can partition it, else K
// instances (each its own context and queue on the same device). Splitting
// is what lets a machine with one device (PoCL on the CI's CPU) run the
// multi-device code paths: "cpu:2".

var splits = struct {
	sync.Mutex
	byKey map[[2]int][]*Device // (device index, parts) -> parts
}{byKey: map[[2]int][]*Device{}}

// SelectDevices resolves a device list. "" means the default device alone
// (Default); "all" every device of the default device's type with double
// precision (every GPU of a GPU host), in platform order. A device named
// twice, an unknown name and a bad split count are errors; an unknown name's
// error lists the devices that exist.
func SelectDevices(spec string) ([]*Device, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		d, err := Default()
		if err != nil {
			return nil, err
		}
		return []*Device{d}, nil
	}
	if strings.EqualFold(s, "all") {
		return allOfDefaultType()
	}
	var out []*Device
	seen := map[int]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		name, parts := item, 1
		if i := strings.LastIndexByte(item, ':'); i >= 0 {
			k, err := strconv.Atoi(strings.TrimSpace(item[i+1:]))
			if err != nil || k < 1 || k > 64 {
				return nil, fmt.Errorf("%w: device list item %q: want NAME or NAME:K with 1 <= K <= 64", ErrNoDevice, item)
			}
			name, parts = strings.TrimSpace(item[:i]), k
		}
		if name == "" {
			return nil, fmt.Errorf("%w: empty item in device list %q", ErrNoDevice, spec)
		}
		d, err := Select(name)
		if err != nil {
			return nil, fmt.Errorf("device list item %q: %w", item, err)
		}
		if prev, ok := seen[d.info.Index]; ok {
			return nil, fmt.Errorf("%w: device list %q names device %d (%s) twice (%q and %q); write %s:2 to split it in two",
				ErrNoDevice, spec, d.info.Index, d.info.Name, prev, item, name)
		}
		seen[d.info.Index] = item
		if parts == 1 {
			out = append(out, d)
			continue
		}
		ps, err := d.Split(parts)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

func allOfDefaultType() ([]*Device, error) {
	def, err := Default()
	if err != nil {
		return nil, err
	}
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	var out []*Device
	for _, d := range devs {
		if d == def || (d.info.Type == def.info.Type && d.info.FP64 && def.info.FP64) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Split returns k parts of the device: sub-devices of equal compute units
// where the driver can partition it (CL_DEVICE_PARTITION_EQUALLY), else k
// instances (a context and queue each on the same device). The parts are
// made once per device and k and kept for the process. Each part's memory
// account allows 1/k of the device's global memory, since the parts share
// it. Split(1) returns the device itself.
func (d *Device) Split(k int) ([]*Device, error) {
	if k == 1 {
		return []*Device{d}, nil
	}
	if k < 1 {
		return nil, fmt.Errorf("%w: split of %s into %d parts", ErrNoDevice, d.info.Name, k)
	}
	if d.parent != nil {
		return nil, fmt.Errorf("%w: %s is already a part of a device", ErrNoDevice, d.Label())
	}
	splits.Lock()
	defer splits.Unlock()
	key := [2]int{d.info.Index, k}
	if ps, ok := splits.byKey[key]; ok {
		return ps, nil
	}
	kind := "sub-device"
	var subs []*cl.Device
	if units := d.info.ComputeUnits / k; units >= 1 {
		if ds, err := createSubDevices(d.dev, units, k); err == nil && len(ds) == k {
			subs = ds
		} else if err == nil {
			releaseSubDevices(ds) // too few parts: instances instead
		}
	}
	if subs == nil {
		kind = "instance"
	}
	ps := make([]*Device, k)
	for i := range ps {
		info := d.info
		if info.GlobalMemBytes > 0 {
			info.GlobalMemBytes /= int64(k)
		}
		p := &Device{info: info, platform: d.platform, dev: d.dev, parent: d,
			part: fmt.Sprintf("%s %d/%d", kind, i+1, k)}
		if subs != nil {
			p.dev = subs[i]
			p.info.ComputeUnits = d.info.ComputeUnits / k
		}
		ps[i] = p
	}
	splits.byKey[key] = ps
	return ps, nil
}

// allDevices returns the discovered devices and every part made of them.
func allDevices() []*Device {
	devs, _ := Devices()
	out := append([]*Device(nil), devs...)
	splits.Lock()
	defer splits.Unlock()
	for _, ps := range splits.byKey {
		out = append(out, ps...)
	}
	return out
}

// Part says which part of its device d is ("sub-device 1/2",
// "instance 2/2"), or "" for a whole device.
func (d *Device) Part() string { return d.part }

// Label names the device and, for a part of one (Split), the part.
func (d *Device) Label() string {
	if d.part == "" {
		return d.info.Name
	}
	return d.info.Name + " [" + d.part + "]"
}

// Labels names each device of a list (Label), comma-separated.
func Labels(devs []*Device) string {
	names := make([]string, len(devs))
	for i, d := range devs {
		names[i] = d.Label()
	}
	return strings.Join(names, ", ")
}
