package resolution

import (
	"embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"privic/harness"
)

//go:embed section.md.tmpl
var sectionFS embed.FS

// sectionData is what section.md.tmpl renders.
type sectionData struct {
	PaperWords bool   // the coarse side is the paper's grid
	Cells      string // the datasets' cell sides
	Grid       string // the coarse side in words ("paper's grid")
	Coarse     string // the coarse side in table headers
	Verdicts   string // the table of both sides' verdicts
	Counts     changeCounts
	// The claims by what happens to their verdict: Changed (stronger,
	// weaker, undecided or decided at fine resolution only), Only (checked
	// at fine resolution only), Missing (not run), Kept (same verdict).
	Changed, Only, Missing, Kept []claimWords
	// The measurements in metres, per figure of the paper.
	BAvsLAP, Sweep      []pairTable
	PRIVIC              *privicTable
	Elastic, Mechanisms []pairWords
}

type changeCounts struct {
	All, Same, Stronger, Weaker, UndecidedFine, DecidedFine, FineOnly, NotRun int
}

// claimWords is one claim of the section's lists.
type claimWords struct {
	Claim, City, Change, Rule, Why                  string
	CoarseVerdict, CoarseExperiment, CoarseEvidence string
	FineVerdict, FineExperiment, FineEvidence       string
}

// pairTable is one pair of experiments compared in metres: why it has
// no table (Missing), or its table.
type pairTable struct {
	Title, CoarseCells, FineCells, Missing, Table string
}

// pairWords is a pairTable with what some figures add: the fine grid's
// report maps (elastic) and the series found on one grid only
// (mechanisms).
type pairWords struct {
	Pair  pairTable
	Maps  *reportMaps
	Alone string
}

type reportMaps struct{ Title, Experiment, Dataset string }

type privicTable struct {
	Notes []string // the pairs without a table, and why
	Table string
}

// section renders the kind's part of the report.
func section(p *Params, rows []Row, m *metres) (string, error) {
	d := sectionData{PaperWords: m.coarse == paperGrid, Cells: cellList(p), Grid: m.gridWords(), Coarse: m.coarse}
	tr := make([][]string, len(rows))
	for i, r := range rows {
		tr[i] = []string{r.Claim, r.City, cell(r.Paper, m.notChecked()), cell(r.Fine, m.notChecked()), r.Change}
	}
	d.Verdicts = harness.MarkdownTable([]string{"claim", "data", m.gridWords(), "fine grid", "change"}, tr)
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Change]++
	}
	d.Counts = changeCounts{All: len(rows), Same: counts[Same], Stronger: counts[Stronger], Weaker: counts[Weaker],
		UndecidedFine: counts[UndecidedFine], DecidedFine: counts[DecidedFine], FineOnly: counts[FineOnly],
		NotRun: counts[NotRunFine] + counts[NotRun]}
	for _, r := range rows {
		w := claimWords{Claim: r.Claim, City: r.City, Change: r.Change, Rule: oneLine(r.Fine.Rule),
			CoarseVerdict: verdictWords(r.Paper), CoarseExperiment: r.Paper.Experiment, CoarseEvidence: oneLine(r.Paper.Evidence),
			FineVerdict: verdictWords(r.Fine), FineExperiment: r.Fine.Experiment, FineEvidence: oneLine(r.Fine.Evidence)}
		switch r.Change {
		case Stronger, Weaker, UndecidedFine, DecidedFine:
			d.Changed = append(d.Changed, w)
		case FineOnly:
			w.Why = "the " + m.coarse + " grid's experiments check it on another dataset only"
			if d.PaperWords {
				w.Why = "the paper checks it on another dataset only"
			}
			if r.Paper.Missing != "" {
				w.Why = r.Paper.Missing
			}
			d.Only = append(d.Only, w)
		case NotRunFine, NotRun:
			w.Why = strings.Join(nonEmpty(r.Paper.Missing, r.Fine.Missing), "; ")
			d.Missing = append(d.Missing, w)
		case Same:
			d.Kept = append(d.Kept, w)
		}
	}
	d.BAvsLAP = m.baVsLAP()
	d.PRIVIC = m.privicTable()
	d.Sweep = m.sweepTables()
	d.Elastic = m.elasticTables()
	d.Mechanisms = m.mechanismTables()
	t, err := harness.Templates(sectionFS, template.FuncMap{"upperFirst": upperFirst}, "section.md.tmpl")
	if err != nil {
		return "", err
	}
	return harness.Render(t, "section.md.tmpl", d)
}

// cellList lists the cell sides of the datasets.
func cellList(p *Params) string {
	names := make([]string, 0, len(p.CellM))
	for n := range p.CellM {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %s m", n, harness.FormatSig(p.CellM[n], 4))
	}
	return strings.Join(parts, ", ")
}

