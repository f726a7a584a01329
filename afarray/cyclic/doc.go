// Package cyclic solves tridiagonal and block tridiagonal systems on an
// OpenCL device by cyclic reduction.
//
// Scalar tridiagonal systems come in batches (Tridiag, Tridiag32): count
// independent systems of the same order n, stored one after the other. Solve
// and Solve32 run one of four methods:
//
//   - "cr": cyclic reduction (Hockney and Golub): each level combines every
//     second equation with its two neighbours, halving the system, down to
//     one equation; back-substitution then recovers the eliminated unknowns.
//   - "pcr": parallel cyclic reduction: every equation is reduced at every
//     level, so that after ceil(log2 n) levels all equations are decoupled.
//   - "crpcr": the hybrid: cyclic reduction until the reduced system is small
//     enough for one work-item per equation, parallel cyclic reduction on it,
//     then cyclic-reduction back-substitution.
//   - "thomas": the sequential Thomas algorithm on the host, the reference.
//
// Any order n works, not only 2^p - 1. A system that fits in a work-group's
// local memory is solved by one work-group. Larger systems (up to 2^24
// unknowns and beyond) first go through cyclic-reduction levels in global
// memory, one launch per level, each writing the reduced system compactly so
// that reads and writes stay coalesced, until the reduced system fits a
// work-group; the chosen method then solves it in local memory and
// back-substitution levels in global memory recover the rest. The method name
// therefore selects the in-work-group solver; the global levels are always
// cyclic reduction, which does O(n) work where parallel cyclic reduction would
// do O(n log n).
//
// None of the methods pivots. A zero or subnormal divisor, or a non-finite
// result, is detected on the device and reported as ErrBreakdown instead of
// returning NaN. Diagonally dominant systems never break down.
//
// Poisson2D solves the 2-D Poisson problem on a (2^k - 1) x q grid by block
// cyclic reduction in Buneman's stable form. The solves with the matrix
// polynomials of the reduction are split by partial fractions into
// independent shifted tridiagonal solves T - 2cos(theta_j) I, all solved in
// one batch per level on the device.
//
// Poisson1D, Poisson1DBatch and Poisson2DManufactured generate test problems
// with manufactured exact solutions; Poisson2DProblem discretises any source
// and boundary values.
//
// Every entry point takes Go slices and keeps the data on the device during
// a solve. Plan.SolveTo and BCRPlan.SolveTo take device buffers already
// resident (Upload, Upload32), for callers that chain device work and for
// benchmarks that time transfers apart.
package cyclic
