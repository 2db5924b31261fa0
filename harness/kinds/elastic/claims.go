package elastic

import (
	"fmt"
	"math"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/verdict"
)

// checkClaims checks the paper's claims of Sec. III-A on the levels.
func checkClaims(p *params, s *island.Setup, levels []*level) []harness.Claim {
	data := p.Title(p.City)
	what := data + " island prior"
	var betas, tights []float64
	var svs []island.Singular
	for _, l := range levels {
		betas, tights = append(betas, l.beta), append(tights, l.tight)
		svs = append(svs, l.sv)
	}
	claims := []harness.Claim{
		elasticity(data, p.DesertRadiusM, levels),
		modeMoves(data, s, levels),
		strongB(data, s.DS, levels),
		paper.GeoIndClaim(data, fmt.Sprintf("%s, %d BA channels", what, len(levels)), betas, tights),
		island.InvertibilityClaim(data, what+", beta "+harness.FormatList(betas, 3), svs),
	}
	if p.withElastic() {
		claims = append(claims, elasticLike(data, levels))
	}
	return claims
}

// compareAt compares BA with LAP at location loc on every level: holds
// says whether the claim holds there, and what the evidence is.
func compareAt(levels []*level, loc string, holds func(ba, lap island.LocStats) bool,
	what func(l *level, ba, lap island.LocStats) string) (ok int, ev []string) {
	for _, l := range levels {
		ba, lap := l.stats["ba/"+loc], l.stats["lap/"+loc]
		if holds(ba, lap) {
			ok++
		}
		ev = append(ev, what(l, ba, lap))
	}
	return ok, ev
}

// elasticHolds is the rule of the elasticity claim at one level: BA sends
// A's reports into the desert less often than LAP, identifies A no more
// often and puts them on more prior mass.
func elasticHolds(ba, lap island.LocStats) bool {
	return ba.PDeserted < lap.PDeserted && ba.MAPIdent <= lap.MAPIdent && ba.ExpPriorMass > lap.ExpPriorMass
}

// elasticity: BA reports A into the crowd, LAP into the desert.
func elasticity(data string, radiusM float64, levels []*level) harness.Claim {
	sig, pct := harness.FormatSig, harness.FormatPct
	wins, ev := compareAt(levels, "A", elasticHolds, func(l *level, ba, lap island.LocStats) string {
		w := fmt.Sprintf("eps %s: P(report of A on a deserted cell) BA %s vs LAP %s, MAP identification of A BA %s vs LAP %s, expected prior mass of the reported cell BA %s vs LAP %s",
			sig(l.eps, 3), pct(ba.PDeserted), pct(lap.PDeserted), pct(ba.MAPIdent), pct(lap.MAPIdent),
			sig(ba.ExpPriorMass, 3), sig(lap.ExpPriorMass, 3))
		if u, ok := l.stats[uniform+"/A"]; ok {
			w += fmt.Sprintf(" (uniform report: %s, %s, %s)", pct(u.PDeserted), pct(u.MAPIdent), sig(u.ExpPriorMass, 3))
		}
		return w
	})
	return harness.Claim{
		Claim: "BA behaves elastically at the vulnerable location A (reports land in the crowd) while LAP does not (Sec. III-A, Fig. 2a)",
		Data:  data,
		Rule: fmt.Sprintf("at each eps level, BA's P(report of A on a deserted cell) below LAP's, BA's MAP identification of A at most LAP's and BA's expected prior mass of the reported cell above LAP's, both at the same tight eps "+
			"(a cell is deserted when the prior mass within %s m of its centre is below a uniform prior's); reproduced at every level, partly at some, not reproduced at none", sig(radiusM, 3)),
		Simulations: harness.Exact,
		Evidence:    strings.Join(ev, "; ") + fmt.Sprintf(". BA lower desert probability, no higher identification and more crowd mass at %d of %d levels", wins, len(levels)),
		Verdict:     harness.CountVerdict(wins, len(levels)),
	}
}

