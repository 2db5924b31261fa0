package compare

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"privic/harness"
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
	level, param, value                      float64
	evals                                    int
}

func (k mechanismsKind) Finish(ctx context.Context, hp harness.Params, out *harness.Output) error {
	p, ok := hp.(*params)
	if !ok {
		return fmt.Errorf("mechanisms: params of type %T", hp)
	}
	ft, err := out.ReadTable("frontier")
	if err != nil {
		return err
	}
	cells, err := aggregate(ft)
	if err != nil {
		return err
	}
	ct, err := out.ReadTable("calibration")
	if err != nil {
		return err
	}
	cals, err := readCalibration(ct)
	if err != nil {
		return err
	}
	sum := harness.Table{Name: "frontier_summary", Header: []string{"city", "mechanism", "calibration", "level", "parameter",
		"sims", "emd_mean", "emd_sd", "avg_distortion", "mutual_information", "tight_epsilon", "bayes_error",
		"identification_A", "identification_A_map"}}
	for _, c := range cells {
		sum.Rows = append(sum.Rows, []string{c.city, c.mech, c.cal, ff(c.level), ff(c.param), fmt.Sprint(len(c.emd)),
			ff(c.emdMean), ff(c.emdSD), ff(c.dist), ff(c.mi), ff(c.eps), ff(c.bayes), ff(c.idA), ff(c.idAM)})
	}
	if err := out.WriteTable(sum); err != nil {
		return err
	}
	wins := winners(p, cells)
	wt := harness.Table{Name: "winners", Header: []string{"city", "calibration", "level", "criterion", "better",
		"winner", "value", "runner_up", "runner_up_value", "mechanisms"}}
	for _, w := range wins {
		wt.Rows = append(wt.Rows, []string{w.city, w.cal, ff(w.level), w.criterion, w.better, w.winner, ff(w.value),
			w.runnerUp, ff(w.runnerValue), fmt.Sprint(w.n)})
	}
	if err := out.WriteTable(wt); err != nil {
		return err
	}
	if err := out.WriteTable(mechanismsTable(p, cals)); err != nil {
		return err
	}
	var skipped [][]string
	for _, c := range cals {
		if c.status != "ok" && c.status != "jump" {
			skipped = append(skipped, []string{c.city, c.mech, c.cal, ff(c.level), c.status})
		}
	}
	if err := out.WriteCSV("skipped.csv", []string{"city", "mechanism", "calibration", "level", "reason"}, skipped); err != nil {
		return err
	}
	figs := map[string]string{}
	for _, city := range p.Cities {
		if err := ctx.Err(); err != nil {
			return err
		}
		fig, err := frontierFigure(p, city, cells)
		if err != nil {
			return err
		}
		if fig == nil {
			continue
		}
		base := "frontier-" + city
		figs[city] = base
		if err := harness.WriteFigure(out, base, fig); err != nil {
			return err
		}
	}
	md := section(p, cells, cals, wins, figs)
	return out.WriteText("section.md", md)
}

func parse(t *harness.Table, row []string, col map[string]int, name string, line int) (float64, error) {
	v, err := harness.ParseFloat(row[col[name]])
	if err != nil {
		return 0, fmt.Errorf("table %s row %d column %s: %w", t.Name, line+1, name, err)
	}
	return v, nil
}

