package resolution

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/kernels/mechanism"
	"privic/plots"
)

// Grids of a pair.
const (
	paperGrid = "paper"
	fineGrid  = "fine"
)

// curves are one side of a pair: per series, the mean value (in metres)
// at each x.
type curves map[string]map[float64]float64

func (c curves) set(series string, x, v float64) {
	if c[series] == nil {
		c[series] = map[float64]float64{}
	}
	c[series][x] = v
}

// side is one experiment of a pair, read and converted.
type side struct {
	Experiment, Dataset string
	CellM               float64
	Curves              curves
	// Labels say what a series' channel is at x where its name does not
	// (frontier_summary.csv's label: optimal, an upper bound with the
	// optimum's bracket, degenerate).
	Labels  map[string]map[float64]string
	Missing string // why there is nothing
}

// pairData is one pair at both resolutions.
type pairData struct {
	Title       string
	Paper, Fine side
}

// metres reads the pairs' tables and puts them in metres.
type metres struct {
	root string
	p    *Params
	// coarse names the pairs' coarse side in the section's prose and
	// headers: "paper" when the comparison is about the paper's grids
	// (Params.aboutPaper), "coarse" otherwise.
	coarse  string
	table   *harness.Table
	skipped []harness.Skip

	bavslap, privic, sweep, mech, elastic []pairData
}

func newMetres(root string, p *Params) *metres {
	coarse := "coarse"
	if p.aboutPaper() {
		coarse = paperGrid
	}
	return &metres{root: root, p: p, coarse: coarse, table: harness.NewTable("in_metres",
		"study", "title", "grid", "experiment", "dataset", "cell_m", "x_name", "x", "series", "value_name", "value_m")}
}

// gridWords names the coarse side in prose: "paper's grid" or "coarse
// grid".
func (m *metres) gridWords() string {
	if m.coarse == paperGrid {
		return "paper's grid"
	}
	return m.coarse + " grid"
}

// all reads every pair.
func (m *metres) all() {
	m.bavslap = m.read("ba-vs-lap", m.p.BAvsLAP, "beta_per_km", "emd_mean_m", m.readBAvsLAP)
	m.privic = m.read("privic", m.p.PRIVIC, "cycle", "emd_mean_m", m.readPRIVIC)
	m.sweep = m.read("beta-sweep", m.p.BetaSweep, "beta_per_km", "final_emd_mean_m", m.readSweep)
	m.mech = m.read("mechanisms", m.p.Mechanisms, "level", "metres", m.readMechanisms)
	m.elastic = m.read("elastic", m.p.Elastic, "beta_per_km", "metres", m.readElastic)
}

// reader fills the curves of one side from its experiment's directory.
type reader func(o *harness.Output, pr Pair, s *side) error

