package bavslap

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/verdict"
)

func checkClaims(p *params, cells []*cell, levels []levelRow) []harness.Claim {
	var claims []harness.Claim
	for _, city := range p.Cities {
		if c, ok := crossoverClaim(p, city, cells, false); ok {
			claims = append(claims, c)
		}
	}
	for _, city := range p.Cities {
		if p.defectSims(p.IsPreset(city)) > 0 {
			if c, ok := crossoverClaim(p, city, cells, true); ok {
				claims = append(claims, c)
			}
		}
	}
	for _, city := range p.Cities {
		if c, ok := convergeClaim(p, city, cells); ok {
			claims = append(claims, c)
		}
	}
	for _, city := range p.Cities {
		var betas, tights []float64
		for _, l := range levels {
			if l.city == city {
				betas = append(betas, l.beta)
				tights = append(tights, l.tight)
			}
		}
		if len(betas) > 0 {
			claims = append(claims, paper.GeoIndClaim(p.Title(city), fmt.Sprintf("%s, %d BA channels (empirical prior)", city, len(betas)), betas, tights))
		}
	}
	return claims
}

// samples returns the betas of one city and mechanism in order, with the
// EMD of every simulation (or with defect the reference code's defective
// value, where measured).
func samples(cells []*cell, city, mech string, defect bool) (betas []float64, sims [][]float64) {
	var sel []*cell
	for _, c := range cells {
		if c.city == city && c.mech == mech && (!defect || len(c.defect) > 0) {
			sel = append(sel, c)
		}
	}
	sort.Slice(sel, func(i, j int) bool { return sel[i].beta < sel[j].beta })
	for _, c := range sel {
		betas = append(betas, c.beta)
		if defect {
			sims = append(sims, c.defect)
		} else {
			sims = append(sims, c.emd)
		}
	}
	return betas, sims
}

// simsPerBeta says how many simulations per beta a comparison rests on.
func simsPerBeta(sims ...[][]float64) string {
	var ns []int
	for _, s := range sims {
		for _, v := range s {
			if !slices.Contains(ns, len(v)) {
				ns = append(ns, len(v))
			}
		}
	}
	slices.Sort(ns)
	var w []string
	for _, n := range ns {
		w = append(w, fmt.Sprint(n))
	}
	return strings.Join(w, " or ") + " per beta and mechanism"
}

// winners compares BA's EMD with LAP's at every beta by Welch's test,
// with Holm's correction across the betas: "ba" or "lap" where one is
// significantly lower, "" where they are not separated.
func winners(ba, lap [][]float64) []string {
	order, _, _ := verdict.Compare(ba, lap)
	out := make([]string, len(order))
	for i, o := range order {
		switch o {
		case verdict.Lower:
			out[i] = "ba"
		case verdict.Higher:
			out[i] = "lap"
		}
	}
	return out
}

// half is what one half of the paper's claim (the betas where it says BA
// wins, or those where it says LAP wins) found: betas where the claimed
// winner won, where the other won, and where neither is significantly
// better.
type half struct{ support, against, ties []float64 }

func (h half) n() int { return len(h.support) + len(h.against) + len(h.ties) }

// status of a half: "holds" (the claimed winner wins at every beta),
// "fails" (it wins nowhere and the other wins somewhere), "undecided"
// (nothing against it, but some betas not separated), "mixed" otherwise.
func (h half) status() string {
	switch {
	case len(h.against) == 0 && len(h.ties) == 0:
		return "holds"
	case len(h.support) == 0 && len(h.against) > 0:
		return "fails"
	case len(h.against) == 0:
		return "undecided"
	}
	return "mixed"
}

