// Package emd computes exact earth mover's distances: the minimum cost of
// transporting a supply vector onto a demand vector of equal total mass.
//
// The solver is a primal network simplex specialised to the bipartite
// transportation network (supplies -> demands, uncapacitated arcs). Its
// basis is a spanning tree over the supply and demand nodes plus an
// artificial root, stored as parent pointers, depths and a doubly linked
// preorder thread, so that re-hanging a subtree and shifting its potentials
// costs time proportional to the subtree, not to the network. Leaving arcs
// are chosen by the strongly-feasible-tree rule (Cunningham), which rules
// out cycling on degenerate pivots. The start is the greedy matrix-minimum
// plan (ship along the cheapest arc between a supply and a demand that both
// have mass left, repeatedly), whose positive arcs form a forest; each tree
// of that forest hangs from the root by an artificial arc that never
// carries flow, so the start is strongly feasible and no big-M costs (which
// would ruin the potentials' precision) are needed.
//
// Two ways of pricing the arcs:
//   - dense: block search over a row-major n x m cost matrix (Solve,
//     SolveMatrix, SolveOn, and small Euclidean problems);
//   - sparse, for Euclidean problems with more than 2^18 arcs: the simplex
//     runs on a sparse arc set with costs computed from the coordinates,
//     coarse to fine. The points are gathered into square cells (of about
//     four points, doubling level by level) until the coarsest problem is
//     small; a cell's net mass (its supply less its demand: the distance
//     is a metric, so mass a cell both supplies and demands stays put) is
//     a supply or a demand of its level. Each level is solved exactly, and
//     its optimal basis starts the next finer one: the arcs between the
//     cells of each coarse basic arc, plus the 2 nearest neighbours of
//     every node, form the arc set, and a greedy start ships along them in
//     the order of their reduced costs under the coarse potentials. After
//     each optimum over the arc set a local sweep prices the arcs near the
//     basis (from each supply to the demands, and their neighbours, that
//     the basis joins to it and to its nearest supplies, and likewise for
//     each demand: optimal plans ship along locally parallel rays) and
//     adds the improving ones; when it finds none, a pricing sweep prices
//     all n*m arcs from the coordinates: a kd-tree over the demands,
//     holding per subtree the bounding box and the least -pi_j, bounds
//     c_ij - pi_j from below for a whole subtree, so that far arcs are
//     skipped without being priced. The sweep either proves the level
//     optimal over all arcs or adds each supply's (at most 4) most
//     improving arcs, and the simplex resumes from its basis. A level thus
//     starts about a cell from its optimum, however far the mass travels.
//     When the coarsest optimum moves the mass less than a point spacing
//     on average (a prior against its estimate), the finest level is
//     solved right after it from the 8 nearest neighbours of every node
//     instead. The basis tree is kept as an Euler tour in blocks with lazy
//     potential shifts, so that a pivot that moves a large subtree costs
//     about one shift per block instead of one update per node. Memory is
//     O((n+m) k) for k arcs per node, never n*m; on the synthetic hotspot
//     grids k stays near 15.
//
// Results are exact up to floating-point rounding: the simplex stops only
// when every arc's reduced cost, recomputed from freshly built potentials, is
// >= -1e-12 times the largest absolute cost (the sparse solver: the
// diagonal of the points' bounding box), which bounds the gap to the true
// optimum by that amount times the total mass.
//
// Entry points:
//   - Solve and SolveMatrix: a general cost (function or dense matrix);
//   - SolvePoints: two weighted point sets in the plane with Euclidean cost;
//   - SolveCommon: two masses on one list of points (e.g. two distributions
//     over the same grid cells), Euclidean cost;
//   - SolveOn: SolveCommon on points whose distances NewPoints tabulated.
//
// With Solver.Duals the Result carries an optimality certificate that can
// be checked independently of the simplex: a plan and dual potentials U, V
// with U[i] + V[j] <= cost(i, j) on every arc, equality on the plan's arcs
// and equal primal and dual objectives (see Result).
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
