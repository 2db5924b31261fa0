package emd

import (
	"fmt"
	"math"
	"slices"
)

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
// plan (Flows) is reported only with Duals.
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
	// The union of the two point sets, with each side's mass per point
	// and each entry's point.
	type pt struct{ x, y float64 }
	idx := make(map[pt]int, len(a)+len(b))
	k := len(a) + len(b)
	xs, ys := make([]float64, 0, k), make([]float64, 0, k)
	ua, ub := make([]float64, 0, k), make([]float64, 0, k)
	at := make([]int, k)
	add := func(x, y float64) int {
		p := pt{x, y}
		k, ok := idx[p]
		if !ok {
			k = len(xs)
			idx[p] = k
			xs, ys, ua, ub = append(xs, x), append(ys, y), append(ua, 0), append(ub, 0)
		}
		return k
	}
	for i, v := range a {
		at[i] = add(ax[i], ay[i])
		ua[at[i]] += v
	}
	for j, v := range b {
		at[len(a)+j] = add(bx[j], by[j])
		ub[at[len(a)+j]] += v
	}
	res, err := s.netSolve(xs, ys, ua, ub, scale)
	if err == nil && s.Duals {
		s.certifyCommon(&res, xs, ys, ua, ub, scale)
		res = splitPoints(res, at, a, b, scale)
	}
	return res, err
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
	res, err := s.netSolve(x, y, a, b, scale)
	if err == nil && s.Duals {
		s.certifyCommon(&res, x, y, a, b, scale)
	}
	return res, err
}

// split cancels the mass a and scale*b (validated, on common points) share
// at each point: only the surplus a - scale*b > 0 (supplies, at points
// s.supIx) and the deficit (demands, at points s.demIx) remain. It
// returns false if one side is empty: only rounding residue was left.
func (s *Solver) split(a, b []float64, scale float64) bool {
	k := len(a)
	s.sup, s.supIx = grow(s.sup, k)[:0], grow(s.supIx, k)[:0]
	s.dem, s.demIx = grow(s.dem, k)[:0], grow(s.demIx, k)[:0]
	pos, neg := 0.0, 0.0
	for k, va := range a {
		switch v := va - b[k]*scale; {
		case v > 0:
			s.sup, s.supIx = append(s.sup, v), append(s.supIx, k)
			pos += v
		case v < 0:
			s.dem, s.demIx = append(s.dem, -v), append(s.demIx, k)
			neg -= v
		}
	}
	if len(s.sup) == 0 || len(s.dem) == 0 {
		return false
	}
	// The cancellation leaves the two sides a few ulps of the original
	// totals apart; spread that residue over the demands so the plan
	// balances.
	fix := pos / neg
	for j := range s.dem {
		s.dem[j] *= fix
	}
	return true
}

// coords gathers the coordinates of the supplies and demands.
func (s *Solver) coords(x, y []float64) {
	gather := func(dst []float64, v []float64, ix []int) []float64 {
		dst = grow(dst, len(ix))
		for k, i := range ix {
			dst[k] = v[i]
		}
		return dst
	}
	s.sx, s.sy = gather(s.sx, x, s.supIx), gather(s.sy, y, s.supIx)
	s.dx, s.dy = gather(s.dx, x, s.demIx), gather(s.dy, y, s.demIx)
}

// netSolve solves the Euclidean transport of a onto scale*b (validated, on
// common points) after cancelling the mass they share (split): by the
// sparse solver on large problems, else with a dense cost matrix.
func (s *Solver) netSolve(x, y, a, b []float64, scale float64) (Result, error) {
	if !s.split(a, b, scale) {
		return Result{}, nil
	}
	s.coords(x, y)
	n, m := len(s.sup), len(s.dem)
	if s.path == pathSparse || s.path == pathAuto && int64(n)*int64(m) > DenseArcs {
		if maxc, ok := s.diameter(); ok {
			return s.solveSparse(maxc)
		}
	}
	if int64(n)*int64(m) > MaxArcs {
		return Result{}, fmt.Errorf("emd: %d x %d non-zero masses exceed %d arcs", n, m, MaxArcs)
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
	return s.solve(maxc)
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
	res := Result{}
	if s.split(a, b, scale) {
		n, m := len(s.sup), len(s.dem)
		s.cost = grow(s.cost, n*m)
		maxc := 0.0
		di := s.demIx[:m]
		for i, pi := range s.supIx {
			src := p.dist[pi*k : (pi+1)*k]
			row := s.cost[i*m : (i+1)*m]
			for j, pj := range di {
				c := src[pj]
				row[j] = c
				maxc = max(maxc, c)
			}
		}
		if res, err = s.solve(maxc); err != nil {
			return res, err
		}
	}
	if s.Duals {
		s.coords(p.x, p.y)
		s.certifyCommon(&res, p.x, p.y, a, b, scale)
	}
	return res, nil
}

// Paths for the Euclidean problems: by size, or forced (tests).
const (
	pathAuto = iota
	pathDense
	pathSparse
)

// DenseArcs is the largest n*m solved with a dense cost matrix; larger
// Euclidean problems go to the sparse solver. Below about this size the
// two take about as long (the sparse one pays for its kd-trees and
// sweeps); the paper's grids (at most 884 cells, so n*m < 2^18) stay on the
// dense path and keep their results bit for bit.
const DenseArcs = 1 << 18

// diameter returns the diagonal of the bounding box of the supply and
// demand points, an upper bound of every arc's cost, and false if squares
// of the coordinate differences could overflow (the sparse solver computes
// distances as sqrt(dx*dx + dy*dy) throughout).
func (s *Solver) diameter() (float64, bool) {
	x0, x1 := min(slices.Min(s.sx), slices.Min(s.dx)), max(slices.Max(s.sx), slices.Max(s.dx))
	y0, y1 := min(slices.Min(s.sy), slices.Min(s.dy)), max(slices.Max(s.sy), slices.Max(s.dy))
	w, h := x1-x0, y1-y0
	if !(w < 1e150 && h < 1e150) {
		return 0, false
	}
	return math.Sqrt(w*w + h*h), true
}
