package afarray

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// sizes covers the edge shapes: empty, one element, odd, and more than one
// work-group.
var sizes = []int{0, 1, 7, 255, 257, 1000}

var dtypes = []DType{Float64, Float32}

func tol(t DType) float64 {
	if t == Float32 {
		return 1e-5
	}
	return 1e-13
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.Float64()*2 - 1
	}
	return s
}

func mustArray(t *testing.T, data []float64, dt DType, dims ...int) *Array {
	t.Helper()
	var a *Array
	var err error
	switch dt {
	case Float32:
		f := make([]float32, len(data))
		for i, v := range data {
			f[i] = float32(v)
		}
		a, err = FromFloat32s(f, dims...)
	case Int32:
		f := make([]int32, len(data))
		for i, v := range data {
			f[i] = int32(v)
		}
		a, err = FromInt32s(f, dims...)
	default:
		a, err = FromFloat64s(data, dims...)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Release)
	return a
}

// rounded returns data as the dtype stores it, so references see the same
// inputs as the device.
func rounded(data []float64, dt DType) []float64 {
	out := make([]float64, len(data))
	for i, v := range data {
		switch dt {
		case Float32:
			out[i] = float64(float32(v))
		case Int32:
			out[i] = float64(int32(v))
		default:
			out[i] = v
		}
	}
	return out
}

func closeTo(t *testing.T, what string, got, want []float64, tolerance float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > tolerance*(1+math.Abs(want[i])) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func TestElementwiseAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range dtypes {
		for _, n := range sizes {
			xs, ys := rounded(randSlice(r, n), dt), rounded(randSlice(r, n), dt)
			for i := range ys {
				if ys[i] == 0 {
					ys[i] = 0.5
				}
			}
			x, y := mustArray(t, xs, dt), mustArray(t, ys, dt)
			ops := []struct {
				name string
				f    func(a, b *Array) (*Array, error)
				ref  func(dst, a, b []float64)
			}{
				{"Add", Add, func(d, a, b []float64) { floats.AddTo(d, a, b) }},
				{"Sub", Sub, func(d, a, b []float64) { floats.SubTo(d, a, b) }},
				{"Mul", Mul, func(d, a, b []float64) { floats.MulTo(d, a, b) }},
				{"Div", Div, func(d, a, b []float64) { floats.DivTo(d, a, b) }},
			}
			for _, op := range ops {
				z, err := op.f(x, y)
				if err != nil {
					t.Fatal(op.name, err)
				}
				got, _ := z.Float64s()
				want := make([]float64, n)
				op.ref(want, xs, ys)
				closeTo(t, op.name+" "+dt.String(), got, want, tol(dt))
				z.Release()
			}
			// Axpy and Scale in place on a copy.
			c, err := y.Copy()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Axpy(0.25, x); err != nil {
				t.Fatal(err)
			}
			if err := c.Scale(-2); err != nil {
				t.Fatal(err)
			}
			got, _ := c.Float64s()
			want := append([]float64(nil), ys...)
			floats.AddScaled(want, 0.25, xs)
			floats.Scale(-2, want)
			closeTo(t, "Axpy+Scale "+dt.String(), got, want, tol(dt))
			c.Release()
		}
	}
}

func TestReductionsAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range dtypes {
		for _, n := range append(sizes, 100000) {
			xs, ys := rounded(randSlice(r, n), dt), rounded(randSlice(r, n), dt)
			x, y := mustArray(t, xs, dt), mustArray(t, ys, dt)
			check := func(name string, got float64, err error, want float64) {
				t.Helper()
				if err != nil {
					t.Fatal(name, err)
				}
				if math.Abs(got-want) > 1e-12*(1+math.Abs(want))*math.Sqrt(float64(n+1)) {
					t.Errorf("%s %s n=%d: %v, want %v", name, dt, n, got, want)
				}
			}
			d, err := Dot(x, y)
			check("Dot", d, err, floats.Dot(xs, ys))
			nr, err := Norm2(x)
			check("Norm2", nr, err, floats.Norm(xs, 2))
			s, err := Sum(x)
			check("Sum", s, err, floats.Sum(xs))
			m, err := MaxAbs(x)
			want := 0.0
			if n > 0 {
				want = floats.Norm(xs, math.Inf(1))
			}
			check("MaxAbs", m, err, want)
		}
	}
}

