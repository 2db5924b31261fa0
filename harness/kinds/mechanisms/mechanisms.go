package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// mechanismsKind compares location-privacy mechanisms on equal footing
// (issue 5): one job per (city, mechanism, calibration, level).
type mechanismsKind struct{}

func (mechanismsKind) Name() string { return "mechanisms" }
func (mechanismsKind) Describe() string {
	return "privacy-utility frontier of BA, LAP, randomized response, snapped planar Laplace and the optimal LP mechanism, calibrated to equal tight epsilon, distortion or mutual information"
}
func (mechanismsKind) Outputs() []string {
	return []string{"frontier.csv", "calibration.csv", "frontier_summary.csv", "winners.csv", "mechanisms.csv",
		"skipped.csv", "frontier-<city>.png", "frontier-<city>.svg", "section.md"}
}
func (mechanismsKind) NewParams() harness.Params { return defaultParams() }

// job is one (city, mechanism, calibration, level).
type job struct {
	p           *params
	city        string
	mech        string
	calibration string
	level       float64
	// data replaces the city's data set in tests; nil loads the city.
	data *datasets.Dataset
}

func (j job) dataset() (*datasets.Dataset, error) {
	if j.data != nil {
		return j.data, nil
	}
	return datasets.Load(j.city, datasets.LoadOptions{Rows: j.p.Rows})
}

func jobKey(city, mech, cal string, level float64) string {
	return "city=" + city + "/mechanism=" + mech + "/calibration=" + cal + "/level=" + harness.FormatFloat(level)
}

// Plan makes one job per (city, mechanism, calibration, level), in that
// nesting order.
func (mechanismsKind) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*params)
	if !ok {
		return nil, fmt.Errorf("mechanisms: params of type %T", hp)
	}
	var jobs []harness.Job
	for _, c := range p.Cities {
		for _, m := range p.Mechanisms {
			for _, cal := range p.Calibrations {
				for _, l := range p.levels(cal).Values() {
					jobs = append(jobs, harness.Job{Key: jobKey(c, m, cal, l), Arg: job{p: p, city: c, mech: m, calibration: cal, level: l}})
				}
			}
		}
	}
	return jobs, nil
}

// EstimateBytes bounds a job's memory by a few dense channels over the
// widest output grid plus the EMD solver's arcs.
func (mechanismsKind) EstimateBytes(hj harness.Job) int64 {
	j, ok := hj.Arg.(job)
	if !ok {
		return 0
	}
	ds, err := j.dataset()
	if err != nil {
		return 0
	}
	m := int64(ds.Grid.Len())
	n := int64(ds.Grid.Widen(j.p.LapWiden).Len())
	return 8*4*m*n + 64*m*m
}

// setup is a mechanism ready to run on a city.
type setup struct {
	m        mechanism.Mechanism
	in, out  kernels.Grid
	lpSolver string // "" unless the LP
	lpRows   int
	skip     string // non-empty: why the job cannot run
}

// newMechanism makes the mechanism called name as the parameters set it
// up for city, with the LP solver it uses ("" for the others).
func newMechanism(p *params, city, name string) (mechanism.Mechanism, string) {
	switch name {
	case "ba":
		return mechanism.BA{Iterations: p.BAIterations}, ""
	case "lap":
		return mechanism.LAP{}, ""
	case "rr":
		return mechanism.RR{}, ""
	case "planar-laplace":
		pm := mechanism.UniformInCell
		if p.PlanarPoint == "centre" {
			pm = mechanism.CellCentre
		}
		return mechanism.PlanarLaplace{Point: pm}, ""
	case "optimal":
		solver := p.lpSolver()
		opt := mechanism.Optimal{Spanner: p.LP.Spanner, Solver: solver}
		if k := p.coarsen(city); k > 1 {
			return mechanism.Coarsened{Base: opt, Factor: k}, solver
		}
		return opt, solver
	}
	return nil, ""
}

// build makes the mechanism of name for grid g.
func build(p *params, city, name string, g kernels.Grid) setup {
	s := setup{in: g, out: g}
	s.m, s.lpSolver = newMechanism(p, city, name)
	switch m := s.m.(type) {
	case nil:
		s.skip = fmt.Sprintf("unknown mechanism %q", name)
	case mechanism.LAP:
		s.out = g.Widen(p.LapWiden)
	case mechanism.Optimal, mechanism.Coarsened:
		lpGrid := g
		if c, ok := m.(mechanism.Coarsened); ok {
			lpGrid = c.Coarse(g)
		}
		_, s.lpRows = mechanism.Optimal{Spanner: p.LP.Spanner}.Size(lpGrid, lpGrid)
		if limit := p.lpLimit(s.lpSolver); s.lpRows > limit {
			s.skip = fmt.Sprintf("LP on the %v grid has %d constraints, above the limit %d for solver %s (params.lp.max_constraints, params.lp.coarsen; build with -tags glpk for the sparse solver)",
				lpGrid, s.lpRows, limit, s.lpSolver)
		}
	}
	return s
}

var frontierHeader = []string{"city", "mechanism", "calibration", "level", "parameter", "emd", "avg_distortion",
	"mutual_information", "tight_epsilon", "bayes_error", "identification_A", "sim", "identification_A_map"}

var calibrationHeader = []string{"city", "mechanism", "calibration", "level", "parameter_name", "parameter", "value",
	"evals", "status", "input_grid", "output_grid", "lp_solver", "lp_constraints"}