// modeRule decides the claim "BA's most likely report of A moves closer
// and closer to A as eps grows" from the mode's distance from A in
// metres at increasing eps: a step falls when the distance drops by more
// than verdict.StepM (smaller moves are within half a paper cell, the
// paper's resolution). Reproduced when every step falls; partly when the
// distance falls overall (last below first by more than StepM); not
// reproduced otherwise.
func modeRule(d []float64) (v string, falls int) {
	for i := 1; i < len(d); i++ {
		if d[i] < d[i-1]-verdict.StepM {
			falls++
		}
	}
	n := len(d)
	switch {
	case n > 1 && falls == n-1:
		return harness.Reproduced, falls
	case n > 1 && d[n-1] < d[0]-verdict.StepM:
		return harness.Partly, falls
	}
	return harness.NotReproduced, falls
}

// modeMoves: BA's most likely report of A moves towards A as eps grows.
func modeMoves(data string, s *island.Setup, levels []*level) harness.Claim {
	var dists, expd []float64
	var modes []string
	sig := harness.FormatSig
	for _, l := range levels {
		st := l.stats["ba/A"]
		dists = append(dists, verdict.Metres(s.DS, st.ModeDistance))
		expd = append(expd, verdict.Metres(s.DS, st.ExpDistance))
		mass := 0.0
		k := s.DS.Grid.IndexOf(st.ModeRow, st.ModeCol)
		if k >= 0 {
			mass = s.Prior[k]
		}
		what := fmt.Sprintf("(%d, %d): %s from A, prior mass %s", st.ModeRow, st.ModeCol, verdict.M(dists[len(dists)-1]), sig(mass, 3))
		if k == s.A {
			what = fmt.Sprintf("(%d, %d) = A itself", st.ModeRow, st.ModeCol)
		}
		modes = append(modes, "eps "+sig(l.eps, 3)+" "+what)
	}
	v, falls := modeRule(dists)
	return harness.Claim{
		Claim: "As eps grows, the location most likely reported by BA for A moves to a densely populated region closer and closer to A (Sec. III-A)",
		Data:  data,
		Rule: fmt.Sprintf("the distance in metres from A of BA's most likely report of A, at increasing eps: a step falls when it drops by more than %d m (%s); "+
			"reproduced when every step falls, partly when the distance falls overall by more than %d m, not reproduced otherwise%s", verdict.StepM, verdict.StepWhy(s.DS), verdict.StepM, verdict.Assumed(s.DS)),
		Simulations: harness.Exact,
		Evidence: "BA's most likely report of A: " + strings.Join(modes, "; ") +
			fmt.Sprintf(". Steps that fall: %d of %d. Expected distance of the report from A (m): %s", falls, max(len(dists)-1, 0), verdict.Nums(expd)),
		Verdict: v,
	}
}

// strongB: at B both mechanisms keep reports around B.
func strongB(data string, ds *datasets.Dataset, levels []*level) harness.Claim {
	sig, pct := harness.FormatSig, harness.FormatPct
	near, ev := compareAt(levels, "B", func(ba, lap island.LocStats) bool {
		return verdict.Metres(ds, ba.ModeDistance) <= verdict.PaperCellM+1e-9 && verdict.Metres(ds, lap.ModeDistance) <= verdict.PaperCellM+1e-9
	}, func(l *level, ba, lap island.LocStats) string {
		return fmt.Sprintf("eps %s: P(report within %d m of B) BA %s, LAP %s; mode %s (BA) and %s (LAP) from B",
			sig(l.eps, 3), verdict.PaperCellM, pct(ba.PNear), pct(lap.PNear), verdict.M(verdict.Metres(ds, ba.ModeDistance)), verdict.M(verdict.Metres(ds, lap.ModeDistance)))
	})
	return harness.Claim{
		Claim: "At the strong location B, BA and LAP both conceal the point around its true position (Sec. III-A, Fig. 2b)",
		Data:  data,
		Rule: fmt.Sprintf("the most likely report of B under BA and under LAP within %d m of B%s at each eps level: reproduced at every level, partly at some, not reproduced at none%s",
			verdict.PaperCellM, verdict.NearWhy(ds), verdict.Assumed(ds)),
		Simulations: harness.Exact,
		Evidence:    strings.Join(ev, "; ") + fmt.Sprintf(". Both modes within %d m of B at %d of %d levels", verdict.PaperCellM, near, len(levels)),
		Verdict:     harness.CountVerdict(near, len(levels)),
	}
}

