package fem

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The comparison table with the thesis (Tables 10, 12, 15 and §7.1) is
// printed by
//
//	go test ./afarray/fem -run TestThesisTable -fem.table [-fem.table.max N]
//
// It measures, for every thesis order of both models, the order n reached,
// nonzeros, the thesis-SKS length under natural numbering, node RCM and
// DOF-level RCM, and the assembly time. It is skipped in ordinary runs: it
// measures, it does not assert.
var (
	tableFlag = flag.Bool("fem.table", false, "print the thesis comparison table")
	tableMax  = flag.Int("fem.table.max", 260000, "largest Model 2 order in the table")
)

// Thesis memory figures (MB) from which §7.1 derives nonzero counts: the
// CSC CG column (lower nnz le = (M·1e6/4 − 2n)/3) and the SKS column
// (le = (M·1e6/4 − 3n)/2) of Table 10, and the CSC CG column of Table 12.
var (
	thesisT10CSCCG = map[int]float64{1080: 0.35, 2016: 0.72, 3045: 1.15, 4032: 1.59, 5040: 2.03, 6048: 2.46, 7161: 2.96, 8184: 3.42, 9216: 3.88, 10044: 4.27}
	thesisT10SKS   = map[int]float64{1080: 2.72, 2016: 8.33, 3045: 13.88, 4032: 20.67, 5040: 29.82, 6048: 45.70, 7161: 63.74, 8184: 65.02, 9216: 82.74, 10044: 97.26}
	thesisT12CSCCG = map[int]float64{1572: 0.33, 3534: 1.01, 5409: 1.81, 8331: 2.51, 10449: 3.51, 15129: 5.16, 21987: 7.54, 28773: 10.44, 39051: 14.29, 51156: 19.78}
	thesisT15Len   = map[int]int64{1572: 176955, 3534: 402647, 5409: 966955, 8331: 1605480, 10449: 3096149, 15129: 3787050,
		21987: 8107764, 28773: 14816912, 39051: 28260478, 51156: 36238341, 64836: 59114778, 72570: 89764866,
		89733: 108759760, 102630: 121760423, 117390: 124626462, 142422: 185245727}
)

type tableRow struct {
	n, nnzFull, nnzLower    int
	sksNat, sksNode, sksDOF int64
	grid                    string
	exact                   bool
	asmNat, asmRCM          time.Duration
}

func measure(t *testing.T, build func(Numbering) (*System, error)) tableRow {
	nat, err := build(Natural)
	if err != nil {
		t.Fatal(err)
	}
	r := tableRow{n: nat.NumDOF, nnzFull: nat.K.NNZ(), nnzLower: (nat.K.NNZ() + nat.NumDOF) / 2, grid: nat.Grid, asmNat: nat.AssemblyTime}
	if r.sksNat, err = sparse.SKSLen(nat.K, nil); err != nil {
		t.Fatal(err)
	}
	perm, err := sparse.ReverseCuthillMcKee(nat.K)
	if err != nil {
		t.Fatal(err)
	}
	if r.sksDOF, err = sparse.SKSLen(nat.K, perm); err != nil {
		t.Fatal(err)
	}
	nat = nil
	rcm, err := build(RCM)
	if err != nil {
		t.Fatal(err)
	}
	r.asmRCM = rcm.AssemblyTime
	if r.sksNode, err = sparse.SKSLen(rcm.K, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func best(r tableRow) (int64, string) {
	b, name := r.sksNat, "nat"
	if r.sksNode < b {
		b, name = r.sksNode, "rcm(node)"
	}
	if r.sksDOF < b {
		b, name = r.sksDOF, "rcm(dof)"
	}
	return b, name
}

func pct(got, want float64) string {
	if want == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*(got-want)/want)
}

func TestThesisTable(t *testing.T) {
	if !*tableFlag {
		t.Skip("measurement table; run with -fem.table")
	}
	var b strings.Builder
	fmt.Fprintln(&b, "Model 1 (cantilever; thesis: natural order). Thesis lower nnz and SKS length derived from Table 10 (CSC CG and SKS MB).")
	fmt.Fprintln(&b, "| thesis n | grid | n | nnz full | nnz lower | thesis nnz lower | Δ | SKS nat | SKS rcm node | SKS rcm dof | best | thesis SKS len | Δ best | Δ nat | asm nat | asm rcm |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range Model1Orders {
		nx, ny, nz, exact, err := Model1ForOrder(n)
		if err != nil {
			t.Fatal(err)
		}
		r := measure(t, func(num Numbering) (*System, error) {
			return Model1(Model1Options{NX: nx, NY: ny, NZ: nz, Numbering: num})
		})
		r.exact = exact
		tl := (thesisT10CSCCG[n]*1e6/4 - 2*float64(n)) / 3
		ts := (thesisT10SKS[n]*1e6/4 - 3*float64(n)) / 2
		bs, bn := best(r)
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %.0f | %s | %d | %d | %d | %s | %.0f | %s | %s | %v | %v |\n",
			n, r.grid, r.n, r.nnzFull, r.nnzLower, tl, pct(float64(r.nnzLower), tl), r.sksNat, r.sksNode, r.sksDOF, bn, ts,
			pct(float64(bs), ts), pct(float64(r.sksNat), ts), r.asmNat.Round(time.Microsecond), r.asmRCM.Round(time.Microsecond))
	}
	fmt.Fprintln(&b, "\nModel 2 (pier; thesis: Cuthill–McKee). Thesis lower nnz derived from Table 12 (CSC CG MB); SKS len from Table 15.")
	fmt.Fprintln(&b, "| thesis n | mesh | n | Δn | nnz full | nnz lower | thesis nnz lower | Δ | SKS nat | SKS rcm node | SKS rcm dof | best | thesis len(elements) | Δ best | asm nat | asm rcm |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	orders := append(append([]int(nil), Model2Orders...), 205602, 250000)
	for _, n := range orders {
		if n > *tableMax {
			continue
		}
		a, bb, c, _, err := Model2ForOrder(n)
		if err != nil {
			t.Fatal(err)
		}
		r := measure(t, func(num Numbering) (*System, error) {
			return Model2(Model2Options{A: a, B: bb, C: c, Numbering: num})
		})
		tl := "–"
		dl := "–"
		if m, ok := thesisT12CSCCG[n]; ok {
			v := (m*1e6/4 - 2*float64(n)) / 3
			tl, dl = fmt.Sprintf("%.0f", v), pct(float64(r.nnzLower), v)
		}
		ts, ds := "–", "–"
		bs, bn := best(r)
		if v, ok := thesisT15Len[n]; ok {
			ts, ds = fmt.Sprint(v), pct(float64(bs), float64(v))
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %+d | %d | %d | %s | %s | %d | %d | %d | %s | %s | %s | %v | %v |\n",
			n, r.grid, r.n, r.n-n, r.nnzFull, r.nnzLower, tl, dl, r.sksNat, r.sksNode, r.sksDOF, bn, ts, ds,
			r.asmNat.Round(time.Microsecond), r.asmRCM.Round(time.Microsecond))
	}
	os.Stdout.WriteString(b.String())
}
