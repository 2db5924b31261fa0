package mechanism

import (
	"fmt"
	"math"
	"time"

	"privic/kernels"
	"privic/kernels/lp"
)

// Optimal is the optimal geo-indistinguishable mechanism: among all
// channels C from the input to the output grid that are eps-geo-
// indistinguishable,
//
//	C[x,y] <= e^{eps d(x,x')} C[x',y]   for all x, x', y,
//
// it is the one of least expected distortion sum_x prior(x) sum_y C[x,y]
// d(x,y) (Euclidean distance, cell units). It is a linear program in the
// |In| x |Out| entries of C with the rows summing to 1 and C >= 0.
//
// Reference: N. E. Bordenabe, K. Chatzikokolakis, C. Palamidessi,
// "Optimal geo-indistinguishable mechanisms for location privacy", ACM CCS
// 2014. As in that paper, Spanner >= 1 keeps only the constraints between
// neighbours of a spanner of the grid and tightens eps to eps/δ, where δ is
// the spanner's dilation (the largest ratio of graph to Euclidean distance);
// chaining the constraints along shortest paths then gives
// C[x,y] <= e^{(eps/δ) d_G(x,x')} C[x',y] <= e^{eps d(x,x')} C[x',y], so the
// result is still eps-geo-indistinguishable, with slightly more distortion
// than the exact optimum (Spanner = 0).
//
// Two ways to solve it (Method):
//
//   - "decompose" (the default with CLP): Dantzig-Wolfe decomposition by
//     output column with a stabilised, certified lower bound (see colGen).
//     It never builds the |In|^2 |Out| constraints: the master LP has |In|
//     rows and each output's pricing LP |In| variables. The result comes
//     with a certified relative duality gap (LPStats.Gap <= Gap) and a
//     channel whose kernels.Channel.TightEpsilon is checked to be at most eps.
//   - "dual", "primal", "interior": the whole LP at once with one solver
//     call (GLPK's dual simplex is the default with GLPK; gonum's dense
//     simplex has a single method and ignores this). Practical on small
//     grids only.
//
// Solvers: "gonum" (default), gonum's dense simplex
// (gonum.org/v1/gonum/optimize/convex/lp), direct only, for tiny grids;
// "glpk", the GNU Linear Programming Kit through cgo (build tag glpk,
// Debian package libglpk-dev); "clp", COIN-OR CLP through cgo (build tag
// clp, Debian package coinor-libclp-dev); both through package
// kernels/lp, which this package feeds the LP. See SolverAvailable.
//
// Measured on the 2-core development machine at eps = 1 with the Gowalla
// priors while other jobs shared it (load average 12-20, so a solve got
// well under one core; BenchmarkOptimalCity, medians of 5 for Paris):
//
//	decompose, Paris 11x15, all pairs (4.5M constraints):  clp 20.5 s, glpk 23.8 s; 48 rounds
//	decompose, Paris, spanner 1 (δ 1.08, 193k):             clp 8.1 s, glpk 8.7 s; 38-41 rounds
//	decompose, San Francisco 16x24, spanner 1 (1.1M):       clp 138-154 s, glpk 196-288 s; 56-68 rounds
//	decompose, San Francisco, all pairs (56.5M):            glpk 813 s, 68 rounds
//	direct, Paris, spanner 1:                               clp dual simplex 431 s, clp barrier 349 s
//	direct, gonum: 3x3 (657 rows) 3.5 s; 3x4 (1596 rows) 520 s
//	direct, glpk:  6x6 all pairs 10 s; 8x8 all pairs (258k rows) 267 s
//
// Coarsened reaches large grids with the direct methods at block
// resolution.
type Optimal struct {
	// Spanner selects the constraints: 0 keeps every pair of input cells
	// (the exact optimum); k >= 1 keeps pairs whose offset (a, b) has
	// max(|a|,|b|) <= k and gcd(|a|,|b|) = 1 (k = 1: the 8 neighbours,
	// δ ≈ 1.08; k = 2 adds knight moves, δ ≈ 1.03) and uses eps/δ.
	Spanner int
	// Solver is "gonum" (or ""), "glpk" or "clp".
	Solver string
	// Method is "decompose" or, for the whole LP at once, "dual", "primal"
	// or "interior" (interior point; its solution is accurate to about
	// 1e-8 and not a vertex). "" means "decompose" with CLP and "dual"
	// otherwise.
	Method string
	// MaxConstraints refuses larger programs before building them (direct
	// methods only; the decomposition never builds them); 0 means
	// DefaultMaxConstraints(Solver).
	MaxConstraints int
	// TimeLimit stops the solve after this long (0: no limit; gonum and
	// GLPK's interior point have none).
	TimeLimit time.Duration
	// Gap is the relative duality gap at which the decomposition stops;
	// 0 means DefaultGap.
	Gap float64
	// Workers is the number of goroutines pricing the decomposition's
	// outputs, each with its own LP models (0 means 1). The result does
	// not depend on it.
	Workers int
	// MasterSolver, if set, solves the decomposition's master LP while
	// Solver solves the pricing LPs ("glpk" or "clp").
	MasterSolver string
}

