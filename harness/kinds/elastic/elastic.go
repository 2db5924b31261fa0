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

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
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
	// LapEpsilon calibrates LAP: "tight" (reference code: the tight
	// epsilon of the BA channel) or "two-beta" (paper's text: eps = 2 beta).
	LapEpsilon string `toml:"lap_epsilon"`
	// LapWiden widens LAP's output grid by this many cells on every side
	// (reference code: 5; 0 = base grid).
	LapWiden int `toml:"lap_widen"`
	// FigureDomain is the grid Fig. 2 draws: "base" (the city grid; LAP
	// mass outside it is stated in the panel title) or "widened" (LAP's
	// output grid, BA drawn with zeros outside the city).
	FigureDomain string `toml:"figure_domain"`
}

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
	if err := harness.OneOf("lap_epsilon", p.LapEpsilon, "tight", "two-beta"); err != nil {
		return err
	}
	if err := harness.IntIn("lap_widen", p.LapWiden, 0, 100); err != nil {
		return err
	}
	if err := p.Places.Validate(); err != nil {
		return err
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
		Tables:   []string{"report_distribution", "location_stats", "channels", "invertibility"},
		Figures:  []string{"fig2a", "fig2b", "reports-a-<city>", "reports-b-<city>"},
		Claims:   true,
		Skips:    true,
		Version:  "4",
	}
}

func (def) NewParams() *params {
	return &params{
		Places:       island.DefaultPlaces(),
		Beta:         harness.SweepOf(0.2, 0.6, 0.8, 1.0),
		BAIterations: 10,
		LapEpsilon:   "tight",
		LapWiden:     5,
		FigureDomain: "base",
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
	return b
}

func (def) Run(ctx context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	p, s := j.p, j.s
	g := s.DS.Grid
	ba, err := kernels.BA(g, s.Prior, kernels.BAConfig{Beta: j.beta, Iterations: p.BAIterations})
	if err != nil {
		return nil, fmt.Errorf("BA at beta %v: %w", j.beta, err)
	}
	tight := ba.TightEps()
	eps := tight
	if p.LapEpsilon == "two-beta" {
		eps = 2 * j.beta
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lap, err := kernels.NewLaplaceOp(g, g.Widen(p.LapWiden), eps)
	if err != nil {
		return nil, fmt.Errorf("LAP at eps %v: %w", eps, err)
	}
	sv, err := island.SingularOf(ba)
	if err != nil {
		return nil, fmt.Errorf("singular values of BA at beta %v: %w", j.beta, err)
	}
	dist := harness.NewTable("report_distribution", "mechanism", "location", "beta", "epsilon", "row", "col", "probability")
	stats := harness.NewTable("location_stats", slices.Concat([]string{"mechanism", "location", "beta", "epsilon"}, island.StatsHeader(), island.MetresHeader())...)
	for _, m := range []struct {
		name string
		op   kernels.ChannelOp
	}{{"ba", ba}, {"lap", lap}} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v, err := island.NewView(s.Prior, m.op)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		for _, loc := range []struct {
			name string
			x    int
		}{{"A", s.A}, {"B", s.B}} {
			row, err := v.Row(loc.x)
			if err != nil {
				return nil, fmt.Errorf("%s at %s: %w", m.name, loc.name, err)
			}
			for y, pr := range row {
				r, c := v.Out().Abs(y)
				dist.Add(m.name, loc.name, j.beta, eps, r, c, pr)
			}
			st, err := v.Stats(loc.x, s.Block)
			if err != nil {
				return nil, fmt.Errorf("%s at %s: %w", m.name, loc.name, err)
			}
			stats.Add(m.name, loc.name, j.beta, eps, st.Row(), st.Metres(s.DS))
		}
	}
	chans := harness.NewTable("channels", "beta", "two_beta", "ba_tight_epsilon", "lap_epsilon", "ba_iterations", "ba_min_singular_value")
	chans.Add(j.beta, 2*j.beta, tight, eps, ba.Iterations, sv.ExactCell())
	inv := harness.NewTable("invertibility", append([]string{"beta"}, island.SingularHeader()...)...)
	inv.Add(j.beta, sv.Row(g.Len()))
	return []harness.Table{*dist, *stats, *chans, *inv}, nil
}
