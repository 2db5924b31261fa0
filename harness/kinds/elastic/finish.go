package elastic

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/verdict"
	"privic/kernels"
	"privic/plots"
)

// level is one beta's numbers as read back in Finish.
type level struct {
	beta, eps, tight float64
	sv               island.Singular              // BA's smallest singular value
	dist             map[string][]island.CellProb // key mechanism/location
	stats            map[string]island.LocStats   // key mechanism/location
	// elastic is the elastic-metric row (elastic_metric.csv), if run.
	elastic *elasticRow
}

// elasticRow is one row of elastic_metric.csv.
type elasticRow struct {
	param, tight float64
	// dist is the average distortion on the island prior of BA, LAP and
	// the elastic-metric mechanism.
	dist [3]float64
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	s, err := p.Setup()
	if err != nil {
		return harness.Section{}, err
	}
	levels, err := readLevels(out)
	if err != nil {
		return harness.Section{}, err
	}
	figs, err := figures(p, s, levels)
	if err != nil {
		return harness.Section{}, err
	}
	claims := checkClaims(p, s, levels)
	md, err := section(p, s, levels, claims)
	var skipped []harness.Skip
	for _, l := range levels {
		if l.sv.Method != "svd" {
			skipped = append(skipped, harness.Skip{Figure: "invertibility.csv, beta " + harness.FormatSig(l.beta, 3), Reason: island.SkipReason(s.DS.Grid.Len())})
		}
	}
	return harness.Section{Markdown: md, Claims: claims, Figures: figs, Skipped: skipped}, err
}

