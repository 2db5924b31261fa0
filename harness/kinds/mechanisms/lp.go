package mechanisms

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"privic/harness"
	"privic/kernels/mechanism"
)

// lpRow is one LP solve of a job, before it is a row of lp_solves.csv:
// the prior it was solved on ("city", "island"), its role ("solve",
// "relaxation"), its status ("ok", "time limit") and its statistics.
type lpRow struct {
	prior, role, status string
	st                  mechanism.LPStats
}

// bracket is a certified lower and upper bound on the optimal average
// distortion of the all-pairs LP (eps-geo-indistinguishability between
// every pair of cells) at one eps.
type bracket struct{ lower, upper float64 }

// gap is the relative gap (upper - lower) / upper (NaN without an upper
// bound).
func (b bracket) gap() float64 { return (b.upper - b.lower) / b.upper }

// certified is the largest all-pairs gap at which a channel is called
// the optimum.
const certified = 1e-6

// brackets gives each solve's bracket on the all-pairs optimum OPT(eps)
// at its eps, from the solves on the same prior. Upper: the solve's own
// primal when it returned a channel (its tight epsilon is checked to be
// at most eps, so it is feasible for all pairs), NaN otherwise. Lower:
// the largest certified bound (dual) of a solve s on the same prior with
// eps_s/δ_s >= eps, 0 when there is none (a distortion is >= 0). A solve
// constrains the spanner's edges (all pairs when δ = 1) at eps_s/δ_s, a
// relaxation of the all-pairs LP at eps_s/δ_s, and OPT does not increase
// with eps, so its bound holds for every eps <= eps_s/δ_s.
func brackets(rows []lpRow) []bracket {
	out := make([]bracket, len(rows))
	for i, r := range rows {
		b := bracket{lower: 0, upper: math.NaN()}
		if r.status == "ok" {
			b.upper = r.st.Primal
		}
		for _, s := range rows {
			if s.prior == r.prior && !math.IsNaN(s.st.Dual) && s.st.Eps/s.st.Dilation >= r.st.Eps {
				b.lower = math.Max(b.lower, s.st.Dual)
			}
		}
		out[i] = b
	}
	return out
}

// bracketAt is the bracket of the solve that made the calibrated channel:
// a solve on the city prior at parameter eps that returned it.
func bracketAt(rows []lpRow, br []bracket, eps float64) (bracket, bool) {
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		if r.prior == "city" && r.role == "solve" && r.status == "ok" && r.st.Eps == eps {
			return br[i], true
		}
	}
	return bracket{}, false
}

// lpSolve is one row of lp_solves.csv.
type lpSolve struct {
	city, mech, cal, prior, solver, method string
	role, status                           string
	level, dilation, eps, primal, dual     float64
	gap, tight, seconds                    float64
	lower, upper, allGap                   float64
	rounds, constraints                    int
	warm                                   bool
}

