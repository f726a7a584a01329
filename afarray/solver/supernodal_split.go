package solver

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/oclsolve/oclsolve/afarray/sparse"
)

// The mapping of a supernodal assembly tree onto several devices
// (supernodal_multi.go): whole subtrees go to devices, balanced by their
// work; what lies above them (the top separators of nested dissection) is
// factored on the first device once the subtrees' update matrices have
// arrived there.

// snFrontWork is the flop count of supernode k's partial factorization:
// Σ_{i<ns} (F-i)², the squared column counts of its columns.
func snFrontWork(s *sparse.Supernodal, k int) float64 {
	_, ns, F := s.Front(k)
	w := 0.0
	for i := 0; i < ns; i++ {
		f := float64(F - i)
		w += f * f
	}
	return w
}

// snXferFlops is what moving one double of an update matrix between the
// host and a device costs, in flops of the factorization: on a GPU about
// 5 Tflop/s against about 1.2 G doubles/s through pinned memory (measured
// on an H200); on a CPU device the copy is about as fast as the flops.
func snXferFlops(gpu bool) float64 {
	if gpu {
		return 4000
	}
	return 2
}

// snMaxSplits bounds the tree nodes that splitTree moves to the top.
const snMaxSplits = 256

// splitTree maps the assembly tree of s onto ndev devices: owner[k] is the
// device whose subtree holds supernode k, or -1 for the top, which the
// first device factors after every subtree. Starting from the roots, it
// moves the heaviest candidate subtree's root to the top (its children
// become candidates) and assigns the candidates to devices heaviest first,
// each where it ends soonest, keeping the split whose estimate
// max(device load) + top work + receive is least. A subtree root of
// another device than the first costs xfer flops per double of its update
// matrix twice, on its device (the read-back) and in the receive (the
// write to the first). With one device, or a tree that does not split well
// (a chain), everything stays in one subtree list on the first device and
// the top is empty.
func splitTree(s *sparse.Supernodal, ndev int, xfer float64) (owner []int, load []float64, top float64) {
	NS := s.NS
	w, W, move := make([]float64, NS), make([]float64, NS), make([]float64, NS)
	children := make([][]int, NS)
	var roots []int
	for k := 0; k < NS; k++ {
		w[k] = snFrontWork(s, k)
		W[k] += w[k]
		if p := s.SParent[k]; p >= 0 {
			W[p] += W[k]
			children[p] = append(children[p], k)
			_, ns, F := s.Front(k)
			move[k] = xfer * float64(F-ns) * float64(F-ns)
		} else {
			roots = append(roots, k)
		}
	}
	// lpt assigns candidates to devices, heaviest first (ties by index, so
	// the split is deterministic), and returns the receive cost.
	lpt := func(cands []int) (assign []int, loads []float64, recv float64) {
		order := slices.Clone(cands)
		sort.Slice(order, func(i, j int) bool {
			if W[order[i]] != W[order[j]] {
				return W[order[i]] > W[order[j]]
			}
			return order[i] < order[j]
		})
		loads = make([]float64, ndev)
		dev := map[int]int{}
		cost := func(c, d int) float64 {
			if d == 0 {
				return W[c]
			}
			return W[c] + move[c]
		}
		for _, c := range order {
			d := 0
			for e := 1; e < ndev; e++ {
				if loads[e]+cost(c, e) < loads[d]+cost(c, d) {
					d = e
				}
			}
			loads[d] += cost(c, d)
			if d > 0 {
				recv += move[c]
			}
			dev[c] = d
		}
		assign = make([]int, len(cands))
		for i, c := range cands {
			assign[i] = dev[c]
		}
		return assign, loads, recv
	}
	cands := slices.Clone(roots)
	var topNodes []int
	best := math.Inf(1)
	var bestCands, bestAssign []int
	var bestLoads []float64
	bestTop, bestTopLen := 0.0, 0
	for split := 0; ; split++ {
		assign, loads, recv := lpt(cands)
		if t := slices.Max(loads) + top + recv; t < best*(1-1e-9) {
			best, bestCands, bestAssign, bestLoads = t, slices.Clone(cands), assign, loads
			bestTop, bestTopLen = top, len(topNodes)
		}
		if ndev == 1 || split >= snMaxSplits {
			break
		}
		pick := -1
		for i, c := range cands {
			if len(children[c]) > 0 && (pick < 0 || W[c] > W[cands[pick]]) {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		c := cands[pick]
		if top+w[c] >= best {
			break
		}
		top += w[c]
		topNodes = append(topNodes, c)
		cands = append(slices.Delete(cands, pick, pick+1), children[c]...)
	}
	owner = make([]int, NS)
	for k := range owner {
		owner[k] = -2
	}
	for _, k := range topNodes[:bestTopLen] {
		owner[k] = -1
	}
	for i, c := range bestCands {
		owner[c] = bestAssign[i]
	}
	// Parents come after their children: fill each subtree from its root.
	for k := NS - 1; k >= 0; k-- {
		if owner[k] == -2 {
			owner[k] = owner[s.SParent[k]]
		}
	}
	return owner, bestLoads, bestTop
}

// snPartSym is one part of a split factorization: the supernodes nodes of the
// global analysis (increasing) in a Supernodal of their own numbering.
// Columns 0..own-1 are the part's own columns (its supernodes', in order),
// then come the external rows its fronts reach (columns of the top, in
// increasing order), which it never factors. Phantom supernodes (the top's
// children on other parts) have no columns (ns = 0), a front of their m
// rows below, and no level: their update matrices arrive from elsewhere.
type snPartSym struct {
	sym     *sparse.Supernodal // Perm maps a local column to the global one
	own     int
	nodes   []int  // global supernode of each local one
	phantom []bool // per local supernode
	index   []int  // local supernode of each global one, -1 if absent
}

// localStructure builds the part of g made of nodes (increasing global
// supernodes, closed under descendants except at phantoms, which are
// leaves).
func localStructure(g *sparse.Supernodal, nodes []int, phantom func(k int) bool) (*snPartSym, error) {
	l := &snPartSym{nodes: nodes, phantom: make([]bool, len(nodes)), index: make([]int, g.NS)}
	for k := range l.index {
		l.index[k] = -1
	}
	loc := make([]int32, g.N)
	for j := range loc {
		loc[j] = -1
	}
	var cols []int
	for i, k := range nodes {
		l.index[k] = i
		l.phantom[i] = phantom(k)
		if l.phantom[i] {
			continue
		}
		for j := g.Super[k]; j < g.Super[k+1]; j++ {
			loc[j] = int32(len(cols))
			cols = append(cols, j)
		}
	}
	l.own = len(cols)
	var ext []int
	for i, k := range nodes {
		lo := g.RowPtr[k]
		if l.phantom[i] {
			_, ns, _ := g.Front(k)
			lo += int64(ns)
		}
		for _, r := range g.Rows[lo:g.RowPtr[k+1]] {
			if loc[r] == -1 {
				if l.phantom[i] {
					return nil, fmt.Errorf("solver: supernodal split: phantom supernode %d reaches row %d outside its part", k, r)
				}
				loc[r] = -2
				ext = append(ext, int(r))
			}
		}
	}
	slices.Sort(ext)
	for _, r := range ext {
		loc[r] = int32(len(cols))
		cols = append(cols, r)
	}
	NS := len(nodes)
	s := &sparse.Supernodal{N: len(cols), NS: NS, Ordering: g.Ordering, Perm: cols,
		Super: make([]int, NS+1), RowPtr: make([]int64, NS+1), SParent: make([]int, NS), Depth: make([]int, NS),
		LPtr: make([]int64, NS+1)}
	for i, k := range nodes {
		_, ns, F := g.Front(k)
		lo := g.RowPtr[k]
		if l.phantom[i] {
			lo += int64(ns)
			F -= ns
			ns = 0
		}
		s.Super[i+1] = s.Super[i] + ns
		for _, r := range g.Rows[lo:g.RowPtr[k+1]] {
			s.Rows = append(s.Rows, loc[r])
		}
		s.Rel = append(s.Rel, g.Rel[lo:g.RowPtr[k+1]]...)
		s.RowPtr[i+1] = int64(len(s.Rows))
		s.LPtr[i+1] = s.LPtr[i] + int64(F)*int64(ns)
		s.SParent[i] = -1
		if p := g.SParent[k]; p >= 0 && l.index[p] >= 0 {
			s.SParent[i] = l.index[p]
		}
	}
	maxDepth := -1
	for i := NS - 1; i >= 0; i-- {
		if p := s.SParent[i]; p >= 0 {
			if p <= i {
				return nil, fmt.Errorf("solver: supernodal split: parent %d before child %d", p, i)
			}
			s.Depth[i] = s.Depth[p] + 1
		}
		if !l.phantom[i] {
			maxDepth = max(maxDepth, s.Depth[i])
		}
	}
	s.Levels = make([][]int, maxDepth+1)
	for i := 0; i < NS; i++ {
		if !l.phantom[i] {
			s.Levels[s.Depth[i]] = append(s.Levels[s.Depth[i]], i)
		}
	}
	for _, j := range cols[:l.own] {
		c := int64(g.ColCounts[j])
		s.NNZL += c
		s.Flops += float64(c) * float64(c)
	}
	l.sym = s
	return l, nil
}
