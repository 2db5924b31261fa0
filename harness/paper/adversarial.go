package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/kernels"
	"privic/plots"
)

// adversarialKind is PROTOCOL experiment 5 (Sec. VI, Fig. 11a/11b): a
// fraction f of users falsely report the vulnerable location A, so the
// prior BA is built on carries extra mass at A; the figure shows the
// report distribution of an honest user at A.
type adversarialKind struct{}

type adversarialParams struct {
	City string             `toml:"city"`
	Rows datasets.RowPolicy `toml:"rows"`
	// Beta lists BA's loss parameters (reference code: 0.4 and 0.6, the
	// paper's eps = 2 beta = 0.8 and 1.2).
	Beta harness.Sweep `toml:"beta"`
	// Fractions lists the adversarial fractions f in [0, 1).
	Fractions    harness.Sweep `toml:"fractions"`
	BAIterations int           `toml:"ba_iterations"`
	Island       islandParams  `toml:"island"`
	A            cellParam     `toml:"a"`
	B            cellParam     `toml:"b"`
	// FigureFractions[i] are the panels of the figure for Beta[i]
	// (Fig. 11a, 11b, ...), drawn clockwise from the top left as in the
	// paper; every value must be one of Fractions.
	FigureFractions [][]float64 `toml:"figure_fractions"`
	// LapWiden is the output widening of the LAP reference (eps = 2 beta)
	// whose numbers the section sets beside BA's; -1 disables it.
	LapWiden int `toml:"lap_widen"`
}

func (adversarialKind) Name() string { return "adversarial" }
func (adversarialKind) Describe() string {
	return "Fig. 11a/11b: report distribution of an honest user at A when a fraction of users falsely report A (BA, eps 0.8 and 1.2)"
}
func (adversarialKind) Outputs() []string {
	return []string{"report_distribution.csv", "identification.csv", "lap_reference.csv",
		"fig11a.png", "fig11a.svg", "fig11b.png", "fig11b.svg", "claims.csv", "section.md"}
}

func (adversarialKind) NewParams() harness.Params {
	return &adversarialParams{
		City:            "paris",
		Rows:            datasets.HeaderQuirk,
		Beta:            harness.SweepOf(0.4, 0.6),
		Fractions:       harness.SweepOf(0, 0.05, 0.10, 0.15, 0.20, 0.24, 0.29, 0.34, 0.38, 0.39),
		BAIterations:    10,
		Island:          defaultIsland(),
		A:               cellParam{6, 3},
		B:               cellParam{3, 7},
		FigureFractions: [][]float64{{0, 0.29, 0.34, 0.39}, {0, 0.10, 0.15, 0.20}},
		LapWiden:        5,
	}
}

func (p *adversarialParams) Validate() error {
	if _, err := datasets.Lookup(p.City); err != nil {
		return fmt.Errorf("params.city: %w", err)
	}
	if err := betasOK("beta", p.Beta.Values()); err != nil {
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
	if err := islandABOK(p.City, p.Rows, p.Island, p.A, p.B); err != nil {
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
			if !containsFloat(fr, f) {
				return fmt.Errorf("params.figure_fractions[%d][%d] = %v: not one of params.fractions", i, k, f)
			}
		}
	}
	if p.LapWiden < -1 || p.LapWiden > 100 {
		return fmt.Errorf("params.lap_widen = %d: must lie in [-1, 100] (-1 disables the LAP reference)", p.LapWiden)
	}
	return nil
}

func containsFloat(v []float64, x float64) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

type adversarialJob struct {
	p        *adversarialParams
	beta     float64
	fraction float64
	lap      bool // the LAP reference job of this beta
}

func (adversarialKind) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*adversarialParams)
	if !ok {
		return nil, fmt.Errorf("adversarial: params of type %T", hp)
	}
	var jobs []harness.Job
	for _, b := range p.Beta.Values() {
		for _, f := range p.Fractions.Values() {
			jobs = append(jobs, harness.Job{Key: "beta=" + ff(b) + "/fraction=" + ff(f),
				Arg: adversarialJob{p: p, beta: b, fraction: f}})
		}
		if p.LapWiden >= 0 {
			jobs = append(jobs, harness.Job{Key: "beta=" + ff(b) + "/lap", Arg: adversarialJob{p: p, beta: b, lap: true}})
		}
	}
	return jobs, nil
}