// aggregate groups the frontier rows by (city, mechanism, calibration,
// level) in table (plan) order.
func aggregate(t *harness.Table) ([]*cell, error) {
	num := []string{"level", "parameter", "emd", "avg_distortion", "mutual_information", "tight_epsilon", "bayes_error",
		"identification_A", "identification_A_map"}
	col, err := harness.Columns(t, append([]string{"city", "mechanism", "calibration"}, num...)...)
	if err != nil {
		return nil, err
	}
	var cells []*cell
	index := map[string]*cell{}
	for i, r := range t.Rows {
		v := map[string]float64{}
		for _, n := range num {
			if v[n], err = parse(t, r, col, n, i); err != nil {
				return nil, err
			}
		}
		key := strings.Join([]string{r[col["city"]], r[col["mechanism"]], r[col["calibration"]], r[col["level"]]}, "\x00")
		c, ok := index[key]
		if !ok {
			c = &cell{city: r[col["city"]], mech: r[col["mechanism"]], cal: r[col["calibration"]], level: v["level"],
				param: v["parameter"], dist: v["avg_distortion"], mi: v["mutual_information"], eps: v["tight_epsilon"],
				bayes: v["bayes_error"], idA: v["identification_A"], idAM: v["identification_A_map"]}
			index[key] = c
			cells = append(cells, c)
		}
		c.emd = append(c.emd, v["emd"])
	}
	for _, c := range cells {
		c.emdMean, c.emdSD = harness.MeanSD(c.emd)
	}
	return cells, nil
}

func readCalibration(t *harness.Table) ([]calRow, error) {
	col, err := harness.Columns(t, "city", "mechanism", "calibration", "level", "parameter", "value", "evals", "status",
		"input_grid", "output_grid", "lp_solver")
	if err != nil {
		return nil, err
	}
	var rows []calRow
	for i, r := range t.Rows {
		c := calRow{city: r[col["city"]], mech: r[col["mechanism"]], cal: r[col["calibration"]], status: r[col["status"]],
			in: r[col["input_grid"]], out: r[col["output_grid"]], solver: r[col["lp_solver"]]}
		if c.level, err = parse(t, r, col, "level", i); err != nil {
			return nil, err
		}
		if c.param, err = parse(t, r, col, "parameter", i); err != nil {
			return nil, err
		}
		if c.value, err = parse(t, r, col, "value", i); err != nil {
			return nil, err
		}
		fmt.Sscan(r[col["evals"]], &c.evals)
		rows = append(rows, c)
	}
	return rows, nil
}

// mechanismsTable lists, per city and mechanism, the grids and the
// literature (one row per mechanism as the jobs named it).
func mechanismsTable(p *params, cals []calRow) harness.Table {
	t := harness.Table{Name: "mechanisms", Header: []string{"city", "mechanism", "parameter", "input_grid", "output_grid",
		"lp_solver", "reference"}}
	seen := map[string]bool{}
	for _, c := range cals {
		key := c.city + "\x00" + c.mech
		if seen[key] {
			continue
		}
		seen[key] = true
		ref, param := "", ""
		for _, name := range p.Mechanisms {
			if m, _ := newMechanism(p, c.city, name); m != nil && m.Info().Name == c.mech {
				ref, param = m.Info().Reference, m.Info().Param
			}
		}
		t.Rows = append(t.Rows, []string{c.city, c.mech, param, c.in, c.out, c.solver, ref})
	}
	return t
}

