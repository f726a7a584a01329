// Sliced ELLPACK (SELL-C) products for conjugate gradient (sell.go).
//
// The rows are cut into slices of C consecutive rows; slice s stores
// width(s) slots per row (its longest row's length, shorter rows padded
// with zeros), slot k of its row r at ptr[s] + k*C + r%C. The slots of a
// slice are thus stored column by column: the C items of a slice read C
// consecutive words at every step, and each item owns its row, so the
// product needs neither atomics nor a reduction, and both triangles are
// stored (the transpose products of a one-triangle layout are what CSC
// pays atomics or a second pass for).

// y = A x: one item per row, striding over the rows by the global size
// (the launch caps its groups, so an item may own several rows).
__kernel void sell_spmv(const int n, const int c,
                        __global const int *ptr, __global const int *col,
                        __global const double *val,
                        __global const double *x, __global double *y) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        const int s = i / c;
        const int end = ptr[s + 1];
        double sum = 0.0;
        for (int p = ptr[s] + i % c; p < end; p += c) {
            sum += val[p] * x[col[p]];
        }
        y[i] = sum;
    }
}