func TestInt32Operations(t *testing.T) {
	xs := []float64{3, -7, 11, 0, 5}
	x := mustArray(t, xs, Int32)
	y := mustArray(t, []float64{1, 2, 3, 4, 5}, Int32)
	z, err := Add(x, y)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := z.Int32s()
	if want := []int32{4, -5, 14, 4, 10}; !equalInt32(got, want) {
		t.Fatalf("int32 Add = %v, want %v", got, want)
	}
	if s, _ := Sum(x); s != 12 {
		t.Errorf("int32 Sum = %v", s)
	}
	if m, _ := MaxAbs(x); m != 11 {
		t.Errorf("int32 MaxAbs = %v", m)
	}
	if _, err := Dot(x, y); !errors.Is(err, ErrDType) {
		t.Errorf("int32 Dot: err = %v, want ErrDType", err)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGemvGemmAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	shapes := [][2]int{{0, 3}, {1, 1}, {7, 5}, {33, 17}, {300, 257}}
	for _, dt := range dtypes {
		for _, sh := range shapes {
			m, n := sh[0], sh[1]
			as := rounded(randSlice(r, m*n), dt)
			a := mustArray(t, as, dt, m, n)
			ad := mat.NewDense(max(m, 1), max(n, 1), nil)
			for j := 0; j < n; j++ {
				for i := 0; i < m; i++ {
					ad.Set(i, j, as[i+m*j])
				}
			}
			for _, trans := range []bool{false, true} {
				rows, cols := m, n
				if trans {
					rows, cols = n, m
				}
				xs, ys := rounded(randSlice(r, cols), dt), rounded(randSlice(r, rows), dt)
				x, y := mustArray(t, xs, dt), mustArray(t, ys, dt)
				if err := Gemv(trans, 1.5, a, x, -0.5, y); err != nil {
					t.Fatal(err)
				}
				got, _ := y.Float64s()
				want := make([]float64, rows)
				for i := 0; i < rows; i++ {
					s := 0.0
					for j := 0; j < cols; j++ {
						if trans {
							s += ad.At(j, i) * xs[j]
						} else {
							s += ad.At(i, j) * xs[j]
						}
					}
					want[i] = 1.5*s - 0.5*ys[i]
				}
				closeTo(t, "Gemv", got, want, tol(dt)*float64(cols+1))
			}
			// Gemm: C = A^T * A and A * A^T, and a general product with B.
			k := 9
			bs := rounded(randSlice(r, n*k), dt)
			b := mustArray(t, bs, dt, n, k)
			c, err := MatMul(false, false, a, b)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := c.Float64s()
			want := make([]float64, m*k)
			for i := 0; i < m; i++ {
				for j := 0; j < k; j++ {
					s := 0.0
					for p := 0; p < n; p++ {
						s += as[i+m*p] * bs[p+n*j]
					}
					want[i+m*j] = s
				}
			}
			closeTo(t, "Gemm", got, want, tol(dt)*float64(n+1))
			ata, err := MatMul(true, false, a, a)
			if err != nil {
				t.Fatal(err)
			}
			got, _ = ata.Float64s()
			want = make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					s := 0.0
					for p := 0; p < m; p++ {
						s += as[p+m*i] * as[p+m*j]
					}
					want[i+n*j] = s
				}
			}
			closeTo(t, "Gemm A^T A", got, want, tol(dt)*float64(m+1))
			tr, err := Transpose(a)
			if err != nil {
				t.Fatal(err)
			}
			got, _ = tr.Float64s()
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if got[j+n*i] != as[i+m*j] {
						t.Fatalf("Transpose wrong at (%d,%d)", i, j)
					}
				}
			}
		}
	}
}

