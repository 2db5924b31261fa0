package resolution

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"privic/harness"
)

// section writes the kind's part of the report.
func section(p *Params, rows []Row, m *metres) string {
	var b strings.Builder
	b.WriteString("## At finer resolution\n\n")
	paperWords := m.coarse == paperGrid
	if paperWords {
		b.WriteString("The paper checks its claims on grids of about 480 m (Paris) and 500 m (San Francisco) cells. ")
		b.WriteString("Here each claim is checked again on the raw check-ins of the same regions gridded much finer, ")
		b.WriteString("with every beta and epsilon scaled by the ratio of the cell sides, so that the privacy per metre is the paper's. ")
	} else {
		b.WriteString("Each claim is checked on a coarse grid and again on a fine one, as the experiments named below ran them. ")
	}
	b.WriteString("Distances (EMD, distortion, expected distance of a report) are in metres, so the two resolutions compare. ")
	b.WriteString("Cell sides: " + cellList(p) + ".\n\n")

	b.WriteString("### Verdicts at both resolutions\n\n")
	tr := make([][]string, len(rows))
	for i, r := range rows {
		tr[i] = []string{r.Claim, r.City, cell(r.Paper, m.notChecked()), cell(r.Fine, m.notChecked()), r.Change}
	}
	b.WriteString(harness.MarkdownTable([]string{"claim", "data", m.gridWords(), "fine grid", "change"}, tr))
	b.WriteString("\n")
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Change]++
	}
	fmt.Fprintf(&b, "%d claims compared: %d keep their verdict, %d are stronger and %d weaker at fine resolution, "+
		"%d are undecided at fine resolution and %d decided there only, %d are checked at fine resolution only, %d were not run at fine resolution.\n\n",
		len(rows), counts[Same], counts[Stronger], counts[Weaker], counts[UndecidedFine], counts[DecidedFine], counts[FineOnly], counts[NotRunFine]+counts[NotRun])

	b.WriteString("### Where the verdict changes with resolution\n\n")
	b.WriteString("Each experiment judges a claim by the same rule at both resolutions, stated in the claim's own units: ")
	if paperWords {
		b.WriteString("distances in metres (one paper cell is 500 m), comparisons of means by Welch's test over the simulations, ")
	} else {
		b.WriteString("distances in metres, comparisons of means by Welch's test over the simulations, ")
	}
	b.WriteString("singular values against each matrix's own floating-point noise floor. ")
	b.WriteString("An undecided verdict is not a failure: the evidence cannot decide the rule, and its reason says why.\n\n")
	changed := 0
	for _, r := range rows {
		if r.Change != Stronger && r.Change != Weaker && r.Change != UndecidedFine && r.Change != DecidedFine {
			continue
		}
		changed++
		fmt.Fprintf(&b, "- **%s** (%s): %s on the %s (%s), %s at fine resolution (%s): %s.\n"+
			"  - Rule: %s\n  - %s: %s\n  - Fine grid: %s\n",
			r.Claim, r.City, verdictWords(r.Paper), m.gridWords(), r.Paper.Experiment, verdictWords(r.Fine), r.Fine.Experiment, r.Change,
			oneLine(r.Fine.Rule), upperFirst(m.gridWords()), oneLine(r.Paper.Evidence), oneLine(r.Fine.Evidence))
	}
	if changed == 0 {
		b.WriteString("No claim changes its verdict.\n")
	}
	b.WriteString("\n")

	var only, missing, same []Row
	for _, r := range rows {
		switch r.Change {
		case FineOnly:
			only = append(only, r)
		case NotRunFine, NotRun:
			missing = append(missing, r)
		case Same:
			same = append(same, r)
		}
	}
	if len(only) > 0 {
		b.WriteString("### Checked at fine resolution only\n\n")
		for _, r := range only {
			why := "the " + m.coarse + " grid's experiments check it on another dataset only"
			if paperWords {
				why = "the paper checks it on another dataset only"
			}
			if r.Paper.Missing != "" {
				why = r.Paper.Missing
			}
			fmt.Fprintf(&b, "- **%s** (%s): %s at fine resolution (%s; %s). %s\n",
				r.Claim, r.City, verdictWords(r.Fine), r.Fine.Experiment, why, oneLine(r.Fine.Evidence))
		}
		b.WriteString("\n")
	}
	if len(missing) > 0 {
		b.WriteString("### Not run\n\n")
		for _, r := range missing {
			fmt.Fprintf(&b, "- %s (%s): %s\n", r.Claim, r.City, strings.Join(nonEmpty(r.Paper.Missing, r.Fine.Missing), "; "))
		}
		b.WriteString("\n")
	}
	if len(same) > 0 {
		b.WriteString("### Evidence of the claims that keep their verdict\n\n")
		for _, r := range same {
			fmt.Fprintf(&b, "- **%s** (%s), %s at both resolutions.\n  - Rule: %s\n  - %s (%s): %s\n  - Fine grid (%s): %s\n",
				r.Claim, r.City, verdictWords(r.Fine), oneLine(r.Fine.Rule), upperFirst(m.gridWords()), r.Paper.Experiment, oneLine(r.Paper.Evidence), r.Fine.Experiment, oneLine(r.Fine.Evidence))
		}
		b.WriteString("\n")
	}

	b.WriteString("### In metres\n\n")
	b.WriteString("Every number below is also in `in_metres.csv` (one row per grid, series and x).\n\n")
	m.writeBAvsLAP(&b)
	m.writePRIVIC(&b)
	m.writeSweep(&b)
	m.writeElastic(&b)
	m.writeMechanisms(&b)
	return b.String()
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

