// Package fem generates the structural test systems of the thesis: 3-D
// linear-elastic solid models meshed with 8-node hexahedra (trilinear
// "brick" elements, 2×2×2 Gauss integration), assembled into a sparse
// stiffness matrix K and a load vector F with the fixed degrees of freedom
// eliminated.
//
// Two models are provided, following §6.2 and §6.3 of docs/thesis.md:
//
//   - Model 1, a concrete cantilever beam 0.30 × 0.50 × 3.00 m clamped at
//     x = 0 and loaded by 19 613.3 N/m along its top face (Model1);
//   - Model 2, a bridge pier: two circular columns on square footings and a
//     variable-depth cap beam loaded by 490 332.5 N/m (Model2).
//
// K is returned as a *sparse.COO holding the full symmetric matrix (both
// triangles), duplicates summed, sorted by column and then by row, the order
// of the COO files the thesis read. The API is non-generic so that REPL and
// notebook users can call it.
//
// Units are SI throughout: metres, newtons, pascals. "§N.M" in comments
// cites docs/thesis.md.
package fem
