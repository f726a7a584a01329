package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The stat command reports the structure of a symmetric sparse matrix: its
// size, its envelope in the natural and the reverse Cuthill–McKee ordering,
// the fill of its Cholesky factor and the thesis's memory figure for each
// storage format.
//
// FILE is a Matrix Market coordinate file (gzip-compressed or not) or an
// OpenFEM file set: a path ending in .nz, or a prefix P for which P.nz
// exists. The matrix must be square and symmetric (one triangle or both
// stored).
//
// With --json, stat prints one JSON object with these fields (the names are
// stable; sizes are counts of entries, memory is in MB of 10⁶ bytes):
//
//	file                         the FILE argument
//	source                       "matrix-market" or "openfem"
//	n                            order of the matrix
//	nnz_lower                    stored entries of the lower triangle, diagonal included (duplicates summed)
//	nnz_full                     stored entries of the whole matrix
//	bandwidth_original           max_i (i − first column of row i), natural order
//	bandwidth_rcm                the same after reverse Cuthill–McKee
//	profile_original             Σ_i (i − first column of row i), natural order (diagonal excluded)
//	profile_rcm                  the same after reverse Cuthill–McKee
//	ordering_auto                "natural" or "rcm": the one with the shorter thesis SKS storage
//	                             (sks_len; ties: natural), sparse.OrderAuto, the default for SKS
//	ordering_auto_profile        "natural" or "rcm": the one with the smaller profile (ties: natural),
//	                             sparse.OrderAutoProfile
//	skyline_len_original         profile_original + n (row-envelope skyline length)
//	skyline_len_rcm              profile_rcm + n
//	skyline_len_auto             profile + n under ordering_auto (every *_auto field uses ordering_auto)
//	sks_len_original             length of the thesis SKS layout (column runs with the monotone last-row rule)
//	sks_len_rcm                  the same after reverse Cuthill–McKee
//	sks_len_auto                 the same under ordering_auto
//	nnz_l_original               entries of the Cholesky factor L, diagonal included, natural order
//	nnz_l_rcm                    the same after reverse Cuthill–McKee
//	flops_original               factorization flops Σ_j |L_j|², natural order
//	flops_rcm                    the same after reverse Cuthill–McKee
//	mem_dense_mb                 8·n·(n+1)/1e6: dense matrix and right-hand side
//	mem_csc_cg_mb                4·(3·le+2n)/1e6 with le = CSC length of A (CG keeps A)
//	mem_csc_factor_original_mb   4·(3·le+2n)/1e6 with le = nnz_l_original (L replaces A)
//	mem_csc_factor_rcm_mb        the same with le = nnz_l_rcm
//	mem_sks_original_mb          4·(2·le+3n)/1e6 with le = sks_len_original (factorized in place)
//	mem_sks_rcm_mb               the same with le = sks_len_rcm
//	mem_sks_auto_mb              the same with le = sks_len_auto
func init() {
	register(&command{
		name:    "stat",
		usage:   "[--json] FILE",
		summary: "structure, orderings, fill and thesis memory figures of a matrix",
		run:     runStat,
	})
}

