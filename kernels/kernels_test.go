package kernels

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testDevice(t testing.TB) *Device {
	t.Helper()
	d, err := Default()
	if err != nil {
		t.Fatalf("no OpenCL device: %v", err)
	}
	return d
}

const axpySrc = `
__kernel void axpy(int n, REAL a, __global const REAL *x, __global REAL *y) {
	int i = get_global_id(0);
	if (i < n) y[i] += a * x[i];
}
`

// axpyKernel builds the double-precision axpy program on d and returns its
// kernel, for tests that need some launch rather than the build itself.
func axpyKernel(t *testing.T, d *Device) *Kernel {
	t.Helper()
	prog, err := d.Build("-DREAL=double", Source{Name: "axpy.cl", Text: axpySrc})
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("axpy")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestBuildLaunchRead(t *testing.T) {
	d := testDevice(t)
	prog, err := d.Build("-DREAL=double", Source{Name: "axpy.cl", Text: axpySrc})
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.Build("-DREAL=double", Source{Name: "axpy.cl", Text: axpySrc})
	if err != nil || again != prog {
		t.Fatalf("second Build did not return the cached program: %v", err)
	}
	k, err := prog.Kernel("axpy")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i), 1
	}
	bx, err := d.Alloc(8 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer bx.Release()
	by, _ := d.Alloc(8 * n)
	defer by.Release()
	if err := bx.Write(0, x); err != nil {
		t.Fatal(err)
	}
	if err := by.Write(0, y); err != nil {
		t.Fatal(err)
	}
	before := d.Launches()
	if err := k.Launch([]int{RoundUp(n, 64)}, []int{64}, n, 0.5, bx, by); err != nil {
		t.Fatal(err)
	}
	if d.Launches() != before+1 {
		t.Errorf("launch counter did not advance")
	}
	got := make([]float64, n)
	if err := by.Read(0, got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := 1 + 0.5*float64(i); got[i] != want {
			t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
		}
	}
}

func TestBuildErrorCarriesLog(t *testing.T) {
	d := testDevice(t)
	_, err := d.Build("", Source{Name: "broken.cl", Text: "__kernel void f(__global double *x) { x[0] = undefined_thing; }"})
	if !errors.Is(err, ErrBuild) {
		t.Fatalf("err = %v, want ErrBuild", err)
	}
	var be *BuildError
	if !errors.As(err, &be) || be.Source != "broken.cl" || !strings.Contains(be.Log, "undefined_thing") {
		t.Fatalf("build error lacks source name or log: %#v", be)
	}
}

func TestLaunchErrors(t *testing.T) {
	d := testDevice(t)
	prog, err := d.Build("-DREAL=float", Source{Name: "axpy.cl", Text: axpySrc})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := prog.Kernel("axpy")
	b, _ := d.Alloc(64)
	if err := k.Launch([]int{100}, []int{64}, 10, float32(1), b, b); !errors.Is(err, ErrLaunch) {
		t.Errorf("global not a multiple of local: err = %v", err)
	}
	b.Release()
	if err := k.Launch([]int{64}, []int{64}, 10, float32(1), b, b); !errors.Is(err, ErrLaunch) {
		t.Errorf("released buffer: err = %v", err)
	}
	if err := b.Write(0, []float64{1}); !errors.Is(err, ErrReleased) {
		t.Errorf("write to released buffer: err = %v", err)
	}
	if _, err := prog.Kernel("nope"); !errors.Is(err, ErrBuild) {
		t.Errorf("missing kernel: err = %v", err)
	}
}

func TestOutOfMemory(t *testing.T) {
	d := testDevice(t)
	_, err := d.Alloc(d.Info().GlobalMemBytes + 1)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("err = %v, want ErrOutOfMemory", err)
	}
	var oom *OutOfMemoryError
	if !errors.As(err, &oom) || oom.Requested != d.Info().GlobalMemBytes+1 {
		t.Fatalf("error does not name the sizes: %v", err)
	}
}

func TestMemoryAccount(t *testing.T) {
	d := testDevice(t)
	s0 := d.MemoryStats()
	b, err := d.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.MemoryStats(); s.Live != s0.Live+1<<20 || s.Peak < s.Live {
		t.Errorf("after alloc: %+v (before %+v)", s, s0)
	}
	b.Release()
	b.Release() // idempotent
	if s := d.MemoryStats(); s.Live != s0.Live {
		t.Errorf("after release: live %d, want %d", s.Live, s0.Live)
	}
}

func TestSelect(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Select("0"); err != nil || d != devs[0] {
		t.Errorf("Select(0) = %v, %v", d, err)
	}
	name := devs[0].Name()
	if d, err := Select(strings.ToUpper(name[:4])); err != nil || d == nil {
		t.Errorf("Select by name fragment: %v", err)
	}
	_, err = Select("no-such-device-xyz")
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), name) {
		t.Errorf("no-match error should list devices: %v", err)
	}
}

func TestDiskCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OCLSOLVE_CACHE", dir)
	key := strings.Repeat("ab", 32)
	diskCacheStore(key, []byte("binary"))
	if got := diskCacheLoad(key); string(got) != "binary" {
		t.Fatalf("load = %q", got)
	}
	// A truncated or corrupted entry reads as absent.
	path := filepath.Join(dir, key+".bin")
	data, _ := os.ReadFile(path)
	data[len(data)-1] ^= 0xff
	os.WriteFile(path, data, 0o644)
	if got := diskCacheLoad(key); got != nil {
		t.Fatalf("corrupt entry loaded: %q", got)
	}
	os.WriteFile(path, data[:5], 0o644)
	if got := diskCacheLoad(key); got != nil {
		t.Fatalf("truncated entry loaded: %q", got)
	}
}

// A program whose cached binary is corrupt is rebuilt from source, not fatal.
func TestCorruptCacheEntryRebuilds(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OCLSOLVE_CACHE", dir)
	d := testDevice(t)
	src := Source{Name: "cachetest.cl", Text: axpySrc + "\n// corrupt-cache test\n"}
	opts := "-DREAL=double"
	full := strings.TrimSpace(BaseOptions + " " + opts)
	if d.info.Int64Atomics {
		full += " -DOCLSOLVE_INT64_ATOMICS"
	}
	key := d.cacheKey(full, commonHeader+"\n// ---- cachetest.cl ----\n"+src.Text)
	diskCacheStore(key, []byte("definitely not a program binary"))
	p, err := d.Build(opts, src)
	if err != nil {
		t.Fatalf("build with corrupt cache entry: %v", err)
	}
	if p.FromDiskCache {
		t.Fatalf("corrupt binary was used")
	}
	if bin := diskCacheLoad(key); bin == nil || string(bin) == "definitely not a program binary" {
		t.Fatalf("cache entry was not replaced by the rebuilt binary")
	}
}
