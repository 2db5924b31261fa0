package emd

import (
	"context"
	"fmt"
	"math"
)

// MassTol is the relative tolerance on the difference of the two totals:
// |sum(a) - sum(b)| <= MassTol * max(sum(a), sum(b)). Within it the demand
// side is rescaled to the supply side's total; beyond it the input is
// rejected.
const MassTol = 1e-6

// MaxArcs bounds n*m (after dropping zero masses) where a dense cost
// matrix is built, at 8 bytes per arc: Solve, SolveMatrix and NewPoints
// (k*k), and Euclidean problems whose coordinates span more than 1e150
// (whose squared distances could overflow in the sparse solver). Other
// Euclidean problems that large go to the sparse solver, which has no such
// bound.
const MaxArcs = 1 << 27

// Flow is one positive entry of an optimal transport plan: Mass moves from
// supply From to demand To (indices into the caller's vectors).
type Flow struct {
	From, To int
	Mass     float64
}

// Result is an optimal transport.
//
// With Solver.Duals set it carries an optimality certificate that can be
// checked without trusting the solver: a plan Flows shipping a onto b'
// (b rescaled to a's total) and dual potentials U (one per entry of a) and
// V (one per entry of b) with
//   - U[i] + V[j] <= cost(i, j) for every i and j (dual feasibility),
//   - U[i] + V[j] = cost(i, j) wherever the plan ships (complementary
//     slackness),
//   - sum_i a[i] U[i] + sum_j b'[j] V[j] = Cost = the plan's cost,
//
// all up to rounding. By weak duality no plan costs less than the dual
// objective, so a certificate that checks out proves Cost optimal.
type Result struct {
	Cost   float64   // minimum total cost
	Flows  []Flow    // optimal plan (Solve and SolveMatrix; the point forms with Duals)
	U, V   []float64 // dual potentials (with Duals; nil otherwise)
	Pivots int       // simplex pivots done (on all levels)
	Sweeps int       // pricing sweeps over all arcs (sparse solver, all levels; 0 otherwise)
	Levels int       // levels solved coarse to fine (sparse solver; 0 otherwise)
}

// Solver solves transport problems, reusing its work space between calls.
// A Solver must not be used by several goroutines at once; the zero value
// is ready to use.
type Solver struct {
	// MaxPivots caps the simplex pivots; 0 selects DefaultMaxPivots.
	MaxPivots int
	// Duals asks for the optimality certificate (see Result): dual
	// potentials for every entry of a and b and, for the point forms, the
	// plan. It costs O(len(a) + len(b)) memory, plus one weighted
	// nearest-neighbour query (or, for Solve and SolveMatrix, a pass over
	// the costs) per entry whose potential the simplex does not give.
	Duals bool
	// Context, when not nil, is checked every 1,024 simplex pivots: once
	// it is done the solve stops with its error (wrapped), so that a
	// cancelled run does not wait for a large transport to finish.
	Context context.Context

	net    network
	dense  dense
	sparse sparse
	path   int // pathAuto, or a forced path for the Euclidean problems (tests)
	coarse int // n*m bound of the sparse solver's coarsest level (tests; 0: coarseArcs)
	// wrap, when not nil, wraps the sparse solver's pricer on each level
	// of masses sup and dem (tests).
	wrap   func(pr pricer, sup, dem []float64) pricer
	cost   []float64
	sup    []float64
	dem    []float64
	supIx  []int // point or entry of each supply
	demIx  []int // point or entry of each demand
	sx, sy []float64
	dx, dy []float64
	ctree  kdTree // demands, for the potentials of the certificate
	h      kbest

	// The sparse solver's tree, levels and coarse-to-fine start.
	tour     etour
	levels   []level
	cells    [6][]int32
	cellIdx  map[uint64]int32
	acc      []float64
	nodeCell []int32
	cellPi   []float64
	basis    []arcPair
	coarsePi []float64
	seedBuf  []arcPair
	keys     []float64
	spacing  float64 // typical distance between neighbouring points
}

// DefaultMaxPivots is the pivot cap for n supplies and m demands: far above
// the few times n+m pivots the block-search simplex needs in practice.
func DefaultMaxPivots(n, m int) int { return 1000*(n+m) + 100000 }

