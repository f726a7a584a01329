// COO -> CSC / SKS / CSR on the device, with no dense intermediate (see
// convert.go for the pipeline). Every item of the COO is mapped to a segment
// (a column for CSC and SKS, a row for CSR) and a key inside it (the row or
// column); the items are bucketed by segment with atomic counters, each
// segment is ranked by (key, item) so that the order is deterministic, and
// runs of equal keys are summed in increasing item order, which is the order
// in which the host conversions of package sparse sum duplicates. The result
// is bit-identical to theirs.

// Sums must be plain sequential additions, as on the host.
#pragma OPENCL FP_CONTRACT OFF

// Mapping modes (convert.go has the same constants).
#define MODE_LOWER 0    // segment = column of the lower position, key = side*n + row
#define MODE_ROWS 1     // segment = row, key = column
#define MODE_ROWS_SYM 2 // item t: entry t>>1; t&1 selects the lower position or its mirror

// Status words (convert.go reads them once).
#define ST_FLAGS 0
#define ST_BAD_INDEX 1 // smallest entry with an index outside the shape
#define ST_BAD_VALUE 2 // smallest entry with a NaN or infinite value
#define ST_ASYM_COL 3  // smallest column where the two triangles differ
#define FLAG_INDEX 1
#define FLAG_VALUE 2
#define FLAG_ASYM 4

// map_count: one work-item per item. It validates the entry, writes the
// item's segment (-1 for items that take no part) and key, and counts the
// segment's items.
__kernel void map_count(int m, int mode, int symmetric, int rows, int cols,
                        __global const int *I, __global const int *J, __global const double *V,
                        __global int *segOf, __global int *keyOf, __global int *count,
                        __global int *status) {
	int t = get_global_id(0);
	if (t >= m) return;
	int k = mode == MODE_ROWS_SYM ? t >> 1 : t;
	int first = mode != MODE_ROWS_SYM || (t & 1) == 0; // reports an entry once
	int i = I[k], j = J[k];
	if (i < 0 || i >= rows || j < 0 || j >= cols) {
		if (first) {
			atomic_or(&status[ST_FLAGS], FLAG_INDEX);
			atomic_min(&status[ST_BAD_INDEX], k);
		}
		segOf[t] = -1;
		return;
	}
	if (first) {
		double v = V[k];
		if (isnan(v) || isinf(v)) {
			atomic_or(&status[ST_FLAGS], FLAG_VALUE);
			atomic_min(&status[ST_BAD_VALUE], k);
		}
	}
	int seg, key;
	if (mode == MODE_LOWER) {
		int side = 0;
		if (i < j) {
			int s = i;
			i = j;
			j = s;
			side = !symmetric; // a full matrix keeps its upper triangle apart for the symmetry check
		}
		seg = j;
		key = side * rows + i;
	} else if (mode == MODE_ROWS) {
		seg = i;
		key = j;
	} else {
		int a = max(i, j), b = min(i, j);
		if (t & 1) {
			if (a == b) { // the diagonal has no mirror
				segOf[t] = -1;
				return;
			}
			seg = b;
			key = a;
		} else {
			seg = a;
			key = b;
		}
	}
	segOf[t] = seg;
	keyOf[t] = key;
	atomic_inc(&count[seg]);
}

// bucket: one work-item per item; places it in its segment, in an arbitrary
// order that rank_segments then fixes.
__kernel void bucket(int m, __global const int *segOf, __global const int *keyOf,
                     __global const int *start, __global int *fill,
                     __global int *item, __global int *key) {
	int t = get_global_id(0);
	if (t >= m) return;
	int s = segOf[t];
	if (s < 0) return;
	int p = start[s] + atomic_inc(&fill[s]);
	item[p] = t;
	key[p] = keyOf[t];
}