// crossoverRule decides the paper's claim "BA better in its range, LAP
// above" from the winner at each beta (winners) and the paper's winner
// at that beta ("ba", "lap" or "" where the paper says nothing).
// Reproduced when both halves hold; not reproduced when BA wins nowhere
// in its range and LAP wins somewhere there (or, without a beta in BA's
// range, when the LAP half fails); undecided when nothing contradicts
// the claim but some betas are not separated; partly otherwise.
func crossoverRule(betas []float64, won, claimed []string) (v, reason string, halves map[string]*half) {
	halves = map[string]*half{"ba": {}, "lap": {}}
	for i, b := range betas {
		h := halves[claimed[i]]
		if h == nil {
			continue
		}
		switch won[i] {
		case claimed[i]:
			h.support = append(h.support, b)
		case "":
			h.ties = append(h.ties, b)
		default:
			h.against = append(h.against, b)
		}
	}
	bs, ls := halves["ba"].status(), halves["lap"].status()
	ties := len(halves["ba"].ties) + len(halves["lap"].ties)
	tooFew := fmt.Sprintf("too few simulations to separate BA from LAP at %d betas", ties)
	switch {
	case halves["ba"].n() == 0:
		switch ls {
		case "holds":
			return harness.Partly, "", halves
		case "undecided":
			return harness.Undecided, tooFew, halves
		}
		return harness.NotReproduced, "", halves
	case bs == "holds" && ls == "holds":
		return harness.Reproduced, "", halves
	case bs == "fails":
		return harness.NotReproduced, "", halves
	case (bs == "holds" || bs == "undecided") && (ls == "holds" || ls == "undecided"):
		return harness.Undecided, tooFew, halves
	}
	return harness.Partly, "", halves
}

// crossoverClaim compares, per beta, BA's EMD with LAP's (the true EMD,
// or with defect the reference code's value for LAP) against the paper's
// ranges, for the datasets the paper has (crossoverRule). Other datasets
// get the claim without the paper's ranges (generalCrossover).
func crossoverClaim(p *params, city string, cells []*cell, defect bool) (harness.Claim, bool) {
	facts, ok := paper.Of(city)
	if !ok || !p.IsPreset(city) {
		return generalCrossover(p, city, cells)
	}
	claim := facts.Utility
	bx, bs := samples(cells, city, "ba", false)
	lx, ls := samples(cells, city, "lap", defect)
	if len(bx) == 0 || !slices.Equal(bx, lx) {
		return harness.Claim{}, false
	}
	won := winners(bs, ls)
	claimed := make([]string, len(bx))
	for i, b := range bx {
		claimed[i] = claim.Winner(b)
	}
	v, reason, halves := crossoverRule(bx, won, claimed)
	what := "true EMD"
	title := fmt.Sprintf("%s: %s (Sec. III-B, Fig. 3)", p.Title(city), claim.Text)
	if defect {
		what = "LAP measured with the reference code's defective EMD"
		title = fmt.Sprintf("%s, with the reference code's defective LAP EMD: %s", p.Title(city), claim.Text)
	}
	list := func(v []float64) string { return "{" + harness.FormatList(v, 3) + "}" }
	ev := fmt.Sprintf("%s: in the paper's BA range (%d betas) BA is significantly better at %d, LAP at %d %s, neither at %d",
		what, halves["ba"].n(), len(halves["ba"].support), len(halves["ba"].against), list(halves["ba"].against), len(halves["ba"].ties))
	ev += fmt.Sprintf("; above it (%d betas) LAP is significantly better at %d, BA at %d %s, neither at %d",
		halves["lap"].n(), len(halves["lap"].support), len(halves["lap"].against), list(halves["lap"].against), len(halves["lap"].ties))
	if lo, hi := ratioRange(means(bs), means(ls)); len(bs) > 0 {
		ev += fmt.Sprintf(". BA's mean EMD / LAP's ranges from %s to %s", harness.FormatSig(lo, 3), harness.FormatSig(hi, 3))
	}
	if halves["ba"].n() == 0 {
		ev += ". The beta sweep has no value in the paper's BA range"
	}
	return harness.Claim{
		Claim: title, Data: p.Title(city),
		Rule: fmt.Sprintf("at each beta, BA's mean EMD against LAP's by Welch's two-sided t-test at level %s with Holm's correction across the betas: "+
			"reproduced when BA is significantly better at every beta of the paper's range and LAP at every beta above it; not reproduced when BA is significantly better at no beta of its range and LAP somewhere there; "+
			"undecided when nothing is against the claim but some betas are not separated; partly otherwise", harness.FormatSig(verdict.Alpha, 2)),
		Simulations: simsPerBeta(bs, ls),
		Evidence:    ev, Verdict: v, Reason: reason,
	}, true
}

