package mechanism

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"privic/kernels"
	"privic/kernels/lp"
)

// OptimalSolver solves one Optimal mechanism's LP for fixed grids and
// prior at a sequence of eps, as a calibration does. With the
// decomposition, each solve starts from the previous one: its master
// columns (mapped into the new eps's cone), its stability centre (the
// duals of its best bound) and the pairs its pricing models needed. For a
// nearby eps that saves most of the rounds. Direct methods solve from
// scratch every time.
//
// An OptimalSolver is not safe for concurrent use; its Mechanism adapter
// lets Calibrate drive it.
type OptimalSolver struct {
	m       Optimal
	in, out kernels.Grid
	prior   []float64
	edges   []edge
	delta   float64
	cost    []float64 // prior(x) d(x,y) at x*nOut+y
	// From the previous decomposition solve.
	pool   [][]float64
	center []float64
	extra  [][]pairRow
	// Log, if set, receives one line per decomposition round.
	Log func(format string, args ...any)
	// Solves records the statistics of every successful Solve, in order.
	Solves []LPStats
	// Deadline, if set, stops every decomposition solve at that time with
	// ErrTimeLimit (on top of the mechanism's TimeLimit per solve): a
	// budget for a whole calibration.
	Deadline time.Time
	// Context, if set, stops every decomposition solve between two rounds
	// once it is done, with its error: a caller's cancellation (Ctrl-C),
	// unlike Deadline not a property of the result.
	Context context.Context
}

// NewSolver checks the settings, grids and prior and prepares a solver.
func (m Optimal) NewSolver(in, out kernels.Grid, prior []float64) (*OptimalSolver, error) {
	info := m.Info()
	if err := checkGrids(info, in, out); err != nil {
		return nil, err
	}
	if err := checkPrior(info.Name, in, prior); err != nil {
		return nil, err
	}
	if m.Spanner < 0 {
		return nil, fmt.Errorf("%s: Spanner = %d: must be >= 0", info.Name, m.Spanner)
	}
	solver := m.solver()
	if !SolverAvailable(solver) {
		switch solver {
		case SolverGLPK:
			return nil, fmt.Errorf("%s: solver glpk not compiled in (build with -tags glpk; needs Debian package libglpk-dev)", info.Name)
		case SolverCLP:
			return nil, fmt.Errorf("%s: solver clp not compiled in (build with -tags clp; needs Debian package coinor-libclp-dev)", info.Name)
		}
		return nil, fmt.Errorf("%s: %w", info.Name, errUnknownSolver(solver))
	}
	switch meth := m.method(); meth {
	case MethodDecompose:
		if solver == SolverGonum {
			return nil, fmt.Errorf("%s: method decompose needs solver glpk or clp (gonum's dense simplex cannot warm-start)", info.Name)
		}
		if ms := m.MasterSolver; ms != "" && ((ms != SolverGLPK && ms != SolverCLP) || !SolverAvailable(ms)) {
			return nil, fmt.Errorf("%s: master solver %q: must be glpk or clp, compiled in", info.Name, ms)
		}
	case MethodDual, MethodPrimal, MethodInterior:
		if meth != MethodDual && solver == SolverGonum {
			return nil, fmt.Errorf("%s: gonum has no method %q (only its simplex: leave Method empty)", info.Name, meth)
		}
	default:
		return nil, fmt.Errorf("%s: unknown method %q (known: decompose, dual, primal, interior)", info.Name, meth)
	}
	if !(m.Gap >= 0) || m.Gap >= 1 {
		return nil, fmt.Errorf("%s: Gap = %v: must be in [0, 1)", info.Name, m.Gap)
	}
	if m.Workers < 0 {
		return nil, fmt.Errorf("%s: Workers = %d: must be >= 0", info.Name, m.Workers)
	}
	s := &OptimalSolver{m: m, in: in, out: out, prior: append([]float64(nil), prior...), delta: 1}
	if m.Spanner > 0 {
		s.edges = spannerEdges(in, m.Spanner)
		s.delta = dilation(in, s.edges)
	}
	nOut := out.Len()
	s.cost = make([]float64, in.Len()*nOut)
	for x := 0; x < in.Len(); x++ {
		for y := 0; y < nOut; y++ {
			s.cost[x*nOut+y] = prior[x] * kernels.Dist(in, x, out, y)
		}
	}
	return s, nil
}

