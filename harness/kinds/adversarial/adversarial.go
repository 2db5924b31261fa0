// Package adversarial is the experiment kind "adversarial" (paper Sec.
// VI, Fig. 11a/11b): a fraction f of users falsely report the vulnerable
// location A, so the prior BA is built on carries extra mass at A; the
// figures show the report distribution of an honest user at A, and the
// claims say whether honest users at A become more identifiable.
package adversarial

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/kernels"
)

// Kind returns the adversarial kind.
func Kind() harness.Kind { return harness.Typed[*params, job](def{}) }

type params struct {
	BAIterations int `toml:"ba_iterations"`
	// Beta lists BA's loss parameters (reference code: 0.4 and 0.6, the
	// paper's eps = 2 beta = 0.8 and 1.2).
	Beta harness.Sweep `toml:"beta"`
	// Fractions lists the adversarial fractions f in [0, 1).
	Fractions harness.Sweep `toml:"fractions"`
	// Places are the dataset (the paper: Paris), the island and A and B.
	island.Places
	// FigureFractions[i] are the panels of the figure for Beta[i]
	// (Fig. 11a, 11b, ...), drawn clockwise from the top left as in the
	// paper; every value must be one of Fractions.
	FigureFractions [][]float64 `toml:"figure_fractions"`
	// LapWiden is the output widening of the LAP reference (eps = 2 beta)
	// whose numbers the section sets beside BA's; -1 disables it.
	LapWiden int `toml:"lap_widen"`
}

func (p *params) Validate() error {
	if err := p.Check("city", p.City); err != nil {
		return err
	}
	if err := param.Betas("beta", p.Beta.Values()); err != nil {
		return err
	}
	fr := p.Fractions.Values()
	if len(fr) == 0 {
		return fmt.Errorf("params.fractions: empty; give at least one value in [0, 1)")
	}
	if err := p.Fractions.Check("params.fractions", "a fraction must lie in [0, 1)", func(v float64) bool { return v >= 0 && v < 1 }); err != nil {
		return err
	}
	if err := harness.IntIn("ba_iterations", p.BAIterations, 1, 100000); err != nil {
		return err
	}
	if err := p.Places.Validate(); err != nil {
		return err
	}
	if len(p.FigureFractions) > len(p.Beta.Values()) {
		return fmt.Errorf("params.figure_fractions: %d panel lists for %d betas; give at most one list per beta", len(p.FigureFractions), len(p.Beta.Values()))
	}
	for i, list := range p.FigureFractions {
		if len(list) == 0 || len(list) > 12 {
			return fmt.Errorf("params.figure_fractions[%d]: want 1 to 12 fractions", i)
		}
		for k, f := range list {
			if !slices.Contains(fr, f) {
				return fmt.Errorf("params.figure_fractions[%d][%d] = %v: not one of params.fractions", i, k, f)
			}
		}
	}
	if p.LapWiden < -1 || p.LapWiden > 100 {
		return fmt.Errorf("params.lap_widen = %d: must lie in [-1, 100] (-1 disables the LAP reference)", p.LapWiden)
	}
	return nil
}

type def struct{}

type job struct {
	p        *params
	s        *island.Setup // read-only, shared by every job
	beta     float64
	fraction float64
	lap      bool // the LAP reference job of this beta
}

func (def) About() harness.About {
	return harness.About{
		Name:     "adversarial",
		Describe: "Fig. 11a/11b: report distribution of an honest user at A when a fraction of users falsely report A (BA, eps 0.8 and 1.2)",
		Tables:   []string{"report_distribution", "identification", "lap_reference", "invertibility"},
		Figures:  []string{"fig11a", "fig11b", "honest-a-<city>-<beta>"},
		Claims:   true,
		Skips:    true,
		Version:  "5",
	}
}

func (def) NewParams() *params {
	return &params{
		Beta:            harness.SweepOf(0.4, 0.6),
		Fractions:       harness.SweepOf(0, 0.05, 0.10, 0.15, 0.20, 0.24, 0.29, 0.34, 0.38, 0.39),
		Places:          island.DefaultPlaces(),
		BAIterations:    10,
		FigureFractions: [][]float64{{0, 0.29, 0.34, 0.39}, {0, 0.10, 0.15, 0.20}},
		LapWiden:        5,
	}
}

func (def) Plan(p *params) ([]harness.Work[job], error) {
	s, err := p.Setup()
	var jobs []harness.Work[job]
	for _, b := range p.Beta.Values() {
		for _, f := range p.Fractions.Values() {
			jobs = append(jobs, harness.Work[job]{Key: "beta=" + harness.FormatFloat(b) + "/fraction=" + harness.FormatFloat(f),
				Job: job{p: p, s: s, beta: b, fraction: f}})
		}
		if p.LapWiden >= 0 {
			jobs = append(jobs, harness.Work[job]{Key: "beta=" + harness.FormatFloat(b) + "/lap", Job: job{p: p, s: s, beta: b, lap: true}})
		}
	}
	return jobs, err
}