// notChecked stands for the coarse side's verdict of a claim checked at
// fine resolution only.
func (m *metres) notChecked() string {
	if m.coarse == paperGrid {
		return "not checked by the paper here"
	}
	return "not checked here"
}

// upperFirst capitalises s's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// cell is a verdict cell of the table; notChecked stands for a side that
// does not check the claim.
func cell(f Found, notChecked string) string {
	if s, ok := noVerdict(f, notChecked); ok {
		return s
	}
	return fmt.Sprintf("%s (`%s`)", verdictWords(f), f.Experiment)
}

// verdictWords is a side's verdict in bold, with the reason of an
// undecided one.
func verdictWords(f Found) string {
	return harness.Claim{Verdict: f.Verdict, Reason: f.Reason}.VerdictWords()
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// num formats a value in metres or a share for a table.
func num(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64) // whole metres
	}
	return harness.FormatSig(v, 3)
}

// value returns c[series][x].
func value(c curves, series string, x float64) (float64, bool) {
	v, ok := c[series][x]
	return v, ok
}

// matched pairs the paper grid's x values of series with the fine grid's.
func matched(d pairData, paperSeries, fineSeries string) [][2]float64 {
	fx := sortedKeys(d.Fine.Curves[fineSeries])
	var out [][2]float64
	for _, x := range sortedKeys(d.Paper.Curves[paperSeries]) {
		if y, ok := Match(fx, x); ok {
			out = append(out, [2]float64{x, y})
		}
	}
	return out
}

// pairOf starts a pair's comparison: its title, both grids' sizes and
// why it has no table, if it has none.
func pairOf(d pairData) pairTable {
	return pairTable{Title: d.Title, CoarseCells: gridLabel(d.Paper), FineCells: gridLabel(d.Fine),
		Missing: strings.Join(nonEmpty(d.Paper.Missing, d.Fine.Missing), "; ")}
}

// pairTables compares a figure's pairs in metres: each pair's table of
// header and the rows that rows builds, or why it has none.
func pairTables(ds []pairData, header []string, rows func(d pairData) [][]string) []pairTable {
	var out []pairTable
	for _, d := range ds {
		t := pairOf(d)
		if t.Missing == "" {
			t.Table = harness.MarkdownTable(header, rows(d))
		}
		out = append(out, t)
	}
	return out
}

// better names the smaller of BA's and LAP's EMD.
func better(ba, lap float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case ba < lap:
		return "BA"
	case lap < ba:
		return "LAP"
	}
	return "tie"
}

func (m *metres) baVsLAP() []pairTable {
	return pairTables(m.bavslap,
		[]string{"beta per km", m.coarse + " BA (m)", m.coarse + " LAP (m)", m.coarse + ": better", "fine BA (m)", "fine LAP (m)", "fine: better"},
		func(d pairData) (rows [][]string) {
			for _, xy := range matched(d, "ba", "ba") {
				pb, ok1 := value(d.Paper.Curves, "ba", xy[0])
				pl, ok2 := value(d.Paper.Curves, "lap", xy[0])
				fb, ok3 := value(d.Fine.Curves, "ba", xy[1])
				fl, ok4 := value(d.Fine.Curves, "lap", xy[1])
				rows = append(rows, []string{harness.FormatSig(xy[0], 3), num(pb, ok1), num(pl, ok2), better(pb, pl, ok1 && ok2),
					num(fb, ok3), num(fl, ok4), better(fb, fl, ok3 && ok4)})
			}
			return rows
		})
}

func (m *metres) privicTable() *privicTable {
	if len(m.privic) == 0 {
		return nil
	}
	out := &privicTable{}
	var rows [][]string
	for _, d := range m.privic {
		if t := pairOf(d); t.Missing != "" {
			out.Notes = append(out.Notes, t.Title+": "+t.Missing)
			continue
		}
		for _, ps := range sortedSeries(d.Paper.Curves) {
			fs, ok := matchSeries(d.Fine.Curves, ps)
			if !ok {
				continue
			}
			x, _ := seriesBeta(ps)
			row := []string{d.Title, harness.FormatSig(x, 3)}
			for _, s := range []struct {
				c      curves
				series string
			}{{d.Paper.Curves, ps}, {d.Fine.Curves, fs}} {
				cyc := sortedKeys(s.c[s.series])
				first, ok1 := value(s.c, s.series, 1)
				last := cyc[len(cyc)-1]
				lv := s.c[s.series][last]
				ratio := "-"
				if ok1 && first > 0 {
					ratio = harness.FormatSig(lv/first, 3)
				}
				row = append(row, fmt.Sprint(last), num(first, ok1), num(lv, true), ratio)
			}
			rows = append(rows, row)
		}
	}
	if len(rows) > 0 {
		out.Table = harness.MarkdownTable([]string{"variant and data", "beta per km", m.coarse + ": cycles", m.coarse + ": cycle 1 (m)",
			m.coarse + ": last (m)", m.coarse + ": last/first", "fine: cycles", "fine: cycle 1 (m)", "fine: last (m)", "fine: last/first"}, rows)
	}
	return out
}

