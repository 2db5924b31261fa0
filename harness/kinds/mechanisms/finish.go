package mechanisms

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/verdict"
	"privic/kernels"
	"privic/kernels/mechanism"
	"privic/plots"
)

// cell is one (city, mechanism, calibration, level) of the frontier,
// aggregated over simulations.
type cell struct {
	city, mech, cal  string
	level, param     float64
	emd              []float64
	emdMean, emdSD   float64
	dist, mi, eps    float64
	bayes, idA, idAM float64
	// opt brackets the all-pairs optimum at the channel's eps (the
	// optimal mechanism solved on the whole grid; NaN otherwise).
	opt bracket
	// blocks is the block size of a mechanism solved on blocks of the
	// grid and lifted back (0: not).
	blocks int
}

// degenerate reports a constant channel: every row equal, which is
// exactly a tight epsilon of 0 (the LP on blocks collapses to one below
// its smallest useful level). It is no instance of the mechanism and
// competes nowhere.
func (c *cell) degenerate() bool { return c.eps == 0 }

// hasBracket reports whether c is the optimal mechanism solved on the
// whole grid, with a bracket on the all-pairs optimum.
func (c *cell) hasBracket() bool { return !math.IsNaN(c.opt.upper) }

// optimal reports whether c's channel is certified optimal for all pairs
// (its all-pairs gap at most certified).
func (c *cell) optimal() bool { return c.hasBracket() && c.opt.gap() <= certified }

// label says what c's channel is: "optimal" (certified), an upper bound
// with the bracket, "degenerate", or "" for a mechanism as named.
func (c *cell) label() string {
	sig := harness.FormatSig
	switch {
	case c.degenerate():
		return "degenerate: constant channel (tight epsilon 0)"
	case c.optimal():
		return fmt.Sprintf("optimal: all-pairs gap %s", sig(c.opt.gap(), 2))
	case c.hasBracket():
		return fmt.Sprintf("upper bound on the optimum: the optimum lies in [%s, %s], all-pairs gap %s", sig(c.opt.lower, 5), sig(c.opt.upper, 5), sig(c.opt.gap(), 2))
	case c.blocks > 1:
		return fmt.Sprintf("the LP on %dx%d blocks lifted back: not the optimum (its distortion bounds the optimum at its tight epsilon from above; no lower bound)", c.blocks, c.blocks)
	}
	return ""
}

// metric returns the named per-level quantity of c.
func (c *cell) metric(name string) float64 {
	switch name {
	case "emd":
		return c.emdMean
	case "avg_distortion":
		return c.dist
	case "mutual_information":
		return c.mi
	case "tight_epsilon":
		return c.eps
	case "bayes_error":
		return c.bayes
	case "identification_A":
		return c.idA
	}
	return math.NaN()
}

// calRow is one row of calibration.csv.
type calRow struct {
	city, mech, cal, status, in, out, solver string
	missing                                  string
	level, param, value                      float64
	opt                                      bracket
	evals                                    int
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	cells, err := harness.ReadTableAs(out, "frontier", aggregate)
	if err != nil {
		return harness.Section{}, err
	}
	cals, err := harness.ReadTableAs(out, "calibration", readCalibration)
	if err != nil {
		return harness.Section{}, err
	}
	for _, c := range cells {
		for _, k := range cals {
			if k.city == c.city && k.mech == c.mech && k.cal == c.cal && k.level == c.level {
				c.opt = k.opt
			}
		}
		c.blocks = blocks(p, c.city, c.mech)
	}
	wins := winners(p, cells)
	sum, err := summary(p, cells)
	if err != nil {
		return harness.Section{}, err
	}
	for _, t := range []harness.Table{sum, winnersTable(wins), mechanismsTable(p, cals)} {
		if err := out.WriteTable(t); err != nil {
			return harness.Section{}, err
		}
	}
	var figs harness.Figures
	for _, city := range p.Cities {
		if err := ctx.Err(); err != nil {
			return harness.Section{}, err
		}
		fig, err := frontierFigure(p, city, cells)
		if err != nil {
			return harness.Section{}, err
		}
		if fig != nil { // nil: no rows for the city
			figs = append(figs, harness.NamedFigure{Base: "frontier-" + city, Fig: fig})
		}
	}
	solves, err := harness.ReadTableAs(out, "lp_solves", readLPSolves)
	if err != nil {
		return harness.Section{}, err
	}
	md, err := section(p, cells, cals, wins, solves, figs)
	return harness.Section{Markdown: md, Skipped: append(skipped(cals), unmeasured(p, cells)...), Figures: figs}, err
}