// rank_segments: one work-item per bucketed item; its rank by (key, item) among the
// items of its segment is its sorted position. The work is the sum of the
// squared segment lengths: small for FE columns (tens to a few hundred),
// 4e6 compares for a dense column of 2000.
__kernel void rank_segments(int nseg, __global const int *segOf, __global const int *start,
                   __global const int *item, __global const int *key,
                   __global int *sortedItem, __global int *sortedKey) {
	int p = get_global_id(0);
	if (p >= start[nseg]) return;
	int t = item[p], kp = key[p];
	int s = segOf[t];
	int b = start[s], e = start[s + 1];
	int r = 0;
	for (int q = b; q < e; q++) {
		int kq = key[q];
		r += kq < kp || (kq == kp && item[q] < t);
	}
	sortedItem[b + r] = t;
	sortedKey[b + r] = kp;
}

// heads: flags the first item of every run of equal (segment, key); zero
// beyond the items so that the scan of the flags over all m positions counts
// the distinct entries.
__kernel void heads(int m, int nseg, __global const int *segOf, __global const int *start,
                    __global const int *sortedItem, __global const int *sortedKey,
                    __global int *head) {
	int p = get_global_id(0);
	if (p >= m) return;
	int h = 0;
	if (p < start[nseg]) {
		h = p == 0 || sortedKey[p - 1] != sortedKey[p] ||
		    segOf[sortedItem[p - 1]] != segOf[sortedItem[p]];
	}
	head[p] = h;
}

// sum_runs: one work-item per run head; sums the run in item order (the
// host's order) and writes the distinct entry at its compacted position.
__kernel void sum_runs(int nseg, int mode, __global const int *start,
                       __global const int *head, __global const int *hpos,
                       __global const int *segOf, __global const int *sortedItem,
                       __global const int *sortedKey, __global const double *V,
                       __global int *useg, __global int *ukey, __global double *uval) {
	int p = get_global_id(0);
	int total = start[nseg];
	if (p >= total || !head[p]) return;
	int t = sortedItem[p];
	double s = V[mode == MODE_ROWS_SYM ? t >> 1 : t];
	for (int q = p + 1; q < total && !head[q]; q++) {
		int tq = sortedItem[q];
		s += V[mode == MODE_ROWS_SYM ? tq >> 1 : tq];
	}
	int u = hpos[p];
	useg[u] = segOf[t];
	ukey[u] = sortedKey[p];
	uval[u] = s;
}

// lowerEnd returns the end of column j's lower-triangle entries among its
// distinct entries [us, ue), which hold the lower keys (< n) first.
inline int lowerEnd(int n, int us, int ue, __global const int *ukey) {
	int lo = us, hi = ue;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (ukey[mid] < n) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

// symcheck (MODE_LOWER on a full matrix): one work-item per distinct entry;
// compares each lower entry with its upper mirror (an absent entry counts as
// zero) with the host's relative tolerance 1e-12.
__kernel void symcheck(int m, int n, __global const int *start, __global const int *hpos,
                       __global const int *useg, __global const int *ukey,
                       __global const double *uval, __global int *status) {
	int u = get_global_id(0);
	if (u >= m || u >= hpos[m]) return;
	int j = useg[u], key = ukey[u];
	int us = hpos[start[j]], ue = hpos[start[j + 1]];
	int lower = key < n;
	int row = lower ? key : key - n;
	if (lower && row == j) return; // the diagonal has no mirror
	int want = lower ? key + n : row; // the key of the mirror
	int lo = us, hi = ue;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (ukey[mid] < want) lo = mid + 1;
		else hi = mid;
	}
	int found = lo < ue && ukey[lo] == want;
	if (!lower && found) return; // compared by the lower entry
	double va = lower ? uval[u] : 0.0;
	double vb = lower ? (found ? uval[lo] : 0.0) : uval[u];
	if (fabs(va - vb) > 1e-12 * fmax(fabs(va), fabs(vb))) {
		atomic_or(&status[ST_FLAGS], FLAG_ASYM);
		atomic_min(&status[ST_ASYM_COL], j);
	}
}