// matrixStats is the --json output; see the command's doc comment.
type matrixStats struct {
	File                   string  `json:"file"`
	Source                 string  `json:"source"`
	N                      int     `json:"n"`
	NNZLower               int     `json:"nnz_lower"`
	NNZFull                int     `json:"nnz_full"`
	BandwidthOriginal      int     `json:"bandwidth_original"`
	BandwidthRCM           int     `json:"bandwidth_rcm"`
	ProfileOriginal        int64   `json:"profile_original"`
	ProfileRCM             int64   `json:"profile_rcm"`
	OrderingAuto           string  `json:"ordering_auto"`
	OrderingAutoProfile    string  `json:"ordering_auto_profile"`
	SkylineLenOriginal     int64   `json:"skyline_len_original"`
	SkylineLenRCM          int64   `json:"skyline_len_rcm"`
	SkylineLenAuto         int64   `json:"skyline_len_auto"`
	SKSLenOriginal         int64   `json:"sks_len_original"`
	SKSLenRCM              int64   `json:"sks_len_rcm"`
	SKSLenAuto             int64   `json:"sks_len_auto"`
	NNZLOriginal           int64   `json:"nnz_l_original"`
	NNZLRCM                int64   `json:"nnz_l_rcm"`
	FlopsOriginal          float64 `json:"flops_original"`
	FlopsRCM               float64 `json:"flops_rcm"`
	MemDenseMB             float64 `json:"mem_dense_mb"`
	MemCSCCGMB             float64 `json:"mem_csc_cg_mb"`
	MemCSCFactorOriginalMB float64 `json:"mem_csc_factor_original_mb"`
	MemCSCFactorRCMMB      float64 `json:"mem_csc_factor_rcm_mb"`
	MemSKSOriginalMB       float64 `json:"mem_sks_original_mb"`
	MemSKSRCMMB            float64 `json:"mem_sks_rcm_mb"`
	MemSKSAutoMB           float64 `json:"mem_sks_auto_mb"`
}