// Dilation is the stretch δ of the solver's spanner: 1 for all pairs.
// Its LP at eps constrains the spanner's edges at eps/δ, so it is a
// restriction of the all-pairs LP at eps (an upper bound on its
// optimum), and its LP at δ·eps, which constrains the edges at eps, is a
// relaxation of it (a lower bound).
func (s *OptimalSolver) Dilation() float64 { return s.delta }

// ForPrior returns a solver of the same mechanism and grids for another
// prior, started from s's columns and pricing pairs: the feasible set, the
// geo-indistinguishability cone, does not depend on the prior, only the
// costs do, so s's columns are a valid start (their costs are recomputed);
// its duals are not, so the stability centre starts afresh.
func (s *OptimalSolver) ForPrior(prior []float64) (*OptimalSolver, error) {
	t, err := s.m.NewSolver(s.in, s.out, prior)
	if err != nil {
		return nil, err
	}
	t.pool, t.extra = slices.Clone(s.pool), slices.Clone(s.extra)
	t.Deadline, t.Context, t.Log = s.Deadline, s.Context, s.Log
	return t, nil
}

// Solve solves the LP at eps and returns the channel with statistics.
// When a decomposition stops early (ErrTimeLimit), the statistics
// returned with the error hold its rounds and its best certified lower
// bound (Dual; NaN when no round finished).
func (s *OptimalSolver) Solve(eps float64) (*kernels.Channel, LPStats, error) {
	m := s.m
	info := m.Info()
	st := LPStats{Solver: m.solver(), Method: m.method(), Eps: eps, Dilation: s.delta, Dual: math.NaN(), Gap: math.NaN()}
	if err := checkParam(info, eps); err != nil {
		return nil, st, err
	}
	st.Variables, st.Constraints = m.Size(s.in, s.out)
	start := time.Now()
	var ch *kernels.Channel
	var err error
	if st.Method == MethodDecompose {
		ch, err = s.decompose(eps, &st)
	} else {
		ch, err = s.direct(eps, &st)
	}
	st.Seconds = time.Since(start).Seconds()
	if err != nil {
		return nil, st, fmt.Errorf("%s: eps=%v on %v -> %v (%s, %s): %w", info.Name, eps, s.in, s.out, st.Solver, st.Method, err)
	}
	st.Primal = 0
	for i, v := range ch.P {
		st.Primal += v * s.cost[i]
	}
	if !math.IsNaN(st.Dual) {
		st.Gap = (st.Primal - st.Dual) / st.Primal
	}
	s.Solves = append(s.Solves, st)
	return ch, st, nil
}

// Mechanism returns s as a Mechanism, for Calibrate: Channel on s's grids
// and prior solves with s (warm); any other grids or prior are solved from
// scratch by the Optimal s was made from.
func (s *OptimalSolver) Mechanism() Mechanism { return warmOptimal{s} }

type warmOptimal struct{ s *OptimalSolver }

func (w warmOptimal) Info() Info { return w.s.m.Info() }

func (w warmOptimal) Claim(in, out kernels.Grid, eps float64) Claim {
	return w.s.m.Claim(in, out, eps)
}

func (w warmOptimal) Channel(in, out kernels.Grid, prior []float64, eps float64) (*kernels.Channel, error) {
	s := w.s
	same := in == s.in && out == s.out && len(prior) == len(s.prior)
	for i := 0; same && i < len(prior); i++ {
		same = prior[i] == s.prior[i]
	}
	if !same {
		return s.m.Channel(in, out, prior, eps)
	}
	ch, _, err := s.Solve(eps)
	return ch, err
}