// unmeasured lists, per city and mechanism, the metrics left out of the
// frontier (NaN) because the channel ran as an operator on a large grid:
// the Bayes error, dense by nature, and a tight epsilon the operator
// cannot give at that size.
func unmeasured(p *params, cells []*cell) []harness.Skip {
	var out []harness.Skip
	seen := map[string]bool{}
	for _, c := range cells {
		for _, q := range []struct {
			name string
			v    float64
			why  string
		}{
			{"bayes_error", c.bayes, fmt.Sprintf("the Bayes error is a minimum over guesses for every report, O(|Y| |X|^2) = %.3g operations at most on the dense channel: not computed above that on the structured channels (grids of %d cells or more)",
				mechanism.BayesErrorMaxOps, kernels.DenseOpCells)},
			{"tight_epsilon", c.eps, "the exact tight epsilon of this structured channel is a brute force over pairs of inputs, too large at this size (it is at most the mechanism's claim)"},
		} {
			key := c.city + "\x00" + c.mech + "\x00" + q.name
			if !math.IsNaN(q.v) || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, harness.Skip{
				Figure: fmt.Sprintf("frontier.csv %s (%s, %s)", q.name, c.city, c.mech),
				Reason: q.why,
			})
		}
	}
	return out
}

// skipped lists the levels a mechanism could not be calibrated to (or
// not run at), which are missing from the frontier figure.
func skipped(cals []calRow) []harness.Skip {
	var out []harness.Skip
	for _, c := range cals {
		if c.status != "ok" && c.status != "jump" {
			out = append(out, harness.Skip{
				Figure: fmt.Sprintf("frontier-%s (%s, %s %s)", c.city, c.mech, c.cal, harness.FormatFloat(c.level)),
				Reason: c.status,
			})
		}
		if c.missing != "" {
			out = append(out, harness.Skip{
				Figure: fmt.Sprintf("frontier.csv identification_A (%s, %s, %s %s)", c.city, c.mech, c.cal, harness.FormatFloat(c.level)),
				Reason: c.missing,
			})
		}
	}
	return out
}

func summary(p *params, cells []*cell) (harness.Table, error) {
	sum := harness.NewTable("frontier_summary", "city", "mechanism", "calibration", "level", "parameter",
		"sims", "emd_mean", "emd_sd", "avg_distortion", "mutual_information", "tight_epsilon", "bayes_error",
		"identification_A", "identification_A_map", "emd_mean_m", "emd_sd_m", "avg_distortion_m", "bayes_error_m",
		"degenerate", "optimum_lower", "optimum_upper", "optimum_gap", "label")
	for _, c := range cells {
		ds, err := p.Dataset(c.city, p.Rows)
		if err != nil {
			return harness.Table{}, err
		}
		m := func(v float64) string { return param.Metres(ds, v) }
		lo, up, gap := "", "", ""
		if c.hasBracket() {
			lo, up, gap = harness.FormatFloat(c.opt.lower), harness.FormatFloat(c.opt.upper), harness.FormatFloat(c.opt.gap())
		}
		sum.Add(harness.Row{"city": c.city, "mechanism": c.mech, "calibration": c.cal, "level": c.level, "parameter": c.param,
			"sims": len(c.emd), "emd_mean": c.emdMean, "emd_sd": c.emdSD, "avg_distortion": c.dist, "mutual_information": c.mi,
			"tight_epsilon": c.eps, "bayes_error": c.bayes, "identification_A": c.idA, "identification_A_map": c.idAM,
			"emd_mean_m": m(c.emdMean), "emd_sd_m": m(c.emdSD), "avg_distortion_m": m(c.dist), "bayes_error_m": m(c.bayes),
			"degenerate": fmt.Sprint(c.degenerate()), "optimum_lower": lo, "optimum_upper": up, "optimum_gap": gap, "label": c.label()})
	}
	return *sum, nil
}

