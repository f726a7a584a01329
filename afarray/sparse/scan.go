package sparse

import "runtime"

// scanEntries splits the m entries of a COO into contiguous slices, one per
// worker (as many as the cores, none for fewer than scanMinEntries entries
// each), calls body(w, lo, hi) for each on its own goroutine and returns
// the number of workers. The O(nnz) checks that every solve runs go through
// it: on the 16-core GPU host one serial pass over Model 2's 5.2 million
// entries costs 10-25 ms, a tenth of that split.
func scanEntries(m int, body func(w, lo, hi int)) int {
	return scanEntriesOn(scanWorkers(m), m, body)
}

// scanEntriesOn is scanEntries on a given number of workers (at least 1).
func scanEntriesOn(workers, m int, body func(w, lo, hi int)) int {
	run(workers, workers, func(w int) { body(w, m*w/workers, m*(w+1)/workers) })
	return workers
}

// scanWorkers is the number of workers scanEntries uses for m entries.
func scanWorkers(m int) int { return max(1, min(runtime.GOMAXPROCS(0), m/scanMinEntries, 64)) }

// scanMinEntries is the fewest entries worth a goroutine of their own.
const scanMinEntries = 1 << 16

// scanVertices is scanEntries over n vertices, for merging per-worker
// arrays range by range.
func scanVertices(n int, body func(lo, hi int)) {
	ranges := max(1, min(runtime.GOMAXPROCS(0)*4, n/4096))
	run(ranges, runtime.GOMAXPROCS(0), func(r int) { body(n*r/ranges, n*(r+1)/ranges) })
}
