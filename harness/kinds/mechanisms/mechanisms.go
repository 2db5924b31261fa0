package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// Kind returns the mechanisms kind over the mechanisms this project
// provides (mechanism.Builtin).
func Kind() harness.Kind { return WithRegistry(builtin()) }

// builtin is the registry of mechanism.Builtin.
func builtin() *mechanism.Registry {
	reg, err := mechanism.NewRegistry(mechanism.Builtin()...)
	if err != nil {
		panic(err) // the built-in table is checked by the mechanism package's tests
	}
	return reg
}

// WithRegistry returns the mechanisms kind over the mechanisms of reg:
// params.mechanisms accepts their names and defaults to all of them.
func WithRegistry(reg *mechanism.Registry) harness.Kind {
	return harness.Typed[*params, job](def{reg})
}

type def struct{ reg *mechanism.Registry }

func (d def) About() harness.About {
	// With lp.solver = "auto" the LP rows depend on whether GLPK is
	// compiled in, so the build is part of the version: stored results of
	// one build are not reused by the other.
	version := "1"
	if mechanism.SolverAvailable(mechanism.SolverGLPK) {
		version += "+glpk"
	}
	if mechanism.SolverAvailable(mechanism.SolverCLP) {
		version += "+clp"
	}
	return harness.About{
		Name: "mechanisms",
		Describe: "privacy-utility frontier of the mechanisms (" + strings.Join(d.reg.Names(), ", ") +
			"), calibrated to equal tight epsilon, distortion or mutual information",
		Tables:   []string{"frontier", "calibration", "lp_solves", "frontier_summary", "winners", "mechanisms"},
		Figures:  []string{"frontier-<city>"},
		Skips:    true,
		Version:  version + ".3",
		Volatile: volatile,
	}
}

func (d def) NewParams() *params { return defaultParams(d.reg) }

// job is one (city, mechanism, calibration, level).
type job struct {
	p           *params
	ds          *datasets.Dataset // read-only, shared by the city's jobs
	mech        string
	calibration string
	level       float64
}

func jobKey(city, mech, cal string, level float64) string {
	return "city=" + city + "/mechanism=" + mech + "/calibration=" + cal + "/level=" + harness.FormatFloat(level)
}

// Plan makes one job per (city, mechanism, calibration, level), in that
// nesting order.
func (def) Plan(p *params) ([]harness.Work[job], error) {
	all, err := p.Load()
	var jobs []harness.Work[job]
	for _, ds := range all {
		for _, m := range p.Mechanisms {
			for _, cal := range p.Calibrations {
				for _, l := range p.levels(cal).Values() {
					jobs = append(jobs, harness.Work[job]{Key: jobKey(ds.Name, m, cal, l), Job: job{p: p, ds: ds, mech: m, calibration: cal, level: l}})
				}
			}
		}
	}
	return jobs, err
}

// EstimateBytes bounds a job's memory. A mechanism with a structured
// form on a grid of kernels.DenseOpCells cells or more runs on operators:
// its operator's memory (kernels.BAMemory, kernels.LaplaceOpMemory, the
// planar table), a dozen vectors of the grids for calibration, IBU and
// identification, the EMD's arcs, and the dense channel where the Bayes
// error is computed on it (mechanism.BayesErrorMaxOps). Otherwise a few
// dense channels over the widest output grid plus the EMD solver's arcs.
func (def) EstimateBytes(j job) int64 {
	g := j.ds.Grid
	m := int64(g.Len())
	wide := g.Widen(j.p.LapWiden)
	n := int64(wide.Len())
	e, err := j.p.reg.Lookup(j.mech)
	if err != nil || !useOperators(newMechanism(j.p, j.ds.Name, e), g) {
		return 8*4*m*n + 64*m*m
	}
	out := g
	if e.WideOutput {
		out = wide
	}
	var op int64
	switch e.New(j.p.options(j.ds.Name)).(type) {
	case mechanism.BA:
		op = kernels.BAMemory(g)
	case mechanism.LAP:
		op = kernels.LaplaceOpMemory(g, out)
	default: // RR in closed form; the planar table, about 9 entries a cell and their logarithms
		op = 2 * 8 * 9 * int64(max(g.Len(), out.Len()))
	}
	// Two operators live at once (the calibrated one and the last tried,
	// or the one on the island prior); the EMD's arcs as in ba-vs-lap.
	arcs := 8 * (m / 2) * ((m + 1) / 2)
	b := 2*op + 8*12*(m+int64(out.Len())) + 2*arcs
	if float64(out.Len())*float64(m)*float64(m) <= mechanism.BayesErrorMaxOps {
		b += 2 * kernels.DenseChannelMemory(g, out)
	}
	return b
}

