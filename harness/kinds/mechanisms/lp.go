package mechanisms

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"privic/harness"
)

// lpSolve is one row of lp_solves.csv.
type lpSolve struct {
	city, mech, cal, prior, solver, method string
	level, dilation, eps, primal, dual     float64
	gap, tight, seconds                    float64
	rounds, constraints                    int
	warm                                   bool
}

func readLPSolves(t *harness.Table) ([]lpSolve, error) {
	rd, err := t.Reader("city", "mechanism", "calibration", "level", "prior", "solver", "method", "dilation",
		"constraints", "rounds", "warm", "eps", "primal", "dual", "gap", "tight_epsilon", "seconds")
	if err != nil {
		return nil, err
	}
	var rows []lpSolve
	for i := range t.Rows {
		rows = append(rows, lpSolve{city: rd.Str(i, "city"), mech: rd.Str(i, "mechanism"), cal: rd.Str(i, "calibration"),
			prior: rd.Str(i, "prior"), solver: rd.Str(i, "solver"), method: rd.Str(i, "method"), level: rd.Float(i, "level"),
			dilation: rd.Float(i, "dilation"), eps: rd.Float(i, "eps"), primal: rd.Float(i, "primal"), dual: rd.Float(i, "dual"),
			gap: rd.Float(i, "gap"), tight: rd.Float(i, "tight_epsilon"), seconds: rd.Float(i, "seconds"),
			rounds: rd.Int(i, "rounds"), constraints: rd.Int(i, "constraints"), warm: rd.Str(i, "warm") == "true"})
	}
	return rows, rd.Err()
}

// lpWords summarises the solves of each (city, mechanism) for the
// report: how many, the program, the rounds, the times of cold and warm
// solves, the largest certified gap and the largest tight epsilon
// relative to the eps solved for.
func lpWords(solves []lpSolve) []string {
	type key struct{ city, mech string }
	groups := map[key][]lpSolve{}
	var keys []key
	for _, s := range solves {
		k := key{s.city, s.mech}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	sig := harness.FormatSig
	var out []string
	for _, k := range keys {
		g := groups[k]
		var cold, warm, rounds []float64
		maxGap, maxRatio := 0.0, 0.0
		for _, s := range g {
			if s.warm {
				warm = append(warm, s.seconds)
			} else {
				cold = append(cold, s.seconds)
			}
			rounds = append(rounds, float64(s.rounds))
			maxGap = math.Max(maxGap, s.gap)
			maxRatio = math.Max(maxRatio, s.tight/s.eps)
		}
		pairs := "all pairs"
		if g[0].dilation > 1 {
			pairs = fmt.Sprintf("spanner of dilation δ = %s (constraints on its edges at eps/δ)", sig(g[0].dilation, 4))
		}
		w := fmt.Sprintf("%s, %s: %d solves (%s, %s; %s, %d constraints), %s-%s rounds, cold solves median %s s (max %s s)",
			k.city, k.mech, len(g), g[0].solver, g[0].method, pairs, g[0].constraints,
			sig(slices.Min(rounds), 3), sig(slices.Max(rounds), 3), sig(median(cold), 3), sig(maxOf(cold), 3))
		if len(warm) > 0 {
			w += fmt.Sprintf(", warm-started median %s s", sig(median(warm), 3))
		}
		w += fmt.Sprintf("; largest relative duality gap %s, largest tight epsilon / eps %s.", sig(maxGap, 2), sig(maxRatio, 10))
		out = append(out, w)
	}
	return out
}

// optimumWords compares, at each equal-tight-epsilon level, the exact
// optimum's average distortion (its own objective) with the lowest of
// the other mechanisms', and its EMD with LAP's.
func optimumWords(p *params, cells []*cell, solves []lpSolve) []string {
	exact := map[string]bool{} // city/mechanism solved on the whole grid
	for _, s := range solves {
		exact[s.city+"/"+s.mech] = true
	}
	type key struct {
		city  string
		level float64
	}
	byLevel := map[key][]*cell{}
	var keys []key
	for _, c := range cells {
		if c.cal != "eps" {
			continue
		}
		k := key{c.city, c.level}
		if _, ok := byLevel[k]; !ok {
			keys = append(keys, k)
		}
		byLevel[k] = append(byLevel[k], c)
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].city == keys[j].city && keys[i].level < keys[j].level })
	sig := harness.FormatSig
	var out []string
	for _, k := range keys {
		var opt, best, lap *cell
		for _, c := range byLevel[k] {
			switch {
			case exact[c.city+"/"+c.mech]:
				opt = c
			case c.mech == "lap":
				lap = c
			}
			if !exact[c.city+"/"+c.mech] && (best == nil || c.dist < best.dist) {
				best = c
			}
		}
		if opt == nil || best == nil {
			continue
		}
		verdict := "below"
		if opt.dist > best.dist {
			verdict = "ABOVE"
		}
		w := fmt.Sprintf("%s, tight eps %s: the optimum's average distortion %s is %s the lowest other (%s, %s)",
			p.Title(k.city), sig(k.level, 3), sig(opt.dist, 5), verdict, best.mech, sig(best.dist, 5))
		if lap != nil {
			w += fmt.Sprintf("; EMD %s against LAP's %s", sig(opt.emdMean, 3), sig(lap.emdMean, 3))
		}
		out = append(out, w+".")
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func maxOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Max(v)
}

// lpParagraph is the section's sentence on how the optimal mechanism was
// solved: on blocks (the coarse stand-in) or on the whole grid.
func lpParagraph(p *params) string {
	var coarse, whole []string
	for _, c := range p.Cities {
		if k := p.coarsen(c); k > 1 {
			coarse = append(coarse, fmt.Sprintf("%s in %dx%d blocks", c, k, k))
		} else {
			whole = append(whole, c)
		}
	}
	var s []string
	if len(whole) > 0 {
		s = append(s, fmt.Sprintf("solved exactly on the whole grid of %s (certified Dantzig-Wolfe decomposition by output cell with the %s solver: every solve has a certified lower bound, its relative duality gap is at most 1e-6, and the channel's exact tight epsilon is checked to be at most eps; calibrations over eps start each solve from the previous one's columns and duals; per-solve statistics in `lp_solves.csv`)",
			strings.Join(whole, ", "), p.lpSolver()))
	}
	if len(coarse) > 0 {
		s = append(s, fmt.Sprintf("solved on blocks of the grid (%s) and lifted back: at the block borders the lift spends the whole epsilon, so those numbers are a coarse optimum's, not the optimum's", strings.Join(coarse, ", ")))
	}
	return strings.Join(s, "; ")
}
