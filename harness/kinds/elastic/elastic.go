// Package elastic is the experiment kind "elastic" (paper Sec. III-A,
// Fig. 2a/2b): the report distributions of the vulnerable location A and
// the strong location B on the island prior, under BA and under LAP at the
// same geo-indistinguishability level, with the elasticity,
// 2·beta-geo-indistinguishability and invertibility claims checked.
package elastic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
	"privic/kernels/mechanism"
)

// Kind returns the elastic kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type params struct {
	// Places are the dataset (the paper: Paris), the island and A and B.
	island.Places
	// Beta lists BA's loss parameters (paper: 0.2, 0.6, 0.8, 1.0, so
	// eps = 2 beta = 0.4, 1.2, 1.6, 2.0).
	Beta harness.Sweep `toml:"beta"`
	// BAIterations is the fixed BA iteration count (reference code: 10).
	BAIterations int `toml:"ba_iterations"`
	param.LAP
	// FigureDomain is the grid Fig. 2 draws: "base" (the city grid; LAP
	// mass outside it is stated in the panel title) or "widened" (LAP's
	// output grid, BA drawn with zeros outside the city).
	FigureDomain string `toml:"figure_domain"`
	// Mechanisms are the mechanisms compared: "ba" and "lap" always (the
	// paper's figure), and "elastic-metric" (mechanism.Elastic, the
	// exponential mechanism over the elastic metric of the island prior)
	// if listed, calibrated to LAP's epsilon as its tight epsilon.
	Mechanisms []string `toml:"mechanisms"`
}

// elasticMetric is the name of mechanism.Elastic in params.mechanisms.
const elasticMetric = "elastic-metric"

// withElastic reports whether the elastic-metric mechanism is compared.
func (p *params) withElastic() bool { return slices.Contains(p.Mechanisms, elasticMetric) }

func (p *params) Validate() error {
	if err := p.Check("city", p.City); err != nil {
		return err
	}
	if err := param.Betas("beta", p.Beta.Values()); err != nil {
		return err
	}
	if err := harness.IntIn("ba_iterations", p.BAIterations, 1, 100000); err != nil {
		return err
	}
	if err := p.LAP.Validate(); err != nil {
		return err
	}
	if err := p.Places.Validate(); err != nil {
		return err
	}
	if !slices.Contains(p.Mechanisms, "ba") || !slices.Contains(p.Mechanisms, "lap") {
		return fmt.Errorf("params.mechanisms = %q: must list \"ba\" and \"lap\" (the paper's figure), and may add %q", p.Mechanisms, elasticMetric)
	}
	for i, m := range p.Mechanisms {
		if err := harness.OneOf(fmt.Sprintf("mechanisms[%d]", i), m, "ba", "lap", elasticMetric); err != nil {
			return err
		}
		if slices.Index(p.Mechanisms, m) != i {
			return fmt.Errorf("params.mechanisms[%d] = %q: duplicate", i, m)
		}
	}
	return harness.OneOf("figure_domain", p.FigureDomain, "base", "widened")
}

type def struct{}

type job struct {
	p    *params
	s    *island.Setup // read-only, shared by every job
	beta float64
}

func (def) About() harness.About {
	return harness.About{
		Name:     "elastic",
		Describe: "Fig. 2a/2b: report distributions of the vulnerable (A) and strong (B) locations under BA and LAP on the Paris island prior (or any dataset's)",
		Tables:   []string{"report_distribution", "location_stats", "channels", "invertibility", "elastic_metric", "equal_distortion"},
		Figures:  []string{"fig2a", "fig2b", "reports-a-<city>", "reports-b-<city>"},
		Claims:   true,
		Skips:    true,
		Version:  "6",
	}
}