// decompose solves by column generation (colGen) and checks the result.
func (s *OptimalSolver) decompose(eps float64, st *LPStats) (*kernels.Channel, error) {
	m := s.m
	gap := m.Gap
	if gap == 0 {
		gap = DefaultGap
	}
	k := newGeoPairs(s.in, eps/s.delta, s.edges)
	epsCol := (eps - repairSlack(eps)) / s.delta
	init := newGeoPairs(s.in, epsCol, s.edges).bumps()
	st.Warm = s.pool != nil
	init = append(init, s.pool...)
	// Aim at half the gap, so that the last rounds' tolerances and the
	// repair have room; accept up to the gap when the solvers stall.
	opt := cgOptions{gap: gap / 2, accept: 0.9 * gap, alpha: 0.7, workers: max(1, m.Workers), master: m.MasterSolver, log: s.Log}
	if ctx := s.Context; ctx != nil {
		opt.stop = ctx.Err
	}
	if m.TimeLimit > 0 {
		opt.deadline = time.Now().Add(m.TimeLimit)
	}
	if d := s.Deadline; !d.IsZero() && (opt.deadline.IsZero() || d.Before(opt.deadline)) {
		opt.deadline = d
	}
	cg, err := newColGen(m.solver(), s.in.Len(), s.out.Len(), s.cost, k, epsCol, s.extra, init, opt)
	if err != nil {
		return nil, err
	}
	defer cg.free()
	if s.center != nil {
		cg.center = append([]float64(nil), s.center...)
	}
	lambda, err := cg.run()
	st.Rounds = cg.st.rounds
	st.Columns = len(cg.pool)
	st.Iterations = cg.st.masterIters + cg.st.pricingIters
	st.PricingRows = cg.st.pricingRows
	// Every Lagrangian bound is a certified lower bound, so the best one
	// reached stands even when the solve stops early (ErrTimeLimit).
	if !math.IsInf(cg.st.lower, 0) {
		st.Dual = cg.st.lower / cg.scale
	}
	if err != nil {
		return nil, err
	}
	ch, te, err := finishChannel(s.in, s.out, cg.channel(lambda), eps)
	if err != nil {
		return nil, err
	}
	st.TightEps = te
	// Keep what the next solve starts from: the columns (they pin down
	// the duals as much as the primal), the centre and the pricing pairs.
	s.pool = cg.pool
	s.center = append(s.center[:0], cg.center...)
	s.extra = cg.pricingPairs()
	return ch, nil
}

// direct solves the whole LP with one solver call.
func (s *OptimalSolver) direct(eps float64, st *LPStats) (*kernels.Channel, error) {
	m := s.m
	limit := m.MaxConstraints
	if limit == 0 {
		limit = DefaultMaxConstraints(st.Solver)
	}
	if st.Constraints > limit {
		return nil, fmt.Errorf("%d constraints with spanner %d, above the limit %d for solver %s",
			st.Constraints, m.Spanner, limit, st.Solver)
	}
	edges := s.edges
	if edges == nil {
		edges = spannerEdges(s.in, 0)
	}
	p := buildGeoLP(s.in, s.out, s.prior, eps/s.delta, edges)
	p.timeLimit = m.TimeLimit
	switch st.Method {
	case MethodDual:
		p.glpkMethod = lp.DualPrimal
	case MethodPrimal:
		p.glpkMethod = lp.Primal
	case MethodInterior:
		p.glpkMethod = lp.Interior
	}
	var sol, duals []float64
	var err error
	switch st.Solver {
	case SolverGLPK:
		sol, duals, err = solveGLPK(p)
	case SolverCLP:
		sol, duals, err = solveDirectModel(p, st.Method, m.TimeLimit)
	default:
		sol, err = solveGonum(p)
	}
	if err != nil {
		return nil, err
	}
	st.Rounds = 1
	if duals != nil {
		st.Dual = lagrangeBound(p, duals[p.nIn:])
	}
	ch, err := kernels.NewChannel(s.in, s.out)
	if err != nil {
		return nil, err
	}
	nIn, nOut := p.nIn, p.nOut
	for x := 0; x < nIn; x++ {
		row := ch.Row(x)
		sum := 0.0
		for y := range row {
			v := sol[x*nOut+y]
			if v < -1e-7 {
				return nil, fmt.Errorf("solver returned C[%d,%d] = %v", x, y, v)
			}
			row[y] = math.Max(v, 0)
			sum += row[y]
		}
		if math.Abs(sum-1) > 1e-7 {
			return nil, fmt.Errorf("solver returned row %d summing to %v", x, sum)
		}
	}
	if v := geoViolation(ch, eps/s.delta, edges); v > 1e-7 {
		return nil, fmt.Errorf("solver's solution violates a geo-ind constraint by %v", v)
	}
	repairGeoInd(ch, eps)
	if st.TightEps, err = ch.TightEpsilon(); err != nil {
		return nil, err
	}
	return ch, nil
}

