package compare

import (
	"fmt"
	"math"
	"strings"

	"privic/datasets"
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

// lpReach states how far each LP path reaches. The numbers were measured
// once on the project's 2-core development machine (load 2-10, so up to 3x
// noisy) with BenchmarkOptimal in kernels/mechanism and longer one-off runs
// of the same code at eps = 1; rerun the benchmark to measure yours.
const lpReach = "How far the optimal mechanism's LP reaches (eps = 1, measured on a shared 2-core machine with " +
	"`go test -bench Optimal ./kernels/mechanism/` and one-off runs of the same code; times up to 3x noisy): " +
	"gonum's dense simplex solves the all-pairs LP on 3x3 cells (657 constraint rows) in 3.5 s and 3x4 in 520 s; " +
	"with the spanner of dilation 1 (neighbour constraints only), 3x4 (708 rows) in 34-43 s, the largest grid under a minute. " +
	"GLPK (`-tags glpk`): all pairs 6x6 in 10 s and 8x8 in 267 s; with the spanner, 8x8 in 25-82 s (dual simplex) " +
	"or 10 s (interior point), the largest grid under a minute; 10x10 did not finish in 120 s. " +
	"The city grids (165 and 384 cells) are beyond both, hence the block coarsening below.\n\n"

// section writes the Markdown section for results/REPORT.md: the set-up,
// per city the figure, the EMD of every mechanism per footing and level
// with the winner, and the parameters calibration found.
func section(p *params, cells []*cell, cals []calRow, wins []winner, figs map[string]string) string {
	var b strings.Builder
	var titles []string
	for _, c := range p.Cities {
		if city, err := datasets.Lookup(c); err == nil {
			titles = append(titles, city.Title)
		}
	}
	fmt.Fprintf(&b, "## Mechanisms on equal footing: %s\n\n", strings.Join(titles, " and "))
	fmt.Fprintf(&b, "Mechanisms %s, calibrated by %s (relative tolerance %s) to %s; %d simulation(s) per level, "+
		"each obfuscating every check-in and estimating the prior with IBU (%d iterations from uniform); EMD is the exact "+
		"earth mover's distance of the estimate to the empirical prior (cells). `frontier.csv` has every simulation, "+
		"`frontier_summary.csv` the means, `winners.csv` the rankings, `calibration.csv` the parameter each level needed.\n\n",
		strings.Join(p.Mechanisms, ", "), p.CalibrationMethod, fmtG(p.CalibrationTol, 3), calList(p), p.Sims, p.IBUIterations)
	fmt.Fprintf(&b, "LAP reports on the grid widened by %d cells per side; the snapped planar Laplace draws the true point %s; "+
		"the optimal mechanism (LP, %s, spanner %d) is solved on blocks of the grid (%s) and lifted back, which is the only way "+
		"its LP fits; at the block borders the lift spends the whole epsilon, so its numbers are those of a coarse optimum, "+
		"not of the optimum on the full grid.\n\n",
		p.LapWiden, map[string]string{"uniform": "uniformly in its cell", "centre": "at its cell's centre"}[p.PlanarPoint],
		p.lpSolver(), p.LP.Spanner, coarsenList(p))
	b.WriteString(lpReach)
	var skipped, jumps []string
	for _, c := range cals {
		if c.status == "jump" {
			jumps = append(jumps, fmt.Sprintf("%s %s at %s %s (reached %s)", c.city, c.mech, c.cal, fmtG(c.level, 4), fmtG(c.value, 4)))
			continue
		}
		if c.status != "ok" {
			skipped = append(skipped, fmt.Sprintf("%s %s at %s %s (%s)", c.city, c.mech, c.cal, fmtG(c.level, 4), shortStatus(c.status)))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "Not run (details in `skipped.csv`): %s.\n\n", strings.Join(skipped, "; "))
	}
	if len(jumps) > 0 {
		fmt.Fprintf(&b, "Levels no parameter reaches because the quantity jumps over them (an LP's optimal vertex "+
			"switches); the channel just on the private side of the jump is measured instead: %s.\n\n", strings.Join(jumps, "; "))
	}
	for _, city := range p.Cities {
		fmt.Fprintf(&b, "### %s\n\n", cityTitle(city))
		if f, ok := figs[city]; ok {
			fmt.Fprintf(&b, "![Frontier of the mechanisms on %s](%s.png)\n\n", cityTitle(city), f)
		}
		for _, cal := range p.Calibrations {
			levels := p.levels(cal).Values()
			var mechs []string
			for _, c := range cells {
				if c.city == city && c.cal == cal && !contains(mechs, c.mech) {
					mechs = append(mechs, c.mech)
				}
			}
			if len(mechs) == 0 {
				continue
			}
			fmt.Fprintf(&b, "At %s, mean EMD (cells; lowest in bold) and the mechanism's parameter "+
				"([jump: v] where the level was not reachable and the value v was measured instead):\n\n", calName(cal))
			header := append([]string{"level"}, mechs...)
			var rows [][]string
			for _, l := range levels {
				row := []string{fmtG(l, 4)}
				best := ""
				for _, w := range wins {
					if w.city == city && w.cal == cal && w.level == l && w.criterion == "emd" {
						best = w.winner
					}
				}
				for _, m := range mechs {
					v := "—"
					for _, c := range cells {
						if c.city == city && c.cal == cal && c.level == l && c.mech == m {
							v = fmt.Sprintf("%s (%s)", fmtG(c.emdMean, 4), fmtG(c.param, 4))
							for _, k := range cals {
								if k.city == city && k.cal == cal && k.level == l && k.mech == m && k.status == "jump" {
									v += fmt.Sprintf(" [jump: %s]", fmtG(k.value, 4))
								}
							}
							if m == best {
								v = "**" + v + "**"
							}
						}
					}
					row = append(row, v)
				}
				rows = append(rows, row)
			}
			b.WriteString(mdTable(header, rows))
			b.WriteString("\n")
			b.WriteString(verdict(city, cal, wins))
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// verdict says in words who wins each criterion across the levels.
func verdict(city, cal string, wins []winner) string {
	var parts []string
	for _, cr := range criteria(cal) {
		var order []string
		by := map[string][]string{}
		for _, w := range wins {
			if w.city != city || w.cal != cal || w.criterion != cr[0] || math.IsNaN(w.value) {
				continue
			}
			if _, ok := by[w.winner]; !ok {
				order = append(order, w.winner)
			}
			by[w.winner] = append(by[w.winner], fmtG(w.level, 4))
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
	return "Best — " + strings.Join(parts, ". ") + "."
}

func calList(p *params) string {
	var s []string
	for _, c := range p.Calibrations {
		var v []string
		for _, x := range p.levels(c).Values() {
			v = append(v, fmtG(x, 4))
		}
		s = append(s, fmt.Sprintf("%s (%s)", calName(c), strings.Join(v, ", ")))
	}
	return strings.Join(s, "; ")
}

func coarsenList(p *params) string {
	var s []string
	for _, c := range p.Cities {
		k := p.coarsen(c)
		s = append(s, fmt.Sprintf("%s %dx%d", c, k, k))
	}
	return strings.Join(s, ", ")
}