// Solve returns the minimum cost of moving supply a onto demand b when a unit
// of mass from i to j costs cost(i, j). cost is called once per pair of
// non-zero masses and must return finite values.
func Solve(a, b []float64, cost func(i, j int) float64) (float64, error) {
	var s Solver
	r, err := s.Solve(a, b, cost)
	return r.Cost, err
}

// SolveMatrix is Solve with a dense row-major len(a) x len(b) cost matrix.
func SolveMatrix(a, b, cost []float64) (float64, error) {
	var s Solver
	r, err := s.SolveMatrix(a, b, cost)
	return r.Cost, err
}

// SolvePoints returns the earth mover's distance with Euclidean ground
// distance between mass a at points (ax[i], ay[i]) and mass b at points
// (bx[j], by[j]).
func SolvePoints(ax, ay, a, bx, by, b []float64) (float64, error) {
	var s Solver
	r, err := s.SolvePoints(ax, ay, a, bx, by, b)
	return r.Cost, err
}

// SolveCommon returns the earth mover's distance with Euclidean ground
// distance between mass a and mass b on one list of points (x[k], y[k]),
// e.g. two distributions over the same grid cells.
func SolveCommon(x, y, a, b []float64) (float64, error) {
	var s Solver
	r, err := s.SolveCommon(x, y, a, b)
	return r.Cost, err
}

// checkMasses validates a mass vector and returns its total.
func checkMasses(name string, v []float64) (float64, error) {
	sum := 0.0
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("emd: %s[%d] = %v: masses must be finite", name, i, x)
		}
		if x < 0 {
			return 0, fmt.Errorf("emd: %s[%d] = %v: masses must be >= 0", name, i, x)
		}
		sum += x
	}
	if !(sum > 0) {
		return 0, fmt.Errorf("emd: %s has zero total mass", name)
	}
	if math.IsInf(sum, 0) {
		return 0, fmt.Errorf("emd: %s has an infinite total mass", name)
	}
	return sum, nil
}

// checkPair checks both mass vectors and their totals (see balance) and
// returns the factor that rescales b onto a's total.
func checkPair(a, b []float64) (float64, error) {
	sa, err := checkMasses("a", a)
	if err != nil {
		return 0, err
	}
	sb, err := checkMasses("b", b)
	if err != nil {
		return 0, err
	}
	return balance(sa, sb)
}

// balance checks the two totals and returns the factor that rescales the
// demand side onto the supply side's total.
func balance(sa, sb float64) (float64, error) {
	if math.Abs(sa-sb) > MassTol*math.Max(sa, sb) {
		return 0, fmt.Errorf("emd: totals differ: %v vs %v (relative tolerance %g)", sa, sb, MassTol)
	}
	return sa / sb, nil
}

// compact keeps the non-zero entries of v (times scale) and their indices.
func compact(dst []float64, ix []int, v []float64, scale float64) ([]float64, []int) {
	dst, ix = dst[:0], ix[:0]
	for i, x := range v {
		if x > 0 {
			dst = append(dst, x*scale)
			ix = append(ix, i)
		}
	}
	return dst, ix
}

// prepare validates a and b and fills s.sup/s.dem with their non-zero
// entries (b rescaled to a's total) and s.supIx/s.demIx with the indices.
func (s *Solver) prepare(a, b []float64) error {
	scale, err := checkPair(a, b)
	if err != nil {
		return err
	}
	s.sup, s.supIx = compact(s.sup, s.supIx, a, 1)
	s.dem, s.demIx = compact(s.dem, s.demIx, b, scale)
	if int64(len(s.sup))*int64(len(s.dem)) > MaxArcs {
		return fmt.Errorf("emd: %d x %d non-zero masses exceed %d arcs", len(s.sup), len(s.dem), MaxArcs)
	}
	return nil
}

// Solve is the package-level Solve, returning the plan too.
func (s *Solver) Solve(a, b []float64, cost func(i, j int) float64) (Result, error) {
	if cost == nil {
		return Result{}, fmt.Errorf("emd: nil cost function")
	}
	return s.general(a, b, cost)
}