// useOperators says whether mechanism m runs on operators on grid g: it
// has a structured form, and g is large enough for the kernels to use it
// (below kernels.DenseOpCells cells they use dense channels, and so does
// the kind, for the bits of the paper's results).
func useOperators(m mechanism.Mechanism, g kernels.Grid) bool {
	_, ok := m.(mechanism.Operator)
	return ok && g.Len() >= kernels.DenseOpCells
}

// setup is a mechanism ready to run on a city.
type setup struct {
	m        mechanism.Mechanism
	in, out  kernels.Grid
	lpSolver string // "" unless the mechanism solves an LP
	lpRows   int
	skip     string // non-empty: why the job cannot run
	ops      bool   // run on the mechanism's operators
	// opt is the optimal mechanism solved on the whole grid (not on
	// blocks), nil otherwise: its calibration warm-starts every solve
	// from the previous one, and every solve is logged in lp_solves.
	opt *mechanism.Optimal
	// lp is opt's solver on the city prior after calibration; the island
	// prior's solve starts from its columns.
	lp *mechanism.OptimalSolver
}

// newMechanism makes the mechanism of the registry entry e as the
// parameters set it up for city: with the spec's options, and on blocks of
// the grid where e asks for coarsening.
func newMechanism(p *params, city string, e mechanism.Entry) mechanism.Mechanism {
	m := e.New(p.options(city))
	if k := p.coarsen(city); e.Coarsen && k > 1 {
		m = mechanism.Coarsened{Base: m, Factor: k}
	}
	return m
}

// build makes the mechanism of name for grid g.
func build(p *params, city, name string, g kernels.Grid) setup {
	s := setup{in: g, out: g}
	e, err := p.reg.Lookup(name)
	if err != nil {
		s.skip = err.Error()
		return s
	}
	s.m = newMechanism(p, city, e)
	if e.WideOutput {
		s.out = g.Widen(p.LapWiden)
	}
	s.ops = useOperators(s.m, g)
	if o, ok := s.m.(mechanism.Optimal); ok {
		s.opt = &o
	}
	if lp, ok := s.m.(mechanism.LP); ok {
		if size := lp.LPSize(s.in, s.out); size.Constraints > 0 {
			s.lpSolver, s.lpRows = size.Solver, size.Constraints
			if limit := p.lpLimit(s.lpSolver); s.lpRows > limit && size.Method != mechanism.MethodDecompose {
				s.skip = fmt.Sprintf("LP on the %v grid has %d constraints, above the limit %d for solver %s (params.lp.max_constraints, params.lp.coarsen; build with -tags glpk for the sparse solver)",
					size.Grid, s.lpRows, limit, s.lpSolver)
			}
		}
	}
	return s
}

var frontierHeader = []string{"city", "mechanism", "calibration", "level", "parameter", "emd", "avg_distortion",
	"mutual_information", "tight_epsilon", "bayes_error", "identification_A", "sim", "identification_A_map",
	"emd_m", "avg_distortion_m", "bayes_error_m"}

// lpSolvesHeader is lp_solves.csv: one row per LP solve of the optimal
// mechanism on the whole grid, on the city's prior (calibration, and the
// relaxation that bounds a spanner's channel from below) or on the
// island prior (identification of A). dilation is δ of the spanner (1:
// all pairs); constraints count the full LP's rows whether or not the
// method builds them; gap is (primal - dual)/primal with dual a certified
// lower bound on the LP solved; tight_epsilon is the returned channel's,
// checked <= eps. role is "solve" or "relaxation" (the spanner's edges
// at the full eps: its LP at δ·level); status "ok" or "time limit" (dual
// is then the best bound reached). lower and upper bracket the optimal
// distortion of the problem asked for at eps, eps-geo-indistinguishability
// over all pairs of cells (bracket), and all_pairs_gap is
// (upper - lower) / upper.
var lpSolvesHeader = []string{"city", "mechanism", "calibration", "level", "prior", "solve", "solver", "method", "spanner",
	"dilation", "variables", "constraints", "rounds", "iterations", "columns", "pricing_rows", "warm", "eps",
	"primal", "dual", "gap", "tight_epsilon", "seconds", "role", "status", "lower", "upper", "all_pairs_gap"}

