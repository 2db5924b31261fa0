// Package emd computes exact earth mover's distances: the minimum cost of
// transporting a supply vector onto a demand vector of equal total mass.
//
// The solver is a primal network simplex specialised to the complete
// bipartite transportation network (supplies -> demands, uncapacitated
// arcs). Its basis is a spanning tree over the supply and demand nodes plus
// an artificial root, stored as parent pointers, depths and a doubly linked
// preorder thread, so that re-hanging a subtree and shifting its potentials
// costs time proportional to the subtree, not to the network. Entering arcs
// are chosen by block search over a dense row-major cost matrix; leaving
// arcs by the strongly-feasible-tree rule (Cunningham), which rules out
// cycling on degenerate pivots. The start is the greedy matrix-minimum plan
// (ship along the cheapest arc between a supply and a demand that both have
// mass left, repeatedly), whose positive arcs form a forest; each tree of
// that forest hangs from the root by an artificial arc that never carries
// flow, so the start is strongly feasible and no big-M costs (which would
// ruin the potentials' precision) are needed.
//
// Results are exact up to floating-point rounding: the simplex stops only
// when every arc's reduced cost, recomputed from freshly built potentials, is
// >= -1e-12 times the largest absolute cost, which bounds the gap to the
// true optimum by that amount times the total mass.
//
// Entry points:
//   - Solve and SolveMatrix: a general cost (function or dense matrix);
//   - SolvePoints: two weighted point sets in the plane with Euclidean cost;
//   - SolveCommon: two masses on one list of points (e.g. two distributions
//     over the same grid cells), Euclidean cost.
//
// Zero-mass points are dropped before solving. Totals must agree within
// MassTol (relative); the demand side is then rescaled to the supply side's
// total, as POT's ot.emd does. Bad input (NaN, Inf, negative mass,
// mismatched lengths, zero total) is reported as an error, never a panic,
// and the pivot count is capped (Solver.MaxPivots) so that a numerical
// breakdown surfaces as ErrMaxPivots instead of an endless loop.
//
// For Euclidean costs (a metric) the distance depends only on the difference
// of the two measures (Kantorovich-Rubinstein duality), so SolvePoints and
// SolveCommon first cancel the mass the two sides share at identical points.
// On two distributions over the same grid this leaves each cell on one side
// only, which roughly quarters the number of arcs.
package emd