func readLPSolves(t *harness.Table) ([]lpSolve, error) {
	rd, err := t.Reader("city", "mechanism", "calibration", "level", "prior", "solver", "method", "dilation",
		"constraints", "rounds", "warm", "eps", "primal", "dual", "gap", "tight_epsilon", "seconds", "role", "status", "lower", "upper", "all_pairs_gap")
	if err != nil {
		return nil, err
	}
	var rows []lpSolve
	for i := range t.Rows {
		rows = append(rows, lpSolve{city: rd.Str(i, "city"), mech: rd.Str(i, "mechanism"), cal: rd.Str(i, "calibration"),
			prior: rd.Str(i, "prior"), solver: rd.Str(i, "solver"), method: rd.Str(i, "method"), level: rd.Float(i, "level"),
			dilation: rd.Float(i, "dilation"), eps: rd.Float(i, "eps"), primal: rd.Float(i, "primal"), dual: rd.Float(i, "dual"),
			gap: rd.Float(i, "gap"), tight: rd.Float(i, "tight_epsilon"), seconds: rd.Float(i, "seconds"),
			rounds: rd.Int(i, "rounds"), constraints: rd.Int(i, "constraints"), warm: rd.Str(i, "warm") == "true",
			role: rd.Str(i, "role"), status: rd.Str(i, "status"), lower: rd.Float(i, "lower"), upper: rd.Float(i, "upper"), allGap: rd.Float(i, "all_pairs_gap")})
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
	relax := map[key][]lpSolve{}
	for _, s := range solves {
		k := key{s.city, s.mech}
		if s.role == "relaxation" {
			relax[k] = append(relax[k], s)
			continue
		}
		if s.status != "ok" {
			continue
		}
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
		w += fmt.Sprintf("; largest relative duality gap %s, largest tight epsilon / eps %s", sig(maxGap, 2), sig(maxRatio, 10))
		if r := relax[k]; len(r) > 0 {
			var secs []float64
			timedOut := 0
			for _, s := range r {
				secs = append(secs, s.seconds)
				if s.status != "ok" {
					timedOut++
				}
			}
			w += fmt.Sprintf("; %d relaxations (the spanner's edges at the full eps) for the certified lower bounds, median %s s", len(r), sig(median(secs), 3))
			if timedOut > 0 {
				w += fmt.Sprintf(" (%d stopped at the time limit: their bound is the best reached)", timedOut)
			}
		}
		out = append(out, w+".")
	}
	return out
}

// optimumWords compares, at each equal-tight-epsilon level, the optimal
// mechanism's average distortion (its own objective) with the lowest of
// the other mechanisms', and its EMD with LAP's. It is called the
// optimum only where the all-pairs gap is certified; elsewhere it is the
// LP's channel, an upper bound, with the bracket on the optimum.
func optimumWords(p *params, cells []*cell) []string {
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
			case c.hasBracket():
				opt = c
			case c.mech == "lap":
				lap = c
			}
			if !c.hasBracket() && !c.degenerate() && (best == nil || c.dist < best.dist) {
				best = c
			}
		}
		if opt == nil || best == nil {
			continue
		}
		rel := "below"
		if opt.dist > best.dist {
			rel = "ABOVE"
		}
		what := fmt.Sprintf("the optimum's average distortion %s (all-pairs gap %s)", sig(opt.dist, 5), sig(opt.opt.gap(), 2))
		if !opt.optimal() {
			what = fmt.Sprintf("the %s LP's channel has average distortion %s, an upper bound: the all-pairs optimum lies in [%s, %s] (gap %s); the channel's distortion",
				opt.mech, sig(opt.dist, 5), sig(opt.opt.lower, 5), sig(opt.opt.upper, 5), sig(opt.opt.gap(), 2))
		}
		w := fmt.Sprintf("%s, tight eps %s: %s is %s the lowest other (%s, %s)", p.Title(k.city), sig(k.level, 3), what, rel, best.mech, sig(best.dist, 5))
		if !opt.optimal() && best.dist < opt.opt.upper {
			w += fmt.Sprintf("; the optimum itself cannot be above %s's %s (a channel of the same tight epsilon, up to the calibration's tolerance)", best.mech, sig(best.dist, 5))
		}
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
	var allPairs, spanned []string
	for _, c := range whole {
		if p.spanner(c) > 0 {
			spanned = append(spanned, c)
		} else {
			allPairs = append(allPairs, c)
		}
	}
	how := fmt.Sprintf("certified Dantzig-Wolfe decomposition by output cell with the %s solver: every solve has a certified lower bound, its relative duality gap is at most 1e-6, and the channel's exact tight epsilon is checked to be at most eps; calibrations over eps start each solve from the previous one's columns and duals; per-solve statistics, with the bracket on the all-pairs optimum, in `lp_solves.csv`", p.lpSolver())
	if len(allPairs) > 0 {
		s = append(s, fmt.Sprintf("solved exactly on the whole grid of %s with every pair of cells constrained (%s)", strings.Join(allPairs, ", "), how))
	}
	if len(spanned) > 0 {
		s = append(s, fmt.Sprintf("solved on the whole grid of %s with the constraints of a spanner at eps/δ (%s): a restriction of the all-pairs problem, so its channel is an upper bound on the optimum, "+
			"bracketed from below by the certified bound of the same spanner's edges at the full eps (a relaxation); it is called optimal only where the all-pairs gap is at most 1e-6",
			strings.Join(spanned, ", "), how))
	}
	if len(coarse) > 0 {
		s = append(s, fmt.Sprintf("solved on blocks of the grid (%s) and lifted back: at the block borders the lift spends the whole epsilon, so those numbers are a coarse optimum's, not the optimum's", strings.Join(coarse, ", ")))
	}
	return strings.Join(s, "; ")
}
