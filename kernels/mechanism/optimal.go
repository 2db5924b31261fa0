package mechanism

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"privic/kernels"
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
// Solvers: "gonum" (default), gonum's dense simplex
// (gonum.org/v1/gonum/optimize/convex/lp), practical only on tiny grids
// because every iteration factorises the dense basis of one row per
// constraint; "glpk", the GNU Linear Programming Kit's sparse simplex
// through cgo, available when built with `-tags glpk` (Debian package
// libglpk-dev). See SolverAvailable.
//
// Measured on the 2-core development machine at eps = 1 (shared, so times
// vary by up to 3x; BenchmarkOptimal):
//
//	gonum, all pairs:   3x3 (657 rows) 3.5 s; 3x4 (1596 rows) 520 s
//	gonum, spanner 1:   3x3 (369 rows) 0.9 s; 3x4 (708 rows) 34-43 s
//	glpk dual, all:     5x5 1.3 s; 6x6 (45k rows) 10 s; 8x8 (258k rows) 267 s
//	glpk dual, span. 1: 5x5 0.5 s; 6x6 (8k rows) 3-13 s; 8x8 (27k rows) 25-82 s; 10x10 > 120 s
//	glpk interior, s.1: 6x6 1.8 s; 8x8 10 s; 9x9 and 10x10 fail (GLPK: numerical instability)
//
// so the largest grids solved within 60 s are 3x4 (spanner) with gonum and
// 8x8 (spanner, dual simplex or interior point) with GLPK. Larger grids are
// reached through Coarsened.
type Optimal struct {
	// Spanner selects the constraints: 0 keeps every pair of input cells
	// (the exact optimum); k >= 1 keeps pairs whose offset (a, b) has
	// max(|a|,|b|) <= k and gcd(|a|,|b|) = 1 (k = 1: the 8 neighbours,
	// δ ≈ 1.08; k = 2 adds knight moves, δ ≈ 1.03) and uses eps/δ.
	Spanner int
	// Solver is "gonum" (or "") or "glpk".
	Solver string
	// MaxConstraints refuses larger programs before building them; 0 means
	// 50,000 for gonum (whose dense matrix has one row per constraint) and
	// 20,000,000 for glpk.
	MaxConstraints int
	// TimeLimit stops GLPK's simplex after this long (0: no limit; gonum
	// and GLPK's interior point have none).
	TimeLimit time.Duration
	// Method is GLPK's algorithm: "dual" (default; dual simplex, falling
	// back to primal), "primal" (primal simplex) or "interior" (interior
	// point; its solution is accurate to about 1e-8 and not a vertex).
	// Ignored by gonum.
	Method string
}

// Solver names.
const (
	SolverGonum = "gonum"
	SolverGLPK  = "glpk"
)

