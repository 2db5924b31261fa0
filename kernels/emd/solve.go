package emd

import (
	"fmt"
	"math"
	"slices"
)

// MassTol is the relative tolerance on the difference of the two totals:
// |sum(a) - sum(b)| <= MassTol * max(sum(a), sum(b)). Within it the demand
// side is rescaled to the supply side's total; beyond it the input is
// rejected.
const MassTol = 1e-6

// MaxArcs bounds n*m (after dropping zero masses): the dense cost matrix
// takes 8 bytes per arc.
const MaxArcs = 1 << 27

// Flow is one positive entry of an optimal transport plan: Mass moves from
// supply From to demand To (indices into the caller's vectors).
type Flow struct {
	From, To int
	Mass     float64
}

// Result is an optimal transport.
type Result struct {
	Cost   float64 // minimum total cost
	Flows  []Flow  // optimal plan (Solve and SolveMatrix only; nil otherwise)
	Pivots int     // simplex pivots done
}

// Solver solves transport problems, reusing its work space between calls.
// A Solver must not be used by several goroutines at once; the zero value
// is ready to use.
type Solver struct {
	// MaxPivots caps the simplex pivots; 0 selects DefaultMaxPivots.
	MaxPivots int

	net   network
	dense dense
	cost  []float64
	sup   []float64
	dem   []float64
	supIx []int
	demIx []int
	sx    []float64
	sy    []float64
	dx    []float64
	dy    []float64
	si    []int // SolveOn: point of each supply
	di    []int // SolveOn: point of each demand
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
	if err := s.prepare(a, b); err != nil {
		return Result{}, err
	}
	n, m := len(s.sup), len(s.dem)
	s.cost = grow(s.cost, n*m)
	maxc := 0.0
	for r, i := range s.supIx {
		row := s.cost[r*m : (r+1)*m]
		for c, j := range s.demIx {
			v := cost(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Result{}, fmt.Errorf("emd: cost(%d, %d) = %v: costs must be finite", i, j, v)
			}
			row[c] = v
			maxc = max(maxc, math.Abs(v))
		}
	}
	return s.solve(maxc, true)
}

// SolveMatrix is the package-level SolveMatrix, returning the plan too.
func (s *Solver) SolveMatrix(a, b, cost []float64) (Result, error) {
	if len(cost) != len(a)*len(b) {
		return Result{}, fmt.Errorf("emd: cost matrix has %d entries, want %d x %d", len(cost), len(a), len(b))
	}
	if err := s.prepare(a, b); err != nil {
		return Result{}, err
	}
	n, m, m0 := len(s.sup), len(s.dem), len(b)
	s.cost = grow(s.cost, n*m)
	maxc := 0.0
	for r, i := range s.supIx {
		src := cost[i*m0 : (i+1)*m0]
		row := s.cost[r*m : (r+1)*m]
		for c, j := range s.demIx {
			v := src[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Result{}, fmt.Errorf("emd: cost[%d, %d] = %v: costs must be finite", i, j, v)
			}
			row[c] = v
			maxc = max(maxc, math.Abs(v))
		}
	}
	return s.solve(maxc, true)
}

// checkCoords validates point coordinates.
func checkCoords(name string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("emd: %s[%d] = %v: coordinates must be finite", name, i, x)
		}
	}
	return nil
}

// SolvePoints is the package-level SolvePoints. Because the Euclidean
// distance is a metric, the optimum depends only on a - b; mass shared by
// the two sides at identical points is cancelled before solving, so the
// plan of the reduced problem is not reported (Flows is nil).
func (s *Solver) SolvePoints(ax, ay, a, bx, by, b []float64) (Result, error) {
	if len(ax) != len(a) || len(ay) != len(a) {
		return Result{}, fmt.Errorf("emd: a has %d masses but %d x and %d y coordinates", len(a), len(ax), len(ay))
	}
	if len(bx) != len(b) || len(by) != len(b) {
		return Result{}, fmt.Errorf("emd: b has %d masses but %d x and %d y coordinates", len(b), len(bx), len(by))
	}
	for _, c := range []struct {
		name string
		v    []float64
	}{{"ax", ax}, {"ay", ay}, {"bx", bx}, {"by", by}} {
		if err := checkCoords(c.name, c.v); err != nil {
			return Result{}, err
		}
	}
	scale, err := checkPair(a, b)
	if err != nil {
		return Result{}, err
	}
	// The union of the two point sets, with each side's mass per point.
	type pt struct{ x, y float64 }
	idx := make(map[pt]int, len(a)+len(b))
	k := len(a) + len(b)
	xs, ys := make([]float64, 0, k), make([]float64, 0, k)
	ua, ub := make([]float64, 0, k), make([]float64, 0, k)
	add := func(x, y, va, vb float64) {
		if va == 0 && vb == 0 {
			return
		}
		p := pt{x, y}
		k, ok := idx[p]
		if !ok {
			k = len(xs)
			idx[p] = k
			xs, ys, ua, ub = append(xs, x), append(ys, y), append(ua, 0), append(ub, 0)
		}
		ua[k] += va
		ub[k] += vb
	}
	for i, v := range a {
		add(ax[i], ay[i], v, 0)
	}
	for j, v := range b {
		add(bx[j], by[j], 0, v)
	}
	return s.netSolve(xs, ys, ua, ub, scale)
}