// DefaultGap is the decomposition's relative duality gap when Optimal.Gap
// is 0.
const DefaultGap = 1e-6

// Solver names.
const (
	SolverGonum = "gonum"
	SolverGLPK  = lp.GLPK
	SolverCLP   = lp.CLP
)

// Method names.
const (
	MethodDecompose = "decompose"
	MethodDual      = "dual"
	MethodPrimal    = "primal"
	MethodInterior  = "interior"
)

func errUnknownSolver(name string) error {
	return fmt.Errorf("unknown LP solver %q (known: gonum, glpk, clp)", name)
}

// SolverAvailable reports whether the named LP solver is compiled in.
func SolverAvailable(name string) bool {
	switch name {
	case "", SolverGonum:
		return true
	}
	return lp.Available(name)
}

// Info implements Mechanism.
func (m Optimal) Info() Info {
	name := "optimal"
	if m.Spanner > 0 {
		name = fmt.Sprintf("optimal-spanner%d", m.Spanner)
	}
	return Info{
		Name: name, Param: "eps", Min: 1e-3, Max: 20, PriorDependent: true,
		Reference: "Bordenabe, Chatzikokolakis, Palamidessi, CCS 2014",
	}
}

// Claim implements Mechanism: every constraint is imposed (directly or
// through the spanner), so TightEps <= eps. The decomposition checks it
// exactly (see finishChannel). The direct methods keep repairGeoInd, whose
// final row normalisation moves the log-ratios by up to the solver's
// feasibility error (about 1e-9), hence Tol = 1e-7 for them.
func (m Optimal) Claim(in, out kernels.Grid, eps float64) Claim {
	if m.method() == MethodDecompose {
		return Claim{Lo: 0, Hi: eps, Note: "geo-ind constraints of the LP, checked on the channel"}
	}
	return Claim{Lo: 0, Hi: eps, Tol: 1e-7, Note: "geo-ind constraints of the LP"}
}

// Channel implements Mechanism: it solves the LP for prior.
func (m Optimal) Channel(in, out kernels.Grid, prior []float64, eps float64) (*kernels.Channel, error) {
	ch, _, err := m.Solve(in, out, prior, eps)
	return ch, err
}

// Size returns the LP's number of variables and of constraints (rows,
// the stochastic ones included) on in -> out, without building it.
func (m Optimal) Size(in, out kernels.Grid) (variables, constraints int) {
	return in.Len() * out.Len(), in.Len() + 2*len(spannerEdges(in, max(m.Spanner, 0)))*out.Len()
}

// DefaultMaxConstraints is the size limit of a solver's direct methods
// when Optimal.MaxConstraints is 0.
func DefaultMaxConstraints(solver string) int {
	if solver == SolverGLPK || solver == SolverCLP {
		return 20000000
	}
	return 50000
}

func (m Optimal) solver() string {
	if m.Solver == "" {
		return SolverGonum
	}
	return m.Solver
}

func (m Optimal) method() string {
	if m.Method != "" {
		return m.Method
	}
	if m.solver() == SolverCLP {
		return MethodDecompose
	}
	return MethodDual
}

// LPStats describes one solve of the optimal mechanism's LP.
type LPStats struct {
	Solver, Method string
	Eps            float64
	// Variables and Constraints are the full LP's (Constraints counts the
	// geo-ind rows, 2 per constrained pair and output, and the row sums),
	// whether or not the method builds them.
	Variables, Constraints int
	Dilation               float64 // δ of the spanner (1 with Spanner = 0)
	// Rounds is the decomposition's master-pricing rounds (1 for the
	// direct methods); Iterations the simplex iterations of every model
	// (0 where the solver does not report them: gonum).
	Rounds, Iterations int
	// Columns and PricingRows are the decomposition's master columns and
	// pricing rows (all outputs) at the end.
	Columns, PricingRows int
	Seconds              float64 // wall-clock time of the solve
	// Primal is the expected distortion of the returned channel; Dual a
	// certified lower bound on the LP's optimum (NaN where the solver
	// gives no duals: gonum); Gap = (Primal - Dual) / Primal.
	Primal, Dual, Gap float64
	// TightEps is kernels.Channel.TightEpsilon of the returned channel.
	TightEps float64
	// Warm reports a solve started from the previous one's columns and
	// duals (OptimalSolver).
	Warm bool
}

