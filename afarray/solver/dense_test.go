package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// denseTestMatrixDir is where the real matrices are: $OCLSOLVE_MATRICES, or
// the shared folder beside the repository (so a test binary built with
// go test -c runs elsewhere with the variable set).
func denseTestMatrixDir() string {
	if d := os.Getenv("OCLSOLVE_MATRICES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "matrices")
}

// denseTestLoad reads a symmetric Matrix Market file as a COO (skipping the
// test when the matrices are absent).
func denseTestLoad(tb testing.TB, name string) *sparse.COO {
	tb.Helper()
	path := filepath.Join(denseTestMatrixDir(), name+".mtx")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("matrix %s not available: %v", path, err)
	}
	d, err := sparse.ReadMatrixMarketFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if d.COO == nil {
		tb.Fatalf("%s is not a coordinate file", path)
	}
	return d.COO
}

// denseTestSPD returns a random symmetric positive definite matrix
// M Mᵀ/n + I, well conditioned.
func denseTestSPD(n int, seed uint64) *mat.SymDense {
	r := rand.New(rand.NewPCG(seed, 7))
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m.Set(i, j, r.Float64()*2-1)
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1/float64(n), m)
	for i := 0; i < n; i++ {
		a.SetSym(i, i, a.At(i, i)+1)
	}
	return a
}

func denseTestVec(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 11))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return v
}

func denseTestUpload(tb testing.TB, m mat.Matrix) *afarray.Array {
	tb.Helper()
	a, err := afarray.FromDense(m)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Release)
	return a
}

func denseTestUploadVec(tb testing.TB, v []float64) *afarray.Array {
	tb.Helper()
	a, err := afarray.FromFloat64s(v)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Release)
	return a
}

// denseTestReference solves A x = b on the host with gonum (Cholesky for an
// SPD matrix, LU otherwise) and returns x and the Cholesky condition
// estimate (or +Inf when A is not positive definite).
func denseTestReference(tb testing.TB, a mat.Symmetric, b []float64) ([]float64, float64) {
	tb.Helper()
	n := a.SymmetricDim()
	var x mat.VecDense
	var ch mat.Cholesky
	if ch.Factorize(a) {
		if err := ch.SolveVecTo(&x, mat.NewVecDense(n, b)); err != nil {
			tb.Fatal(err)
		}
		return x.RawVector().Data, ch.Cond()
	}
	var lu mat.LU
	lu.Factorize(a)
	if err := lu.SolveVecTo(&x, false, mat.NewVecDense(n, b)); err != nil {
		tb.Fatal(err)
	}
	return x.RawVector().Data, math.Inf(1)
}

// denseTestBackwardError is ||A x - b||∞ / (||A||∞ ||x||∞ + ||b||∞).
func denseTestBackwardError(a mat.Matrix, x, b []float64) float64 {
	var ax mat.VecDense
	ax.MulVec(a, mat.NewVecDense(len(x), x))
	return sparse.BackwardError(mat.Norm(a, math.Inf(1)), ax.RawVector().Data, x, b)
}

// denseTestCheck applies the acceptance criteria: the normwise backward error
// always, and the thesis's forward criteria (max |x-xref| <= 1e-9 and
// ||x-xref||₂ <= 1e-5, relative to ||xref||∞ when that exceeds 1) where the
// condition number makes them attainable (cond·eps well below 1e-9).
func denseTestCheck(t *testing.T, what string, a mat.Matrix, x, xref, b []float64, cond, bwdTol float64) {
	t.Helper()
	if len(x) != len(xref) {
		t.Fatalf("%s: %d values, want %d", what, len(x), len(xref))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: x[%d] = %v", what, i, v)
		}
	}
	if be := denseTestBackwardError(a, x, b); !(be <= bwdTol) {
		t.Errorf("%s: backward error %.3g > %.0g", what, be, bwdTol)
	}
	if cond*1e-16 > 1e-11 {
		return
	}
	scale := 1.0
	for _, v := range xref {
		scale = math.Max(scale, math.Abs(v))
	}
	maxd, sum := 0.0, 0.0
	for i := range x {
		d := math.Abs(x[i] - xref[i])
		maxd = math.Max(maxd, d)
		sum += d * d
	}
	if maxd > 1e-9*scale || math.Sqrt(sum) > 1e-5*scale {
		t.Errorf("%s: max|x-xref| = %.3g, ||x-xref|| = %.3g (scale %g, cond %.3g)", what, maxd, math.Sqrt(sum), scale, cond)
	}
}

// denseMethod runs one dense direct method on (a, b) and returns x.
type denseMethod struct {
	name string
	run  func(a, b *afarray.Array, v Variant) (*afarray.Array, error)
}