// lower_columns (MODE_LOWER): one work-item per column; the number of CSC
// entries (the diagonal always counts) and the last stored row.
__kernel void lower_columns(int n, __global const int *start, __global const int *hpos,
                            __global const int *ukey, __global int *cscCount,
                            __global int *lastRow) {
	int j = get_global_id(0);
	if (j >= n) return;
	int us = hpos[start[j]], ue = hpos[start[j + 1]];
	int ul = lowerEnd(n, us, ue, ukey);
	int diag = ul > us && ukey[us] == j;
	cscCount[j] = ul - us - diag + 1;
	lastRow[j] = ul > us ? ukey[ul - 1] : j;
}

// csc_fill: one work-item per distinct entry; lower entries go to their
// place in Elements, off-diagonal rows to RowIdx.
__kernel void csc_fill(int nu, int n, __global const int *start, __global const int *hpos,
                       __global const int *useg, __global const int *ukey,
                       __global const double *uval, __global const int *colIdx,
                       __global double *elements, __global int *rowIdx) {
	int u = get_global_id(0);
	if (u >= nu) return;
	int row = ukey[u];
	if (row >= n) return;
	int j = useg[u];
	int us = hpos[start[j]];
	int pos = colIdx[j] + (u - us) + (ukey[us] == j ? 0 : 1);
	elements[pos] = uval[u];
	if (row != j) rowIdx[pos - j - 1] = row;
}

// csc_zero_diag: one work-item per column; stores the zero diagonal of a
// column that has none (CSC always stores the diagonal).
__kernel void csc_zero_diag(int n, __global const int *start, __global const int *hpos,
                            __global const int *ukey, __global const int *colIdx,
                            __global double *elements) {
	int j = get_global_id(0);
	if (j >= n) return;
	int us = hpos[start[j]], ue = hpos[start[j + 1]];
	if (!(us < ue && ukey[us] == j)) elements[colIdx[j]] = 0.0;
}

// sks_heights: one work-item per column; the height from the monotone last
// row (lastMax[j+1] is the running maximum of the last rows up to column j).
__kernel void sks_heights(int n, __global const int *lastMax, __global long *height) {
	int j = get_global_id(0);
	if (j >= n) return;
	height[j] = (long)lastMax[j + 1] - j + 1;
}

// to_int32: one work-item per element; narrows the skyline positions, which
// convert.go has checked to fit.
__kernel void to_int32(int n, __global const long *in, __global int *out) {
	int j = get_global_id(0);
	if (j >= n) return;
	out[j] = (int)in[j];
}

// sks_fill: one work-item per distinct entry; lower entries go to their
// place in the column's run (Elements is zero-filled first).
__kernel void sks_fill(int nu, int n, __global const int *useg, __global const int *ukey,
                       __global const double *uval, __global const int *index,
                       __global double *elements) {
	int u = get_global_id(0);
	if (u >= nu) return;
	int row = ukey[u];
	if (row >= n) return;
	int j = useg[u];
	elements[index[j] + row - j] = uval[u];
}

// csr_rowptr: one work-item per row boundary; the start of every row among
// the distinct entries.
__kernel void csr_rowptr(int rows, __global const int *start, __global const int *hpos,
                         __global int *rowPtr) {
	int i = get_global_id(0);
	if (i > rows) return;
	rowPtr[i] = hpos[start[i]];
}

// dense_fill: one work-item per distinct entry of a row compaction (CSR
// order: segment = row, key = column); writes it into the column-major
// rows x cols matrix, zeroed before. Distinct entries never collide. The
// host adds entries to a zero matrix, so a stored -0 becomes +0 there: the
// same addition here keeps the two bit for bit equal.
__kernel void dense_fill(int nu, int rows, __global const int *useg, __global const int *ukey,
                         __global const double *uval, __global double *dense) {
	int u = get_global_id(0);
	if (u >= nu) return;
	dense[(long)ukey[u] * rows + useg[u]] = 0.0 + uval[u];
}
