package mechanisms

import (
	"embed"
	"fmt"
	"math"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
)

// calName is the prose name of a calibration.
func calName(cal string) string {
	switch cal {
	case "eps":
		return "equal tight epsilon"
	case "distortion":
		return "equal average distortion (cells)"
	}
	return "equal mutual information (nats)"
}

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Titles, Mechanisms, Cells         []string
	Method, Tol, Calibrations, Points string
	Sims, IBUIterations, LapWiden     int
	// LPWords says how the optimal mechanism was solved; Coarse whether
	// on blocks for some city; LPSolves and Optimum summarise its solves
	// and compare it with the others (whole grids only).
	LPWords string
	Coarse  bool
	// Paper says whether a dataset of the spec is the paper's: only then
	// does the section quote the LP's times on the paper's cities.
	Paper             bool
	LPSolves, Optimum []string
	Skipped, Jumps    []string
	Cities            []citySection
}

// citySection is one city's part: its figure and a table per footing.
type citySection struct {
	Title, Figure string
	Footings      []footing
}

// footing is the EMD of every mechanism at one calibration, and who wins.
type footing struct {
	Name    string
	Header  []string
	Rows    [][]string
	Verdict string
}

// section writes the Markdown section for results/REPORT.md: the set-up,
// per city the figure, the EMD of every mechanism per footing and level
// with the winner, and the parameters calibration found.
func section(p *params, cells []*cell, cals []calRow, wins []winner, solves []lpSolve, figs harness.Figures) (string, error) {
	d := sectionData{Mechanisms: p.Mechanisms, Method: p.CalibrationMethod, Tol: harness.FormatSig(p.CalibrationTol, 3),
		Calibrations: calList(p), Sims: p.Sims, IBUIterations: p.IBUIterations, LapWiden: p.LapWiden,
		Points:  map[string]string{"uniform": "uniformly in its cell", "centre": "at its cell's centre"}[p.PlanarPoint],
		LPWords: lpParagraph(p), LPSolves: lpWords(solves), Optimum: optimumWords(p, cells), Paper: paper.Any(p.Cities...)}
	for _, c := range p.Cities {
		d.Coarse = d.Coarse || p.coarsen(c) > 1
	}
	sig := harness.FormatSig
	for _, c := range cals {
		switch {
		case c.status == "jump":
			d.Jumps = append(d.Jumps, fmt.Sprintf("%s %s at %s %s (reached %s)", c.city, c.mech, c.cal, sig(c.level, 4), sig(c.value, 4)))
		case c.status != "ok":
			d.Skipped = append(d.Skipped, fmt.Sprintf("%s %s at %s %s (%s)", c.city, c.mech, c.cal, sig(c.level, 4), shortStatus(c.status)))
		}
		if c.missing != "" {
			d.Skipped = append(d.Skipped, fmt.Sprintf("%s %s at %s %s: %s only (the level's channel and its frontier rows stand)",
				c.city, c.mech, c.cal, sig(c.level, 4), missingWhat(c.missing)))
		}
	}
	for _, city := range p.Cities {
		d.Titles = append(d.Titles, p.Title(city))
		if ds, err := p.Dataset(city, p.Rows); err == nil {
			d.Cells = append(d.Cells, p.Title(city)+": "+param.CellWords(ds))
		}
		cs := citySection{Title: p.Title(city)}
		if slices.ContainsFunc(figs, func(f harness.NamedFigure) bool { return f.Base == "frontier-"+city }) {
			cs.Figure = "frontier-" + city
		}
		for _, cal := range p.Calibrations {
			if f, ok := footingOf(p, city, cal, cells, cals, wins); ok {
				cs.Footings = append(cs.Footings, f)
			}
		}
		d.Cities = append(d.Cities, cs)
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}

// footingOf is a city's table at calibration cal: per level, every
// mechanism's mean EMD and parameter, the winner in bold.
func footingOf(p *params, city, cal string, cells []*cell, cals []calRow, wins []winner) (footing, bool) {
	var mechs []string
	for _, c := range cells {
		if c.city == city && c.cal == cal && !slices.Contains(mechs, c.mech) {
			mechs = append(mechs, c.mech)
		}
	}
	if len(mechs) == 0 {
		return footing{}, false
	}
	sig := harness.FormatSig
	f := footing{Name: calName(cal), Header: append([]string{"level"}, mechs...), Verdict: bestWords(city, cal, wins)}
	for _, l := range p.levels(cal).Values() {
		row := []string{sig(l, 4)}
		best := ""
		for _, w := range wins {
			if w.city == city && w.cal == cal && w.level == l && w.criterion == "emd" {
				best = w.winner
			}
		}
		for _, m := range mechs {
			v := "—"
			for _, c := range cells {
				if c.city != city || c.cal != cal || c.level != l || c.mech != m {
					continue
				}
				v = fmt.Sprintf("%s (%s)", sig(c.emdMean, 4), sig(c.param, 4))
				if c.degenerate() {
					v += " [degenerate: constant channel]"
				}
				for _, k := range cals {
					if k.city == city && k.cal == cal && k.level == l && k.mech == m && k.status == "jump" {
						v += fmt.Sprintf(" [jump: %s]", sig(k.value, 4))
					}
				}
				if m == best {
					v = "**" + v + "**"
				}
			}
			row = append(row, v)
		}
		f.Rows = append(f.Rows, row)
	}
	return f, true
}

// bestWords says in words who wins each criterion across the levels,
// and where the criterion ties.
func bestWords(city, cal string, wins []winner) string {
	var parts []string
	for _, cr := range criteria(cal) {
		var order []string
		by := map[string][]string{}
		for _, w := range wins {
			if w.city != city || w.cal != cal || w.criterion != cr[0] || math.IsNaN(w.value) {
				continue
			}
			who := w.winner
			if who == "" {
				who = "tie of " + strings.Join(w.tied, ", ")
			}
			if _, ok := by[who]; !ok {
				order = append(order, who)
			}
			by[who] = append(by[who], harness.FormatSig(w.level, 4))
		}
		if len(order) == 0 {
			continue
		}
		var who []string
		for _, m := range order {
			who = append(who, fmt.Sprintf("%s (levels %s)", m, strings.Join(by[m], ", ")))
		}
		parts = append(parts, fmt.Sprintf("%s %s: %s", cr[1], strings.ReplaceAll(cr[0], "_", " "), strings.Join(who, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Best (significant, or a tie; degenerate channels do not compete) — " + strings.Join(parts, ". ") + "."
}

func calList(p *params) string {
	var s []string
	for _, c := range p.Calibrations {
		s = append(s, fmt.Sprintf("%s (%s)", calName(c), harness.FormatList(p.levels(c).Values(), 4)))
	}
	return strings.Join(s, "; ")
}

// shortStatus keeps the first clause of a status for prose.
func shortStatus(s string) string {
	if i := strings.Index(s, ": "); i >= 0 {
		return s[:i]
	}
	return s
}

// missingWhat keeps the part of a missing note before its reason:
// "identification of A on the island prior (time limit)".
func missingWhat(s string) string {
	what, why, ok := strings.Cut(s, ": ")
	if !ok {
		return s
	}
	return what + " (" + shortStatus(why) + ")"
}
