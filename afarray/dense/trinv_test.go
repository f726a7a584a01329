package dense

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/oclsolve/oclsolve/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// refTrsm solves with gonum's BLAS in float64 on the host: the triangle as
// the device holds it (its other triangle's junk and, with Unit, its
// diagonal are ignored by the BLAS as by the kernels).
func refTrsm(side Side, uplo Uplo, trans bool, diag Diag, alpha float64, t, b *mat.Dense) *mat.Dense {
	x := mat.DenseCopyOf(b)
	s, u, tr, d := blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit
	if side == Right {
		s = blas.Right
	}
	if uplo == Upper {
		u = blas.Upper
	}
	if trans {
		tr = blas.Trans
	}
	if diag == Unit {
		d = blas.Unit
	}
	tm, xm := t.RawMatrix(), x.RawMatrix()
	blas64.Implementation().Dtrsm(s, u, tr, d, xm.Rows, xm.Cols, alpha, tm.Data, tm.Stride, xm.Data, xm.Stride)
	return x
}

// TestTrsmInverse checks every form of TrsmInverse against gonum's
// substitution on well-conditioned triangles: orders below, at and above
// the 64-wide diagonal blocks (one to four levels, the last pair short;
// the fourth, of blocks of 512, by the tuned GEMM), views with padding and offsets (download fails on a write
// outside B), scratch given and allocated.
func TestTrsmInverse(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(8))
	shapes := [][2]int{{0, 4}, {4, 0}, {1, 1}, {5, 3}, {33, 7}, {70, 65}, {97, 130}, {200, 31}, {257, 9}, {600, 3}, {2, 530}}
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		for si, s := range shapes {
			for _, side := range []Side{Left, Right} {
				for _, uplo := range []Uplo{Lower, Upper} {
					for _, trans := range []bool{false, true} {
						for _, diag := range []Diag{NonUnit, Unit} {
							m, n := s[0], s[1]
							order, nv := m, n
							if side == Right {
								order, nv = n, m
							}
							ht, hb := triangular(rng, order, uplo), random(rng, m, n)
							tm, b := upload(t, dev, dt, ht, order, order), upload(t, dev, dt, hb, m, n)
							var work *kernels.Buffer
							if si%2 == 0 && m > 0 && n > 0 {
								w, err := dev.Alloc(TrsmInverseWorkspace(order, nv) * dt.Size())
								if err != nil {
									t.Fatal(err)
								}
								t.Cleanup(w.Release)
								work = w
							}
							alpha := 0.75
							if err := e.TrsmInverse(side, uplo, trans, diag, alpha, tm.Mat, b.Mat, work); err != nil {
								t.Fatal(err)
							}
							x := b.download(t)
							if m == 0 || n == 0 {
								continue
							}
							want := refTrsm(side, uplo, trans, diag, alpha, tm.host, b.host)
							if d := relErr(x, want, m, n, false); d > 10*tol(dt, order) {
								t.Errorf("%s TrsmInverse %dx%d side=%d uplo=%d trans=%v diag=%d: error %.3g", dt, m, n, side, uplo, trans, diag, d)
							}
						}
					}
				}
			}
		}
	}
}

// TestTrsmInverseLU is the blocked LU's use: X U = B with U the transpose
// of the unit lower factor of gonum's partially pivoted LU of a random
// matrix (the LU's transposed view), order 320 (three levels, the last
// pair short), 700 right-hand sides, in two calls sharing one scratch.
func TestTrsmInverseLU(t *testing.T) {
	dev := testDevice(t)
	rng := rand.New(rand.NewSource(9))
	const order, rows = 320, 700
	var lu mat.LU
	lu.Factorize(random(rng, order, order))
	var l mat.TriDense
	lu.LTo(&l)
	ut := mat.NewDense(order, order, nil)
	for i := 0; i < order; i++ {
		for j := 0; j < order; j++ {
			if i < j {
				ut.Set(i, j, l.At(j, i))
			} else if i > j {
				ut.Set(i, j, rng.Float64()) // U's values in the LU's buffer: never read
			} else {
				ut.Set(i, j, 5)
			}
		}
	}
	for _, dt := range dtypes {
		e, err := For(dev, dt)
		if err != nil {
			t.Fatal(err)
		}
		work, err := dev.Alloc(TrsmInverseWorkspace(order, rows) * dt.Size())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(work.Release)
		tm := upload(t, dev, dt, ut, order, order)
		for call := 0; call < 2; call++ {
			hb := random(rng, rows, order)
			b := upload(t, dev, dt, hb, rows, order)
			if err := e.TrsmInverse(Right, Upper, false, Unit, 1, tm.Mat, b.Mat, work); err != nil {
				t.Fatal(err)
			}
			want := refTrsm(Right, Upper, false, Unit, 1, tm.host, b.host)
			if d := relErr(b.download(t), want, rows, order, false); d > 10*tol(dt, order) {
				t.Errorf("%s call %d: error %.3g", dt, call, d)
			}
		}
	}
}

func TestTrsmInverseErrors(t *testing.T) {
	dev := testDevice(t)
	e, err := For(dev, Float64)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := dev.Alloc(8 * 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	small, err := dev.Alloc(8 * 10)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Release()
	tri := Mat{Buf: buf, Rows: 10, Cols: 10, LD: 10}
	b := Mat{Buf: buf, Off: 100, Rows: 10, Cols: 20, LD: 10}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"side", e.TrsmInverse(Side(5), Lower, false, Unit, 1, tri, b, nil), ErrArgument},
		{"diag", e.TrsmInverse(Left, Lower, false, Diag(3), 1, tri, b, nil), ErrArgument},
		{"shape", e.TrsmInverse(Right, Lower, false, Unit, 1, tri, b, nil), ErrShape},
		{"alias", e.TrsmInverse(Left, Lower, false, Unit, 1, tri, tri, nil), ErrArgument},
		{"small work", e.TrsmInverse(Left, Lower, false, Unit, 1, tri, b, small), ErrShape},
		{"work is B's", e.TrsmInverse(Left, Lower, false, Unit, 1, tri, Mat{Buf: buf, Off: 100, Rows: 10, Cols: 1, LD: 10}, buf), ErrArgument},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
}