func TestGatherScatter(t *testing.T) {
	src := mustArray(t, []float64{10, 11, 12, 13, 14}, Float64)
	idx := mustArray(t, []float64{4, 0, 2, 2}, Int32)
	g, err := Gather(src, idx)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := g.Float64s()
	closeTo(t, "Gather", got, []float64{14, 10, 12, 12}, 0)
	dst, _ := Zeros(6)
	defer dst.Release()
	if err := Scatter(dst, src, mustArray(t, []float64{5, 4, 3, 2, 1}, Int32)); err != nil {
		t.Fatal(err)
	}
	got, _ = dst.Float64s()
	closeTo(t, "Scatter", got, []float64{0, 14, 13, 12, 11, 10}, 0)
	if _, err := Gather(src, mustArray(t, []float64{5}, Int32)); !errors.Is(err, ErrIndex) {
		t.Errorf("out-of-range Gather: err = %v", err)
	}
	if _, err := Gather(src, src); !errors.Is(err, ErrDType) {
		t.Errorf("float index: err = %v", err)
	}
}

func TestConstructors(t *testing.T) {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	a, err := FromDense(m)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	back, err := a.ToDense()
	if err != nil || !mat.Equal(back, m) {
		t.Fatalf("FromDense/ToDense round trip: %v\n%v", err, mat.Formatted(back))
	}
	if got, _ := a.Float64s(); !floats.Equal(got, []float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("not column-major: %v", got)
	}
	v, _ := FromVecDense(mat.NewVecDense(3, []float64{7, 8, 9}))
	defer v.Release()
	vb, _ := v.ToVecDense()
	if !mat.Equal(vb, mat.NewVecDense(3, []float64{7, 8, 9})) {
		t.Errorf("VecDense round trip")
	}
	r, _ := Range(5, 1, 0.5, Float64)
	defer r.Release()
	if got, _ := r.Float64s(); !floats.Equal(got, []float64{1, 1.5, 2, 2.5, 3}) {
		t.Errorf("Range = %v", got)
	}
	c, _ := Constant(2.5, Float32, 2, 2)
	defer c.Release()
	if got, _ := c.Float64s(); !floats.Equal(got, []float64{2.5, 2.5, 2.5, 2.5}) {
		t.Errorf("Constant = %v", got)
	}
	r1, _ := Random(42, Float64, 1000)
	r2, _ := Random(42, Float64, 1000)
	r3, _ := Random(43, Float64, 1000)
	defer r1.Release()
	defer r2.Release()
	defer r3.Release()
	g1, _ := r1.Float64s()
	g2, _ := r2.Float64s()
	g3, _ := r3.Float64s()
	if !floats.Equal(g1, g2) || floats.Equal(g1, g3) {
		t.Errorf("Random is not a function of its seed")
	}
	mean := floats.Sum(g1) / 1000
	if floats.Min(g1) < 0 || floats.Max(g1) >= 1 || math.Abs(mean-0.5) > 0.05 {
		t.Errorf("Random not uniform on [0,1): min %v max %v mean %v", floats.Min(g1), floats.Max(g1), mean)
	}
	if _, err := FromFloat64s([]float64{1, 2, 3}, 2, 2); !errors.Is(err, ErrShape) {
		t.Errorf("wrong dims: err = %v", err)
	}
}