func winnersTable(wins []winner) harness.Table {
	wt := harness.NewTable("winners", "city", "calibration", "level", "criterion", "better",
		"winner", "value", "runner_up", "runner_up_value", "mechanisms", "outcome", "tied", "sims", "p_holm",
		"optimum_lower", "optimum_upper", "note")
	for _, w := range wins {
		sims := ""
		if w.sims > 0 {
			sims = fmt.Sprint(w.sims)
		}
		wt.Add(harness.Row{"city": w.city, "calibration": w.cal, "level": w.level, "criterion": w.criterion, "better": w.better,
			"winner": w.winner, "value": w.value, "runner_up": w.runnerUp, "runner_up_value": w.runnerValue, "mechanisms": w.n,
			"outcome": w.outcome(), "tied": strings.Join(w.tied, " "), "sims": sims, "p_holm": optCell(w.p),
			"optimum_lower": optCell(w.opt.lower), "optimum_upper": optCell(w.opt.upper), "note": w.note})
	}
	return *wt
}

// aggregate groups the frontier rows by (city, mechanism, calibration,
// level) in table (plan) order.
func aggregate(t *harness.Table) ([]*cell, error) {
	rd, err := t.Reader("city", "mechanism", "calibration", "level", "parameter", "emd", "avg_distortion", "mutual_information",
		"tight_epsilon", "bayes_error", "identification_A", "identification_A_map")
	if err != nil {
		return nil, err
	}
	var cells []*cell
	index := map[string]*cell{}
	for i := range t.Rows {
		key := strings.Join([]string{rd.Str(i, "city"), rd.Str(i, "mechanism"), rd.Str(i, "calibration"), rd.Str(i, "level")}, "\x00")
		c, ok := index[key]
		if !ok {
			c = &cell{city: rd.Str(i, "city"), mech: rd.Str(i, "mechanism"), cal: rd.Str(i, "calibration"), level: rd.Float(i, "level"),
				param: rd.Float(i, "parameter"), dist: rd.Float(i, "avg_distortion"), mi: rd.Float(i, "mutual_information"),
				eps: rd.Float(i, "tight_epsilon"), bayes: rd.Float(i, "bayes_error"), idA: rd.Float(i, "identification_A"),
				idAM: rd.Float(i, "identification_A_map")}
			index[key] = c
			cells = append(cells, c)
		}
		c.emd = append(c.emd, rd.Float(i, "emd"))
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	for _, c := range cells {
		c.emdMean, c.emdSD, _ = harness.MeanSD(c.emd)
	}
	return cells, nil
}

func readCalibration(t *harness.Table) ([]calRow, error) {
	rd, err := t.Reader("city", "mechanism", "calibration", "level", "parameter", "value", "evals", "status",
		"input_grid", "output_grid", "lp_solver", "missing", "optimum_lower", "optimum_upper")
	if err != nil {
		return nil, err
	}
	var rows []calRow
	for i := range t.Rows {
		rows = append(rows, calRow{city: rd.Str(i, "city"), mech: rd.Str(i, "mechanism"), cal: rd.Str(i, "calibration"),
			status: rd.Str(i, "status"), in: rd.Str(i, "input_grid"), out: rd.Str(i, "output_grid"), solver: rd.Str(i, "lp_solver"),
			level: rd.Float(i, "level"), param: rd.Float(i, "parameter"), value: rd.Float(i, "value"), evals: rd.Int(i, "evals"),
			missing: rd.Str(i, "missing"), opt: bracket{lower: optFloat(rd, i, "optimum_lower"), upper: optFloat(rd, i, "optimum_upper")}})
	}
	return rows, rd.Err()
}

// optCell is an optional number as a table cell: empty for NaN.
func optCell(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return harness.FormatFloat(v)
}

// optFloat reads an optional number: NaN when empty.
func optFloat(rd *harness.Reader, i int, col string) float64 {
	if rd.Str(i, col) == "" {
		return math.NaN()
	}
	return rd.Float(i, col)
}

// blocks is the block size of the mechanism named mech on city when the
// spec solves it on blocks of the grid (0 otherwise).
func blocks(p *params, city, mech string) int {
	k := p.coarsen(city)
	if k <= 1 {
		return 0
	}
	for _, e := range p.reg.Entries() {
		if e.Coarsen && slices.Contains(p.Mechanisms, e.Name) && newMechanism(p, city, e).Info().Name == mech {
			return k
		}
	}
	return 0
}

// mechanismsTable lists, per city and mechanism, the grids and the
// literature (one row per mechanism as the jobs named it).
func mechanismsTable(p *params, cals []calRow) harness.Table {
	t := harness.NewTable("mechanisms", "city", "mechanism", "parameter", "input_grid", "output_grid", "lp_solver", "reference")
	seen := map[string]bool{}
	for _, c := range cals {
		key := c.city + "\x00" + c.mech
		if seen[key] {
			continue
		}
		seen[key] = true
		ref, param := "", ""
		for _, e := range p.reg.Entries() {
			if m := newMechanism(p, c.city, e); slices.Contains(p.Mechanisms, e.Name) && m.Info().Name == c.mech {
				ref, param = m.Info().Reference, m.Info().Param
			}
		}
		t.Add(harness.Row{"city": c.city, "mechanism": c.mech, "parameter": param, "input_grid": c.in, "output_grid": c.out,
			"lp_solver": c.solver, "reference": ref})
	}
	return *t
}

// winner is the outcome of one (city, calibration, level, criterion):
// the best mechanism when it is significantly better than every other,
// a tie otherwise.
type winner struct {
	city, cal, criterion, better string
	level                        float64
	// winner is the winner ("" on a tie); leader the best by the mean,
	// with value; runnerUp the second.
	winner, leader, runnerUp string
	value, runnerValue       float64
	n                        int      // mechanisms compared
	tied                     []string // the leader and those not separated from it (a tie)
	sims                     int      // fewest simulations per level among those compared (0: exact quantity)
	p                        float64  // largest Holm-adjusted p of the leader against another (NaN: exact)
	opt                      bracket  // the all-pairs optimum at this level, where the LP ran whole (NaN otherwise)
	note                     string
}

// outcome is "winner" or "tie".
func (w winner) outcome() string {
	if w.winner != "" {
		return "winner"
	}
	return "tie"
}

// criteria lists what is compared at each footing and which way is
// better: utility (EMD, distortion) lower, privacy (Bayes error) higher,
// leakage (MI) lower.
func criteria(cal string) [][2]string {
	switch cal {
	case "eps":
		return [][2]string{{"emd", "lower"}, {"avg_distortion", "lower"}, {"bayes_error", "higher"}}
	case "distortion":
		return [][2]string{{"emd", "lower"}, {"bayes_error", "higher"}, {"mutual_information", "lower"}}
	}
	return [][2]string{{"emd", "lower"}, {"avg_distortion", "lower"}, {"bayes_error", "higher"}}
}

// exactTie is the relative difference within which two exactly computed
// values (distortion, mutual information, Bayes error) tie.
const exactTie = 1e-9

// rank decides one criterion among the cells cs (measured, not
// degenerate): the simulated EMD by Welch's two-sided t-test of the
// leader against every other at level verdict.Alpha with Holm's
// correction, a winner only with at least verdict.MinSims simulations per
// level and every other separated; the exact quantities by their values,
// tied within exactTie.
func rank(cs []*cell, criterion, better string) winner {
	sorted := append([]*cell(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].metric(criterion), sorted[j].metric(criterion)
		if better == "higher" {
			return a > b
		}
		return a < b
	})
	lead := sorted[0]
	w := winner{criterion: criterion, better: better, leader: lead.mech, value: lead.metric(criterion), runnerValue: math.NaN(),
		n: len(cs), tied: []string{lead.mech}, p: math.NaN()}
	if len(sorted) > 1 {
		w.runnerUp, w.runnerValue = sorted[1].mech, sorted[1].metric(criterion)
	}
	if criterion != "emd" {
		for _, c := range sorted[1:] {
			if v := c.metric(criterion); math.Abs(v-w.value) <= exactTie*math.Max(math.Abs(v), math.Abs(w.value)) {
				w.tied = append(w.tied, c.mech)
			}
		}
		if len(w.tied) == 1 {
			w.winner = lead.mech
		}
		return w
	}
	w.sims = len(lead.emd)
	var a, b [][]float64
	for _, c := range sorted[1:] {
		w.sims = min(w.sims, len(c.emd))
		a, b = append(a, lead.emd), append(b, c.emd)
	}
	order, tests, _ := verdict.Compare(a, b)
	for i, c := range sorted[1:] {
		separated := order[i] == verdict.Lower
		if better == "higher" {
			separated = order[i] == verdict.Higher
		}
		if !separated {
			w.tied = append(w.tied, c.mech)
		}
		if !math.IsNaN(tests[i].P) && (math.IsNaN(w.p) || tests[i].P > w.p) {
			w.p = tests[i].P
		}
	}
	switch {
	case w.sims < verdict.MinSims:
		w.note = fmt.Sprintf("fewer than %d simulations per level (%d): no winner is named", verdict.MinSims, w.sims)
		if len(w.tied) == 1 && len(sorted) > 1 {
			w.tied = nil
			for _, c := range sorted {
				w.tied = append(w.tied, c.mech)
			}
		}
	case len(w.tied) == 1:
		w.winner = lead.mech
	default:
		w.note = fmt.Sprintf("not separated from the leader by Welch's test at level %s with Holm's correction", harness.FormatSig(verdict.Alpha, 2))
	}
	return w
}

