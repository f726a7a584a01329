package sparse

// Postorder returns a postorder of the forest parent (parent[j] = -1 for a
// root): post[k] is the k-th vertex visited, children in increasing order
// before their parent. Renumbering a matrix by its elimination tree's
// postorder leaves L's fill unchanged and makes every subtree, and hence
// every supernode, a contiguous range of columns.
func Postorder(parent []int) []int {
	n := len(parent)
	head, next := make([]int, n), make([]int, n)
	for j := range head {
		head[j] = -1
	}
	// Children lists in increasing order: push in decreasing order.
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p >= 0 {
			next[j], head[p] = head[p], j
		}
	}
	post := make([]int, 0, n)
	stack := make([]int, 0, 64)
	for r := 0; r < n; r++ {
		if parent[r] >= 0 {
			continue
		}
		stack = append(stack, r)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			if c := head[v]; c >= 0 {
				head[v] = next[c]
				stack = append(stack, c)
			} else {
				stack = stack[:len(stack)-1]
				post = append(post, v)
			}
		}
	}
	return post
}

// ColumnCounts returns the number of entries of each column of the Cholesky
// factor of a (diagonal included) from its elimination tree parent and a
// postorder post of it, by the Gilbert–Ng–Peyton algorithm (skeleton matrix,
// least common ancestors by path compression): nearly O(nnz(A)), without
// forming L. SymbolicCounts gets the same numbers in O(nnz(L)).
func ColumnCounts(a *CSC, parent, post []int) []int {
	return columnCounts(a.N, parent, post, func(j int, visit func(i int)) {
		rows, _ := a.ColRows(j)
		for _, r := range rows {
			visit(int(r))
		}
	})
}

// columnCounts is ColumnCounts on any source of the rows i > j of each
// column j (below computes them).
func columnCounts(n int, parent, post []int, below func(j int, visit func(i int))) []int {
	first, maxfirst, prevleaf, ancestor := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	delta := make([]int, n)
	for j := 0; j < n; j++ {
		first[j], maxfirst[j], prevleaf[j], ancestor[j] = -1, -1, -1, j
	}
	for k, j := range post {
		if first[j] == -1 {
			delta[j] = 1 // j is a leaf of the tree
		}
		for ; j != -1 && first[j] == -1; j = parent[j] {
			first[j] = k
		}
	}
	for _, j := range post {
		if p := parent[j]; p != -1 {
			delta[p]--
		}
		// Row j of L's skeleton: the entries a(i,j), i > j, seen from
		// column i's row subtree.
		below(j, func(i int) {
			if first[j] <= maxfirst[i] {
				return // j is not a leaf of i's row subtree
			}
			maxfirst[i] = first[j]
			jprev := prevleaf[i]
			prevleaf[i] = j
			delta[j]++
			if jprev == -1 {
				return // first leaf: no least common ancestor to subtract
			}
			q := jprev
			for q != ancestor[q] {
				q = ancestor[q]
			}
			for s := jprev; s != q; {
				s, ancestor[s] = ancestor[s], q
			}
			delta[q]--
		})
		if p := parent[j]; p != -1 {
			ancestor[j] = p
		}
	}
	for j := 0; j < n; j++ {
		if p := parent[j]; p != -1 {
			delta[p] += delta[j]
		}
	}
	return delta
}

// graphCounts returns the elimination tree, a postorder of it and the
// column counts of P A Pᵀ for the graph g of A and perm (perm[new] = old,
// inv its inverse), straight from the graph: the permuted matrix is never
// formed.
func graphCounts(g *graph, perm, inv []int) (parent, post, counts []int) {
	n := g.n
	parent = etreeOf(n, func(i int, visit func(k int)) {
		for _, u := range g.neighbours(int32(perm[i])) {
			if k := inv[u]; k < i {
				visit(k)
			}
		}
	})
	post = Postorder(parent)
	counts = columnCounts(n, parent, post, func(j int, visit func(i int)) {
		for _, u := range g.neighbours(int32(perm[j])) {
			if i := inv[u]; i > j {
				visit(i)
			}
		}
	})
	return parent, post, counts
}