func (mechanismsKind) Run(ctx context.Context, hj harness.Job, rng *rand.Rand) ([]harness.Table, error) {
	j, ok := hj.Arg.(job)
	if !ok {
		return nil, fmt.Errorf("mechanisms job %s: argument of type %T", hj.Key, hj.Arg)
	}
	p := j.p
	ds, err := j.dataset()
	if err != nil {
		return nil, err
	}
	g, prior := ds.Grid, ds.Prior()
	s := build(p, j.city, j.mech, g)
	frontier := harness.Table{Name: "frontier", Header: frontierHeader}
	cal := harness.Table{Name: "calibration", Header: calibrationHeader}
	name := j.mech
	paramName := ""
	if s.m != nil {
		name, paramName = s.m.Info().Name, s.m.Info().Param
	}
	calRow := func(param, value float64, evals int, status string) {
		lpRows := ""
		if s.lpSolver != "" {
			lpRows = fmt.Sprint(s.lpRows)
		}
		cal.Rows = append(cal.Rows, []string{j.city, name, j.calibration, ff(j.level), paramName, ff(param), ff(value),
			fmt.Sprint(evals), status, s.in.String(), s.out.String(), s.lpSolver, lpRows})
	}
	if s.skip != "" {
		calRow(math.NaN(), math.NaN(), 0, "skipped: "+s.skip)
		return []harness.Table{frontier, cal}, nil
	}
	target, err := mechanism.ParseTarget(j.calibration)
	if err != nil {
		return nil, err
	}
	method, err := mechanism.ParseMethod(p.CalibrationMethod)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := mechanism.Calibrate(s.m, s.in, s.out, prior, target, j.level, mechanism.CalibrateOptions{RelTol: p.CalibrationTol, Method: method, AcceptJump: true})
	if errors.Is(err, mechanism.ErrOutOfReach) {
		calRow(math.NaN(), math.NaN(), 0, "out of reach: "+err.Error())
		return []harness.Table{frontier, cal}, nil
	}
	if err != nil {
		return nil, err
	}
	status := "ok"
	if res.Jump {
		// The quantity jumps over the level (LP vertices switch); the
		// channel on the private side of the jump is measured, and its
		// metric columns show where it landed.
		status = "jump"
	}
	calRow(res.Param, res.Value, res.Evals, status)
	ch := res.Channel
	met, err := mechanism.MeasureOf(s.m, res.Param, prior, ch)
	if err != nil {
		return nil, err
	}
	idPost, idMAP := math.NaN(), math.NaN()
	if a, ok := p.A[j.city]; ok {
		if idPost, idMAP, err = identification(p, ds, s, a, res.Param, ch); err != nil {
			return nil, err
		}
	}
	for sim := 0; sim < p.Sims; sim++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		emd, err := utility(r, ds, prior, ch, p.IBUIterations)
		if err != nil {
			return nil, fmt.Errorf("%s sim %d: %w", name, sim, err)
		}
		frontier.Rows = append(frontier.Rows, []string{j.city, name, j.calibration, ff(j.level), ff(res.Param), ff(emd),
			ff(met.AvgDistortion), ff(met.MutualInformation), ff(met.TightEps), ff(met.BayesError), ff(idPost),
			fmt.Sprint(sim), ff(idMAP)})
	}
	return []harness.Table{frontier, cal}, nil
}

// identification measures A on the island prior. Prior-dependent
// mechanisms are rebuilt for the island prior at the calibrated parameter
// (the parameter, not the level, is what a deployment fixes).
func identification(p *params, ds *datasets.Dataset, s setup, a []int, param float64, ch *kernels.Channel) (post, mapProb float64, err error) {
	idx := ds.Grid.IndexOf(a[0], a[1])
	if idx < 0 {
		return 0, 0, fmt.Errorf("params.a.%s = %v lies outside the grid %v", ds.Name, a, ds.Grid)
	}
	opt := datasets.IslandOptions{Row: a[0], Col: a[1], Radius: p.Island.Radius, Mode: p.Island.Mode}
	if p.Island.Mode == datasets.SetMass {
		opt.Mass = p.Island.AMass
	}
	island, err := datasets.Island(ds.Grid, ds.Prior(), opt)
	if err != nil {
		return 0, 0, fmt.Errorf("island prior of %s: %w", ds.Name, err)
	}
	ich := ch
	if s.m.Info().PriorDependent {
		if ich, err = s.m.Channel(s.in, s.out, island, param); err != nil {
			return 0, 0, fmt.Errorf("channel on the island prior: %w", err)
		}
	}
	return mechanism.Identification(island, ich, idx)
}

// utility obfuscates every check-in of ds with ch, estimates the prior
// with IBU from uniform and returns the EMD of the estimate to prior.
func utility(r *rand.Rand, ds *datasets.Dataset, prior []float64, ch *kernels.Channel, ibuIters int) (float64, error) {
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
		return 0, fmt.Errorf("IBU: %w", err)
	}
	d, err := kernels.EMD(ds.Grid, est, ds.Grid, prior)
	if err != nil {
		return 0, fmt.Errorf("EMD: %w", err)
	}
	return d, nil
}

func ff(v float64) string { return harness.FormatFloat(v) }

// shortStatus keeps the first clause of a status for prose.
func shortStatus(s string) string {
	if i := strings.Index(s, ": "); i >= 0 {
		return s[:i]
	}
	return s
}