var denseMethods = []denseMethod{
	{"Cholesky", func(a, b *afarray.Array, v Variant) (*afarray.Array, error) {
		var c DenseCholesky
		defer c.Release()
		if err := c.Factorize(a, v); err != nil {
			return nil, err
		}
		return c.Solve(b)
	}},
	{"LDLT", func(a, b *afarray.Array, v Variant) (*afarray.Array, error) {
		var c DenseLDLT
		defer c.Release()
		if err := c.Factorize(a, v); err != nil {
			return nil, err
		}
		return c.Solve(b)
	}},
	{"GaussJordan", GaussJordan},
}

var variants = []Variant{Thesis, Fast}

func denseTestSolve(t *testing.T, m denseMethod, v Variant, a mat.Symmetric, b []float64) []float64 {
	t.Helper()
	da := denseTestUpload(t, a)
	db := denseTestUploadVec(t, b)
	x, err := m.run(da, db, v)
	if err != nil {
		t.Fatalf("%s %s: %v", m.name, v, err)
	}
	defer x.Release()
	xs, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return xs
}

func TestDenseRandomSPD(t *testing.T) {
	for _, n := range []int{1, 2, 17, 33, 100, 300} {
		a := denseTestSPD(n, uint64(n))
		b := denseTestVec(n, uint64(n)+1)
		xref, cond := denseTestReference(t, a, b)
		for _, m := range denseMethods {
			for _, v := range variants {
				if v == Thesis && n > 100 && testing.Short() {
					continue
				}
				x := denseTestSolve(t, m, v, a, b)
				denseTestCheck(t, m.name+"/"+string(v)+"/n="+itoa(n), a, x, xref, b, cond, 1e-14)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The real SPD matrices small enough for dense storage.
var denseTestRealMatrices = []string{"LFAT5", "LF10", "bcsstk01", "mesh1e1", "bcsstk02", "nos4", "bcsstk03", "lund_a"}

func TestDenseRealMatrices(t *testing.T) {
	for _, name := range denseTestRealMatrices {
		c := denseTestLoad(t, name)
		a, err := c.ToSymDense()
		if err != nil {
			t.Fatal(err)
		}
		n := a.SymmetricDim()
		// b = A·1, so the exact solution is all ones (the thesis compared
		// against OpenFEM's solution in the same way).
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		var bv mat.VecDense
		bv.MulVec(a, mat.NewVecDense(n, ones))
		b := bv.RawVector().Data
		xref, cond := denseTestReference(t, a, b)
		for _, m := range denseMethods {
			for _, v := range variants {
				x := denseTestSolve(t, m, v, a, b)
				denseTestCheck(t, name+"/"+m.name+"/"+string(v), a, x, xref, b, cond, 1e-14)
			}
		}
	}
}

// nasa1824 is indefinite: both Cholesky variants must refuse it, naming the
// same first bad column, and LDLᵀ (which needs no definiteness) must still
// solve it or report a zero pivot.
func TestDenseCholeskyIndefinite(t *testing.T) {
	c := denseTestLoad(t, "nasa1824")
	full, err := c.ToSymDense()
	if err != nil {
		t.Fatal(err)
	}
	a := denseTestUpload(t, full)
	var ch DenseCholesky
	err = ch.Factorize(a, Fast)
	var npd *NotPositiveDefiniteError
	if !errors.As(err, &npd) || !errors.Is(err, ErrNotPositiveDefinite) {
		t.Fatalf("fast Cholesky on nasa1824: %v, want a NotPositiveDefiniteError", err)
	}
	if npd.Pivot > 0 {
		t.Errorf("reported pivot %g is positive", npd.Pivot)
	}
	if ch.Factor() != nil {
		t.Error("a failed factorization kept its factor")
	}
	// gonum agrees that the leading block up to that column is not
	// positive definite, and that the block before it is.
	col := npd.Column
	var ref mat.Cholesky
	if ref.Factorize(full.SliceSym(0, col+1)) {
		t.Errorf("gonum factors the leading %d x %d block that oclsolve rejected", col+1, col+1)
	}
	if col > 0 && !ref.Factorize(full.SliceSym(0, col)) {
		t.Errorf("gonum rejects the leading %d x %d block too: the first bad column is earlier than %d", col, col, col)
	}
	// The thesis variant on the leading principal submatrix that ends at the
	// bad column must fail at the same column.
	sub := denseTestUpload(t, full.SliceSym(0, col+1))
	err = ch.Factorize(sub, Thesis)
	var npd2 *NotPositiveDefiniteError
	if !errors.As(err, &npd2) || npd2.Column != col {
		t.Fatalf("thesis Cholesky on the leading %d block: %v, want column %d", col+1, err, col)
	}
	t.Logf("nasa1824: first non-positive pivot at column %d (%g)", col, npd.Pivot)
}

func TestDenseFactorReuse(t *testing.T) {
	n := 50
	a := denseTestSPD(n, 3)
	da := denseTestUpload(t, a)
	for _, v := range variants {
		var ch DenseCholesky
		var ld DenseLDLT
		if err := ch.Factorize(da, v); err != nil {
			t.Fatal(err)
		}
		if err := ld.Factorize(da, v); err != nil {
			t.Fatal(err)
		}
		dst, err := afarray.Zeros(n)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < 3; r++ {
			b := denseTestVec(n, uint64(100+r))
			xref, cond := denseTestReference(t, a, b)
			db := denseTestUploadVec(t, b)
			for name, s := range map[string]interface {
				SolveTo(dst, b *afarray.Array) error
			}{"Cholesky": &ch, "LDLT": &ld} {
				if err := s.SolveTo(dst, db); err != nil {
					t.Fatal(err)
				}
				x, _ := dst.Float64s()
				denseTestCheck(t, name+"/"+string(v)+" reuse", a, x, xref, b, cond, 1e-14)
			}
			// b itself is untouched by SolveTo into another array.
			if got, _ := db.Float64s(); got[0] != b[0] {
				t.Errorf("SolveTo modified b")
			}
		}
		// Solving in place: dst == b.
		b := denseTestVec(n, 999)
		db := denseTestUploadVec(t, b)
		if err := ch.SolveTo(db, db); err != nil {
			t.Fatal(err)
		}
		x, _ := db.Float64s()
		xref, cond := denseTestReference(t, a, b)
		denseTestCheck(t, "in-place solve", a, x, xref, b, cond, 1e-14)
		dst.Release()
		ch.Release()
		ld.Release()
		if err := ch.SolveTo(db, db); !errors.Is(err, afarray.ErrReleased) {
			t.Errorf("solve after Release: %v, want ErrReleased", err)
		}
	}
	// The input matrix is untouched by Factorize.
	got, _ := da.ToDense()
	if !mat.Equal(got, a) {
		t.Error("Factorize modified its input")
	}
}

func TestDenseFactorizeInPlace(t *testing.T) {
	n := 40
	a := denseTestSPD(n, 5)
	for _, v := range variants {
		da := denseTestUpload(t, a)
		var ch DenseCholesky
		if err := ch.FactorizeInPlace(da, v); err != nil {
			t.Fatal(err)
		}
		if ch.Factor() != da {
			t.Fatal("FactorizeInPlace did not use its argument")
		}
		// L Lᵀ reproduces A.
		f, _ := da.ToDense()
		var ref mat.Cholesky
		ref.Factorize(a)
		var lref mat.TriDense
		ref.LTo(&lref)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if d := math.Abs(f.At(i, j) - lref.At(i, j)); d > 1e-12 {
					t.Fatalf("%s: L[%d,%d] = %g, gonum %g", v, i, j, f.At(i, j), lref.At(i, j))
				}
			}
			for j := i + 1; j < n; j++ {
				if f.At(i, j) != a.At(i, j) {
					t.Fatalf("%s: upper triangle changed at (%d,%d)", v, i, j)
				}
			}
		}
		ch.Release()
		if da.Released() {
			t.Fatal("Release freed the caller's matrix")
		}
	}
}

func TestDenseLDLTIndefinite(t *testing.T) {
	// A symmetric indefinite matrix with nonzero pivots: LDLᵀ solves it,
	// Cholesky refuses it at column 1.
	a := mat.NewSymDense(3, []float64{2, 1, 0, 1, -3, 1, 0, 1, 4})
	b := []float64{1, 2, 3}
	xref, _ := denseTestReference(t, a, b)
	for _, v := range variants {
		x := denseTestSolve(t, denseMethods[1], v, a, b)
		denseTestCheck(t, "LDLT indefinite "+string(v), a, x, xref, b, 1, 1e-14)
		var ch DenseCholesky
		err := ch.Factorize(denseTestUpload(t, a), v)
		var npd *NotPositiveDefiniteError
		if !errors.As(err, &npd) || npd.Column != 1 {
			t.Errorf("%s Cholesky: %v, want column 1", v, err)
		}
	}
}

func TestDenseZeroPivot(t *testing.T) {
	// The second pivot is 1 - 1·1 = 0.
	a := mat.NewSymDense(3, []float64{1, 1, 0, 1, 1, 2, 0, 2, 5})
	b := []float64{1, 1, 1}
	for _, v := range variants {
		for _, m := range denseMethods {
			_, err := m.run(denseTestUpload(t, a), denseTestUploadVec(t, b), v)
			if m.name == "Cholesky" {
				var npd *NotPositiveDefiniteError
				if !errors.As(err, &npd) || npd.Column != 1 {
					t.Errorf("%s %s: %v, want not positive definite at column 1", m.name, v, err)
				}
				continue
			}
			var zp *ZeroPivotError
			if !errors.As(err, &zp) || !errors.Is(err, ErrZeroPivot) || zp.Column != 1 || zp.Pivot != 0 {
				t.Errorf("%s %s: %v, want zero pivot at column 1", m.name, v, err)
			}
		}
	}
}

func TestDenseNonFinite(t *testing.T) {
	n := 5
	a := denseTestSPD(n, 9)
	b := denseTestVec(n, 10)
	bad := mat.NewSymDense(n, nil)
	bad.CopySym(a)
	bad.SetSym(3, 2, math.NaN())
	badB := append([]float64(nil), b...)
	badB[4] = math.Inf(1)
	for _, v := range variants {
		for _, m := range denseMethods {
			_, err := m.run(denseTestUpload(t, bad), denseTestUploadVec(t, b), v)
			var nf *NonFiniteError
			if !errors.As(err, &nf) || !errors.Is(err, ErrNonFinite) || nf.Where != "matrix" {
				t.Errorf("%s %s NaN matrix: %v", m.name, v, err)
			}
			_, err = m.run(denseTestUpload(t, a), denseTestUploadVec(t, badB), v)
			if !errors.As(err, &nf) || nf.Where != "right-hand side" || nf.Index != 4 {
				t.Errorf("%s %s Inf rhs: %v", m.name, v, err)
			}
		}
	}
}

func TestDenseShapeAndReleased(t *testing.T) {
	rect := denseTestUpload(t, mat.NewDense(3, 4, nil))
	sq := denseTestUpload(t, denseTestSPD(4, 1))
	b3 := denseTestUploadVec(t, []float64{1, 2, 3})
	b4 := denseTestUploadVec(t, []float64{1, 2, 3, 4})
	var ch DenseCholesky
	if err := ch.Factorize(rect, Fast); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("non-square: %v", err)
	}
	if _, err := ch.Solve(b4); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("solve before factorize: %v", err)
	}
	if err := ch.Factorize(sq, "bogus"); !errors.Is(err, ErrUnknown) {
		t.Errorf("bad variant: %v", err)
	}
	if err := ch.Factorize(sq, ""); err != nil {
		t.Fatal(err)
	}
	if ch.Variant() != Fast {
		t.Errorf("default variant %q", ch.Variant())
	}
	if _, err := ch.Solve(b3); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("short rhs: %v", err)
	}
	if _, err := GaussJordan(sq, b3, Fast); !errors.Is(err, afarray.ErrShape) {
		t.Errorf("GaussJordan short rhs: %v", err)
	}
	gone, _ := afarray.FromFloat64s([]float64{1, 2, 3, 4})
	gone.Release()
	if _, err := ch.Solve(gone); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("released rhs: %v", err)
	}
	if _, err := GaussJordan(sq, gone, Thesis); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("GaussJordan released rhs: %v", err)
	}
	var ld DenseLDLT
	if err := ld.Factorize(gone, Fast); !errors.Is(err, afarray.ErrReleased) {
		t.Errorf("released matrix: %v", err)
	}
	i32, _ := afarray.FromInt32s([]int32{1, 0, 0, 1}, 2, 2)
	defer i32.Release()
	if err := ld.Factorize(i32, Fast); !errors.Is(err, afarray.ErrDType) {
		t.Errorf("int32 matrix: %v", err)
	}
	ch.Release()
	ch.Release() // idempotent
}

// Gauss-Jordan with several right-hand sides at once.
func TestGaussJordanManyRHS(t *testing.T) {
	n, m := 45, 3
	a := denseTestSPD(n, 21)
	bm := mat.NewDense(n, m, nil)
	for j := 0; j < m; j++ {
		bm.SetCol(j, denseTestVec(n, uint64(30+j)))
	}
	da := denseTestUpload(t, a)
	db := denseTestUpload(t, bm)
	for _, v := range variants {
		x, err := GaussJordan(da, db, v)
		if err != nil {
			t.Fatal(err)
		}
		xd, _ := x.ToDense()
		x.Release()
		for j := 0; j < m; j++ {
			b := mat.Col(nil, j, bm)
			xref, cond := denseTestReference(t, a, b)
			denseTestCheck(t, "GJ many rhs "+string(v), a, mat.Col(nil, j, xd), xref, b, cond, 1e-14)
		}
	}
}