// SolverAvailable reports whether the named LP solver is compiled in.
func SolverAvailable(name string) bool {
	switch name {
	case "", SolverGonum:
		return true
	case SolverGLPK:
		return haveGLPK
	}
	return false
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
// through the spanner), so TightEps <= eps up to the solver's tolerance:
// repairGeoInd makes every column exactly eps-geo-indistinguishable, and
// the final row normalisation moves the log-ratios by at most the
// solver's feasibility error (about 1e-9), hence Tol = 1e-7.
func (Optimal) Claim(in, out kernels.Grid, eps float64) Claim {
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

// DefaultMaxConstraints is the size limit of a solver when
// Optimal.MaxConstraints is 0.
func DefaultMaxConstraints(solver string) int {
	if solver == SolverGLPK {
		return 20000000
	}
	return 50000
}

// LPStats describes one solve.
type LPStats struct {
	Variables, Constraints int
	Dilation               float64 // δ of the spanner (1 with Spanner = 0)
	Objective              float64 // expected distortion of the solution
	Solver                 string
}

// Solve builds and solves the LP and returns the channel with statistics.
func (m Optimal) Solve(in, out kernels.Grid, prior []float64, eps float64) (*kernels.Channel, LPStats, error) {
	info := m.Info()
	var st LPStats
	if err := checkParam(info, eps); err != nil {
		return nil, st, err
	}
	if err := checkGrids(info, in, out); err != nil {
		return nil, st, err
	}
	if err := checkPrior(info.Name, in, prior); err != nil {
		return nil, st, err
	}
	if m.Spanner < 0 {
		return nil, st, fmt.Errorf("%s: Spanner = %d: must be >= 0", info.Name, m.Spanner)
	}
	solver := m.Solver
	if solver == "" {
		solver = SolverGonum
	}
	if !SolverAvailable(solver) {
		if solver == SolverGLPK {
			return nil, st, fmt.Errorf("%s: solver glpk not compiled in (build with -tags glpk; needs Debian package libglpk-dev)", info.Name)
		}
		return nil, st, fmt.Errorf("%s: unknown LP solver %q (known: gonum, glpk)", info.Name, solver)
	}
	st.Solver = solver
	edges := spannerEdges(in, m.Spanner)
	st.Dilation = 1
	if m.Spanner > 0 {
		st.Dilation = dilation(in, edges)
	}
	nIn, nOut := in.Len(), out.Len()
	st.Variables = nIn * nOut
	st.Constraints = nIn + 2*len(edges)*nOut
	limit := m.MaxConstraints
	if limit == 0 {
		limit = DefaultMaxConstraints(solver)
	}
	if st.Constraints > limit {
		return nil, st, fmt.Errorf("%s: %v -> %v with spanner %d has %d constraints, above the limit %d for solver %s",
			info.Name, in, out, m.Spanner, st.Constraints, limit, solver)
	}
	p := buildGeoLP(in, out, prior, eps/st.Dilation, edges)
	p.timeLimitMS = int(m.TimeLimit.Milliseconds())
	switch m.Method {
	case "", "dual":
		p.glpkMethod = 2
	case "primal":
		p.glpkMethod = 1
	case "interior":
		p.glpkMethod = 0
	default:
		return nil, st, fmt.Errorf("%s: unknown GLPK method %q (known: dual, primal, interior)", info.Name, m.Method)
	}
	var sol []float64
	var err error
	if solver == SolverGLPK {
		sol, err = solveGLPK(p)
	} else {
		sol, err = solveGonum(p)
	}
	if err != nil {
		return nil, st, fmt.Errorf("%s: eps=%v on %v -> %v: %w", info.Name, eps, in, out, err)
	}
	ch, err := kernels.NewChannel(in, out)
	if err != nil {
		return nil, st, err
	}
	for x := 0; x < nIn; x++ {
		row := ch.Row(x)
		s := 0.0
		for y := range row {
			v := sol[x*nOut+y]
			if v < -1e-7 {
				return nil, st, fmt.Errorf("%s: eps=%v: solver returned C[%d,%d] = %v", info.Name, eps, x, y, v)
			}
			row[y] = math.Max(v, 0)
			s += row[y]
		}
		if math.Abs(s-1) > 1e-7 {
			return nil, st, fmt.Errorf("%s: eps=%v: solver returned row %d summing to %v", info.Name, eps, x, s)
		}
	}
	if v := geoViolation(ch, eps/st.Dilation, edges); v > 1e-7 {
		return nil, st, fmt.Errorf("%s: eps=%v: solver's solution violates a geo-ind constraint by %v", info.Name, eps, v)
	}
	repairGeoInd(ch, eps)
	for x := 0; x < nIn; x++ {
		for y, v := range ch.Row(x) {
			st.Objective += prior[x] * v * kernels.Dist(in, x, out, y)
		}
	}
	return ch, st, nil
}

// repairGeoInd removes the solver's rounding from a solution that is
// eps-geo-indistinguishable up to a tolerance of about 1e-9: columns whose
// largest entry is below 1e-10 (unused outputs carrying rounding noise) are
// zeroed, every other column is raised to its smallest majorant that is
// exactly eps-geo-indistinguishable, v'[x] = max_x' v[x'] e^{-eps d(x,x')}
// (by the triangle inequality v'[x] >= e^{-eps d(x,z)} v'[z] for all x, z),
// and the rows are renormalised. Each step moves entries by about the
// solver's tolerance, but it makes the measured tight epsilon meaningful:
// without it a rounding residue of 1e-17 next to an exact zero reads as an
// infinite ratio.
func repairGeoInd(ch *kernels.Channel, eps float64) {
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
			if top >= 1e-10 {
				kx := k[x*m : (x+1)*m]
				for x2, c := range col {
					v = math.Max(v, c*kx[x2])
				}
			}
			ch.P[x*n+y] = v
		}
	}
	for x := 0; x < m; x++ {
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

// edge is an unordered pair of input cells constrained by the LP.
type edge struct {
	a, b int
	d    float64
}

// spannerEdges lists the constrained pairs: all pairs for k = 0, else the
// pairs whose offset is a primitive vector of Chebyshev length <= k.
func spannerEdges(g kernels.Grid, k int) []edge {
	var es []edge
	n := g.Len()
	if k == 0 {
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				es = append(es, edge{a, b, kernels.Dist(g, a, g, b)})
			}
		}
		return es
	}
	var offs [][2]int
	for dr := 0; dr <= k; dr++ {
		for dc := -k; dc <= k; dc++ {
			if (dr == 0 && dc <= 0) || gcd(dr, abs(dc)) != 1 {
				continue
			}
			offs = append(offs, [2]int{dr, dc})
		}
	}
	for a := 0; a < n; a++ {
		r, c := g.Cell(a)
		for _, o := range offs {
			r2, c2 := r+o[0], c+o[1]
			if r2 < 0 || r2 >= g.Rows || c2 < 0 || c2 >= g.Cols {
				continue
			}
			b := g.Index(r2, c2)
			es = append(es, edge{a, b, math.Hypot(float64(o[0]), float64(o[1]))})
		}
	}
	return es
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// dilation is the largest ratio of shortest-path distance in the graph of
// edges to Euclidean distance over all pairs of cells (Dijkstra from every
// cell).
func dilation(g kernels.Grid, edges []edge) float64 {
	n := g.Len()
	adj := make([][]edge, n)
	for _, e := range edges {
		adj[e.a] = append(adj[e.a], edge{e.a, e.b, e.d})
		adj[e.b] = append(adj[e.b], edge{e.b, e.a, e.d})
	}
	dist := make([]float64, n)
	worst := 1.0
	for s := 0; s < n; s++ {
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		dist[s] = 0
		h := &distHeap{{s, 0}}
		for h.Len() > 0 {
			it := heap.Pop(h).(distItem)
			if it.d > dist[it.v] {
				continue
			}
			for _, e := range adj[it.v] {
				if nd := it.d + e.d; nd < dist[e.b] {
					dist[e.b] = nd
					heap.Push(h, distItem{e.b, nd})
				}
			}
		}
		for t := s + 1; t < n; t++ {
			worst = math.Max(worst, dist[t]/kernels.Dist(g, s, g, t))
		}
	}
	return worst
}

type distItem struct {
	v int
	d float64
}

type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// geoLP is the LP in the form both solvers take:
//
//	minimise cost . v  s.t.  sum_y v[x*nOut+y] = 1 for every x,
//	                         coef[k] v[lo[k]] - v[hi[k]] <= 0 for every k,
//	                         v >= 0.
//
// Each geo-ind constraint C[x,y] <= e^{e d} C[x',y] is stored divided by
// e^{e d}, so that no coefficient exceeds 1 in magnitude.
type geoLP struct {
	nIn, nOut int
	cost      []float64
	coef      []float64
	lo, hi    []int
	// start is an output cell whose constant channel (everyone reports
	// it) is a feasible starting vertex.
	start int
	// timeLimitMS bounds GLPK's run time (0: none).
	timeLimitMS int
	// glpkMethod: 0 interior point, 1 primal simplex, 2 dual then primal.
	glpkMethod int
}

func buildGeoLP(in, out kernels.Grid, prior []float64, eps float64, edges []edge) *geoLP {
	nIn, nOut := in.Len(), out.Len()
	p := &geoLP{nIn: nIn, nOut: nOut, cost: make([]float64, nIn*nOut)}
	best := math.Inf(1)
	for y := 0; y < nOut; y++ {
		s := 0.0
		for x := 0; x < nIn; x++ {
			c := prior[x] * kernels.Dist(in, x, out, y)
			p.cost[x*nOut+y] = c
			s += c
		}
		if s < best {
			best, p.start = s, y
		}
	}
	n := 2 * len(edges) * nOut
	p.coef, p.lo, p.hi = make([]float64, 0, n), make([]int, 0, n), make([]int, 0, n)
	for _, e := range edges {
		c := math.Exp(-eps * e.d)
		for y := 0; y < nOut; y++ {
			p.coef = append(p.coef, c, c)
			p.lo = append(p.lo, e.a*nOut+y, e.b*nOut+y)
			p.hi = append(p.hi, e.b*nOut+y, e.a*nOut+y)
		}
	}
	return p
}

// geoViolation is the largest e^{-eps d} C[x,y] - C[x',y] over the edges,
// in both directions: the constraints' violation in the scale the LP
// states them in.
func geoViolation(ch *kernels.Channel, eps float64, edges []edge) float64 {
	n := ch.Out.Len()
	worst := math.Inf(-1)
	for _, e := range edges {
		f := math.Exp(-eps * e.d)
		for y := 0; y < n; y++ {
			a, b := ch.P[e.a*n+y], ch.P[e.b*n+y]
			worst = math.Max(worst, math.Max(f*a-b, f*b-a))
		}
	}
	return worst
}
