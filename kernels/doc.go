// Package kernels holds the numerics of privic: grid geometry, the
// Blahut-Arimoto (BA) mechanism, iterative Bayesian update (IBU and GIBU),
// the discrete planar Laplace mechanism (LAP), tight epsilon, exact earth
// mover's distance, obfuscation and channel metrics.
//
// The package does no I/O, keeps no global state and draws randomness only
// from an explicit *rand.Rand (math/rand/v2) passed by the caller.
//
// Distributions are []float64 indexed by a Grid's row-major cell index.
// A Channel is a dense row-major |In| x |Out| row-stochastic matrix.
package kernels