// lagrangeBound is a lower bound on the direct LP's optimum from any row
// duals of its geo-ind rows: with mu_k = min(dual_k, 0) (the sign of a <=
// row's multiplier in a minimisation), every feasible v has
// cost.v >= (cost - A^T mu).v >= sum_x min_y (cost - A^T mu)[x,y], as
// mu_k (a_k.v) >= 0 and each row of v is a distribution. It is therefore
// a certificate whatever the solver's tolerances.
func lagrangeBound(p *geoLP, dual []float64) float64 {
	nOut := p.nOut
	r := append([]float64(nil), p.cost...)
	for i, d := range dual {
		if d < 0 {
			r[p.lo[i]] -= d * p.coef[i]
			r[p.hi[i]] += d
		}
	}
	lb := 0.0
	for x := 0; x < p.nIn; x++ {
		m := math.Inf(1)
		for _, v := range r[x*nOut : (x+1)*nOut] {
			m = math.Min(m, v)
		}
		lb += m
	}
	return lb
}

// solveGLPK solves the whole LP p with GLPK (lp.SolveGLPK) and returns
// the solution and the row duals.
func solveGLPK(p *geoLP) (x, y []float64, err error) {
	// Refused before anything is allocated.
	if nnz := int64(p.nIn*p.nOut) + 2*int64(len(p.coef)); nnz > lp.MaxNonZeros {
		return nil, nil, fmt.Errorf("glpk: %d non-zeros exceed C int", nnz)
	}
	return lp.SolveGLPK(p.problem(), p.glpkMethod, p.timeLimit)
}

// solveDirectModel solves the whole LP p with an lp.Model (CLP):
// method "dual" or "primal" simplex.
func solveDirectModel(p *geoLP, method string, limit time.Duration) (sol, duals []float64, err error) {
	if method == MethodInterior {
		return nil, nil, fmt.Errorf("clp: method interior is not offered through this interface (use dual, primal or decompose)")
	}
	back, err := lp.NewBackend(lp.CLP)
	if err != nil {
		return nil, nil, err
	}
	defer back.Close()
	lm, err := back.Model()
	if err != nil {
		return nil, nil, err
	}
	defer lm.Free()
	nIn, nOut := p.nIn, p.nOut
	nVar := nIn * nOut
	one := make([]float64, nIn)
	for i := range one {
		one[i] = 1
	}
	if err := lm.AddRows(one, one, make([]int32, nIn+1), nil, nil); err != nil {
		return nil, nil, err
	}
	lb, ub := make([]float64, nVar), make([]float64, nVar)
	start, idx, val := make([]int32, nVar+1), make([]int32, nVar), make([]float64, nVar)
	for j := range ub {
		ub[j] = math.Inf(1)
		start[j+1] = int32(j + 1)
		idx[j] = int32(j / nOut)
		val[j] = 1
	}
	if err := lm.AddCols(p.cost, lb, ub, start, idx, val); err != nil {
		return nil, nil, err
	}
	nRow := len(p.coef)
	lo, up := make([]float64, nRow), make([]float64, nRow)
	rs, ri, rv := make([]int32, nRow+1), make([]int32, 0, 2*nRow), make([]float64, 0, 2*nRow)
	for k := range p.coef {
		lo[k] = math.Inf(-1)
		rs[k+1] = int32(2 * (k + 1))
		ri = append(ri, int32(p.lo[k]), int32(p.hi[k]))
		rv = append(rv, p.coef[k], -1)
	}
	if err := lm.AddRows(lo, up, rs, ri, rv); err != nil {
		return nil, nil, err
	}
	if err := lm.Solve(method != MethodPrimal, limit.Seconds()); err != nil {
		return nil, nil, err
	}
	sol, duals = make([]float64, nVar), make([]float64, nIn+nRow)
	lm.Solution(sol, duals)
	return sol, duals, nil
}