// calibrationHeader is calibration.csv. missing names a part of the
// level that could not be measured and why (the identification of A
// when the island prior's LP runs out of time: the city's channel and
// its frontier rows stand). optimum_lower, optimum_upper and optimum_gap
// bracket the all-pairs optimum at the calibrated parameter, for the
// optimal mechanism solved on the whole grid.
var calibrationHeader = []string{"city", "mechanism", "calibration", "level", "parameter_name", "parameter", "value",
	"evals", "status", "input_grid", "output_grid", "lp_solver", "lp_constraints", "missing", "optimum_lower", "optimum_upper", "optimum_gap"}

func (def) Run(ctx context.Context, j job, rng *rand.Rand) ([]harness.Table, error) {
	p, ds := j.p, j.ds
	s := build(p, ds.Name, j.mech, ds.Grid)
	frontier := harness.NewTable("frontier", frontierHeader...)
	cal := harness.NewTable("calibration", calibrationHeader...)
	lps := harness.NewTable("lp_solves", lpSolvesHeader...)
	name, paramName := j.mech, ""
	if s.m != nil {
		name, paramName = s.m.Info().Name, s.m.Info().Param
	}
	var logged []lpRow
	logSolves := func(prior, role, status string, solves ...mechanism.LPStats) {
		for _, st := range solves {
			if status != "ok" { // no channel: only the rounds and the bound reached
				st.Primal, st.Gap, st.TightEps = math.NaN(), math.NaN(), math.NaN()
			}
			logged = append(logged, lpRow{prior: prior, role: role, status: status, st: st})
		}
	}
	// tables writes the solves with their brackets, and the calibration
	// row of the channel at param (NaN: none) with its own.
	tables := func(param, value float64, evals int, status, missing string) []harness.Table {
		br := brackets(logged)
		for i, r := range logged {
			st := r.st
			n := 0
			for _, q := range logged[:i] {
				if q.prior == r.prior {
					n++
				}
			}
			lps.Add(harness.Row{"city": ds.Name, "mechanism": name, "calibration": j.calibration, "level": j.level, "prior": r.prior,
				"solve": n, "solver": st.Solver, "method": st.Method, "spanner": s.opt.Spanner, "dilation": st.Dilation,
				"variables": st.Variables, "constraints": st.Constraints, "rounds": st.Rounds, "iterations": st.Iterations,
				"columns": st.Columns, "pricing_rows": st.PricingRows, "warm": fmt.Sprint(st.Warm), "eps": st.Eps,
				"primal": st.Primal, "dual": st.Dual, "gap": st.Gap, "tight_epsilon": st.TightEps, "seconds": st.Seconds,
				"role": r.role, "status": r.status, "lower": br[i].lower, "upper": br[i].upper, "all_pairs_gap": br[i].gap()})
		}
		lpRows := ""
		if s.lpSolver != "" {
			lpRows = fmt.Sprint(s.lpRows)
		}
		lo, up, gap := "", "", ""
		if b, ok := bracketAt(logged, br, param); ok {
			lo, up, gap = harness.FormatFloat(b.lower), harness.FormatFloat(b.upper), harness.FormatFloat(b.gap())
		}
		cal.Add(harness.Row{"city": ds.Name, "mechanism": name, "calibration": j.calibration, "level": j.level,
			"parameter_name": paramName, "parameter": param, "value": value, "evals": evals, "status": status,
			"input_grid": s.in.String(), "output_grid": s.out.String(), "lp_solver": s.lpSolver, "lp_constraints": lpRows,
			"missing": missing, "optimum_lower": lo, "optimum_upper": up, "optimum_gap": gap})
		return []harness.Table{*frontier, *cal, *lps}
	}
	nan := math.NaN()
	if s.skip == "" && s.opt != nil {
		switch {
		case !mechanism.SolverAvailable(s.opt.Solver):
			s.skip = fmt.Sprintf("LP solver %s not compiled in (build with -tags %s; ./run.sh does where the library is installed)", s.opt.Solver, s.opt.Solver)
		case len(p.LP.Calibrations) > 0 && !slices.Contains(p.LP.Calibrations, j.calibration):
			s.skip = fmt.Sprintf("calibration %s of the whole-grid LP left out by params.lp.calibrations %q", j.calibration, p.LP.Calibrations)
		}
	}
	if s.skip != "" {
		return tables(nan, nan, 0, "skipped: "+s.skip, ""), nil
	}
	m := s.m
	var solver *mechanism.OptimalSolver
	if s.opt != nil {
		var err error
		if solver, err = s.opt.NewSolver(s.in, s.out, ds.Prior()); err != nil {
			return nil, err
		}
		if p.LP.TimeLimit > 0 {
			solver.Deadline = time.Now().Add(time.Duration(p.LP.TimeLimit * float64(time.Second)))
		}
		solver.Context = ctx
		solver.Log = func(format string, args ...any) { harness.Progress(ctx, "LP "+format, args...) }
		m = solver.Mechanism()
	}
	res, err := calibrate(ctx, j, s, m)
	if solver != nil {
		logSolves("city", "solve", "ok", solver.Solves...)
	}
	if errors.Is(err, mechanism.ErrOutOfReach) {
		return tables(nan, nan, 0, "out of reach: "+err.Error(), ""), nil
	}
	if errors.Is(err, mechanism.ErrIntractable) {
		return tables(nan, nan, 0, "refused: "+err.Error(), ""), nil
	}
	if errors.Is(err, mechanism.ErrTimeLimit) {
		return tables(nan, nan, 0, "time limit: "+err.Error(), ""), nil
	}
	if err != nil {
		return nil, err
	}
	s.lp = solver
	status := "ok"
	if res.Jump {
		// The quantity jumps over the level (LP vertices switch); the
		// channel on the private side of the jump is measured, and its
		// metric columns show where it landed.
		status = "jump"
	}
	island, missing, err := measure(ctx, j, s, res, rng, frontier)
	if island != nil {
		logSolves("island", "solve", "ok", island.Solves...)
	}
	if err != nil {
		return nil, err
	}
	if solver != nil && solver.Dilation() > 1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st, err := relaxation(p, solver, ds.Prior(), res.Param)
		switch {
		case errors.Is(err, mechanism.ErrTimeLimit):
			logSolves("city", "relaxation", "time limit", st)
		case err != nil:
			return nil, err
		default:
			logSolves("city", "relaxation", "ok", st)
		}
	}
	return tables(res.Param, res.Value, res.Evals, status, missing), nil
}