// likeMeasures are the three measures of "BA behaves like the elastic
// mechanism at A".
var likeMeasures = []struct {
	name string
	of   func(island.LocStats) float64
}{
	{"P(deserted)", func(s island.LocStats) float64 { return s.PDeserted }},
	{"identification of A", func(s island.LocStats) float64 { return s.MAPIdent }},
	{"expected prior mass of the report", func(s island.LocStats) float64 { return s.ExpPriorMass }},
}

// likeElastic is the rule of "BA behaves like the elastic mechanism" on
// one footing: on each measure, BA is closer to the elastic mechanism
// than to LAP; it holds when it does so on all three. closer lists the
// measures where BA is closer to the elastic mechanism.
func likeElastic(ba, el, lap island.LocStats) (holds bool, closer []string) {
	for _, m := range likeMeasures {
		if math.Abs(m.of(ba)-m.of(el)) < math.Abs(m.of(ba)-m.of(lap)) {
			closer = append(closer, m.name)
		}
	}
	return len(closer) == len(likeMeasures), closer
}

// elasticLike: does BA behave like the elastic mechanism at A, at equal
// tight eps and at equal average distortion, on all three measures?
func elasticLike(data string, levels []*level) harness.Claim {
	sig, pct := harness.FormatSig, harness.FormatPct
	held, n := 0, 0
	var ev []string
	for _, l := range levels {
		ba := l.stats["ba/A"]
		for _, f := range []struct{ footing, el, lap string }{
			{"equal tight eps", elasticMetric, "lap"},
			{"equal average distortion", elasticMetric + equalDistortion, "lap" + equalDistortion},
		} {
			el, ok1 := l.stats[f.el+"/A"]
			lap, ok2 := l.stats[f.lap+"/A"]
			if !ok1 || !ok2 {
				continue
			}
			n++
			holds, closer := likeElastic(ba, el, lap)
			if holds {
				held++
			}
			w := fmt.Sprintf("eps %s, %s: P(deserted) BA %s, elastic %s, LAP %s; identification of A %s, %s, %s; expected prior mass %s, %s, %s; BA closer to the elastic mechanism on %d of 3",
				sig(l.eps, 3), f.footing, pct(ba.PDeserted), pct(el.PDeserted), pct(lap.PDeserted), pct(ba.MAPIdent), pct(el.MAPIdent), pct(lap.MAPIdent),
				sig(ba.ExpPriorMass, 3), sig(el.ExpPriorMass, 3), sig(lap.ExpPriorMass, 3), len(closer))
			if u, ok := l.stats[uniform+"/A"]; ok && f.footing == "equal tight eps" {
				w += fmt.Sprintf(" (uniform report: %s, %s, %s)", pct(u.PDeserted), pct(u.MAPIdent), sig(u.ExpPriorMass, 3))
			}
			ev = append(ev, w)
		}
	}
	return harness.Claim{
		Claim: "BA behaves like the elastic mechanism at the vulnerable location A (Sec. III-A: BA produces an elastic mechanism)",
		Data:  data,
		Rule: "on each of P(report on a deserted cell), MAP identification of A and expected prior mass of the report, BA is closer (absolute difference) to the elastic-metric mechanism than to LAP; " +
			"it behaves like it at a level and footing when it does so on all three; checked at equal tight eps and at equal average distortion on the island prior: reproduced at every level and footing, partly at some, not reproduced at none",
		Simulations: harness.Exact,
		Evidence:    strings.Join(ev, "; ") + fmt.Sprintf(". Like the elastic mechanism on all three measures at %d of %d (level, footing) pairs", held, n),
		Verdict:     harness.CountVerdict(held, n),
	}
}
