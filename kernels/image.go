package kernels

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/jgillich/go-opencl/cl"
)

// Image is a 2-D OpenCL image of float32 texels with 1 (R) or 4 (RGBA)
// channels, read through the texture path. The Gaussian-elimination suite's
// image variant keeps its matrices in these.
type Image struct {
	dev           *Device
	mem           *cl.MemObject
	width, height int
	channels      int
	released      atomic.Bool
}

// AllocImage2D allocates a width x height float32 image with 1 or 4 channels.
func (d *Device) AllocImage2D(width, height, channels int) (*Image, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	if !d.info.ImageSupport {
		return nil, fmt.Errorf("%w: %s has no image support", ErrLaunch, d.info.Name)
	}
	if width <= 0 || height <= 0 || width > d.info.Image2DMax[0] || height > d.info.Image2DMax[1] {
		return nil, fmt.Errorf("%w: image %dx%d outside the device's 2-D image limits %v", ErrLaunch, width, height, d.info.Image2DMax)
	}
	order := cl.ChannelOrderR
	if channels == 4 {
		order = cl.ChannelOrderRGBA
	} else if channels != 1 {
		return nil, fmt.Errorf("%w: images have 1 or 4 channels, not %d", ErrLaunch, channels)
	}
	bytes := int64(width) * int64(height) * int64(channels) * 4
	d.mem.mu.Lock()
	d.mem.live += bytes
	if d.mem.live > d.mem.peak {
		d.mem.peak = d.mem.live
	}
	d.mem.allocs++
	d.mem.mu.Unlock()
	var mem *cl.MemObject
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%v", r)
			}
		}()
		mem, err = d.ctx.CreateImageSimple(cl.MemReadWrite, width, height, order, cl.ChannelDataTypeFloat, nil)
		return err
	}()
	if err != nil {
		d.unaccount(bytes)
		return nil, &OutOfMemoryError{Device: d.info.Name, Requested: bytes, Global: d.info.GlobalMemBytes,
			MaxAlloc: d.info.MaxAllocBytes, Reason: "the driver refused the image: " + err.Error()}
	}
	im := &Image{dev: d, mem: mem, width: width, height: height, channels: channels}
	runtime.SetFinalizer(im, (*Image).Release)
	return im, nil
}

// Width, Height and Channels describe the image.
func (im *Image) Width() int    { return im.width }
func (im *Image) Height() int   { return im.height }
func (im *Image) Channels() int { return im.channels }

func (im *Image) usable() error {
	if im == nil || im.released.Load() {
		return ErrReleased
	}
	return nil
}

// Release frees the image.
func (im *Image) Release() {
	if im == nil || im.released.Swap(true) {
		return
	}
	runtime.SetFinalizer(im, nil)
	im.mem.Release()
	im.dev.unaccount(int64(im.width) * int64(im.height) * int64(im.channels) * 4)
}

// Write copies row-major texels (width*height*channels float32) into the image.
func (im *Image) Write(data []float32) error { return im.transfer(data, true) }

// Read copies the image's texels, row-major, into data.
func (im *Image) Read(data []float32) error { return im.transfer(data, false) }

// transfer is Write (write true) and Read: a blocking copy of all the
// texels, once data has exactly width*height*channels values.
func (im *Image) transfer(data []float32, write bool) error {
	if err := im.usable(); err != nil {
		return err
	}
	if len(data) != im.width*im.height*im.channels {
		return fmt.Errorf("%w: %d values for a %dx%dx%d image", ErrLaunch, len(data), im.width, im.height, im.channels)
	}
	im.dev.mu.Lock()
	defer im.dev.mu.Unlock()
	b := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*4)
	origin, region := [3]int{0, 0, 0}, [3]int{im.width, im.height, 1}
	var err error
	if write {
		_, err = im.dev.queue.EnqueueWriteImage(im.mem, true, origin, region, 0, 0, b, nil)
	} else {
		_, err = im.dev.queue.EnqueueReadImage(im.mem, true, origin, region, 0, 0, b, nil)
	}
	return err
}
