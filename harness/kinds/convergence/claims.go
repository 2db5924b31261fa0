package convergence

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/privic"
)

// trend summarises one mean trajectory for the convergence claim.
type trend struct {
	First, Last, Before float64 // mean EMD at cycle 1, at the last cycle, 3 cycles before
	LastCycle           int
}

func (t trend) ratio() float64 { return t.Last / t.First }

// change3 is the relative change over the last 3 cycles.
func (t trend) change3() float64 { return (t.Last - t.Before) / t.Before }

// falls and converges are the claim's criteria: the EMD after the last
// cycle is below the first data cycle's, and the last 3 cycles changed it
// by at most 10%.
func (t trend) falls() bool     { return t.Last < t.First }
func (t trend) converges() bool { return math.Abs(t.change3()) <= 0.10 }

func trendOf(means []float64) (trend, bool) {
	last := len(means) - 1
	if last < 4 {
		return trend{}, false
	}
	return trend{First: means[1], Last: means[last], Before: means[last-3], LastCycle: last}, true
}

func (t trend) text() string {
	return fmt.Sprintf("last/first = %s, last-3-cycle change %+.1f%% (cycles 1→%d: %s→%s)",
		privic.Sig(t.ratio(), 3), 100*t.change3(), t.LastCycle, privic.Sig(t.First, 4), privic.Sig(t.Last, 4))
}

func (f *finish) claims() []harness.Claim {
	out := []harness.Claim{f.convergeClaim()}
	if slices.Contains(f.betas(), 0.5) && slices.Contains(f.betas(), 1) {
		out = append(out, f.betaClaim())
	}
	return out
}

// convergeClaim: the default variant's EMD falls over the cycles and
// levels off.
func (f *finish) convergeClaim() harness.Claim {
	dv, dref := f.def()
	var ev []string
	allFall, allConv, any := true, true, false
	f.eachTrend(dv, dref, func(city string, beta float64, tr trend) {
		any = true
		allFall = allFall && tr.falls()
		allConv = allConv && tr.converges()
		s := fmt.Sprintf("%s β=%s: %s", f.p.Title(city), privic.BetaText(beta), tr.text())
		if pt, ok := trendOf(paperMeans(city, beta)); ok {
			s += fmt.Sprintf(" [paper: %s]", pt.text())
		}
		ev = append(ev, s)
	})
	nAll, nFall, nConv := f.countTrends()
	if !any {
		ev = append(ev, "no trajectory with at least 4 cycles")
	}
	verdict := harness.VerdictOf(any && allFall && allConv, any && allFall)
	evidence := fmt.Sprintf("default variant %s, EMD to %s (mean over %d rounds): %s. Criteria: falls = EMD after the last cycle below cycle 1's; converges = the last 3 cycles change it by at most 10%%. Over all %d (variant, EMD reference, city, β) trajectories: %d fall, %d fall and converge.",
		dv.Label(), dref, f.p.Rounds, strings.Join(ev, "; "), nAll, nFall, nConv)
	return harness.Claim{Claim: "PRIVIC's EMD falls over the cycles and converges", Evidence: evidence, Verdict: verdict}
}

// countTrends counts, over every variant and reference, the trajectories
// that fall and that fall and converge, for the record.
func (f *finish) countTrends() (all, fall, conv int) {
	for _, v := range f.variants {
		for _, ref := range f.p.EMDReference {
			f.eachTrend(v, ref, func(_ string, _ float64, tr trend) {
				all++
				if tr.falls() {
					fall++
					if tr.converges() {
						conv++
					}
				}
			})
		}
	}
	return all, fall, conv
}

// eachTrend calls do with the trend of every (city, beta) trajectory of a
// variant and reference that has at least 4 cycles.
func (f *finish) eachTrend(v privic.Variant, ref string, do func(city string, beta float64, tr trend)) {
	for _, city := range f.p.Cities {
		for _, beta := range f.betas() {
			if c := f.curves[curveKey{city, beta, v, ref}]; c != nil {
				if tr, ok := trendOf(c.means()); ok {
					do(city, beta, tr)
				}
			}
		}
	}
}

// betaClaim: the paper's text says beta = 1 gives a more accurate
// estimate than 0.5.
func (f *finish) betaClaim() harness.Claim {
	dv, dref := f.def()
	var ev []string
	better, n := 0, 0
	for _, city := range f.p.Cities {
		c1 := f.curves[curveKey{city, 1, dv, dref}]
		c5 := f.curves[curveKey{city, 0.5, dv, dref}]
		if c1 == nil || c5 == nil {
			continue
		}
		m1, _, _ := c1.stat(c1.cycles())
		m5, _, _ := c5.stat(c5.cycles())
		n++
		if m1 < m5 {
			better++
		}
		ev = append(ev, fmt.Sprintf("%s: β=1 %s vs β=0.5 %s", f.p.Title(city), privic.Sig(m1, 4), privic.Sig(m5, 4)))
	}
	return harness.Claim{Claim: "PRIVIC's estimate is more accurate for β = 1 than for β = 0.5 (Sec. V)",
		Evidence: fmt.Sprintf("final-cycle mean EMD, default variant %s, EMD to %s: %s", dv.Label(), dref, strings.Join(ev, "; ")),
		Verdict:  harness.CountVerdict(better, n)}
}