// winner is the best mechanism for one (city, calibration, level,
// criterion).
type winner struct {
	city, cal, criterion, better string
	level                        float64
	winner, runnerUp             string
	value, runnerValue           float64
	n                            int
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

func winners(p *params, cells []*cell) []winner {
	var out []winner
	for _, city := range p.Cities {
		for _, cal := range p.Calibrations {
			for _, level := range p.levels(cal).Values() {
				var cs []*cell
				for _, c := range cells {
					if c.city == city && c.cal == cal && c.level == level {
						cs = append(cs, c)
					}
				}
				if len(cs) == 0 {
					continue
				}
				for _, cr := range criteria(cal) {
					sorted := append([]*cell(nil), cs...)
					sort.SliceStable(sorted, func(i, j int) bool {
						a, b := sorted[i].metric(cr[0]), sorted[j].metric(cr[0])
						if cr[1] == "higher" {
							return a > b
						}
						return a < b
					})
					w := winner{city: city, cal: cal, criterion: cr[0], better: cr[1], level: level,
						winner: sorted[0].mech, value: sorted[0].metric(cr[0]), runnerValue: math.NaN(), n: len(cs)}
					if len(sorted) > 1 {
						w.runnerUp, w.runnerValue = sorted[1].mech, sorted[1].metric(cr[0])
					}
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// frontierFigure draws a city's frontier: EMD and distortion against
// tight epsilon, EMD against distortion, and identification of A (or the
// Bayes error) against tight epsilon. Nil when the city has no rows.
func frontierFigure(p *params, city string, cells []*cell) (*plots.Figure, error) {
	byMech := func(cal string, x, y func(*cell) float64, yerr func(*cell) float64) []plots.Series {
		var ss []plots.Series
		var mechs []string
		// cal "" takes the levels of every calibration.
		inCal := func(c *cell) bool { return cal == "" || c.cal == cal }
		for _, c := range cells {
			if c.city == city && inCal(c) && !contains(mechs, c.mech) {
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
			s := plots.Series{Name: m}
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
	emd := func(c *cell) float64 { return c.emdMean }
	emdSD := func(c *cell) float64 { return c.emdSD }
	dist := func(c *cell) float64 { return c.dist }
	var panels []plots.Panel
	add := func(title string, ss []plots.Series, opt plots.LineOptions) {
		if len(ss) > 0 {
			opt.Points = true
			panels = append(panels, plots.Panel{Title: title, Series: ss, Opt: opt})
		}
	}
	epsX := plots.LineOptions{XLabel: "tight epsilon (per cell)", LogX: true}
	o := epsX
	o.YLabel, o.YFromZero = "EMD of the IBU estimate (cells)", true
	// x is the measured quantity, which equals the level except where
	// calibration hit a jump (status "jump" in calibration.csv).
	// A channel whose tight epsilon is 0 (the LP's constant channel below
	// its smallest useful level) has no place on the log axis; it stays
	// in the tables.
	tight := func(c *cell) float64 {
		if c.eps <= 0 {
			return math.NaN()
		}
		return c.eps
	}
	add("Statistical utility at equal tight epsilon", byMech("eps", tight, emd, emdSD), o)
	o = epsX
	o.YLabel, o.YFromZero = "average distortion (cells)", true
	add("Quality of service at equal tight epsilon", byMech("eps", tight, dist, nil), o)
	// Every level of every calibration is a (distortion, EMD) point of
	// the mechanism, so the frontier uses them all.
	o = plots.LineOptions{XLabel: "average distortion (cells)", YLabel: "EMD of the IBU estimate (cells)", YFromZero: true}
	add("Utility against quality of service (all levels)", byMech("", dist, emd, emdSD), o)
	o = epsX
	if _, ok := p.A[city]; ok {
		o.YLabel, o.YFromZero = "identification of A (posterior)", true
		add("Identification of A on the island prior", byMech("eps", tight, func(c *cell) float64 { return c.idA }, nil), o)
	} else {
		o.YLabel, o.YFromZero = "Bayes adversary error (cells)", true
		add("Bayes adversary's error at equal tight epsilon", byMech("eps", tight, func(c *cell) float64 { return c.bayes }, nil), o)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	fig, err := plots.LinePanels(fmt.Sprintf("Mechanisms on %s: privacy-utility frontier (mean ± sd over simulations)", cityTitle(city)), panels, 2)
	if err != nil {
		return nil, fmt.Errorf("frontier figure %s: %w", city, err)
	}
	return fig, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func cityTitle(c string) string {
	switch c {
	case "paris":
		return "Paris"
	case "sf":
		return "San Francisco"
	}
	return c
}

// fmtG formats a number for prose with a few significant digits.
func fmtG(v float64, digits int) string { return harness.FormatSig(v, digits) }

// mdTable renders a Markdown table.
func mdTable(header []string, rows [][]string) string { return harness.MarkdownTable(header, rows) }