// read reads both sides of every pair and records them in the table.
func (m *metres) read(study string, pairs []Pair, xName, valueName string, rd reader) []pairData {
	var out []pairData
	for _, pr := range pairs {
		d := pairData{Title: pr.Title}
		for _, g := range []struct {
			name string
			src  []string
			s    *side
		}{{paperGrid, pr.Paper, &d.Paper}, {fineGrid, pr.Fine, &d.Fine}} {
			*g.s = side{Experiment: g.src[0], Dataset: g.src[1], CellM: param.Get(m.p.CellM, g.src[1], 0), Curves: curves{}}
			o, why := m.open(g.src[0])
			if why == "" {
				if err := rd(o, pr, g.s); err != nil {
					why = fmt.Sprintf("%s: %v", g.src[0], err)
				} else if len(g.s.Curves) == 0 {
					why = fmt.Sprintf("%s has no rows of dataset %s", g.src[0], g.src[1])
				}
			}
			if why != "" {
				g.s.Missing = why
				g.s.Curves = curves{}
				m.skipped = append(m.skipped, harness.Skip{Figure: study + ": " + pr.Title + " (" + g.name + " grid)", Reason: why})
				continue
			}
			for _, series := range sortedSeries(g.s.Curves) {
				for _, x := range sortedKeys(g.s.Curves[series]) {
					vn := valueName
					if study == "mechanisms" || study == "elastic" {
						vn = seriesValue(series)
					}
					m.table.Add(harness.Row{"study": study, "title": pr.Title, "grid": g.name, "experiment": g.src[0], "dataset": g.src[1],
						"cell_m": g.s.CellM, "x_name": xName, "x": x, "series": series, "value_name": vn, "value_m": g.s.Curves[series][x]})
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// seriesValue is the value name a mechanisms or elastic series ends with
// ("ba emd_m" -> "emd_m").
func seriesValue(series string) string {
	if i := strings.LastIndexByte(series, ' '); i >= 0 {
		return series[i+1:]
	}
	return series
}

// open returns an Output reading the experiment exp, or why it cannot.
func (m *metres) open(exp string) (*harness.Output, string) {
	dir := filepath.Join(m.root, exp)
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Sprintf("%s is not in the results: run the experiment %s first", exp, exp)
		}
		return nil, fmt.Sprintf("%s: %v", exp, err)
	}
	o, err := harness.NewOutput(dir, nil)
	if err != nil {
		return nil, err.Error()
	}
	return o, ""
}

// perKm is a per-cell parameter (beta, epsilon) per kilometre.
func perKm(v, cellM float64) float64 { return v / cellM * 1000 }

// meanOver averages the values collected under each (series, x).
type meanOver map[string]map[float64][]float64

func (a meanOver) add(series string, x, v float64) {
	if a[series] == nil {
		a[series] = map[float64][]float64{}
	}
	a[series][x] = append(a[series][x], v)
}

func (a meanOver) into(c curves, scale float64) {
	for s, byX := range a {
		for x, vs := range byX {
			mean, _, _ := harness.MeanSD(vs)
			c.set(s, x, mean*scale)
		}
	}
}

// readBAvsLAP: utility_summary.csv, the mean EMD of each mechanism
// against beta per km.
func (m *metres) readBAvsLAP(o *harness.Output, _ Pair, s *side) error {
	t, err := o.ReadTable("utility_summary")
	if err != nil {
		return err
	}
	rd, err := t.Reader("city", "mechanism", "beta", "emd_mean")
	if err != nil {
		return err
	}
	for i := range t.Rows {
		if rd.Str(i, "city") != s.Dataset {
			continue
		}
		s.Curves.set(rd.Str(i, "mechanism"), perKm(rd.Float(i, "beta"), s.CellM), rd.Float(i, "emd_mean")*s.CellM)
	}
	return rd.Err()
}

// variantMatch reports whether row i of rd is the variant v.
func variantMatch(rd *harness.Reader, i int, v []string) bool {
	for k, col := range variantCols {
		if rd.Str(i, col) != v[k] {
			return false
		}
	}
	return true
}

// betaSeries names a PRIVIC curve by its beta per km.
func betaSeries(betaKm float64) string { return "beta_per_km=" + harness.FormatSig(betaKm, 4) }

// readPRIVIC: emd_by_cycle.csv, the mean EMD to the population over the
// rounds, per cycle, one series per beta.
func (m *metres) readPRIVIC(o *harness.Output, pr Pair, s *side) error {
	return readPopulationEMD(o, pr, s, "emd_by_cycle", "cycle", func(rd *harness.Reader, i int) (string, float64, bool) {
		return betaSeries(perKm(rd.Float(i, "beta"), s.CellM)), float64(rd.Int(i, "cycle")), true
	})
}

// readSweep: final_emd.csv, the mean EMD to the population after the
// last cycle against beta per km.
func (m *metres) readSweep(o *harness.Output, pr Pair, s *side) error {
	return readPopulationEMD(o, pr, s, "final_emd", "estimate", func(rd *harness.Reader, i int) (string, float64, bool) {
		return "last-cycle", perKm(rd.Float(i, "beta"), s.CellM), rd.Str(i, "estimate") == "last-cycle"
	})
}

// readPopulationEMD averages, into s's curves, the EMD to the population
// that the PRIVIC table name holds for s's city and pr's variant. Beside
// city, beta, emd_reference, emd and the variant's columns, the table must
// have the column extra; point places row i on a curve (series and x), or
// says with ok false that the row is not plotted.
func readPopulationEMD(o *harness.Output, pr Pair, s *side, name, extra string,
	point func(rd *harness.Reader, i int) (series string, x float64, ok bool)) error {
	t, err := o.ReadTable(name)
	if err != nil {
		return err
	}
	rd, err := t.Reader(append([]string{"city", "beta", "emd_reference", extra, "emd"}, variantCols...)...)
	if err != nil {
		return err
	}
	v, _ := parseVariant(pr.Variant)
	acc := meanOver{}
	for i := range t.Rows {
		if rd.Str(i, "city") != s.Dataset || rd.Str(i, "emd_reference") != "population" || !variantMatch(rd, i, v) {
			continue
		}
		if series, x, ok := point(rd, i); ok {
			acc.add(series, x, rd.Float(i, "emd"))
		}
	}
	acc.into(s.Curves, s.CellM)
	return rd.Err()
}

// Levels of the mechanisms' calibrations, put on one scale: the tight
// epsilon per km, the distortion in metres.
func mechLevel(calibration string, level, cellM float64) (float64, bool) {
	switch calibration {
	case "eps":
		return perKm(level, cellM), true
	case "distortion":
		return level * cellM, true
	}
	return 0, false
}

// readMechanisms: frontier_summary.csv, per calibration and mechanism the
// EMD and the average distortion in metres against the level (epsilon
// per km or distortion in metres). Series "calibration mechanism value".
func (m *metres) readMechanisms(o *harness.Output, _ Pair, s *side) error {
	t, err := o.ReadTable("frontier_summary")
	if err != nil {
		return err
	}
	rd, err := t.Reader("city", "mechanism", "calibration", "level", "emd_mean", "avg_distortion")
	if err != nil {
		return err
	}
	labelled := slices.Contains(t.Header, "label")
	for i := range t.Rows {
		if rd.Str(i, "city") != s.Dataset {
			continue
		}
		cal := rd.Str(i, "calibration")
		x, ok := mechLevel(cal, rd.Float(i, "level"), s.CellM)
		if !ok {
			continue
		}
		// Mechanisms meet by their full names: the optimal mechanism on
		// blocks (optimal-...-coarseK) is another mechanism than on the
		// whole grid.
		name := cal + " " + rd.Str(i, "mechanism")
		s.Curves.set(name+" emd_m", x, rd.Float(i, "emd_mean")*s.CellM)
		s.Curves.set(name+" avg_distortion_m", x, rd.Float(i, "avg_distortion")*s.CellM)
		if labelled {
			if l := rd.Str(i, "label"); l != "" {
				if s.Labels == nil {
					s.Labels = map[string]map[float64]string{}
				}
				if s.Labels[name] == nil {
					s.Labels[name] = map[float64]string{}
				}
				s.Labels[name][x] = l
			}
		}
	}
	return rd.Err()
}

// readElastic: location_stats.csv, A's expected report distance in metres
// and the chance of a report on a deserted cell, per mechanism, against
// beta per km.
func (m *metres) readElastic(o *harness.Output, _ Pair, s *side) error {
	t, err := o.ReadTable("location_stats")
	if err != nil {
		return err
	}
	rd, err := t.Reader("mechanism", "location", "beta", "expected_distance", "p_deserted")
	if err != nil {
		return err
	}
	for i := range t.Rows {
		if rd.Str(i, "location") != "A" {
			continue
		}
		x, mech := perKm(rd.Float(i, "beta"), s.CellM), rd.Str(i, "mechanism")
		s.Curves.set(mech+" expected_distance_m", x, rd.Float(i, "expected_distance")*s.CellM)
		s.Curves.set(mech+" p_deserted", x, rd.Float(i, "p_deserted"))
	}
	return rd.Err()
}

// Match finds x in xs within a relative 1% (the fine grids' parameters
// are the paper's scaled and rounded to 4 digits).
func Match(xs []float64, x float64) (float64, bool) {
	for _, v := range xs {
		if math.Abs(v-x) <= 0.01*math.Max(math.Abs(v), math.Abs(x)) {
			return v, true
		}
	}
	return 0, false
}

// sortedSeries returns c's series names in order.
func sortedSeries(c curves) []string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// line is one series as a plot line.
func line(name string, byX map[float64]float64, from float64) plots.Series {
	s := plots.Series{Name: name}
	for _, x := range sortedKeys(byX) {
		if x < from {
			continue
		}
		s.X, s.Y = append(s.X, x), append(s.Y, byX[x])
	}
	return s
}

// gridStyle is how the figures draw a mechanism at a resolution: in its
// registry style on the paper's grid, and dotted on the fine grid (same
// colour and marker).
func gridStyle(mech string, fine bool) plots.Style {
	st, _ := mechanism.StyleOf(mech)
	s := plots.Style(st)
	if fine {
		s.Dash = []float64{1, 2.5}
	}
	return s
}

// gridLabel names a side's grid by its cell size.
func gridLabel(s side) string { return fmt.Sprintf("%s m", harness.FormatSig(s.CellM, 3)) }

// figures draws BA vs LAP on one metre axis and PRIVIC's EMD per cycle
// at both resolutions.
func (m *metres) figures() (harness.Figures, []harness.Skip) {
	var figs harness.Figures
	var skipped []harness.Skip
	var panels []plots.Panel
	for _, d := range m.bavslap {
		var ss []plots.Series
		for i, s := range []side{d.Paper, d.Fine} {
			for _, mech := range []string{"ba", "lap"} {
				if byX, ok := s.Curves[mech]; ok {
					l := line(fmt.Sprintf("%s, %s cells", strings.ToUpper(mech), gridLabel(s)), byX, 0)
					l.Style = gridStyle(mech, i == 1)
					ss = append(ss, l)
				}
			}
		}
		if len(ss) > 0 {
			panels = append(panels, plots.Panel{Title: d.Title, Series: ss, Opt: plots.LineOptions{
				XLabel: "beta per km (BA's loss parameter / cell side)", YLabel: "mean EMD to the prior (m)", LogY: true, Points: true}})
		}
	}
	if skip := addPanels(&figs, "ba-vs-lap-metres", "BA vs LAP (LAP at BA's tight epsilon) at both resolutions, in metres", panels, 0,
		"no ba_vs_lap pair has results"); skip != nil {
		skipped = append(skipped, *skip)
	}
	panels = nil
	for _, d := range m.privic {
		for _, series := range sortedSeries(d.Paper.Curves) {
			var ss []plots.Series
			ss = append(ss, line(gridLabel(d.Paper)+" cells", d.Paper.Curves[series], 1))
			if fs, ok := matchSeries(d.Fine.Curves, series); ok {
				ss = append(ss, line(gridLabel(d.Fine)+" cells", d.Fine.Curves[fs], 1))
			}
			panels = append(panels, plots.Panel{Title: d.Title + ", " + strings.ReplaceAll(series, "_", " "), Series: ss,
				Opt: plots.LineOptions{XLabel: "cycle", YLabel: "mean EMD to the prior (m)", YFromZero: true, Points: true}})
		}
	}
	if skip := addPanels(&figs, "privic-metres", "PRIVIC's EMD per cycle at both resolutions, in metres", panels, 2,
		"no privic pair has results on the "+m.gridWords()); skip != nil {
		skipped = append(skipped, *skip)
	}
	return figs, skipped
}

// addPanels draws panels in cols columns (0: the plots package's choice)
// as the figure base, titled title, and adds it to figs. When there is no
// panel, or the figure cannot be drawn, it adds nothing and returns the
// skip that says why (none: the reason for no panel).
func addPanels(figs *harness.Figures, base, title string, panels []plots.Panel, cols int, none string) *harness.Skip {
	if len(panels) == 0 {
		return &harness.Skip{Figure: base, Reason: none}
	}
	fig, err := plots.LinePanels(title, panels, cols)
	if err := figs.Add(base, fig, err); err != nil {
		return &harness.Skip{Figure: base, Reason: err.Error()}
	}
	return nil
}

// matchSeries finds the fine grid's series of the same beta per km as the
// paper grid's series name.
func matchSeries(c curves, name string) (string, bool) {
	x, ok := seriesBeta(name)
	if !ok {
		return "", false
	}
	for _, n := range sortedSeries(c) {
		if y, ok := seriesBeta(n); ok {
			if _, ok := Match([]float64{y}, x); ok {
				return n, true
			}
		}
	}
	return "", false
}

// seriesBeta reads the beta per km of a PRIVIC series name.
func seriesBeta(name string) (float64, bool) {
	v, ok := strings.CutPrefix(name, "beta_per_km=")
	if !ok {
		return 0, false
	}
	x, err := harness.ParseFloat(v)
	return x, err == nil
}