func (def) NewParams() *params {
	return &params{
		Places:       island.DefaultPlaces(),
		Beta:         harness.SweepOf(0.2, 0.6, 0.8, 1.0),
		BAIterations: 10,
		LAP:          param.DefaultLAP(),
		FigureDomain: "base",
		Mechanisms:   []string{"ba", "lap"},
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	s, err := p.Setup()
	var jobs []harness.Work[job]
	for _, b := range p.Beta.Values() {
		jobs = append(jobs, harness.Work[job]{Key: "beta=" + harness.FormatFloat(b), Job: job{p: p, s: s, beta: b}})
	}
	return jobs, err
}

// EstimateBytes: BA's factorised channel and LAP's operator (with their
// dense forms on grids below 1,024 cells, where the kernels use them),
// the dense SVD's work space (about six m x m matrices) on grids of at
// most island.SVDMaxCells cells, the location statistics' vectors and the
// report tables (two rows of m and two of n cells, about 200 bytes each).
func (def) EstimateBytes(j job) int64 {
	g := j.s.DS.Grid
	wide := g.Widen(j.p.LapWiden)
	m, n := int64(g.Len()), int64(wide.Len())
	b := kernels.BAMemory(g) + kernels.LaplaceOpMemory(g, wide) + 8*6*(m+n) + 200*2*(m+n)
	if g.Len() < kernels.DenseOpCells {
		b += kernels.DenseChannelMemory(g, g) + kernels.DenseChannelMemory(g, wide)
	}
	if g.Len() <= island.SVDMaxCells {
		b += 6 * kernels.DenseChannelMemory(g, g)
	}
	if j.p.withElastic() {
		// The elastic metric and two channels of the calibration, dense.
		b += 3 * kernels.DenseChannelMemory(g, g)
	}
	return b
}

func (def) Run(ctx context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	p, s := j.p, j.s
	g := s.DS.Grid
	ba, err := kernels.BA(g, s.Prior, kernels.BAConfig{Beta: j.beta, Iterations: p.BAIterations})
	if err != nil {
		return nil, fmt.Errorf("ba at beta %v: %w", j.beta, err)
	}
	tight, err := ba.TightEpsilon()
	if err != nil {
		return nil, fmt.Errorf("BA at beta %v: %w", j.beta, err)
	}
	eps := tight
	if p.LapEpsilon == "two-beta" {
		eps = 2 * j.beta
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lap, err := kernels.NewLaplaceOp(g, g.Widen(p.LapWiden), eps)
	if err != nil {
		return nil, fmt.Errorf("lap at eps %v: %w", eps, err)
	}
	sv, err := island.SingularOf(ba)
	if err != nil {
		return nil, fmt.Errorf("singular values of BA at beta %v: %w", j.beta, err)
	}
	dist := harness.NewTable("report_distribution", "mechanism", "location", "beta", "epsilon", "row", "col", "probability")
	stats := harness.NewTable("location_stats", slices.Concat([]string{"mechanism", "location", "beta", "epsilon"}, island.StatsHeader(), island.MetresHeader())...)
	mechs := []namedOp{{"ba", ba}, {"lap", lap}}
	em := harness.NewTable("elastic_metric", "beta", "epsilon", "parameter", "tight_epsilon", "evals",
		"avg_distortion_ba", "avg_distortion_lap", "avg_distortion_elastic_metric")
	eqd := harness.NewTable("equal_distortion", "beta", "mechanism", "parameter", "avg_distortion", "tight_epsilon", "evals")
	var atDistortion []namedOp // LAP and elastic-metric at BA's average distortion
	if p.withElastic() {
		ech, err := elasticAt(ctx, g, s.Prior, eps)
		if err != nil {
			return nil, err
		}
		mechs = append(mechs, namedOp{elasticMetric, ech.Channel})
		var dist [3]float64
		for i, m := range mechs {
			if dist[i], err = mechanism.TargetValue(mechanism.TargetDistortion, s.Prior, m.op); err != nil {
				return nil, fmt.Errorf("%s: average distortion: %w", m.name, err)
			}
		}
		em.Add(harness.Row{"beta": j.beta, "epsilon": eps, "parameter": ech.Param, "tight_epsilon": ech.Value, "evals": ech.Evals,
			"avg_distortion_ba": dist[0], "avg_distortion_lap": dist[1], "avg_distortion_elastic_metric": dist[2]})
		for _, m := range []struct {
			name string
			mech mechanism.Mechanism
			out  kernels.Grid
		}{{"lap", mechanism.LAP{}, g.Widen(p.LapWiden)}, {elasticMetric, mechanism.Elastic{}, g}} {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c, err := mechanism.Calibrate(ctx, m.mech, g, m.out, s.Prior, mechanism.TargetDistortion, dist[0],
				mechanism.CalibrateOptions{RelTol: 1e-6, Method: mechanism.Illinois, Operators: useOps(m.mech, g)})
			if err != nil {
				return nil, fmt.Errorf("%s at BA's average distortion %v: %w", m.name, dist[0], err)
			}
			op := c.Op
			if op == nil {
				op = c.Channel
			}
			te, err := op.TightEpsilon()
			if err != nil {
				return nil, fmt.Errorf("%s at BA's average distortion: tight epsilon: %w", m.name, err)
			}
			eqd.Add(harness.Row{"beta": j.beta, "mechanism": m.name, "parameter": c.Param, "avg_distortion": c.Value, "tight_epsilon": te,
				"evals": c.Evals})
			atDistortion = append(atDistortion, namedOp{m.name + equalDistortion, op})
		}
	}
	measures := map[kernels.Grid]island.Measures{}
	measuresOf := func(op kernels.ChannelOp) (island.Measures, error) {
		_, out := op.Grids()
		if ms, ok := measures[out]; ok {
			return ms, nil
		}
		ms, err := s.Measures(out, p.DesertRadiusM)
		measures[out] = ms
		return ms, err
	}
	for _, m := range slices.Concat(mechs, atDistortion) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ms, err := measuresOf(m.op)
		if err != nil {
			return nil, err
		}
		v, err := island.NewView(s.Prior, m.op, ms)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		for _, loc := range []struct {
			name string
			x    int
		}{{"A", s.A}, {"B", s.B}} {
			if strings.HasSuffix(m.name, equalDistortion) && loc.name != "A" {
				continue // the comparison at equal distortion is about A
			}
			if !strings.HasSuffix(m.name, equalDistortion) {
				row, err := v.Row(loc.x)
				if err != nil {
					return nil, fmt.Errorf("%s at %s: %w", m.name, loc.name, err)
				}
				for y, pr := range row {
					r, c := v.Out().Abs(y)
					dist.Add(harness.Row{"mechanism": m.name, "location": loc.name, "beta": j.beta, "epsilon": eps, "row": r, "col": c,
						"probability": pr})
				}
			}
			st, err := v.Stats(loc.x, s.Block)
			if err != nil {
				return nil, fmt.Errorf("%s at %s: %w", m.name, loc.name, err)
			}
			stats.Add(harness.Row{"mechanism": m.name, "location": loc.name, "beta": j.beta, "epsilon": eps}, st.Row(), st.Metres(s.DS))
		}
	}
	// The uniform-report baseline: a mechanism that reports nothing.
	ms, err := measuresOf(ba)
	if err != nil {
		return nil, err
	}
	for _, loc := range []struct {
		name string
		x    int
	}{{"A", s.A}, {"B", s.B}} {
		st, err := island.UniformStats(g, s.Prior, loc.x, s.Block, ms)
		if err != nil {
			return nil, err
		}
		stats.Add(harness.Row{"mechanism": uniform, "location": loc.name, "beta": j.beta, "epsilon": eps}, st.Row(), st.Metres(s.DS))
	}
	chans := harness.NewTable("channels", "beta", "two_beta", "ba_tight_epsilon", "lap_epsilon", "ba_iterations", "ba_min_singular_value")
	chans.Add(harness.Row{"beta": j.beta, "two_beta": 2 * j.beta, "ba_tight_epsilon": tight, "lap_epsilon": eps, "ba_iterations": ba.Iterations,
		"ba_min_singular_value": sv.ExactCell()})
	inv := harness.NewTable("invertibility", append([]string{"beta"}, island.SingularHeader()...)...)
	inv.Add(harness.Row{"beta": j.beta}, sv.Row(g.Len()))
	return []harness.Table{*dist, *stats, *chans, *inv, *em, *eqd}, nil
}

// namedOp is a channel with the name of its rows in the tables.
type namedOp struct {
	name string
	op   kernels.ChannelOp
}

// equalDistortion suffixes the rows of a mechanism calibrated to BA's
// average distortion ("lap-equal-distortion"); uniform names the
// uniform-report baseline's rows.
const (
	equalDistortion = "-equal-distortion"
	uniform         = "uniform"
)

// useOps: calibrate m on operators (its structured form) on grids where
// the kernels use them.
func useOps(m mechanism.Mechanism, g kernels.Grid) bool {
	_, ok := m.(mechanism.Operator)
	return ok && g.Len() >= kernels.DenseOpCells
}

// elasticAt is the elastic-metric mechanism on the island prior (its mass
// function) calibrated to tight epsilon eps, the level LAP gets: at equal
// Euclidean geo-indistinguishability the three mechanisms differ only in
// where they spend it.
func elasticAt(ctx context.Context, g kernels.Grid, prior []float64, eps float64) (*mechanism.Calibration, error) {
	c, err := mechanism.Calibrate(ctx, mechanism.Elastic{}, g, g, prior, mechanism.TargetEps, eps,
		mechanism.CalibrateOptions{RelTol: 1e-6, Method: mechanism.Illinois, Progress: func(evals int, param, value float64) {
			harness.Progress(ctx, "elastic calibration: %d channels, the last at eps %.6g (tight eps %.6g)", evals, param, value)
		}})
	if err != nil {
		return nil, fmt.Errorf("elastic-metric at tight eps %v: %w", eps, err)
	}
	return c, nil
}