// EstimateBytes: BA's factorised channel or LAP's operator (with their
// dense forms below kernels.DenseOpCells cells), the dense SVD's work
// space (about six m x m matrices) on grids of at most
// island.SVDMaxCells cells, the location statistics' vectors and the
// report table (one row of m cells, about 200 bytes each).
func (def) EstimateBytes(j job) int64 {
	g := j.s.DS.Grid
	m := int64(g.Len())
	if j.lap {
		wide := g.Widen(max(j.p.LapWiden, 0))
		n := int64(wide.Len())
		b := kernels.LaplaceOpMemory(g, wide) + 8*6*(m+n)
		if g.Len() < kernels.DenseOpCells {
			b += kernels.DenseChannelMemory(g, wide)
		}
		return b
	}
	b := kernels.BAMemory(g) + 8*8*m + 200*m
	if g.Len() < kernels.DenseOpCells {
		b += kernels.DenseChannelMemory(g, g)
	}
	if g.Len() <= island.SVDMaxCells {
		b += 6 * kernels.DenseChannelMemory(g, g)
	}
	return b
}

// honestAtA views op under the island prior (the honest population's)
// and computes the location statistics of an honest user at A.
func honestAtA(s *island.Setup, op kernels.ChannelOp, desertM float64) (*island.View, island.LocStats, error) {
	_, out := op.Grids()
	ms, err := s.Measures(out, desertM)
	if err != nil {
		return nil, island.LocStats{}, err
	}
	v, err := island.NewView(s.Prior, op, ms)
	if err != nil {
		return nil, island.LocStats{}, err
	}
	st, err := v.Stats(s.A, s.Block)
	return v, st, err
}

func (def) Run(ctx context.Context, j job, _ *rand.Rand) ([]harness.Table, error) {
	p, s := j.p, j.s
	g := s.DS.Grid
	if j.lap {
		// LAP ignores the prior, so adversarial reports cannot move it:
		// one channel per beta is the reference BA drifts towards.
		op, err := kernels.NewLaplaceOp(g, g.Widen(p.LapWiden), 2*j.beta)
		if err != nil {
			return nil, fmt.Errorf("lap at eps %v: %w", 2*j.beta, err)
		}
		_, st, err := honestAtA(s, op, p.DesertRadiusM)
		if err != nil {
			return nil, err
		}
		t := harness.NewTable("lap_reference", slices.Concat([]string{"beta", "epsilon"}, island.StatsHeader(), island.MetresHeader())...)
		t.Add(harness.Row{"beta": j.beta, "epsilon": 2 * j.beta}, st.Row(), st.Metres(s.DS))
		return []harness.Table{*t}, nil
	}
	corrupted, err := datasets.Inject(s.Prior, s.A, j.fraction)
	if err != nil {
		return nil, err
	}
	ba, err := kernels.BA(g, corrupted, kernels.BAConfig{Beta: j.beta, Iterations: p.BAIterations})
	if err != nil {
		return nil, fmt.Errorf("ba at beta %v, f %v: %w", j.beta, j.fraction, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sv, err := island.SingularOf(ba)
	if err != nil {
		return nil, fmt.Errorf("singular values at beta %v, f %v: %w", j.beta, j.fraction, err)
	}
	// The adversary who tries to identify honest users knows the honest
	// population's prior (it knows which reports are its own), so the
	// identification numbers use the island prior, not the corrupted one.
	v, st, err := honestAtA(s, ba, p.DesertRadiusM)
	if err != nil {
		return nil, err
	}
	row, err := v.Row(s.A)
	if err != nil {
		return nil, err
	}
	eps := 2 * j.beta
	dist := harness.NewTable("report_distribution", "beta", "epsilon", "fraction", "row", "col", "probability")
	for y, pr := range row {
		r, c := v.Out().Abs(y)
		dist.Add(harness.Row{"beta": j.beta, "epsilon": eps, "fraction": j.fraction, "row": r, "col": c, "probability": pr})
	}
	id := harness.NewTable("identification", slices.Concat([]string{"beta", "epsilon", "fraction", "tight_epsilon", "min_singular_value"},
		island.StatsHeader(), island.MetresHeader())...)
	tight, err := ba.TightEpsilon()
	if err != nil {
		return nil, fmt.Errorf("BA at beta %v: %w", j.beta, err)
	}
	id.Add(harness.Row{"beta": j.beta, "epsilon": eps, "fraction": j.fraction, "tight_epsilon": tight, "min_singular_value": sv.ExactCell()},
		st.Row(), st.Metres(s.DS))
	inv := harness.NewTable("invertibility", append([]string{"beta", "fraction"}, island.SingularHeader()...)...)
	inv.Add(harness.Row{"beta": j.beta, "fraction": j.fraction}, sv.Row(g.Len()))
	return []harness.Table{*dist, *id, *inv}, nil
}
