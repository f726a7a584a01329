package kernels

import (
	"fmt"
	"sync"
)

// ProgramSet is a program declared once by a package (its sources and build
// options) and built at most once per device. Device.Build caches programs
// too, by a hash of options and sources; a ProgramSet adds the memo by
// device, so that the hot path (a kernel looked up for every launch) does
// not rehash the sources. It is the one per-device program cache: packages
// declare a ProgramSet instead of keeping their own map.
type ProgramSet struct {
	Sources []Source
	// Options are the build options; OptionsFor, when set, computes them
	// for the device instead (options that depend on what it supports).
	Options    string
	OptionsFor func(*Device) string
	// NeedFP64 refuses devices without double precision with an error
	// naming the device, before any build.
	NeedFP64 bool

	mu    sync.Mutex
	built map[*Device]*Program
}

// On returns the set's program built for dev, building it on first use.
func (s *ProgramSet) On(dev *Device) (*Program, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.built[dev]; ok {
		return p, nil
	}
	if s.NeedFP64 && !dev.Info().FP64 {
		return nil, fmt.Errorf("%w: device %s has no double precision", ErrUnsupported, dev.Name())
	}
	opts := s.Options
	if s.OptionsFor != nil {
		opts = s.OptionsFor(dev)
	}
	p, err := dev.Build(opts, s.Sources...)
	if err != nil {
		return nil, err
	}
	if s.built == nil {
		s.built = map[*Device]*Program{}
	}
	s.built[dev] = p
	return p, nil
}

// Kernel returns the named kernel of the set's program on dev.
func (s *ProgramSet) Kernel(dev *Device, name string) (*Kernel, error) {
	p, err := s.On(dev)
	if err != nil {
		return nil, err
	}
	return p.Kernel(name)
}

// Kernels returns the named kernels of the set's program on dev, in the
// order named.
func (s *ProgramSet) Kernels(dev *Device, names ...string) ([]*Kernel, error) {
	p, err := s.On(dev)
	if err != nil {
		return nil, err
	}
	return p.Kernels(names...)
}