func (p *adversarialParams) setup() (*elasticSetup, error) {
	e := &elasticParams{City: p.City, Rows: p.Rows, Island: p.Island, A: p.A, B: p.B}
	return e.setup()
}

func (adversarialKind) Run(ctx context.Context, job harness.Job, _ *rand.Rand) ([]harness.Table, error) {
	j, ok := job.Arg.(adversarialJob)
	if !ok {
		return nil, fmt.Errorf("adversarial job %s: argument of type %T", job.Key, job.Arg)
	}
	p := j.p
	s, err := p.setup()
	if err != nil {
		return nil, err
	}
	g := s.ds.Grid
	if j.lap {
		// LAP ignores the prior, so adversarial reports cannot move it:
		// one channel per beta is the reference BA drifts towards.
		ch, err := kernels.Laplace(g, g.Widen(p.LapWiden), 2*j.beta)
		if err != nil {
			return nil, fmt.Errorf("LAP at eps %v: %w", 2*j.beta, err)
		}
		st, err := locationStats(s.prior, ch, s.a, s.block)
		if err != nil {
			return nil, err
		}
		t := newTable("lap_reference", append([]string{"beta", "epsilon"}, locStatsHeader...)...)
		t.add(append([]string{ff(j.beta), ff(2 * j.beta)}, st.row()...)...)
		return []harness.Table{t.Table}, nil
	}
	corrupted, err := datasets.Inject(s.prior, s.a, j.fraction)
	if err != nil {
		return nil, err
	}
	ba, err := kernels.BA(g, corrupted, kernels.BAConfig{Beta: j.beta, Iterations: p.BAIterations})
	if err != nil {
		return nil, fmt.Errorf("BA at beta %v, f %v: %w", j.beta, j.fraction, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ch := ba.Channel()
	msv, err := kernels.MinSingularValue(ch)
	if err != nil {
		return nil, fmt.Errorf("singular values at beta %v, f %v: %w", j.beta, j.fraction, err)
	}
	// The adversary who tries to identify honest users knows the honest
	// population's prior (it knows which reports are its own), so the
	// identification numbers use the island prior, not the corrupted one.
	st, err := locationStats(s.prior, ch, s.a, s.block)
	if err != nil {
		return nil, err
	}
	eps := 2 * j.beta
	dist := newTable("report_distribution", "beta", "epsilon", "fraction", "row", "col", "probability")
	for y, v := range ch.Row(s.a) {
		r, c := ch.Out.Abs(y)
		dist.add(ff(j.beta), ff(eps), ff(j.fraction), itoa(r), itoa(c), ff(v))
	}
	id := newTable("identification", append([]string{"beta", "epsilon", "fraction", "tight_epsilon", "min_singular_value"}, locStatsHeader...)...)
	id.add(append([]string{ff(j.beta), ff(eps), ff(j.fraction), ff(ba.TightEps()), ff(msv)}, st.row()...)...)
	return []harness.Table{dist.Table, id.Table}, nil
}

type advPoint struct {
	beta, eps, f, tight, msv float64
	st                       locStats
	dist                     []cellProb
}

func (k adversarialKind) Finish(ctx context.Context, hp harness.Params, out *harness.Output) error {
	p, ok := hp.(*adversarialParams)
	if !ok {
		return fmt.Errorf("adversarial: params of type %T", hp)
	}
	s, err := p.setup()
	if err != nil {
		return err
	}
	pts, err := readAdversarial(out)
	if err != nil {
		return err
	}
	lap := map[float64]locStats{}
	if p.LapWiden >= 0 {
		t, err := out.ReadTable("lap_reference")
		if err != nil {
			return err
		}
		col, err := columns(t, append([]string{"beta"}, locStatsHeader...)...)
		if err != nil {
			return err
		}
		for i, r := range t.Rows {
			b, err := num(t, r, col, "beta", i)
			if err != nil {
				return err
			}
			if lap[b], err = parseLocStats(t, r, col, i); err != nil {
				return err
			}
		}
	}
	betas := p.Beta.Values()
	figs := []string{}
	var rendered []namedFigure
	for i, b := range betas {
		if i >= len(p.FigureFractions) {
			break
		}
		name := "fig11" + string(rune('a'+i))
		fig, err := adversarialFigure(p, s, name, b, p.FigureFractions[i], pts)
		if err != nil {
			return err
		}
		figs = append(figs, name)
		rendered = append(rendered, namedFigure{name, fig})
	}
	if err := saveFigures(out, rendered); err != nil {
		return err
	}
	claims := adversarialClaims(p, pts, lap)
	if err := writeClaims(out, claims); err != nil {
		return err
	}
	return writeSection(out, adversarialSection(p, s, figs, pts, lap, claims))
}

// readAdversarial reads the identification and distribution tables,
// keyed by beta then sorted by fraction.
func readAdversarial(out *harness.Output) (map[float64][]*advPoint, error) {
	t, err := out.ReadTable("identification")
	if err != nil {
		return nil, err
	}
	col, err := columns(t, append([]string{"beta", "epsilon", "fraction", "tight_epsilon", "min_singular_value"}, locStatsHeader...)...)
	if err != nil {
		return nil, err
	}
	pts := map[float64][]*advPoint{}
	idx := map[[2]float64]*advPoint{}
	for i, r := range t.Rows {
		v := make([]float64, 5)
		for k, n := range []string{"beta", "epsilon", "fraction", "tight_epsilon", "min_singular_value"} {
			if v[k], err = num(t, r, col, n, i); err != nil {
				return nil, err
			}
		}
		st, err := parseLocStats(t, r, col, i)
		if err != nil {
			return nil, err
		}
		pt := &advPoint{beta: v[0], eps: v[1], f: v[2], tight: v[3], msv: v[4], st: st}
		pts[pt.beta] = append(pts[pt.beta], pt)
		idx[[2]float64{pt.beta, pt.f}] = pt
	}
	d, err := out.ReadTable("report_distribution")
	if err != nil {
		return nil, err
	}
	col, err = columns(d, "beta", "fraction", "row", "col", "probability")
	if err != nil {
		return nil, err
	}
	for i, r := range d.Rows {
		v := make([]float64, 5)
		for k, n := range []string{"beta", "fraction", "row", "col", "probability"} {
			if v[k], err = num(d, r, col, n, i); err != nil {
				return nil, err
			}
		}
		pt, ok := idx[[2]float64{v[0], v[1]}]
		if !ok {
			return nil, fmt.Errorf("report_distribution row %d: (beta %v, fraction %v) not in identification.csv", i+1, v[0], v[1])
		}
		pt.dist = append(pt.dist, cellProb{int(v[2]), int(v[3]), v[4]})
	}
	for _, l := range pts {
		sort.Slice(l, func(i, j int) bool { return l[i].f < l[j].f })
	}
	return pts, nil
}

// clockwise reorders up to four panels listed clockwise from the top left
// (the paper's captions) into the row-major order of a 2-column grid.
func clockwise[T any](v []T) []T {
	if len(v) != 4 {
		return v
	}
	return []T{v[0], v[1], v[3], v[2]}
}

func adversarialFigure(p *adversarialParams, s *elasticSetup, name string, beta float64, fractions []float64, pts map[float64][]*advPoint) (*plots.Figure, error) {
	g := s.ds.Grid
	marks := markersOn(g, map[string][2]int{"A": {p.A[0], p.A[1]}, "B": {p.B[0], p.B[1]}})
	var panels []plots.GridMap
	for _, f := range fractions {
		var pt *advPoint
		for _, q := range pts[beta] {
			if q.f == f {
				pt = q
			}
		}
		if pt == nil {
			return nil, fmt.Errorf("%s: no results for beta %v, fraction %v", name, beta, f)
		}
		vals, _ := gridValues(g, pt.dist)
		panels = append(panels, plots.GridMap{
			Title: fmt.Sprintf("f = %s%% adversarial: P(report A) = %s", fmtG(100*f, 3), pct(pt.st.PAt)),
			Rows:  g.Rows, Cols: g.Cols, Values: vals, Markers: marks,
		})
	}
	if len(panels) == 4 {
		panels = clockwise(panels)
	}
	fig, err := plots.Heatmaps(fmt.Sprintf("Fig. %s: BA reports of an honest user at A, ε = %s (β = %s)",
		strings.TrimPrefix(name, "fig"), fmtG(2*beta, 3), fmtG(beta, 3)), panels, plots.HeatOptions{
		Columns:       2,
		ColorbarLabel: "P(report cell | true A)",
		XLabel:        "column (0 = east edge)",
		YLabel:        "row (0 = north edge)",
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return fig, nil
}

func adversarialClaims(p *adversarialParams, pts map[float64][]*advPoint, lap map[float64]locStats) []claim {
	var evW, evI []string
	monoW, n, monoI, grewI := 0, 0, 0, 0
	var msv, betas, tights []float64
	for _, b := range p.Beta.Values() {
		l := pts[b]
		if len(l) == 0 {
			continue
		}
		n++
		var within, ident, post, fs []float64
		for _, pt := range l {
			fs = append(fs, pt.f)
			within = append(within, pt.st.PWithin1)
			ident = append(ident, pt.st.MAPIdent)
			post = append(post, pt.st.ExpPosterior)
			msv = append(msv, pt.msv)
			betas = append(betas, b)
			tights = append(tights, pt.tight)
		}
		if nonDecreasing(within) && within[len(within)-1] > within[0] {
			monoW++
		}
		if nonDecreasing(post) && post[len(post)-1] > post[0] {
			monoI++
		}
		if maxOf(post) > post[0] {
			grewI++
		}
		s := fmt.Sprintf("eps %s: f = {%s}%% gives P(report within 1 cell of A | true A) = {%s}%%",
			fmtG(2*b, 3), fmtList(scale(fs, 100), 3), fmtList(scale(within, 100), 3))
		t := fmt.Sprintf("eps %s: f = {%s}%% gives E[posterior of A | report of A] = {%s}%% and P(Bayes guess = A | true A) = {%s}%%",
			fmtG(2*b, 3), fmtList(scale(fs, 100), 3), fmtList(scale(post, 100), 3), fmtList(scale(ident, 100), 3))
		if st, ok := lap[b]; ok {
			s += fmt.Sprintf(" (LAP at the same eps: %s)", pct(st.PWithin1))
			t += fmt.Sprintf(" (LAP: %s and %s)", pct(st.ExpPosterior), pct(st.MAPIdent))
		}
		evW = append(evW, s)
		evI = append(evI, t)
	}
	v := notReproduced
	if n > 0 && monoW == n {
		v = reproduced
	} else if monoW > 0 {
		v = partly
	}
	vi := notReproduced
	switch {
	case n > 0 && monoI == n:
		vi = reproduced
	case grewI > 0:
		vi = partly
	}
	claims := []claim{{
		Claim:    "With adversarial users reporting A, BA puts more and more weight on and around A in the report distribution of an honest user at A, like LAP (Sec. VI, Fig. 11)",
		Evidence: strings.Join(evW, "; ") + fmt.Sprintf(". Non-decreasing in f, and higher at the largest f than at f = 0, for %d of %d eps levels", monoW, n),
		Verdict:  v,
	}, {
		Claim: "... which makes honest users at A more and more identifiable (Sec. VI), measured by a Bayesian adversary who knows the honest users' prior",
		Evidence: strings.Join(evI, "; ") + fmt.Sprintf(". The expected posterior of A rises with f at first at %d of %d eps levels and is non-decreasing throughout at %d: "+
			"once the fake reports make A a popular report, reports of A mostly come from crowd users, and a report of A says less about being at A", grewI, n, monoI),
		Verdict: vi,
	}}
	claims = append(claims, geoIndClaim(fmt.Sprintf("adversarially corrupted island priors, %d BA channels", len(betas)), betas, tights))
	claims = append(claims, invertibilityClaim(fmt.Sprintf("adversarially corrupted island priors, %d BA channels", len(msv)), msv))
	return claims
}

func nonDecreasing(v []float64) bool {
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			return false
		}
	}
	return true
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

func scale(v []float64, k float64) []float64 {
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = k * x
	}
	return o
}

func adversarialSection(p *adversarialParams, s *elasticSetup, figs []string, pts map[float64][]*advPoint, lap map[float64]locStats, claims []claim) string {
	var b strings.Builder
	b.WriteString("## Vulnerability of PRIVIC: adversarial reports at A (Sec. VI, Fig. 11)\n\n")
	fmt.Fprintf(&b, "Data: %s (N = %d), island prior: %s. A fraction f of the mass is placed at A = (%d, %d) and the rest scaled by 1 - f (the adversarial users' false reports); "+
		"BA (%d iterations from the uniform channel) is built on that corrupted prior, and the figures show the report distribution of an honest user at A. "+
		"Epsilon is the paper's label 2·beta; the tight epsilon of each channel is in `identification.csv`. "+
		"Identification numbers use the honest (island) prior.\n\n",
		cityTitle(s.ds.Name), s.ds.N, p.Island.describe(), p.A[0], p.A[1], p.BAIterations)
	fmt.Fprintf(&b, "Fractions swept: %s%%. PROTOCOL.md lists 38%% among the reference code's fractions while the paper's Fig. 11a caption says 39%%: both are run, and the figure uses %s.\n\n",
		fmtList(scale(p.Fractions.Values(), 100), 3), figureFractionWords(p))
	b.WriteString("Paper: with eps = 0.8 (f = 0, 29, 34, 39%) and eps = 1.2 (f = 0, 10, 15, 20%), \"the obfuscation distribution ... of the (non-adversarial) users located in point A assigns more and more weight to and around point A which, as a result, makes them more and more identifiable\"; \"BA and PRIVIC start behaving more like LAP\". Four panels are drawn clockwise from the top left, as in the paper's captions; each panel has its own colour scale, and its title gives the probability that the honest user at A reports A itself.\n\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "![Fig. %s](%s.png)\n\n", strings.TrimPrefix(f, "fig"), f)
	}
	var rows [][]string
	for _, beta := range p.Beta.Values() {
		for _, pt := range pts[beta] {
			rows = append(rows, []string{fmtG(pt.eps, 3), fmtG(100*pt.f, 3) + "%", fmtG(pt.tight, 4), pct(pt.st.PAt), pct(pt.st.PWithin1),
				pct(pt.st.PDeserted), fmtG(pt.st.ExpDistance, 3), pct(pt.st.MAPIdent), pct(pt.st.ExpPosterior), fmtG(pt.msv, 3)})
		}
		if st, ok := lap[beta]; ok {
			rows = append(rows, []string{fmtG(2*beta, 3), "LAP", fmtG(2*beta, 4), pct(st.PAt), pct(st.PWithin1),
				pct(st.PDeserted), fmtG(st.ExpDistance, 3), pct(st.MAPIdent), pct(st.ExpPosterior), "-"})
		}
	}
	b.WriteString(mdTable([]string{"eps", "f", "tight eps", "P(report = A)", "P(within 1 cell of A)", "P(deserted)",
		"E[distance] (cells)", "MAP identification of A", "E[posterior of A]", "min singular value"}, rows))
	b.WriteString("\nClaims checked:\n\n")
	b.WriteString(claimsMarkdown(claims))
	b.WriteString("\nTables: `report_distribution.csv` (honest user at A, every cell, every beta and f), `identification.csv`, `lap_reference.csv` (LAP at eps = 2·beta over the widened grid, for comparison).\n")
	return b.String()
}

func figureFractionWords(p *adversarialParams) string {
	var parts []string
	for i, l := range p.FigureFractions {
		if i >= p.Beta.Len() {
			break
		}
		parts = append(parts, fmt.Sprintf("f = {%s}%% at eps %s", fmtList(scale(l, 100), 3), fmtG(2*p.Beta.Values()[i], 3)))
	}
	return strings.Join(parts, " and ")
}