func (m *metres) sweepTables() []pairTable {
	return pairTables(m.sweep,
		[]string{"beta per km", m.coarse + " (m)", "fine (m)", "fine / " + m.coarse},
		func(d pairData) (rows [][]string) {
			for _, xy := range matched(d, "last-cycle", "last-cycle") {
				pv, _ := value(d.Paper.Curves, "last-cycle", xy[0])
				fv, _ := value(d.Fine.Curves, "last-cycle", xy[1])
				rows = append(rows, []string{harness.FormatSig(xy[0], 3), num(pv, true), num(fv, true), harness.FormatSig(fv/pv, 3)})
			}
			return rows
		})
}

func (m *metres) elasticTables() []pairWords {
	var out []pairWords
	for _, d := range m.elastic {
		w := pairWords{Pair: pairOf(d)}
		if d.Fine.Missing == "" {
			w.Maps = &reportMaps{Title: d.Title, Experiment: d.Fine.Experiment, Dataset: d.Fine.Dataset}
		}
		if w.Pair.Missing != "" {
			out = append(out, w)
			continue
		}
		var rows [][]string
		for _, xy := range matched(d, "ba expected_distance_m", "ba expected_distance_m") {
			row := []string{harness.FormatSig(xy[0], 3)}
			for _, s := range []struct {
				c curves
				x float64
			}{{d.Paper.Curves, xy[0]}, {d.Fine.Curves, xy[1]}} {
				for _, mech := range []string{"ba", "lap"} {
					dist, ok1 := value(s.c, mech+" expected_distance_m", s.x)
					des, ok2 := value(s.c, mech+" p_deserted", s.x)
					row = append(row, num(dist, ok1), num(des, ok2))
				}
			}
			rows = append(rows, row)
		}
		w.Pair.Table = harness.MarkdownTable([]string{"beta per km", m.coarse + " BA dist (m)", m.coarse + " BA P(deserted)", m.coarse + " LAP dist (m)",
			m.coarse + " LAP P(deserted)", "fine BA dist (m)", "fine BA P(deserted)", "fine LAP dist (m)", "fine LAP P(deserted)"}, rows)
		out = append(out, w)
	}
	return out
}

func (m *metres) mechanismTables() []pairWords {
	var out []pairWords
	for _, d := range m.mech {
		w := pairWords{Pair: pairOf(d)}
		if w.Pair.Missing != "" {
			out = append(out, w)
			continue
		}
		var rows [][]string
		var alone []string
		for _, sd := range []struct {
			name     string
			own, oth side
		}{{m.gridWords(), d.Paper, d.Fine}, {"fine grid", d.Fine, d.Paper}} {
			for _, ps := range sortedSeries(sd.own.Curves) {
				if name, ok := strings.CutSuffix(ps, " emd_m"); ok && sd.oth.Curves[ps] == nil {
					alone = append(alone, fmt.Sprintf("%s on the %s%s", name, sd.name, labelWords(sd.own.Labels[name])))
				}
			}
		}
		for _, ps := range sortedSeries(d.Paper.Curves) {
			name, ok := strings.CutSuffix(ps, " emd_m")
			if !ok {
				continue
			}
			for _, xy := range matched(d, ps, ps) {
				pe, _ := value(d.Paper.Curves, ps, xy[0])
				pd, okd := value(d.Paper.Curves, name+" avg_distortion_m", xy[0])
				fe, _ := value(d.Fine.Curves, ps, xy[1])
				fd, okf := value(d.Fine.Curves, name+" avg_distortion_m", xy[1])
				cal, mech, _ := strings.Cut(name, " ")
				level := harness.FormatSig(xy[0], 3)
				if cal == "eps" {
					level += " per km"
				} else {
					level += " m"
				}
				if l := nonEmpty(d.Paper.Labels[name][xy[0]], d.Fine.Labels[name][xy[1]]); len(l) > 0 {
					mech += " (" + strings.Join(l, "; ") + ")"
				}
				rows = append(rows, []string{cal, level, mech, num(pe, true), num(pd, okd), num(fe, true), num(fd, okf)})
			}
		}
		if len(rows) > 0 {
			w.Pair.Table = harness.MarkdownTable([]string{"calibration", "level", "mechanism", m.coarse + " EMD (m)", m.coarse + " distortion (m)",
				"fine EMD (m)", "fine distortion (m)"}, rows)
		}
		w.Alone = strings.Join(alone, "; ")
		out = append(out, w)
	}
	return out
}

// labelWords lists a series' labels by level, for prose: "" when none.
func labelWords(byX map[float64]string) string {
	var parts []string
	for _, x := range sortedKeys(byX) {
		parts = append(parts, fmt.Sprintf("at %s: %s", harness.FormatSig(x, 3), byX[x]))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