func TestLazyHostCopy(t *testing.T) {
	a, err := Random(7, Float64, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if s := a.Transfers(); s.ToHost != 0 || s.ToDevice != 0 {
		t.Fatalf("a device-made array moved data: %v", s)
	}
	v1, _ := a.Float64s()
	v2, _ := a.Float64s()
	if s := a.Transfers(); s.ToHost != 1 || s.BytesToHost != 8000 {
		t.Fatalf("two reads should be one transfer: %v", s)
	}
	if !floats.Equal(v1, v2) {
		t.Fatal("cached copy differs")
	}
	v1[0] = 99 // the caller's copy; the cache must not change
	if v3, _ := a.Float64s(); v3[0] == 99 {
		t.Fatal("Float64s returned the cache itself")
	}
	if err := a.Scale(2); err != nil { // a device write invalidates the cache
		t.Fatal(err)
	}
	v4, _ := a.Float64s()
	if s := a.Transfers(); s.ToHost != 2 {
		t.Fatalf("read after a device write should transfer again: %v", s)
	}
	if v4[1] != 2*v2[1] {
		t.Fatalf("stale host copy after Scale")
	}
	// An uploaded array already has its host copy.
	b, _ := FromFloat64s([]float64{1, 2, 3})
	defer b.Release()
	b.Float64s()
	if s := b.Transfers(); s.ToDevice != 1 || s.ToHost != 0 {
		t.Fatalf("upload then read: %v", s)
	}
}

func TestPrintingMovesOnlyThePreview(t *testing.T) {
	a, err := Random(1, Float64, 1000000)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	s := a.String()
	st := a.Transfers()
	if st.BytesToHost > 2*PreviewEdge*8 {
		t.Fatalf("printing moved %d bytes", st.BytesToHost)
	}
	if !strings.Contains(s, "1000000 float64") || !strings.Contains(s, "...") {
		t.Fatalf("unexpected preview: %s", s)
	}
	m, _ := Random(2, Float32, 500, 300)
	defer m.Release()
	_ = m.String()
	_ = m.HTML()
	if st := m.Transfers(); st.BytesToHost > 2*(2*PreviewEdge)*(2*PreviewEdge)*4 {
		t.Fatalf("printing a matrix moved %d bytes", st.BytesToHost)
	}
	small, _ := FromFloat64s([]float64{1, 2, 3, 4}, 2, 2)
	defer small.Release()
	if s := small.String(); !strings.Contains(s, "1") || !strings.Contains(s, "4") || strings.Contains(s, "...") {
		t.Fatalf("small matrix preview: %s", s)
	}
}

func TestReleasedAndMismatchErrors(t *testing.T) {
	a, _ := Zeros(10)
	b, _ := Zeros(11)
	defer b.Release()
	if _, err := Add(a, b); !errors.Is(err, ErrShape) {
		t.Errorf("shape mismatch: %v", err)
	}
	f, _ := Constant(1, Float32, 10)
	defer f.Release()
	if _, err := Add(a, f); !errors.Is(err, ErrDType) {
		t.Errorf("dtype mismatch: %v", err)
	}
	a.Release()
	a.Release()
	if _, err := a.Float64s(); !errors.Is(err, ErrReleased) {
		t.Errorf("released read: %v", err)
	}
	if err := a.Scale(2); !errors.Is(err, ErrReleased) {
		t.Errorf("released Scale: %v", err)
	}
	if _, err := Dot(a, a); !errors.Is(err, ErrReleased) {
		t.Errorf("released Dot: %v", err)
	}
	if s := a.String(); !strings.Contains(s, "released") {
		t.Errorf("released String: %s", s)
	}
}

func TestMemoryAccountingAndOOM(t *testing.T) {
	dev, err := CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	before := dev.MemoryStats().Live
	a, _ := Zeros(1000, 100)
	if got := dev.MemoryStats().Live - before; got != 800000 {
		t.Errorf("live bytes grew by %d, want 800000", got)
	}
	a.Release()
	if dev.MemoryStats().Live != before {
		t.Errorf("Release did not return the memory")
	}
	huge := int(dev.Info().MaxAllocBytes/8) + 1
	_, err = Zeros(huge/46341+1, 46341)
	if !errors.Is(err, ErrOutOfMemory) && !errors.Is(err, ErrShape) {
		t.Errorf("oversized array: err = %v", err)
	}
	if err != nil && errors.Is(err, ErrOutOfMemory) && !strings.Contains(err.Error(), "requested") {
		t.Errorf("OOM error does not name the sizes: %v", err)
	}
}

// Transpose of matrices wider than the launch's column groups (32,768 tiles
// of 16 columns): the kernel strides over the rest, which NVIDIA needs (it
// refuses more than 65,535 groups in grid dimension 1). Widths just past a
// whole number of rounds, and rows that are not a multiple of the tile.
func TestTransposeWide(t *testing.T) {
	for _, shape := range [][2]int{{1, 32768*16 + 1}, {3, 2*32768*16 + 17}} {
		m, n := shape[0], shape[1]
		as := make([]float64, m*n)
		for i := range as {
			as[i] = float64(i%9973) + float64(i)/float64(len(as))
		}
		a := mustArray(t, as, Float64, m, n)
		tr, err := Transpose(a)
		if err != nil {
			t.Fatalf("%dx%d: %v", m, n, err)
		}
		if r, c := tr.Dims(); r != n || c != m {
			t.Fatalf("%dx%d: transpose is %dx%d", m, n, r, c)
		}
		got, _ := tr.Float64s()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				if got[j+n*i] != as[i+m*j] {
					t.Fatalf("%dx%d: transpose wrong at (%d,%d)", m, n, i, j)
				}
			}
		}
		a.Release()
		tr.Release()
	}
}