// missingNote says why a pair has no table.
func missingNote(b *strings.Builder, d pairData) bool {
	if d.Paper.Missing == "" && d.Fine.Missing == "" {
		return false
	}
	fmt.Fprintf(b, "%s: %s.\n\n", d.Title, strings.Join(nonEmpty(d.Paper.Missing, d.Fine.Missing), "; "))
	return true
}

// writePairTable writes one pair's comparison: its title with both grids'
// sizes, then the table of header and rows.
func writePairTable(b *strings.Builder, d pairData, header []string, rows [][]string) {
	fmt.Fprintf(b, "%s (%s cells vs %s cells):\n\n", d.Title, gridLabel(d.Paper), gridLabel(d.Fine))
	b.WriteString(harness.MarkdownTable(header, rows))
	b.WriteString("\n")
}

// writePairs writes a figure's comparison in metres: nothing when there
// are no pairs, else intro and then, pair by pair, why it has no table
// (missingNote) or its table of header and the rows that rows builds.
func writePairs(b *strings.Builder, intro string, ds []pairData, header []string, rows func(d pairData) [][]string) {
	if len(ds) == 0 {
		return
	}
	b.WriteString(intro)
	for _, d := range ds {
		if missingNote(b, d) {
			continue
		}
		writePairTable(b, d, header, rows(d))
	}
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

func (m *metres) writeBAvsLAP(b *strings.Builder) {
	writePairs(b, "**BA vs LAP (Fig. 3)**: mean EMD of the IBU estimate to the prior, LAP at BA's tight epsilon, at the same beta per km.\n\n"+
		"![BA vs LAP at both resolutions](ba-vs-lap-metres.png)\n\n", m.bavslap,
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

func (m *metres) writePRIVIC(b *strings.Builder) {
	if len(m.privic) == 0 {
		return
	}
	b.WriteString("**PRIVIC per cycle (Fig. 8-9, Tables III-IV)**: mean EMD to the prior over the rounds after cycle 1 and after the last cycle.\n\n")
	b.WriteString("![PRIVIC's EMD per cycle at both resolutions](privic-metres.png)\n\n")
	var rows [][]string
	for _, d := range m.privic {
		if missingNote(b, d) {
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
		b.WriteString(harness.MarkdownTable([]string{"variant and data", "beta per km", m.coarse + ": cycles", m.coarse + ": cycle 1 (m)",
			m.coarse + ": last (m)", m.coarse + ": last/first", "fine: cycles", "fine: cycle 1 (m)", "fine: last (m)", "fine: last/first"}, rows))
		b.WriteString("\n")
	}
}

func (m *metres) writeSweep(b *strings.Builder) {
	writePairs(b, "**Beta sweep (Fig. 10)**: mean EMD to the prior after the last cycle.\n\n", m.sweep,
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

func (m *metres) writeElastic(b *strings.Builder) {
	if len(m.elastic) == 0 {
		return
	}
	b.WriteString("**Elastic privacy at A (Fig. 2)**: expected distance of A's report and the chance that it lands on a deserted cell.\n\n")
	for _, d := range m.elastic {
		if d.Fine.Missing == "" {
			fmt.Fprintf(b, "![%s: reports of A](../%s/reports-a-%s.png)\n![%s: reports of B](../%s/reports-b-%s.png)\n\n",
				d.Title, d.Fine.Experiment, d.Fine.Dataset, d.Title, d.Fine.Experiment, d.Fine.Dataset)
		}
		if missingNote(b, d) {
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
		writePairTable(b, d, []string{"beta per km", m.coarse + " BA dist (m)", m.coarse + " BA P(deserted)", m.coarse + " LAP dist (m)",
			m.coarse + " LAP P(deserted)", "fine BA dist (m)", "fine BA P(deserted)", "fine LAP dist (m)", "fine LAP P(deserted)"}, rows)
	}
}

func (m *metres) writeMechanisms(b *strings.Builder) {
	if len(m.mech) == 0 {
		return
	}
	b.WriteString("**Mechanisms' frontier**: EMD and average distortion in metres at the same tight epsilon per km or the same distortion in metres. " +
		"Mechanisms meet by their full names: the optimal mechanism's LP on blocks of the fine grid (`-coarseK`) is another mechanism than its LP on the whole " + m.coarse + " grid.\n\n")
	for _, d := range m.mech {
		if missingNote(b, d) {
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
		if len(rows) == 0 {
			fmt.Fprintf(b, "%s (%s cells vs %s cells):\n\n", d.Title, gridLabel(d.Paper), gridLabel(d.Fine))
			b.WriteString("No level of the " + m.gridWords() + " has a match on the fine grid.\n\n")
		} else {
			writePairTable(b, d, []string{"calibration", "level", "mechanism", m.coarse + " EMD (m)", m.coarse + " distortion (m)",
				"fine EMD (m)", "fine distortion (m)"}, rows)
		}
		if len(alone) > 0 {
			fmt.Fprintf(b, "On one grid only: %s.\n\n", strings.Join(alone, "; "))
		}
	}
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