// readLevels reads the three job tables back into levels sorted by beta.
func readLevels(out *harness.Output) ([]*level, error) {
	byBeta := map[string]*level{}
	var order []string
	ch, err := out.ReadTable("channels")
	if err != nil {
		return nil, err
	}
	rd, err := ch.Reader("beta", "ba_tight_epsilon", "lap_epsilon")
	if err != nil {
		return nil, err
	}
	for i := range ch.Rows {
		b := rd.Str(i, "beta")
		if _, ok := byBeta[b]; !ok {
			order = append(order, b)
		}
		byBeta[b] = &level{beta: rd.Float(i, "beta"), eps: rd.Float(i, "lap_epsilon"), tight: rd.Float(i, "ba_tight_epsilon"),
			dist: map[string][]island.CellProb{}, stats: map[string]island.LocStats{}}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if err := eachLevelRow(out, "invertibility", island.SingularHeader(), byBeta, func(rd *harness.Reader, i int, l *level) {
		l.sv = island.ReadSingular(rd, i)
	}); err != nil {
		return nil, err
	}
	if err := readDistributions(out, byBeta); err != nil {
		return nil, err
	}
	if err := readStats(out, byBeta); err != nil {
		return nil, err
	}
	if err := eachLevelRow(out, "elastic_metric", []string{"parameter", "tight_epsilon",
		"avg_distortion_ba", "avg_distortion_lap", "avg_distortion_elastic_metric"}, byBeta, func(rd *harness.Reader, i int, l *level) {
		l.elastic = &elasticRow{param: rd.Float(i, "parameter"), tight: rd.Float(i, "tight_epsilon"),
			dist: [3]float64{rd.Float(i, "avg_distortion_ba"), rd.Float(i, "avg_distortion_lap"), rd.Float(i, "avg_distortion_elastic_metric")}}
	}); err != nil {
		return nil, err
	}
	levels := make([]*level, 0, len(order))
	for _, b := range order {
		levels = append(levels, byBeta[b])
	}
	sort.SliceStable(levels, func(i, j int) bool { return levels[i].beta < levels[j].beta })
	return levels, nil
}

// eachLevelRow calls read with every row of the job table called name and
// the level of its beta, which channels.csv must have.
func eachLevelRow(out *harness.Output, name string, cols []string, byBeta map[string]*level, read func(rd *harness.Reader, i int, l *level)) error {
	t, err := out.ReadTable(name)
	if err != nil {
		return err
	}
	rd, err := t.Reader(append([]string{"beta"}, cols...)...)
	if err != nil {
		return err
	}
	for i := range t.Rows {
		l, ok := byBeta[rd.Str(i, "beta")]
		if !ok {
			return fmt.Errorf("%s row %d: beta %s not in channels.csv", name, i+1, rd.Str(i, "beta"))
		}
		read(rd, i, l)
	}
	return rd.Err()
}

func readDistributions(out *harness.Output, byBeta map[string]*level) error {
	return eachLevelRow(out, "report_distribution", []string{"mechanism", "location", "row", "col", "probability"}, byBeta,
		func(rd *harness.Reader, i int, l *level) {
			key := rd.Str(i, "mechanism") + "/" + rd.Str(i, "location")
			l.dist[key] = append(l.dist[key], island.CellProb{Row: rd.Int(i, "row"), Col: rd.Int(i, "col"), P: rd.Float(i, "probability")})
		})
}

func readStats(out *harness.Output, byBeta map[string]*level) error {
	return eachLevelRow(out, "location_stats", append([]string{"mechanism", "location"}, island.StatsHeader()...), byBeta,
		func(rd *harness.Reader, i int, l *level) {
			l.stats[rd.Str(i, "mechanism")+"/"+rd.Str(i, "location")] = island.ReadStats(rd, i)
		})
}

// figures draws the report distributions of A and B: a row per beta, a
// column per mechanism (BA, LAP, and the elastic-metric mechanism when
// it ran).
func figures(p *params, s *island.Setup, levels []*level) (harness.Figures, error) {
	disp := s.DS.Grid
	if p.FigureDomain == "widened" {
		disp = disp.Widen(p.LapWiden)
	}
	mechs := []struct{ key, label string }{{"ba", "BA"}, {"lap", "LAP"}}
	if p.withElastic() {
		mechs = append(mechs, struct{ key, label string }{elasticMetric, "elastic metric"})
	}
	var figs harness.Figures
	for _, f := range figureFiles(p) {
		var panels []plots.GridMap
		for _, l := range levels {
			for _, m := range mechs {
				vals, outside := island.GridValues(disp, l.dist[m.key+"/"+f.Loc])
				eps := l.eps
				if m.key == elasticMetric && l.elastic != nil {
					eps = l.elastic.tight
				}
				title := fmt.Sprintf("%s, ε = %s (β = %s)", m.label, harness.FormatSig(eps, 3), harness.FormatSig(l.beta, 3))
				if outside > 5e-4 {
					title += fmt.Sprintf(", %s off-grid", harness.FormatPct(outside))
				}
				panels = append(panels, plots.GridMap{Title: title, Rows: disp.Rows, Cols: disp.Cols,
					Values: vals, Markers: p.Markers(disp)})
			}
		}
		opt := plots.HeatOptions{
			Columns:       len(mechs),
			ColorbarLabel: "P(report cell | true " + f.Loc + ")",
			XLabel:        axisLabel(disp, s.DS.Grid, "column (0 = east edge)", "city column + %d (east edge right)", -disp.Col0),
			YLabel:        axisLabel(disp, s.DS.Grid, "row (0 = north edge)", "city row + %d (north up)", -disp.Row0),
		}
		if disp == s.DS.Grid {
			if opt.CellWidthM, opt.CellHeightM = param.MapMetres(s.DS); opt.CellWidthM > 0 {
				opt.XLabel, opt.YLabel = "", ""
			}
		}
		fig, err := plots.Heatmaps(f.Title, panels, opt)
		if err := figs.Add(f.File, fig, err); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// figFile is one figure of the kind: its file, the location it shows and
// its title.
type figFile struct{ File, Loc, Title string }

// figureFiles are the kind's figures: the paper's Fig. 2a and 2b on a
// preset, reports-a-<name> and reports-b-<name> on another dataset.
func figureFiles(p *params) []figFile {
	if p.IsPreset(p.City) {
		return []figFile{
			{"fig2a", "A", "Fig. 2a: report distribution of the vulnerable location A"},
			{"fig2b", "B", "Fig. 2b: report distribution of the strong location B"},
		}
	}
	t := p.Title(p.City)
	return []figFile{
		{"reports-a-" + p.City, "A", "Report distribution of the vulnerable location A, " + t},
		{"reports-b-" + p.City, "B", "Report distribution of the strong location B, " + t},
	}
}

// axisLabel names a heat map's axis: the city's own indexing on the base
// grid, an offset one on a widened grid (whose tick labels count the drawn
// grid's cells from 0).
func axisLabel(disp, base kernels.Grid, plain, shifted string, offset int) string {
	if disp == base {
		return plain
	}
	return fmt.Sprintf(shifted, offset)
}

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	City, Island, Cell string
	Figures            []figFile
	Preset             bool
	N, Rows, Cols      int
	A, B               []int
	BAIterations       int
	LapEps             string
	LapWiden           int
	WideRows, WideCols int
	BaseDomain         bool
	Bounded            bool // some singular values are bounds only
	SVDMax             int
	DesertM            string // the radius of "deserted", metres
	NearM              int    // the radius of "near", metres
	TwoBeta            string // the header of the column of 2·beta
	Channels, Where    [][]string
	Claims             []harness.Claim
	// Elastic is the elastic-metric mechanism's table and the sentences
	// comparing it with BA (empty when it was not run).
	Elastic      [][]string
	ElasticWords []string
}

func section(p *params, s *island.Setup, levels []*level, claims []harness.Claim) (string, error) {
	g := s.DS.Grid
	d := sectionData{
		City: p.Title(p.City), Island: p.Island.Describe(s.DS), Cell: param.CellWords(s.DS), Figures: figureFiles(p),
		Preset: p.IsPreset(p.City), N: s.DS.N, Rows: g.Rows, Cols: g.Cols,
		A: p.A.Cell, B: p.B.Cell, BAIterations: p.BAIterations, LapEps: paper.LapEpsWords(p.LapEpsilon, p.IsPreset(p.City)), LapWiden: p.LapWiden,
		WideRows: g.Rows + 2*p.LapWiden, WideCols: g.Cols + 2*p.LapWiden, BaseDomain: p.FigureDomain == "base",
		Claims: claims, SVDMax: island.SVDMaxCells, DesertM: harness.FormatSig(p.DesertRadiusM, 4), NearM: verdict.PaperCellM,
		TwoBeta: "eps = 2·beta",
	}
	if d.Preset {
		d.TwoBeta = "paper eps = 2·beta"
	}
	sig := harness.FormatSig
	for _, l := range levels {
		d.Bounded = d.Bounded || l.sv.Method != "svd"
		d.Channels = append(d.Channels, []string{sig(l.beta, 3), sig(2*l.beta, 3), sig(l.tight, 6), sig(l.eps, 6), l.sv.Words(4)})
	}
	pct := harness.FormatPct
	for _, loc := range []string{"A", "B"} {
		for _, l := range levels {
			for _, m := range whereRows(p, loc) {
				st, ok := l.stats[m+"/"+loc]
				if !ok {
					continue
				}
				d.Where = append(d.Where, []string{loc, sig(l.eps, 3), strings.ToUpper(m), pct(st.PDeserted), pct(st.POutside),
					pct(st.PBlock), pct(st.PWithin1), sig(st.ExpPriorMass, 3), sig(st.ExpDistance, 3),
					fmt.Sprintf("(%d, %d)", st.ModeRow, st.ModeCol), sig(st.ModeDistance, 3), pct(st.MAPIdent), pct(st.ExpPosterior)})
			}
		}
	}
	d.Elastic, d.ElasticWords = elasticWords(levels)
	return harness.RenderFile(templates, "section.md.tmpl", d)
}

// whereRows are the mechanisms of the section's table at loc: those of
// the spec, those calibrated to BA's average distortion (at A), and the
// uniform-report baseline.
func whereRows(p *params, loc string) []string {
	out := slices.Clone(p.Mechanisms)
	if p.withElastic() && loc == "A" {
		out = append(out, "lap"+equalDistortion, elasticMetric+equalDistortion)
	}
	return append(out, uniform)
}

// elasticWords lays out the elastic-metric rows and answers, level by
// level and at both footings (equal tight eps, equal average distortion
// on the island prior), whether BA behaves like the elastic mechanism at
// A by the rule of the claim (likeElastic: closer to it than to LAP on
// P(deserted), identification of A and the expected prior mass of the
// report, all three), with the uniform-report baseline beside them.
func elasticWords(levels []*level) (rows [][]string, words []string) {
	sig, pct := harness.FormatSig, harness.FormatPct
	for _, l := range levels {
		e := l.elastic
		if e == nil {
			continue
		}
		rows = append(rows, []string{sig(l.beta, 3), sig(l.eps, 4), sig(e.param, 4), sig(e.tight, 6),
			sig(e.dist[0], 4), sig(e.dist[1], 4), sig(e.dist[2], 4)})
		ba := l.stats["ba/A"]
		for _, f := range []struct{ footing, el, lap string }{
			{"at equal tight eps", elasticMetric, "lap"},
			{fmt.Sprintf("at equal average distortion (%s cells)", sig(e.dist[0], 3)), elasticMetric + equalDistortion, "lap" + equalDistortion},
		} {
			el, ok1 := l.stats[f.el+"/A"]
			lap, ok2 := l.stats[f.lap+"/A"]
			if !ok1 || !ok2 {
				continue
			}
			holds, closer := likeElastic(ba, el, lap)
			like := "behaves like the elastic mechanism at A"
			if !holds {
				like = fmt.Sprintf("does not behave like the elastic mechanism at A (closer to it than to LAP on %d of 3 measures", len(closer))
				if len(closer) > 0 {
					like += ": " + strings.Join(closer, ", ")
				}
				like += ")"
			}
			w := fmt.Sprintf("At eps = %s %s, BA %s: P(deserted) %s (elastic-metric %s, LAP %s), identification of A %s (%s, %s), E[prior mass of report] %s (%s, %s).",
				sig(l.eps, 3), f.footing, like, pct(ba.PDeserted), pct(el.PDeserted), pct(lap.PDeserted),
				pct(ba.MAPIdent), pct(el.MAPIdent), pct(lap.MAPIdent),
				sig(ba.ExpPriorMass, 3), sig(el.ExpPriorMass, 3), sig(lap.ExpPriorMass, 3))
			if u, ok := l.stats[uniform+"/A"]; ok && f.el == elasticMetric {
				w += fmt.Sprintf(" A uniform report, which reveals nothing, has P(deserted) %s, identification of A %s and E[prior mass] %s.",
					pct(u.PDeserted), pct(u.MAPIdent), sig(u.ExpPriorMass, 3))
			}
			words = append(words, w)
		}
	}
	return rows, words
}