// Solve builds and solves the LP and returns the channel with statistics.
func (m Optimal) Solve(in, out kernels.Grid, prior []float64, eps float64) (*kernels.Channel, LPStats, error) {
	s, err := m.NewSolver(in, out, prior)
	if err != nil {
		return nil, LPStats{}, err
	}
	return s.Solve(eps)
}

// repairSlack is how far below eps the decomposition's columns are kept
// (in eps units), so that normalising the rows (which moves log-ratios by
// about the master's feasibility tolerance, 1e-9) cannot lift the tight
// epsilon above eps. Its cost is a relative change of the optimum of about
// slack/eps, far below DefaultGap.
func repairSlack(eps float64) float64 { return 1e-8 * math.Max(1, eps) }

// finishChannel turns an assembled solution p (C[x*nOut+y], columns in
// the cone of eps - slack up to the solvers' tolerance) into a channel
// whose tight epsilon is at most eps, checked with kernels.Channel.TightEpsilon:
// every column is raised to its smallest majorant that is exactly
// (eps - slack)-geo-indistinguishable, v'[x] = max_x' v[x'] e^{-(eps -
// slack) d(x,x')} (for the decomposition's columns a no-op up to
// rounding), and the rows are normalised. Normalising multiplies the
// ratios C[x,y]/C[x',y] by s_x'/s_x, the ratio of two row sums, each
// within the solvers' tolerance of 1; the slack absorbs that.
func finishChannel(in, out kernels.Grid, p []float64, eps float64) (*kernels.Channel, float64, error) {
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, 0, err
	}
	copy(ch.P, p)
	raiseToGeoInd(ch, eps-repairSlack(eps), 0)
	if err := normaliseRows(ch); err != nil {
		return nil, 0, err
	}
	te, err := ch.TightEpsilon()
	if err != nil {
		return nil, 0, err
	}
	if te > eps {
		return nil, 0, fmt.Errorf("tight epsilon of the solution %v above eps = %v after repair", te, eps)
	}
	return ch, te, nil
}

// raiseToGeoInd raises every column of ch whose largest entry is at least
// floor to its smallest eps-geo-indistinguishable majorant,
// v'[x] = max_x' v[x'] e^{-eps d(x,x')} (by the triangle inequality
// v'[x] >= e^{-eps d(x,z)} v'[z] for all x, z), and zeroes the others.
func raiseToGeoInd(ch *kernels.Channel, eps, floor float64) {
	m, n := ch.In.Len(), ch.Out.Len()
	k := make([]float64, m*m)
	for x := 0; x < m; x++ {
		for x2 := 0; x2 < m; x2++ {
			k[x*m+x2] = math.Exp(-eps * kernels.Dist(ch.In, x, ch.In, x2))
		}
	}
	col := make([]float64, m)
	for y := 0; y < n; y++ {
		top := 0.0
		for x := 0; x < m; x++ {
			col[x] = ch.P[x*n+y]
			top = math.Max(top, col[x])
		}
		for x := 0; x < m; x++ {
			v := 0.0
			if top > 0 && top >= floor {
				kx := k[x*m : (x+1)*m]
				for x2, c := range col {
					v = math.Max(v, c*kx[x2])
				}
			}
			ch.P[x*n+y] = v
		}
	}
}

// normaliseRows scales every row of ch to sum 1.
func normaliseRows(ch *kernels.Channel) error {
	for x := 0; x < ch.In.Len(); x++ {
		row := ch.Row(x)
		s := 0.0
		for _, v := range row {
			s += v
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("row %d of the solution sums to %v", x, s)
		}
		for y := range row {
			row[y] /= s
		}
	}
	return nil
}

// repairGeoInd is the direct methods' repair of a solution that is
// eps-geo-indistinguishable up to a tolerance of about 1e-9: columns whose
// largest entry is below 1e-10 (unused outputs carrying rounding noise) are
// zeroed, every other column is raised to its smallest eps-geo-
// indistinguishable majorant, and the rows are renormalised. Each step
// moves entries by about the solver's tolerance, but it makes the measured
// tight epsilon meaningful: without it a rounding residue of 1e-17 next to
// an exact zero reads as an infinite ratio.
func repairGeoInd(ch *kernels.Channel, eps float64) {
	raiseToGeoInd(ch, eps, 1e-10)
	for x := 0; x < ch.In.Len(); x++ {
		row := ch.Row(x)
		s := 0.0
		for _, v := range row {
			s += v
		}
		for y := range row {
			row[y] /= s
		}
	}
}
