// Package sparse holds the host side of oclsolve's sparse matrices: storage
// formats, conversions between them, matrix files, orderings and symbolic
// analysis. Device copies and kernels live elsewhere (package afarray and
// kernels); everything here is plain Go on the CPU.
//
// # Formats
//
//   - COO: 0-based triplets, any order, duplicates summed by Compact; a
//     Symmetric COO stores one triangle (either one).
//   - CSR: general compressed sparse rows, as SciPy's csr_matrix.
//   - CSC: the thesis's symmetric lower-triangle layout (diagonal first and
//     always stored; DiagPos, the thesis's colIdx, gives each diagonal's
//     position, length n without sentinel; row indices for off-diagonal
//     entries only).
//   - SKS: the thesis's skyline layout (each column from the diagonal down
//     to its last row, with the monotone last-row rule).
//   - Tridiag: sub-, main and superdiagonal.
//
// Sparse-to-sparse conversions work in O(nnz) time and memory (COO → CSC or
// SKS builds no dense intermediate, so n = 142 422 works); conversions to and
// from gonum's *mat.Dense and *mat.SymDense are for small systems and tests.
// The thesis memory formulas are ThesisMemoryDense, ThesisMemoryCSC and
// ThesisMemorySKS, in bytes (MB converts to 10⁶-byte megabytes).
//
// # Files
//
// ReadMatrixMarket, ReadMatrixMarketFile and WriteMatrixMarket handle Matrix
// Market coordinate files (real, integer, pattern; general, symmetric,
// skew-symmetric) and array files (dense matrices and vectors); ReadOpenFEM
// and WriteOpenFEM handle the thesis's OpenFEM file sets (.nz, .row, .col,
// .fzs, .def). ReadNPZ/WriteNPZ and ReadNPY/WriteNPY exchange matrices and
// vectors with SciPy and NumPy (scipy.sparse.save_npz, numpy.save), the .npy
// headers through github.com/sbinet/npyio. Readers detect gzip by its magic
// bytes. Malformed input gives a *ParseError with file and line that wraps
// ErrMalformed. The Matrix Market reader and writer use every core
// (mmparse.go); every reader and the generators check what a header or an
// order asks for against the bytes that follow and the host memory
// available (CheckHostMemory, ErrTooLarge) before allocating it.
//
// # Orderings and analysis
//
// Permutations follow one convention: perm[i] is the old index placed at new
// position i, so A.Permute(perm) is SciPy's A[perm][:, perm]; PermuteVec and
// InversePermuteVec carry right-hand sides and solutions across.
// ReverseCuthillMcKee orders by RCM from George–Liu pseudo-peripheral
// vertices; Bandwidth, Profile, SkylineLen and SKSLen measure an ordering;
// Order picks natural, RCM or the better of the two. SymbolicCholesky
// computes the elimination tree, column counts and the structure of L in the
// CSC layout in O(nnz(L)); ThesisSymbolicCholesky is the thesis's quadratic
// algorithm, kept for comparison.
//
// FillOrder gives the fill-reducing orderings of the supernodal solvers:
// SuiteSparse AMD (libamd, linked statically) and METIS nested dissection
// (METIS_NodeND from libmetis.so.5, loaded at run time, MetisAvailable; on
// the graph compressed by CompressGraph: the unknowns of one FE node become
// one weighted vertex), RCM, natural, or fill (AMD, and METIS beside it
// when AMD leaves much fill, the one with fewer predicted flops kept). Predictions come
// from Postorder and ColumnCounts (Gilbert–Ng–Peyton, nearly O(nnz(A))).
// AnalyzeSupernodal adds the postorder, fundamental supernodes with
// CHOLMOD's relaxed-amalgamation bounds, the fronts' rows, the assembly
// tree grouped by depth and the relative indices of the extend-add.
//
// Errors are never panics: every function returns errors that wrap the
// sentinels in errors.go (ErrShape, ErrIndex, ErrNotSymmetric,
// ErrPermutation, ErrMalformed, ErrUnsupported, ErrNaN, ErrTooLarge), of the
// shared kinds of kernels/errs. "§N.M" in comments cites docs/thesis.md.
package sparse