func runStat(args []string) error {
	fs := newFlagSet("stat")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseFlags(fs, args, 1, 1, "exactly one FILE")
	if err != nil {
		return err
	}
	path := pos[0]
	a, source, err := loadMatrix(path)
	if err != nil {
		return err
	}
	// O(nnz) structural checks before anything of the declared order is
	// allocated: a header may claim an order of billions.
	if err := a.CheckStructure(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	st, err := computeStats(a)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	st.File, st.Source = path, source
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	return printStats(os.Stdout, st)
}

// loadMatrix reads a Matrix Market file or an OpenFEM set.
func loadMatrix(path string) (*sparse.COO, string, error) {
	// A set with its .nz missing is reported as such, not as a missing
	// Matrix Market file.
	if prefix, ok := sparse.OpenFEMPrefix(path); ok {
		set, err := sparse.ReadOpenFEM(prefix)
		if err != nil {
			return nil, "", err
		}
		return set.A, "openfem", nil
	}
	d, err := sparse.ReadMatrixMarketFile(path)
	if err != nil {
		return nil, "", err
	}
	if d.COO == nil {
		return nil, "", fmt.Errorf("%s: %w: an array (dense) file, want a coordinate matrix", path, sparse.ErrUnsupported)
	}
	return d.COO, "matrix-market", nil
}

func computeStats(c *sparse.COO) (*matrixStats, error) {
	lower, err := c.Lower()
	if err != nil {
		return nil, err
	}
	full, err := c.Full()
	if err != nil {
		return nil, err
	}
	n := lower.Rows
	st := &matrixStats{N: n, NNZLower: lower.NNZ(), NNZFull: full.NNZ()}
	rcm, err := sparse.ReverseCuthillMcKee(lower)
	if err != nil {
		return nil, err
	}
	type measures struct {
		bw         int
		prof, sksL int64
		sym        *sparse.Symbolic
	}
	measure := func(perm []int) (m measures, err error) {
		if m.bw, err = sparse.Bandwidth(lower, perm); err != nil {
			return m, err
		}
		if m.prof, err = sparse.Profile(lower, perm); err != nil {
			return m, err
		}
		if m.sksL, err = sparse.SKSLen(lower, perm); err != nil {
			return m, err
		}
		p := lower
		if perm != nil {
			if p, err = lower.Permute(perm); err != nil {
				return m, err
			}
		}
		csc, err := sparse.CSCFromCOO(p)
		if err != nil {
			return m, err
		}
		m.sym, err = sparse.SymbolicCounts(csc)
		return m, err
	}
	orig, err := measure(nil)
	if err != nil {
		return nil, err
	}
	r, err := measure(rcm)
	if err != nil {
		return nil, err
	}
	cscA, err := sparse.CSCFromCOO(lower)
	if err != nil {
		return nil, err
	}
	st.BandwidthOriginal, st.BandwidthRCM = orig.bw, r.bw
	st.ProfileOriginal, st.ProfileRCM = orig.prof, r.prof
	st.SkylineLenOriginal, st.SkylineLenRCM = orig.prof+int64(n), r.prof+int64(n)
	st.SKSLenOriginal, st.SKSLenRCM = orig.sksL, r.sksL
	// The same rules as sparse.Order with OrderAuto (SKS length) and
	// OrderAutoProfile (profile): RCM only when it is strictly better.
	st.OrderingAuto, st.SKSLenAuto, st.SkylineLenAuto = string(sparse.OrderNatural), orig.sksL, st.SkylineLenOriginal
	if r.sksL < orig.sksL {
		st.OrderingAuto, st.SKSLenAuto, st.SkylineLenAuto = string(sparse.OrderRCM), r.sksL, st.SkylineLenRCM
	}
	st.OrderingAutoProfile = string(sparse.OrderNatural)
	if r.prof < orig.prof {
		st.OrderingAutoProfile = string(sparse.OrderRCM)
	}
	st.NNZLOriginal, st.NNZLRCM = orig.sym.NNZ, r.sym.NNZ
	st.FlopsOriginal, st.FlopsRCM = orig.sym.Flops, r.sym.Flops
	st.MemDenseMB = sparse.MB(sparse.ThesisMemoryDense(n))
	st.MemCSCCGMB = sparse.MB(cscA.ThesisMemory())
	st.MemCSCFactorOriginalMB = sparse.MB(sparse.ThesisMemoryCSC(n, int(orig.sym.NNZ)))
	st.MemCSCFactorRCMMB = sparse.MB(sparse.ThesisMemoryCSC(n, int(r.sym.NNZ)))
	st.MemSKSOriginalMB = sparse.MB(sparse.ThesisMemorySKS(n, int(orig.sksL)))
	st.MemSKSRCMMB = sparse.MB(sparse.ThesisMemorySKS(n, int(r.sksL)))
	st.MemSKSAutoMB = sparse.MB(sparse.ThesisMemorySKS(n, int(st.SKSLenAuto)))
	return st, nil
}

func printStats(w io.Writer, st *matrixStats) error {
	fmt.Fprintf(w, "%s (%s)\n", st.File, st.Source)
	fmt.Fprintf(w, "n = %d, nnz = %d lower triangle, %d full\n\n", st.N, st.NNZLower, st.NNZFull)
	fmt.Fprintf(w, "auto ordering: %s by SKS length (the SKS default), %s by profile\n\n", st.OrderingAuto, st.OrderingAutoProfile)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\toriginal\trcm\tauto (%s)\t\n", st.OrderingAuto)
	row := func(name string, o, r any) {
		a := o
		if st.OrderingAuto == string(sparse.OrderRCM) {
			a = r
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t\n", name, o, r, a)
	}
	row("bandwidth", st.BandwidthOriginal, st.BandwidthRCM)
	row("profile", st.ProfileOriginal, st.ProfileRCM)
	row("skyline length (profile+n)", st.SkylineLenOriginal, st.SkylineLenRCM)
	row("SKS length (thesis layout)", st.SKSLenOriginal, st.SKSLenRCM)
	row("nnz(L)", st.NNZLOriginal, st.NNZLRCM)
	row("factor flops", fmt.Sprintf("%.4g", st.FlopsOriginal), fmt.Sprintf("%.4g", st.FlopsRCM))
	row("memory dense (MB)", fmt.Sprintf("%.2f", st.MemDenseMB), fmt.Sprintf("%.2f", st.MemDenseMB))
	row("memory CSC-CG, A (MB)", fmt.Sprintf("%.2f", st.MemCSCCGMB), fmt.Sprintf("%.2f", st.MemCSCCGMB))
	row("memory CSC factor, L (MB)", fmt.Sprintf("%.2f", st.MemCSCFactorOriginalMB), fmt.Sprintf("%.2f", st.MemCSCFactorRCMMB))
	row("memory SKS (MB)", fmt.Sprintf("%.2f", st.MemSKSOriginalMB), fmt.Sprintf("%.2f", st.MemSKSRCMMB))
	return tw.Flush()
}