func winners(p *params, cells []*cell) []winner {
	var out []winner
	for _, city := range p.Cities {
		for _, cal := range p.Calibrations {
			for _, level := range p.levels(cal).Values() {
				var all []*cell
				for _, c := range cells {
					if c.city == city && c.cal == cal && c.level == level {
						all = append(all, c)
					}
				}
				for _, cr := range criteria(cal) {
					// Metrics not measured (NaN: the Bayes error of
					// operators on large grids) do not compete, nor do
					// degenerate channels.
					var cs []*cell
					var excluded []string
					opt := bracket{lower: math.NaN(), upper: math.NaN()}
					for _, c := range all {
						switch {
						case c.degenerate():
							excluded = append(excluded, c.mech)
						case !math.IsNaN(c.metric(cr[0])):
							cs = append(cs, c)
						}
						if c.hasBracket() && cr[0] == "avg_distortion" {
							opt = c.opt
						}
					}
					if len(cs) < 2 {
						continue // nothing to compare with
					}
					w := rank(cs, cr[0], cr[1])
					w.city, w.cal, w.level, w.opt = city, cal, level, opt
					var notes []string
					if w.note != "" {
						notes = append(notes, w.note)
					}
					if len(excluded) > 0 {
						notes = append(notes, "excluded as degenerate (constant channel): "+strings.Join(excluded, ", "))
					}
					if !math.IsNaN(opt.upper) && opt.gap() > certified {
						notes = append(notes, fmt.Sprintf("the LP's channel is an upper bound: the all-pairs optimum lies in [%s, %s]",
							harness.FormatSig(opt.lower, 5), harness.FormatSig(opt.upper, 5)))
					}
					w.note = strings.Join(notes, "; ")
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// series are one mechanism's points of a panel, in x order.
func series(cells []*cell, city string, inCal func(*cell) bool, x, y, yerr func(*cell) float64) []plots.Series {
	var ss []plots.Series
	var mechs []string
	for _, c := range cells {
		if c.city == city && inCal(c) && !slices.Contains(mechs, c.mech) {
			mechs = append(mechs, c.mech)
		}
	}
	for _, m := range mechs {
		var pts []*cell
		for _, c := range cells {
			if c.city == city && inCal(c) && c.mech == m && !math.IsNaN(x(c)) && !math.IsNaN(y(c)) &&
				!math.IsInf(x(c), 0) && !math.IsInf(y(c), 0) {
				pts = append(pts, c)
			}
		}
		if len(pts) == 0 {
			continue
		}
		sort.SliceStable(pts, func(i, j int) bool { return x(pts[i]) < x(pts[j]) })
		// A mechanism looks the same in every figure (its registry
		// style), whichever others a spec runs beside it.
		st, _ := mechanism.StyleOf(m)
		s := plots.Series{Name: m, Style: plots.Style(st)}
		for _, c := range pts {
			s.X = append(s.X, x(c))
			s.Y = append(s.Y, y(c))
			if yerr != nil {
				s.YErr = append(s.YErr, yerr(c))
			}
		}
		ss = append(ss, s)
	}
	return ss
}

// frontierFigure draws a city's frontier (frontierPanels). Nil when the
// city has no rows.
func frontierFigure(p *params, city string, cells []*cell) (*plots.Figure, error) {
	panels := frontierPanels(p, city, cells)
	if len(panels) == 0 {
		return nil, nil
	}
	fig, err := plots.LinePanels(fmt.Sprintf("Mechanisms on %s: privacy-utility frontier (mean ± sd over simulations)", p.Title(city)), panels, 2)
	if err != nil {
		return nil, fmt.Errorf("frontier figure %s: %w", city, err)
	}
	return fig, nil
}

// frontierPanels are the panels of a city's frontier: EMD and distortion
// against tight epsilon, EMD against distortion, and identification of A
// (a probability) or the Bayes error against tight epsilon.
func frontierPanels(p *params, city string, cells []*cell) []plots.Panel {
	byMech := func(cal string, x, y, yerr func(*cell) float64) []plots.Series {
		// cal "" takes the levels of every calibration.
		return series(cells, city, func(c *cell) bool { return cal == "" || c.cal == cal }, x, y, yerr)
	}
	emd := func(c *cell) float64 { return c.emdMean }
	emdSD := func(c *cell) float64 { return c.emdSD }
	dist := func(c *cell) float64 { return c.dist }
	// x is the measured quantity, which equals the level except where
	// calibration hit a jump (status "jump" in calibration.csv). A channel
	// whose tight epsilon is 0 (the LP's constant channel below its
	// smallest useful level) has no place on the log axis; it stays in the
	// tables.
	tight := func(c *cell) float64 {
		if c.eps <= 0 {
			return math.NaN()
		}
		return c.eps
	}
	var panels []plots.Panel
	add := func(title, ylabel string, ss []plots.Series, opt plots.LineOptions) {
		if len(ss) > 0 {
			opt.Points, opt.YLabel, opt.YFromZero = true, ylabel, true
			panels = append(panels, plots.Panel{Title: title, Series: ss, Opt: opt})
		}
	}
	epsX := plots.LineOptions{XLabel: "tight epsilon (per cell)", LogX: true}
	add("Statistical utility at equal tight epsilon", "EMD of the IBU estimate (cells)", byMech("eps", tight, emd, emdSD), epsX)
	add("Quality of service at equal tight epsilon", "average distortion (cells)", byMech("eps", tight, dist, nil), epsX)
	// Every level of every calibration is a (distortion, EMD) point of
	// the mechanism, so the frontier uses them all.
	add("Utility against quality of service (all levels)", "EMD of the IBU estimate (cells)", byMech("", dist, emd, emdSD),
		plots.LineOptions{XLabel: "average distortion (cells)"})
	if _, ok := p.aCells[city]; ok {
		idX := epsX
		idX.Probability = true
		add("Identification of A on the island prior", "identification of A (posterior)", byMech("eps", tight, func(c *cell) float64 { return c.idA }, nil), idX)
	} else {
		add("Bayes adversary's error at equal tight epsilon", "Bayes adversary error (cells)", byMech("eps", tight, func(c *cell) float64 { return c.bayes }, nil), epsX)
	}
	return panels
}
