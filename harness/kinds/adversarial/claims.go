package adversarial

import (
	"fmt"
	"math"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/verdict"
)

// trend is what one eps level shows as f grows.
type trend struct {
	within, ident, post, fs []float64
}

func checkClaims(p *params, pts map[float64][]*point, lap map[float64]island.LocStats) []harness.Claim {
	var evW, evI []string
	monoW, n, monoI, grewI := 0, 0, 0, 0
	var betas, tights []float64
	var svs []island.Singular
	sig, pct := harness.FormatSig, harness.FormatPct
	list := func(v []float64) string { return harness.FormatList(scale(v, 100), 3) }
	for _, b := range p.Beta.Values() {
		l := pts[b]
		if len(l) == 0 {
			continue
		}
		n++
		var t trend
		for _, pt := range l {
			t.fs = append(t.fs, pt.f)
			t.within = append(t.within, pt.st.PNear)
			t.ident = append(t.ident, pt.st.MAPIdent)
			t.post = append(t.post, pt.st.ExpPosterior)
			svs = append(svs, pt.sv)
			betas = append(betas, b)
			tights = append(tights, pt.tight)
		}
		if grows(t.within) {
			monoW++
		}
		if grows(t.post) {
			monoI++
		}
		if maxOf(t.post) > t.post[0] {
			grewI++
		}
		s := fmt.Sprintf("eps %s: f = {%s}%% gives P(report within %d m of A | true A) = {%s}%%",
			sig(2*b, 3), list(t.fs), verdict.PaperCellM, list(t.within))
		u := fmt.Sprintf("eps %s: f = {%s}%% gives E[posterior of A | report of A] = {%s}%% and P(Bayes guess = A | true A) = {%s}%%",
			sig(2*b, 3), list(t.fs), list(t.post), list(t.ident))
		if st, ok := lap[b]; ok {
			s += fmt.Sprintf(" (LAP at the same eps: %s)", pct(st.PNear))
			u += fmt.Sprintf(" (LAP: %s and %s)", pct(st.ExpPosterior), pct(st.MAPIdent))
		}
		evW = append(evW, s)
		evI = append(evI, u)
	}
	v := harness.CountVerdict(monoW, n)
	vi := harness.VerdictOf(n > 0 && monoI == n, grewI > 0)
	what := "adversarially corrupted island priors, %d BA channels"
	data := p.Title(p.City)
	ds, _ := p.Dataset(p.City, p.Rows)
	return []harness.Claim{{
		Claim: "With adversarial users reporting A, BA puts more and more weight on and around A in the report distribution of an honest user at A, like LAP (Sec. VI, Fig. 11)",
		Data:  data,
		Rule: fmt.Sprintf("at each eps level, P(report within %d m of A | true A)%s is non-decreasing in the fraction f of fake reports and higher at the largest f than at f = 0: reproduced at every level, partly at some, not reproduced at none%s",
			verdict.PaperCellM, verdict.NearWhy(ds), verdict.Assumed(ds)),
		Simulations: harness.Exact,
		Evidence:    strings.Join(evW, "; ") + fmt.Sprintf(". Non-decreasing in f, and higher at the largest f than at f = 0, for %d of %d eps levels", monoW, n),
		Verdict:     v,
	}, {
		Claim: "... which makes honest users at A more and more identifiable (Sec. VI), measured by a Bayesian adversary who knows the honest users' prior",
		Data:  data,
		Rule: "at each eps level, the expected posterior of A given a report of an honest user at A: reproduced when it is non-decreasing in f at every level, partly when it rises above its f = 0 value at some level, " +
			"not reproduced otherwise",
		Simulations: harness.Exact,
		Evidence: strings.Join(evI, "; ") + fmt.Sprintf(". The expected posterior of A rises with f at first at %d of %d eps levels and is non-decreasing throughout at %d: "+
			"once the fake reports make A a popular report, reports of A mostly come from crowd users, and a report of A says less about being at A", grewI, n, monoI),
		Verdict: vi,
	},
		paper.GeoIndClaim(data, fmt.Sprintf(what, len(betas)), betas, tights),
		island.InvertibilityClaim(data, fmt.Sprintf(what, len(svs)), svs),
	}
}

// grows: non-decreasing, and higher at the end than at the start.
func grows(v []float64) bool {
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			return false
		}
	}
	return v[len(v)-1] > v[0]
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