// generalRule decides the claim without the paper's ranges from the
// winner at each beta (in increasing beta): reproduced when BA is
// significantly better at the smallest beta, LAP at the largest, and the
// significant winners change once; not reproduced when BA is
// significantly better nowhere and LAP somewhere; undecided when no beta
// separates them; partly otherwise.
func generalRule(won []string) (v, reason string, changes int) {
	ba, lap := 0, 0
	last := ""
	for _, w := range won {
		switch w {
		case "ba":
			ba++
		case "lap":
			lap++
		default:
			continue
		}
		if last != "" && w != last {
			changes++
		}
		last = w
	}
	n := len(won)
	switch {
	case n == 0 || ba+lap == 0:
		return harness.Undecided, fmt.Sprintf("too few simulations to separate BA from LAP at any of %d betas", n), changes
	case ba == 0:
		return harness.NotReproduced, "", changes
	case won[0] == "ba" && won[n-1] == "lap" && changes == 1:
		return harness.Reproduced, "", changes
	}
	return harness.Partly, "", changes
}

// generalCrossover checks the paper's claim of Sec. III-B without its
// ranges, which are for its own datasets: BA has the better statistical
// utility at high privacy (small beta) and LAP as privacy decreases
// (generalRule), on the true EMD (the reference code's defect is
// replayed on the paper's datasets only, defectSims).
func generalCrossover(p *params, city string, cells []*cell) (harness.Claim, bool) {
	bx, bs := samples(cells, city, "ba", false)
	lx, ls := samples(cells, city, "lap", false)
	if len(bx) == 0 || !slices.Equal(bx, lx) {
		return harness.Claim{}, false
	}
	won := winners(bs, ls)
	v, reason, changes := generalRule(won)
	what, title := "true EMD", fmt.Sprintf("%s: BA has the better statistical utility at high privacy (small beta), LAP as privacy decreases (Sec. III-B)", p.Title(city))
	var baBetter, lapBetter []float64
	for i, w := range won {
		switch w {
		case "ba":
			baBetter = append(baBetter, bx[i])
		case "lap":
			lapBetter = append(lapBetter, bx[i])
		}
	}
	ev := fmt.Sprintf("%s, %d betas from %s to %s: BA significantly better at %d {%s}, LAP at %d {%s}, neither at %d; the significant winner changes %d times",
		what, len(bx), harness.FormatSig(bx[0], 3), harness.FormatSig(bx[len(bx)-1], 3), len(baBetter), harness.FormatList(baBetter, 3),
		len(lapBetter), harness.FormatList(lapBetter, 3), len(bx)-len(baBetter)-len(lapBetter), changes)
	if lo, hi := ratioRange(means(bs), means(ls)); len(bs) > 0 {
		ev += fmt.Sprintf(". BA's mean EMD / LAP's ranges from %s to %s", harness.FormatSig(lo, 3), harness.FormatSig(hi, 3))
	}
	return harness.Claim{
		Claim: title, Data: p.Title(city),
		Rule: fmt.Sprintf("at each beta, BA's mean EMD against LAP's by Welch's two-sided t-test at level %s with Holm's correction across the betas: "+
			"reproduced when BA is significantly better at the smallest beta, LAP at the largest and the significant winner changes once; not reproduced when BA is significantly better at no beta and LAP at some; "+
			"undecided when no beta separates them; partly otherwise", harness.FormatSig(verdict.Alpha, 2)),
		Simulations: simsPerBeta(bs, ls),
		Evidence:    ev, Verdict: v, Reason: reason,
	}, true
}

func means(s [][]float64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i], _, _ = harness.MeanSD(v)
	}
	return out
}

