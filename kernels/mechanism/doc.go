// Package mechanism puts location-privacy mechanisms behind one interface so
// that they can be compared on equal footing.
//
// A Mechanism turns an input grid, an output grid, a prior (which it may
// ignore) and one privacy parameter into a *kernels.Channel. Larger
// parameters always mean less privacy (larger tight epsilon, lower
// distortion, higher mutual information); calibration relies on it.
//
// Mechanisms provided, each with its reference in its doc comment:
//
//   - BA: Blahut-Arimoto rate-distortion channel (kernels.BA), parameter beta.
//   - LAP: discrete planar Laplace on the grid (kernels.Laplace), parameter eps.
//   - RR: k-ary randomized response over the cells, parameter eps (LDP).
//   - PlanarLaplace: the continuous planar Laplace mechanism of
//     geo-indistinguishability whose noisy point is snapped to the nearest
//     output cell; its exact cell-to-cell channel is computed by quadrature.
//   - Optimal: the optimal geo-indistinguishable mechanism of Bordenabe,
//     Chatzikokolakis and Palamidessi (CCS 2014), a linear program solved
//     whole by gonum's dense simplex or GLPK (small grids), or on whole
//     city grids by a certified Dantzig-Wolfe decomposition with GLPK or
//     COIN-OR CLP (build tags glpk, clp); OptimalSolver warm-starts a
//     sequence of eps.
//   - Elastic ("elastic-metric"): the exponential mechanism over the
//     elastic distinguishability metric of Chatzikokolakis, Palamidessi and
//     Stronati (PETS 2015), built from the prior as mass.
//
// Builtin is the table of these mechanisms (name in specs, what the
// parameter means, constructor from the experiment's Options, and the
// Style figures draw it in, the same in all of them: StyleOf finds it
// from a mechanism's label), and a
// Registry is a value built from such a table with NewRegistry: nothing
// registers itself at init. Experiments take their list of mechanisms
// from a Registry, so adding a mechanism is its file and its line in
// Builtin.
//
// Coarsened runs any of them on blocks of the grid and lifts the channel
// back, which keeps geo-indistinguishability and makes the LP's one-piece
// methods usable on city grids, at block resolution.
//
// Calibrate finds the parameter at which a mechanism reaches a target tight
// epsilon, average distortion or mutual information (bisection, or the
// Illinois variant of regula falsi, on a bracket built from the mechanism's
// Claim), and Measure and Identification compute the metrics of a channel
// under a prior.
//
// Operator is the structured path for large grids: BA, LAP, RR and
// PlanarLaplace also build their channel as a kernels.ChannelOp (the
// factorised BA channel, kernels.LaplaceOp, kernels.RROp, PlanarOp), and
// CalibrateOptions.Operators, TargetValue, Measure and Identification
// work on it without an |In| x |Out| matrix (every function that takes
// a kernels.ChannelOp chooses the dense or the structured path from its
// concrete type). PlanarOp
// keeps one table of the snapped planar Laplace's entries, translation
// invariant inside the output grid and along its border; what an operator
// cannot give at its size (the planar channel's exact tight epsilon, a
// brute force, on large grids) fails with ErrIntractable. Mechanisms
// without an operator (Optimal, Elastic) stay dense.
//
// Like package kernels, this package does no I/O, keeps no global state and
// takes randomness only from an explicit *rand.Rand.
package mechanism