// relaxation solves the spanner LP of solver with its edges at the full
// eps, a relaxation of the all-pairs LP at eps, for its certified lower
// bound: the LP at parameter δ·eps (edges at δ·eps/δ), from solver's
// columns, with a time budget of its own (params.lp.time_limit). On
// ErrTimeLimit the statistics hold the best bound reached.
func relaxation(p *params, solver *mechanism.OptimalSolver, prior []float64, eps float64) (mechanism.LPStats, error) {
	rel, err := solver.ForPrior(prior)
	if err != nil {
		return mechanism.LPStats{}, err
	}
	rel.Deadline = time.Time{}
	if p.LP.TimeLimit > 0 {
		rel.Deadline = time.Now().Add(time.Duration(p.LP.TimeLimit * float64(time.Second)))
	}
	// The edges at q/δ >= eps exactly, so that the bound holds at eps.
	q := solver.Dilation() * eps
	for q/solver.Dilation() < eps {
		q = math.Nextafter(q, math.Inf(1))
	}
	_, st, err := rel.Solve(q)
	return st, err
}

// calibrate finds the mechanism's parameter at the job's level.
// m is s.m or, for the optimal mechanism, its warm-started solver.
func calibrate(ctx context.Context, j job, s setup, m mechanism.Mechanism) (*mechanism.Calibration, error) {
	target, err := mechanism.ParseTarget(j.calibration)
	if err != nil {
		return nil, err
	}
	method, err := mechanism.ParseMethod(j.p.CalibrationMethod)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tol := j.p.CalibrationTol
	if s.lpSolver != "" && j.p.LP.CalibrationTol > 0 {
		tol = j.p.LP.CalibrationTol
	}
	return mechanism.Calibrate(ctx, m, s.in, s.out, j.ds.Prior(), target, j.level,
		mechanism.CalibrateOptions{RelTol: tol, Method: method, AcceptJump: true, Operators: s.ops,
			Progress: func(evals int, param, value float64) {
				harness.Progress(ctx, "calibration: %d channels, the last at %s %.6g (%s %.6g)", evals, m.Info().Param, param, j.calibration, value)
			}})
}