// SolveMatrix is the package-level SolveMatrix, returning the plan too.
func (s *Solver) SolveMatrix(a, b, cost []float64) (Result, error) {
	if len(cost) != len(a)*len(b) {
		return Result{}, fmt.Errorf("emd: cost matrix has %d entries, want %d x %d", len(cost), len(a), len(b))
	}
	m := len(b)
	return s.general(a, b, func(i, j int) float64 { return cost[i*m+j] })
}

// checkCost returns cost(i, j), or an error if it is not finite.
func checkCost(cost func(i, j int) float64, i, j int) (float64, error) {
	v := cost(i, j)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("emd: cost(%d, %d) = %v: costs must be finite", i, j, v)
	}
	return v, nil
}

// general solves the transport of a onto b with a general cost on a dense
// matrix of the non-zero masses' costs.
func (s *Solver) general(a, b []float64, cost func(i, j int) float64) (Result, error) {
	if err := s.prepare(a, b); err != nil {
		return Result{}, err
	}
	n, m := len(s.sup), len(s.dem)
	s.cost = grow(s.cost, n*m)
	maxc := 0.0
	for r, i := range s.supIx {
		row := s.cost[r*m : (r+1)*m]
		for c, j := range s.demIx {
			v, err := checkCost(cost, i, j)
			if err != nil {
				return Result{}, err
			}
			row[c] = v
			maxc = max(maxc, math.Abs(v))
		}
	}
	res, err := s.solve(maxc)
	if err != nil {
		return res, err
	}
	for x := range n + m {
		if i, j, real := s.net.arcOf(x); real && s.net.flow[x] > 0 {
			res.Flows = append(res.Flows, Flow{From: s.supIx[i], To: s.demIx[j], Mass: s.net.flow[x]})
		}
	}
	if s.Duals {
		err = s.generalDuals(&res, a, b, cost)
	}
	return res, err
}

// solve runs the simplex on s.sup, s.dem and the dense s.cost (largest
// absolute cost maxc).
func (s *Solver) solve(maxc float64) (Result, error) {
	if err := s.start(maxc); err != nil {
		return Result{}, err
	}
	n, m := len(s.sup), len(s.dem)
	s.dense.reset(n, m, s.cost[:n*m])
	s.dense.matrixMinimum(&s.net, s.sup, s.dem)
	return s.simplex(&s.dense, nil)
}

// start sizes the basis for s.sup and s.dem with costs at most maxc.
// Potentials are sums of up to n+m costs along tree paths: they must stay
// finite.
func (s *Solver) start(maxc float64) error {
	n, m := len(s.sup), len(s.dem)
	if maxc > math.MaxFloat64/float64(4*(n+m)) {
		return fmt.Errorf("emd: largest |cost| %v is too large for %d x %d points", maxc, n, m)
	}
	s.net.reset(n, m, maxc)
	s.net.et = nil
	return nil
}

// simplex builds the basis from the starting plan in s.net.edges and
// pivots to optimality over the arcs pr prices. If sweep is not nil the
// pricer sees only some of the arcs: after each optimum over them, sweep
// adds improving arcs from the rest and returns how many, and the simplex
// resumes until it adds none.
func (s *Solver) simplex(pr pricer, sweep func() int) (Result, error) {
	n, m := len(s.sup), len(s.dem)
	s.net.buildTree()
	maxp := s.MaxPivots
	if maxp <= 0 {
		maxp = DefaultMaxPivots(n, m)
	}
	piv, sweeps := 0, 0
	s.net.ctx = s.Context
	for {
		var err error
		piv, err = s.net.run(pr, piv, maxp)
		if err != nil {
			return Result{Pivots: piv}, fmt.Errorf("emd: %d x %d problem: %w", n, m, err)
		}
		if sweep == nil {
			break
		}
		sweeps++
		if sweep() == 0 {
			break
		}
	}
	res := Result{Cost: s.net.objective(), Pivots: piv, Sweeps: sweeps}
	if math.IsInf(res.Cost, 0) || math.IsNaN(res.Cost) {
		return Result{Pivots: piv}, fmt.Errorf("emd: %d x %d problem: total cost overflows", n, m)
	}
	return res, nil
}
