package solver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray"
	"github.com/oclsolve/oclsolve/afarray/fem"
	"github.com/oclsolve/oclsolve/afarray/sparse"
	"github.com/oclsolve/oclsolve/kernels"
)

// TestSupernodalLarge measures the supernodal solvers on the large FE
// models, for the GPU runs: OCLSOLVE_SN_SYSTEMS lists the systems
// (model1:AxBxC, model2:N, or a .mtx path), OCLSOLVE_SN_WRITE a folder to
// write each generated system to as Matrix Market (for CHOLMOD side by
// side). One JSON line per system and method. Skipped unless set.
func TestSupernodalLarge(t *testing.T) {
	spec := os.Getenv("OCLSOLVE_SN_SYSTEMS")
	if spec == "" {
		t.Skip("OCLSOLVE_SN_SYSTEMS not set")
	}
	dev, err := afarray.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	order := sparse.Ordering(os.Getenv("OCLSOLVE_SN_ORDER"))
	// OCLSOLVE_SN_QUICK=N: from the N-th system on (1-based), Cholesky only,
	// one factorization (the programs are built by then) and one solve.
	quick := 1 << 30
	if q := os.Getenv("OCLSOLVE_SN_QUICK"); q != "" {
		fmt.Sscan(q, &quick)
	}
	for si, sys := range strings.Split(spec, ",") {
		fast := si+1 >= quick
		t0 := time.Now()
		c, name, err := snLargeSystem(sys)
		if err != nil {
			t.Fatal(err)
		}
		gen := time.Since(t0)
		if dir := os.Getenv("OCLSOLVE_SN_WRITE"); dir != "" {
			l, err := c.Lower()
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(dir + "/" + name + ".mtx")
			if err != nil {
				t.Fatal(err)
			}
			if err := sparse.WriteMatrixMarket(f, l, name); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		b := sparseRHS(t, c, 1)
		h, err := sparse.CSCFromCOO(c)
		if err != nil {
			t.Fatal(err)
		}
		a, err := afarray.UploadCSC(h)
		if err != nil {
			t.Fatal(err)
		}
		bv := sparseVector(t, b)
		for _, ldlt := range []bool{false, true} {
			if fast && ldlt {
				continue
			}
			f := newSNFactor(ldlt)
			// The first factorization builds the programs; time the second.
			for rep := 0; rep < 2 && !(fast && rep > 0); rep++ {
				f.Release()
				dev.ResetPeak()
				if err := f.Factorize(a, order); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			st := f.SupernodalStats()
			if os.Getenv("OCLSOLVE_SN_PROFILE_TOO") != "" && !fast {
				// One more factorization, waiting after every step,
				// for the time per kind of step.
				os.Setenv("OCLSOLVE_SN_PROFILE", "1")
				f.Release()
				if err := f.Factorize(a, order); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				os.Unsetenv("OCLSOLVE_SN_PROFILE")
				st.Profile = f.SupernodalStats().Profile
			}
			var x *afarray.Array
			var solve time.Duration
			for rep := 0; rep < 3 && !(fast && rep > 0); rep++ {
				if x != nil {
					x.Release()
				}
				t1 := time.Now()
				if x, err = f.Solve(bv); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				solve = time.Since(t1)
			}
			be := sparseBackwardError(t, c, sparseHost(t, x), b)
			x.Release()
			if os.Getenv("OCLSOLVE_SN_PROFILE_TOO") != "" && !fast {
				// One more solve, waiting after every step.
				os.Setenv("OCLSOLVE_SN_PROFILE", "1")
				y, err := f.Solve(bv)
				os.Unsetenv("OCLSOLVE_SN_PROFILE")
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				y.Release()
				st.Profile = f.SupernodalStats().Profile
			}
			st.SolveLaunches = f.SupernodalStats().SolveLaunches
			out, _ := json.Marshal(map[string]any{
				"system": name, "method": sksMethod(ldlt), "device": dev.Name(), "n": c.Rows, "ordering": st.Ordering,
				"nnz_l": st.NNZL, "stored": st.Stored, "flops": st.Flops, "supernodes": st.Supernodes, "levels": st.Levels,
				"gen_s": gen.Seconds(), "order_s": st.OrderTime.Seconds(), "symbolic_s": st.SymbolicTime.Seconds(),
				"factor_s": st.FactorTime.Seconds(), "factor_launches": st.FactorLaunches, "solve_s": solve.Seconds(),
				"solve_launches": st.SolveLaunches, "backward": be, "peak_bytes": dev.MemoryStats().Peak,
				"factor_bytes": st.DeviceBytes, "gflops": st.Flops / st.FactorTime.Seconds() / 1e9, "profile": st.Profile})
			fmt.Println(string(out))
			f.Release()
		}
		a.Release()
	}
	_ = kernels.FormatBytes
}

func snLargeSystem(spec string) (*sparse.COO, string, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	var a, b, c int
	var err error
	switch {
	case kind == "model1" || kind == "model2":
		if strings.Contains(arg, "x") {
			a, b, c, err = fem.ParseGrid(arg)
		} else {
			var n int
			if _, err = fmt.Sscan(arg, &n); err == nil {
				if kind == "model1" {
					a, b, c, _, err = fem.Model1ForOrder(n)
				} else {
					a, b, c, _, err = fem.Model2ForOrder(n)
				}
			}
		}
		if err != nil {
			return nil, "", err
		}
		var sys *fem.System
		if kind == "model1" {
			sys, err = fem.Model1(fem.Model1Options{NX: a, NY: b, NZ: c})
		} else {
			sys, err = fem.Model2(fem.Model2Options{A: a, B: b, C: c})
		}
		if err != nil {
			return nil, "", err
		}
		return sys.K, sys.FileName(), nil
	}
	d, err := sparse.ReadMatrixMarketFile(spec)
	if err != nil {
		return nil, "", err
	}
	name := spec[strings.LastIndex(spec, "/")+1:]
	return d.COO, strings.TrimSuffix(name, ".mtx"), nil
}
