package sparse_test

import (
	"fmt"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The thesis's 6×6 example in its CSC and SKS layouts (0-based here; the
// thesis prints them 1-based).
func Example_thesisLayouts() {
	// The lower triangle of the symmetric matrix, in any order.
	a := &sparse.COO{Rows: 6, Cols: 6, Symmetric: true,
		I: []int32{0, 1, 2, 1, 3, 2, 4, 3, 4, 4, 5},
		J: []int32{0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5},
		V: []float64{1, 2, 3, 5, 3, 3, 9, 9, 6, 5, 8}}
	csc, err := sparse.CSCFromCOO(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("CSC elements", csc.Elements)
	fmt.Println("CSC colIdx  ", csc.DiagPos)
	fmt.Println("CSC rowIdx  ", csc.RowIdx)
	sks, err := sparse.SKSFromCSC(csc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("SKS elements", sks.Elements)
	fmt.Println("SKS index   ", sks.Index)
	fmt.Printf("SKS memory %.6f MB\n", sparse.MB(sks.ThesisMemory()))
	// Output:
	// CSC elements [1 2 3 5 3 3 9 9 6 5 8]
	// CSC colIdx   [0 3 5 7 9 10]
	// CSC rowIdx   [1 2 3 4 4]
	// SKS elements [1 2 3 5 0 3 3 0 9 9 6 5 8]
	// SKS index    [0 3 6 9 11 12]
	// SKS memory 0.000176 MB
}

// Reordering a system with reverse Cuthill–McKee and carrying the
// right-hand side across.
func ExampleReverseCuthillMcKee() {
	// A path 0-3-1-4-2 numbered badly.
	a := &sparse.COO{Rows: 5, Cols: 5, Symmetric: true,
		I: []int32{0, 1, 2, 3, 4, 3, 3, 4, 4},
		J: []int32{0, 1, 2, 3, 4, 0, 1, 1, 2},
		V: []float64{2, 2, 2, 2, 2, -1, -1, -1, -1}}
	perm, _ := sparse.ReverseCuthillMcKee(a)
	before, _ := sparse.Bandwidth(a, nil)
	after, _ := sparse.Bandwidth(a, perm)
	fmt.Println("bandwidth", before, "->", after)
	b := []float64{10, 11, 12, 13, 14}
	pb, _ := sparse.PermuteVec(b, perm)
	back, _ := sparse.InversePermuteVec(pb, perm)
	fmt.Println(back)
	// Output:
	// bandwidth 3 -> 1
	// [10 11 12 13 14]
}
