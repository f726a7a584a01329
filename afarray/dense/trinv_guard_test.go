package dense

import (
	"errors"
	"math"
	"math/rand"
	"testing"
)

// TestTrsmInverseMax checks the guard word of TrsmInverseMax against the
// host's max |inv(T)| (float32 rounding), that the word keeps the maximum
// over calls, that an inverse beyond float32's range reads +Inf and one
// with a NaN NaN, and that
// the solve itself is TrsmInverse's.
func TestTrsmInverseMax(t *testing.T) {
	dev := testDevice(t)
	e, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	if e.trinvPrepK == nil || e.trinvMaxK == nil {
		t.Fatal("trinv.cl did not build: TrsmInverse would fall back to Trsm")
	}
	flag, err := dev.Alloc(12)
	if err != nil {
		t.Fatal(err)
	}
	defer flag.Release()
	rng := rand.New(rand.NewSource(11))
	for _, c := range []struct {
		order int
		mult  float64 // every entry off the diagonal (0: random)
		uplo  Uplo
		diag  Diag
	}{{70, 0, Lower, Unit}, {130, 0, Upper, NonUnit}, {64, -0.5, Upper, Unit}, {200, -0.2, Lower, Unit}, {512, -0.5, Upper, Unit}, {100, math.NaN(), Lower, Unit}} {
		ht := triangular(rng, c.order, c.uplo)
		if c.mult != 0 {
			for i := 0; i < c.order; i++ {
				for j := 0; j < c.order; j++ {
					if i != j {
						ht.Set(i, j, c.mult)
					}
				}
			}
		}
		// The host's inverse by substitution, column by column.
		want := 0.0
		n := c.order
		for j := 0; j < n; j++ {
			x := make([]float64, n)
			x[j] = 1
			lower := c.uplo == Lower
			for s := 0; s < n; s++ {
				i := s
				if !lower {
					i = n - 1 - s
				}
				v := x[i]
				for p := 0; p < n; p++ {
					if (lower && p < i) || (!lower && p > i) {
						v -= ht.At(i, p) * x[p]
					}
				}
				if c.diag == NonUnit {
					v /= ht.At(i, i)
				}
				x[i] = v
				want = math.Max(want, math.Abs(v))
			}
		}
		if err := flag.Write(0, []int32{0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		hb := random(rng, 40, n)
		tm, b := upload(t, dev, Float64, ht, n, n), upload(t, dev, Float64, hb, 40, n)
		if err := e.TrsmInverseMax(Right, c.uplo, false, c.diag, 1, tm.Mat, b.Mat, nil, flag, 1); err != nil {
			t.Fatal(err)
		}
		words := make([]int32, 3)
		if err := flag.Read(0, words); err != nil {
			t.Fatal(err)
		}
		got := float64(math.Float32frombits(uint32(words[1])))
		if words[0] != 0 || words[2] != 0 {
			t.Errorf("order %d: words beside the slot changed: %v", n, words)
		}
		switch {
		case math.IsNaN(c.mult):
			if !math.IsNaN(got) {
				t.Errorf("order %d: a NaN in the triangle, guard %g, want NaN", n, got)
			}
		case want > math.MaxFloat32:
			if !math.IsInf(got, 1) {
				t.Errorf("order %d mult %g: guard %g, want +Inf (host %.3g)", n, c.mult, got, want)
			}
		case math.Abs(got-want) > 1e-6*want:
			t.Errorf("order %d mult %g: guard %.7g, host %.7g", n, c.mult, got, want)
		}
		if c.mult == 0 {
			x := b.download(t)
			ref := refTrsm(Right, c.uplo, false, c.diag, 1, tm.host, b.host)
			if d := relErr(x, ref, 40, n, false); d > 10*tol(Float64, n) {
				t.Errorf("order %d: solve error %.3g", n, d)
			}
		}
		// A second solve with a smaller inverse leaves the maximum.
		small := triangular(rng, 64, Lower)
		tm2, b2 := upload(t, dev, Float64, small, 64, 64), upload(t, dev, Float64, random(rng, 8, 64), 8, 64)
		if err := e.TrsmInverseMax(Right, Lower, false, Unit, 1, tm2.Mat, b2.Mat, nil, flag, 1); err != nil {
			t.Fatal(err)
		}
		again := make([]int32, 3)
		if err := flag.Read(0, again); err != nil {
			t.Fatal(err)
		}
		if c.mult != 0 && again[1] != words[1] { // (NaN's bits stay above any value's)
			t.Errorf("order %d: a smaller inverse changed the guard from %#x to %#x", n, words[1], again[1])
		}
	}
	tri := Mat{Buf: flag, Rows: 1, Cols: 1, LD: 1}
	for _, slot := range []int{-1, 3} {
		if err := e.TrsmInverseMax(Left, Lower, false, Unit, 1, tri, tri, nil, flag, slot); !errors.Is(err, ErrArgument) {
			t.Errorf("slot %d: got %v, want ErrArgument", slot, err)
		}
	}
}

// TestTrsmInverseWithoutTrinv: an engine whose trinv.cl kernels are
// missing (a device that does not take trinv_prep's 4*PB items, or a
// failed build: buildTrinv) solves by Trsm, the guard's word untouched.
func TestTrsmInverseWithoutTrinv(t *testing.T) {
	dev := testDevice(t)
	e0, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewWithConfig(dev, Float64, e0.Config())
	if err != nil {
		t.Fatal(err)
	}
	e.trinvPrepK, e.trinvLevelK, e.trinvMaxK = nil, nil, nil
	flag, err := dev.Alloc(4)
	if err != nil {
		t.Fatal(err)
	}
	defer flag.Release()
	if err := flag.Write(0, []int32{0}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(12))
	const order, rows = 150, 37
	ht, hb := triangular(rng, order, Upper), random(rng, rows, order)
	tm, b := upload(t, dev, Float64, ht, order, order), upload(t, dev, Float64, hb, rows, order)
	if err := e.TrsmInverseMax(Right, Upper, false, Unit, 0.5, tm.Mat, b.Mat, nil, flag, 0); err != nil {
		t.Fatal(err)
	}
	want := refTrsm(Right, Upper, false, Unit, 0.5, tm.host, b.host)
	if d := relErr(b.download(t), want, rows, order, false); d > 10*tol(Float64, order) {
		t.Errorf("error %.3g", d)
	}
	w := make([]int32, 1)
	if err := flag.Read(0, w); err != nil {
		t.Fatal(err)
	}
	if w[0] != 0 {
		t.Errorf("guard word %#x, want 0 (no inverse)", w[0])
	}
}