// SolveCommon is the package-level SolveCommon. The points should be
// distinct: a repeated point is not an error but forgoes the cancellation
// of shared mass there.
func (s *Solver) SolveCommon(x, y, a, b []float64) (Result, error) {
	if len(x) != len(a) || len(y) != len(a) || len(b) != len(a) {
		return Result{}, fmt.Errorf("emd: %d x and %d y coordinates for %d and %d masses", len(x), len(y), len(a), len(b))
	}
	if err := checkCoords("x", x); err != nil {
		return Result{}, err
	}
	if err := checkCoords("y", y); err != nil {
		return Result{}, err
	}
	scale, err := checkPair(a, b)
	if err != nil {
		return Result{}, err
	}
	return s.netSolve(x, y, a, b, scale)
}

// netSolve solves the Euclidean transport of a onto scale*b (validated, on
// common points) after cancelling the mass they share at each point: only
// the surplus a - scale*b > 0 (supplies) and deficit (demands) remain.
func (s *Solver) netSolve(x, y, a, b []float64, scale float64) (Result, error) {
	k := len(a)
	s.sup, s.sx, s.sy = grow(s.sup, k)[:0], grow(s.sx, k)[:0], grow(s.sy, k)[:0]
	s.dem, s.dx, s.dy = grow(s.dem, k)[:0], grow(s.dx, k)[:0], grow(s.dy, k)[:0]
	pos, neg := 0.0, 0.0
	for k, va := range a {
		switch v := va - b[k]*scale; {
		case v > 0:
			s.sup, s.sx, s.sy = append(s.sup, v), append(s.sx, x[k]), append(s.sy, y[k])
			pos += v
		case v < 0:
			s.dem, s.dx, s.dy = append(s.dem, -v), append(s.dx, x[k]), append(s.dy, y[k])
			neg -= v
		}
	}
	n, m := len(s.sup), len(s.dem)
	if n == 0 || m == 0 {
		// Only rounding residue is left on one side.
		return Result{}, nil
	}
	if int64(n)*int64(m) > MaxArcs {
		return Result{}, fmt.Errorf("emd: %d x %d non-zero masses exceed %d arcs", n, m, MaxArcs)
	}
	// The cancellation leaves the two sides a few ulps of the original
	// totals apart; spread that residue over the demands so the plan balances.
	fix := pos / neg
	for j := range s.dem {
		s.dem[j] *= fix
	}
	s.cost = grow(s.cost, n*m)
	maxc := 0.0
	for i := 0; i < n; i++ {
		px, py := s.sx[i], s.sy[i]
		row := s.cost[i*m : (i+1)*m]
		dx, dy := s.dx[:len(row)], s.dy[:len(row)]
		for j := range row {
			u, v := px-dx[j], py-dy[j]
			c := math.Sqrt(u*u + v*v)
			row[j] = c
			maxc = max(maxc, c)
		}
	}
	if maxc > math.MaxFloat64 {
		// Squares overflowed somewhere: redo those entries the careful way.
		maxc = 0
		for k, c := range s.cost[:n*m] {
			if c > math.MaxFloat64 {
				i, j := k/m, k%m
				c = math.Hypot(s.sx[i]-s.dx[j], s.sy[i]-s.dy[j])
				if c > math.MaxFloat64 {
					return Result{}, fmt.Errorf("emd: distance between (%v, %v) and (%v, %v) overflows",
						s.sx[i], s.sy[i], s.dx[j], s.dy[j])
				}
				s.cost[k] = c
			}
			maxc = max(maxc, c)
		}
	}
	return s.solve(maxc, false)
}