// ratioRange is the smallest and largest a[i]/b[i].
func ratioRange(a, b []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range a {
		if b[i] > 0 {
			r := a[i] / b[i]
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
	}
	return lo, hi
}

// convergeCut is the fraction of the smallest beta's EMD that the largest
// beta's must fall below: "falls towards 0".
const convergeCut = 0.1

// fallsTo0 is the outcome of one curve of the claim "the EMD falls
// towards 0 as beta grows".
type fallsTo0 struct {
	below, above bool // the largest-beta EMD is significantly below, above 10% of the smallest-beta EMD
	monotone     bool // the mean falls at every step
	ratio        float64
}

// fallRule tests one curve (simulations per beta, increasing beta): the
// largest beta's EMD against convergeCut times the smallest beta's, by
// Welch's test on the simulations (undecided when they do not separate).
func fallRule(sims [][]float64) fallsTo0 {
	n := len(sims)
	first, last := sims[0], sims[n-1]
	cut := make([]float64, len(first))
	for i, v := range first {
		cut[i] = convergeCut * v
	}
	m := means(sims)
	f := fallsTo0{ratio: m[n-1] / m[0], monotone: true}
	for i := 1; i < n; i++ {
		f.monotone = f.monotone && m[i] < m[i-1]
	}
	if w, ok := verdict.WelchTest(last, cut); ok && w.P < verdict.Alpha {
		f.below, f.above = w.MeanA < w.MeanB, w.MeanA > w.MeanB
	}
	return f
}

// convergeRule combines the curves of one dataset: reproduced when every
// curve falls below the cut; when some stays above it, partly if another
// falls below it, else not reproduced -- unless every curve above it
// falls at every step on a grid with fewer than
// verdict.MinCheckinsPerCell check-ins per cell, which is undecided: the
// grid cannot resolve the estimate's error down to the cut. Undecided
// too when no curve is above it but some are not separated from it.
func convergeRule(curves []fallsTo0, perCell float64) (v, reason string) {
	below, above, sparse := 0, 0, 0
	for _, c := range curves {
		switch {
		case c.below:
			below++
		case c.above:
			above++
			if c.monotone && perCell < verdict.MinCheckinsPerCell {
				sparse++
			}
		}
	}
	n := len(curves)
	switch {
	case n > 0 && below == n:
		return harness.Reproduced, ""
	case above > 0 && sparse == above:
		return harness.Undecided, fmt.Sprintf("too few check-ins per cell to resolve: %s per cell (below %s), where %d curves fall at every step but stay above %s%% of their start",
			harness.FormatSig(perCell, 2), harness.FormatSig(verdict.MinCheckinsPerCell, 2), sparse, harness.FormatSig(100*convergeCut, 2))
	case above > 0 && below > 0:
		return harness.Partly, ""
	case above > 0:
		return harness.NotReproduced, ""
	}
	return harness.Undecided, fmt.Sprintf("too few simulations to tell %d curves from %s%% of their start", n-below, harness.FormatSig(100*convergeCut, 2))
}

// convergeClaim checks "the EMD converges to 0 in both mechanisms" as
// beta grows on one dataset (convergeRule).
func convergeClaim(p *params, city string, cells []*cell) (harness.Claim, bool) {
	ds, err := p.Dataset(city, p.Rows)
	if err != nil {
		return harness.Claim{}, false
	}
	var curves []fallsTo0
	var ev []string
	var all [][]float64
	for _, m := range []string{"ba", "lap"} {
		x, s := samples(cells, city, m, false)
		if len(x) < 2 {
			continue
		}
		all = append(all, s...)
		c := fallRule(s)
		curves = append(curves, c)
		mm := means(s)
		ev = append(ev, fmt.Sprintf("%s: %s at beta %s, %s at beta %s (%s%% of the start)",
			strings.ToUpper(m), verdict.M(verdict.Metres(ds, mm[0])), harness.FormatSig(x[0], 3), verdict.M(verdict.Metres(ds, mm[len(mm)-1])),
			harness.FormatSig(x[len(x)-1], 3), harness.FormatSig(100*c.ratio, 3)))
	}
	if len(curves) == 0 {
		return harness.Claim{}, false
	}
	perCell := float64(ds.N) / float64(ds.Grid.Len())
	v, reason := convergeRule(curves, perCell)
	return harness.Claim{
		Claim: "As privacy decreases (beta grows) the EMD of both mechanisms falls towards 0 (Sec. III-B)",
		Data:  p.Title(city),
		Rule: fmt.Sprintf("for BA and for LAP, the mean EMD at the largest beta against %s%% of the mean at the smallest, by Welch's two-sided t-test at level %s: reproduced when both are significantly below, partly when one is, not reproduced when none is; "+
			"undecided when not separated, or when the curves above the cut fall at every step on a grid with fewer than %s check-ins per cell (it cannot resolve the error further)",
			harness.FormatSig(100*convergeCut, 2), harness.FormatSig(verdict.Alpha, 2), harness.FormatSig(verdict.MinCheckinsPerCell, 2)),
		Simulations: simsPerBeta(all),
		Evidence:    "mean EMD " + strings.Join(ev, "; ") + fmt.Sprintf(". %s check-ins per cell", harness.FormatSig(perCell, 3)),
		Verdict:     v, Reason: reason,
	}, true
}