// measure adds the calibrated channel's frontier rows: its metrics, the
// identification of A, and the utility of every simulation. For the
// optimal mechanism it returns the solver of the island prior's LP; when
// that LP runs out of time, the identification is NaN and missing says
// so, and the rest is measured.
func measure(ctx context.Context, j job, s setup, res *mechanism.Calibration, rng *rand.Rand, frontier *harness.Table) (islandLP *mechanism.OptimalSolver, missing string, err error) {
	p, ds := j.p, j.ds
	var ch kernels.ChannelOp = res.Channel
	prior := ds.Prior()
	var met mechanism.Metrics
	if s.ops {
		// The metrics the operator cannot give at this size (the Bayes
		// error, dense by nature, above mechanism.BayesErrorMaxOps) are
		// NaN; Finish lists them as skipped.
		ch = res.Op
	}
	met, _, err = mechanism.Measure(prior, ch, s.m, res.Param)
	if err != nil {
		return nil, "", err
	}
	idPost, idMAP := math.NaN(), math.NaN()
	if a, ok := p.aCells[ds.Name]; ok {
		idPost, idMAP, islandLP, err = identification(p, ds, s, a, res.Param, ch)
		switch {
		case errors.Is(err, mechanism.ErrTimeLimit):
			idPost, idMAP = math.NaN(), math.NaN()
			missing = "identification of A on the island prior: time limit: " + err.Error()
		case err != nil:
			return nil, "", err
		}
	}
	for sim := 0; sim < p.Sims; sim++ {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		r := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		emd, err := utility(r, ds, prior, ch, p.IBUIterations)
		if err != nil {
			return nil, "", fmt.Errorf("%s sim %d: %w", s.m.Info().Name, sim, err)
		}
		frontier.Add(harness.Row{"city": ds.Name, "mechanism": s.m.Info().Name, "calibration": j.calibration, "level": j.level,
			"parameter": res.Param, "emd": emd, "avg_distortion": met.AvgDistortion, "mutual_information": met.MutualInformation,
			"tight_epsilon": met.TightEps, "bayes_error": met.BayesError, "identification_A": idPost, "sim": sim,
			"identification_A_map": idMAP, "emd_m": param.Metres(ds, emd), "avg_distortion_m": param.Metres(ds, met.AvgDistortion),
			"bayes_error_m": param.Metres(ds, met.BayesError)})
	}
	return islandLP, missing, nil
}

// identification measures A on the island prior. Prior-dependent
// mechanisms are rebuilt for the island prior at the calibrated parameter
// (the parameter, not the level, is what a deployment fixes); the
// optimal mechanism's solver on the island prior is returned for its
// statistics.
func identification(p *params, ds *datasets.Dataset, s setup, a param.Cell, param float64, ch kernels.ChannelOp) (post, mapProb float64, lp *mechanism.OptimalSolver, err error) {
	idx, err := a.Index(ds.Grid, "a."+ds.Name)
	if err != nil {
		return 0, 0, nil, err
	}
	island, err := datasets.Island(ds.Grid, ds.Prior(), p.Island.Options(ds, idx))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("island prior of %s: %w", ds.Name, err)
	}
	if s.ops {
		ich := ch
		if s.m.Info().PriorDependent {
			if ich, err = s.m.(mechanism.Operator).Op(s.in, s.out, island, param); err != nil {
				return 0, 0, nil, fmt.Errorf("channel on the island prior: %w", err)
			}
		}
		post, mapProb, err = mechanism.Identification(island, ich, idx)
		return post, mapProb, nil, err
	}
	ich := ch.(*kernels.Channel)
	switch {
	case s.lp != nil:
		if lp, err = s.lp.ForPrior(island); err == nil {
			ich, _, err = lp.Solve(param)
		}
	case s.m.Info().PriorDependent:
		ich, err = s.m.Channel(s.in, s.out, island, param)
	}
	if err != nil {
		return 0, 0, nil, fmt.Errorf("channel on the island prior: %w", err)
	}
	post, mapProb, err = mechanism.Identification(island, ich, idx)
	return post, mapProb, lp, err
}

// utility obfuscates every check-in of ds with ch, estimates the prior
// with IBU from uniform and returns the EMD of the estimate to prior. A
// dense channel goes through the dense kernels (kernels.Obfuscate and
// IBU choose them), an operator through its structured form.
func utility(r *rand.Rand, ds *datasets.Dataset, prior []float64, ch kernels.ChannelOp, ibuIters int) (float64, error) {
	reports, err := kernels.Obfuscate(r, ds.Counts, ch)
	if err != nil {
		return 0, fmt.Errorf("obfuscate: %w", err)
	}
	n := 0
	for _, v := range reports {
		n += v
	}
	if n == 0 {
		return 0, fmt.Errorf("no reports")
	}
	q := make([]float64, len(reports))
	for y, v := range reports {
		q[y] = float64(v) / float64(n)
	}
	est, _, err := kernels.IBU(ch, q, nil, kernels.IBUConfig{Iterations: ibuIters})
	if err != nil {
		return 0, fmt.Errorf("ibu: %w", err)
	}
	d, err := kernels.EMD(ds.Grid, est, ds.Grid, prior)
	if err != nil {
		return 0, fmt.Errorf("emd: %w", err)
	}
	return d, nil
}