// solve runs the simplex on s.sup, s.dem and s.cost (largest absolute
// cost maxc); plan asks for the optimal flows.
func (s *Solver) solve(maxc float64, plan bool) (Result, error) {
	n, m := len(s.sup), len(s.dem)
	// Potentials are sums of up to n+m costs along tree paths: keep them
	// finite.
	if maxc > math.MaxFloat64/float64(4*(n+m)) {
		return Result{}, fmt.Errorf("emd: largest |cost| %v is too large for %d x %d points", maxc, n, m)
	}
	s.net.reset(n, m, maxc)
	s.dense.reset(n, m, s.cost[:n*m])
	s.dense.matrixMinimum(&s.net, s.sup, s.dem)
	s.net.buildTree()
	maxp := s.MaxPivots
	if maxp <= 0 {
		maxp = DefaultMaxPivots(n, m)
	}
	piv, err := s.net.run(&s.dense, 0, maxp)
	if err != nil {
		return Result{Pivots: piv}, fmt.Errorf("emd: %d x %d problem: %w", n, m, err)
	}
	res := Result{Cost: s.net.objective(), Pivots: piv}
	if math.IsInf(res.Cost, 0) || math.IsNaN(res.Cost) {
		return Result{Pivots: piv}, fmt.Errorf("emd: %d x %d problem: total cost overflows", n, m)
	}
	if plan {
		for x := 0; x < n+m; x++ {
			if i, j, real := s.net.arcOf(x); real && s.net.flow[x] > 0 {
				res.Flows = append(res.Flows, Flow{From: s.supIx[i], To: s.demIx[j], Mass: s.net.flow[x]})
			}
		}
	}
	return res, nil
}

// Points is a fixed list of distinct points with their pairwise Euclidean
// distances, for solving many problems on the same points (SolveOn): the
// distances are computed once instead of once per problem. It is
// read-only after NewPoints, so several Solvers (goroutines) may share it.
type Points struct {
	x, y []float64
	dist []float64 // k*k, row-major
}

// NewPoints tabulates the distances between the points (x[k], y[k]).
func NewPoints(x, y []float64) (*Points, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("emd: %d x and %d y coordinates", len(x), len(y))
	}
	if err := checkCoords("x", x); err != nil {
		return nil, err
	}
	if err := checkCoords("y", y); err != nil {
		return nil, err
	}
	k := len(x)
	if int64(k)*int64(k) > MaxArcs {
		return nil, fmt.Errorf("emd: %d points exceed %d arcs", k, MaxArcs)
	}
	p := &Points{x: slices.Clone(x), y: slices.Clone(y), dist: make([]float64, k*k)}
	for i := range k {
		row := p.dist[i*k : (i+1)*k]
		for j := range row {
			// The same expression as netSolve, so SolveOn and SolveCommon
			// see bit-identical costs.
			u, v := x[i]-x[j], y[i]-y[j]
			c := math.Sqrt(u*u + v*v)
			if c > math.MaxFloat64 {
				return nil, fmt.Errorf("emd: distance between points %d and %d overflows: use SolveCommon", i, j)
			}
			row[j] = c
		}
	}
	return p, nil
}

// Len is the number of points.
func (p *Points) Len() int { return len(p.x) }

// SolveOn is SolveCommon on the tabulated points p: the same result, bit
// for bit, without recomputing the distances.
func (s *Solver) SolveOn(p *Points, a, b []float64) (Result, error) {
	if p == nil {
		return Result{}, fmt.Errorf("emd: nil Points")
	}
	k := p.Len()
	if len(a) != k || len(b) != k {
		return Result{}, fmt.Errorf("emd: %d points for %d and %d masses", k, len(a), len(b))
	}
	scale, err := checkPair(a, b)
	if err != nil {
		return Result{}, err
	}
	s.sup, s.si = grow(s.sup, k)[:0], grow(s.si, k)[:0]
	s.dem, s.di = grow(s.dem, k)[:0], grow(s.di, k)[:0]
	pos, neg := 0.0, 0.0
	for k, va := range a {
		switch v := va - b[k]*scale; {
		case v > 0:
			s.sup, s.si = append(s.sup, v), append(s.si, k)
			pos += v
		case v < 0:
			s.dem, s.di = append(s.dem, -v), append(s.di, k)
			neg -= v
		}
	}
	n, m := len(s.sup), len(s.dem)
	if n == 0 || m == 0 {
		return Result{}, nil
	}
	fix := pos / neg
	for j := range s.dem {
		s.dem[j] *= fix
	}
	s.cost = grow(s.cost, n*m)
	maxc := 0.0
	di := s.di[:m]
	for i, pi := range s.si {
		src := p.dist[pi*k : (pi+1)*k]
		row := s.cost[i*m : (i+1)*m]
		for j, pj := range di {
			c := src[pj]
			row[j] = c
			maxc = max(maxc, c)
		}
	}
	return s.solve(maxc, false)
}
