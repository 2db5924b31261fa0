// Package kernels holds the numerics of privic: grid geometry, the
// Blahut-Arimoto (BA) mechanism, iterative Bayesian update (IBU and GIBU),
// the discrete planar Laplace mechanism (LAP), tight epsilon, exact earth
// mover's distance, obfuscation and channel metrics.
//
// The package does no I/O, keeps no global state and draws randomness only
// from an explicit *rand.Rand (math/rand/v2) passed by the caller.
//
// Distributions are []float64 indexed by a Grid's row-major cell index.
// A Channel is a dense row-major |In| x |Out| row-stochastic matrix; a
// ChannelOp is a channel as an operator (apply C and C^T, draw reports,
// tight epsilon), implemented by Channel and by the structured forms that
// never materialise a matrix: BAChannel, LaplaceOp, RROp.
//
// # Arguments
//
// Every exported function checks its arguments and returns an error (never
// panics) for: beta, eps or delta that are <= 0, NaN or infinite; negative,
// NaN or infinite entries; mismatched lengths or grids; and distributions
// whose sum is off 1 by more than StochasticTol*n (n the number of entries;
// the same tolerance applies to the rows of a *Channel, checked on every
// call; the dense forms that the package builds for its structured
// operators are stochastic by construction, and Obfuscate, IBU and GIBU
// do not re-check them). Report
// counts for GIBU and Obfuscate need not be normalised.
//
// # One API
//
// Every operation takes a ChannelOp and chooses its code path from the
// concrete type (see ChannelOp): one name per operation, whatever form
// the caller holds. IBUWorkspace runs IBU and GIBU without allocating
// once warm.
//
// # Speed
//
// One primitive dominates: the product of K = exp(-beta D) with a vector.
// On a grid K(x,y) depends only on the row and column offsets, so K is kept
// as a small table (see stencil) and the product is a 2-D convolution;
// a BA step is two such products, and so is an IBU step on a BA channel
// (BAChannel.Factorised). Below 1,024 cells (the paper's grids) the convolution
// is summed directly, O(m^2); from 1,024 cells on it is done by FFT,
// O(m log m), with a certificate for every entry (see kprod): FFT errors
// are absolute, so entries too small for the FFT's error bound are
// recomputed from a directly summed near window and an FFT of the far
// kernel alone, or summed exactly, and every entry stays within 4e-10
// relative of the exact sum. IBU on a general channel streams the dense
// matrix once per iteration (a fused dot/axpy pass). The inner loops have
// AVX2/FMA assembly kernels on amd64 (selected at start-up by CPUID) next
// to portable implementations (plain Go, or gonum's BLAS where it measured
// faster) that the tests check them against; build with -tags purego to
// use only the portable code. Workspaces (BAWorkspace, IBUWorkspace) make
// repeated runs allocation-free once their plans are built.
//
// # Scale
//
// Grids may have up to MaxCells (1,048,576) cells. Structured channels
// need O(m) memory (BAMemory, LaplaceOpMemory estimate it); dense ones
// are limited to MaxDenseCells (16,384) cells per side of the matrix
// (DenseChannelMemory). Obfuscation through a structured channel draws
// exactly from each row without computing it (factorSampler), and the
// tight epsilon of BA and LAP channels is an exact branch and bound over
// pairs of cells. DenseOf says which form the operator functions use
// (dense below DenseOpCells cells), MAPGuess gives the Bayesian
// adversary's guess of every report without a matrix, and
// BAChannel.SingularBounds certified bounds on a BA channel's smallest
// singular value in O(m), where a dense SVD (MinSingularValue) would cost
// O(m^3).
package kernels
