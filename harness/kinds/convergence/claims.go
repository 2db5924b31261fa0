package convergence

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/privic"
	"privic/harness/kinds/internal/verdict"
)

// levelOff is the largest relative change of the EMD over the last 3
// cycles that counts as levelled off.
const levelOff = 0.10

// valuesTol is the relative tolerance of the values claim: our mean at a
// cycle is within it of the paper's mean, or within two standard errors
// of the difference.
const valuesTol = 0.10

// trend summarises one mean trajectory for the evidence.
type trend struct {
	First, Last, Before float64 // mean EMD at cycle 1, at the last cycle, 3 cycles before
	LastCycle           int
}

func (t trend) ratio() float64 { return t.Last / t.First }

// change3 is the relative change over the last 3 cycles.
func (t trend) change3() float64 { return (t.Last - t.Before) / t.Before }

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

// shape is the outcome of the shape rule on one trajectory, from its
// rounds: the interval of the mean of last - first (cycle 1 to the last
// cycle, paired by round) and of the mean relative change over the last
// 3 cycles.
type shape struct {
	fall, change [3]float64 // mean, lo, hi
	ok           bool       // the intervals exist (2 rounds or more)
	rounds       int
}

// shapeRule decides "the EMD falls over the cycles and levels off" on one
// trajectory from its rounds' EMD at cycle 1 (first), 3 cycles before
// the last (before) and at the last cycle (last), paired by round, with
// 95% Student intervals of the means: falls when the interval of
// last - first lies below 0 (rises when above); levels off when the
// interval of the relative change over the last 3 cycles lies within
// +-10% (does not when it lies outside). Reproduced: falls and levels
// off; partly: falls and does not level off; not reproduced: rises;
// undecided otherwise (too few rounds to tell).
func shapeRule(first, before, last []float64) (v, reason string, s shape) {
	var d, c []float64
	for i := range first {
		d = append(d, last[i]-first[i])
		c = append(c, (last[i]-before[i])/before[i])
	}
	s.rounds = len(first)
	var ok1, ok2 bool
	s.fall[0], s.fall[1], s.fall[2], ok1 = verdict.Interval(d)
	s.change[0], s.change[1], s.change[2], ok2 = verdict.Interval(c)
	s.ok = ok1 && ok2
	if !s.ok {
		return harness.Undecided, fmt.Sprintf("%d round: no interval", len(first)), s
	}
	falls, rises := s.fall[2] < 0, s.fall[1] > 0
	levels := s.change[1] >= -levelOff && s.change[2] <= levelOff
	moves := s.change[1] > levelOff || s.change[2] < -levelOff
	switch {
	case rises:
		return harness.NotReproduced, "", s
	case falls && levels:
		return harness.Reproduced, "", s
	case falls && moves:
		return harness.Partly, "", s
	case !falls:
		return harness.Undecided, fmt.Sprintf("too few rounds (%d) to tell whether the EMD falls", len(first)), s
	}
	return harness.Undecided, fmt.Sprintf("too few rounds (%d) to tell whether the EMD levels off within %s%%", len(first), harness.FormatSig(100*levelOff, 2)), s
}

func (s shape) text() string {
	pc := func(v float64) string { return fmt.Sprintf("%+.1f%%", 100*v) }
	return fmt.Sprintf("last - first %s [%s, %s], last-3-cycle change %s [%s, %s]",
		privic.Sig(s.fall[0], 3), privic.Sig(s.fall[1], 3), privic.Sig(s.fall[2], 3), pc(s.change[0]), pc(s.change[1]), pc(s.change[2]))
}

// shapeOf applies shapeRule to a curve (false when it has fewer than 4
// cycles).
func shapeOf(c *curve) (v, reason string, s shape, ok bool) {
	last := c.cycles()
	if last < 4 {
		return "", "", shape{}, false
	}
	first, before, lastV := c.triple(1, last-3, last)
	v, reason, s = shapeRule(first, before, lastV)
	return v, reason, s, true
}

// valuesRule compares a trajectory with the paper's table at every cycle
// from 1 that both have: within tolerance when our mean is within 10% of
// the paper's mean or within two standard errors of the difference
// (sqrt(sd_paper^2/n_paper + sd_ours^2/n_ours)). Reproduced: within at
// every cycle; not reproduced: at none; partly otherwise. n is the
// number of cycles compared (0: no paper values).
func valuesRule(ours, theirs [][]float64) (v string, within, n int, worst float64) {
	for t := 1; t < len(ours) && t < len(theirs); t++ {
		mo, so, no := harness.MeanSD(ours[t])
		mp, sp, np := harness.MeanSD(theirs[t])
		if no == 0 || np == 0 {
			continue
		}
		n++
		diff := mo - mp
		tol := math.Max(valuesTol*mp, 2*math.Sqrt(sp*sp/float64(np)+so*so/float64(no)))
		if math.Abs(diff) <= tol {
			within++
		}
		if math.Abs(diff/mp) > math.Abs(worst) {
			worst = diff / mp
		}
	}
	return harness.CountVerdict(within, n), within, n, worst
}

// paperRounds is the paper's table at beta as rounds per cycle (nil
// when the paper has none).
func paperRounds(city string, beta float64) [][]float64 {
	f, _ := paper.Of(city)
	return f.Table.Rounds[beta]
}

func (f *finish) claims() []harness.Claim {
	var out []harness.Claim
	for _, city := range f.p.Cities {
		if c, ok := f.shapeClaim(city); ok {
			out = append(out, c)
		}
		if c, ok := f.valuesClaim(city); ok {
			out = append(out, c)
		}
	}
	b := f.betas()
	for _, city := range f.p.Cities {
		switch {
		case slices.Contains(b, 0.5) && slices.Contains(b, 1):
			out = append(out, f.betaClaim(city, 1, 0.5, "PRIVIC's estimate is more accurate for β = 1 than for β = 0.5 (Sec. V)"))
		case len(b) >= 2:
			// Other betas (e.g. the paper's scaled to smaller cells): the
			// same claim between the largest and the smallest.
			out = append(out, f.betaClaim(city, slices.Max(b), slices.Min(b), "PRIVIC's estimate is more accurate at the larger β (Sec. V: β = 1 against β = 0.5; here the largest β of the spec against the smallest)"))
		}
	}
	return out
}

// rounds says how many rounds a claim of the spec rests on.
func (f *finish) rounds() string {
	return fmt.Sprintf("%d rounds per β", f.p.Rounds)
}

// shapeClaim: the default variant's EMD falls over the cycles and levels
// off, on one dataset (shapeRule for each beta, combined).
func (f *finish) shapeClaim(city string) (harness.Claim, bool) {
	dv, dref := f.def()
	var ev, parts, why []string
	for _, beta := range f.betas() {
		c := f.curves[curveKey{city, beta, dv, dref}]
		if c == nil {
			continue
		}
		v, reason, s, ok := shapeOf(c)
		if !ok {
			continue
		}
		parts = append(parts, v)
		if reason != "" {
			why = append(why, "β="+privic.BetaText(beta)+": "+reason)
		}
		tr, _ := trendOf(c.means())
		e := fmt.Sprintf("β=%s: %s; %s (%s)", privic.BetaText(beta), tr.text(), s.text(), v)
		if pt, ok := trendOf(paperMeans(city, beta)); ok {
			e += fmt.Sprintf(" [paper: %s]", pt.text())
		}
		ev = append(ev, e)
	}
	if len(parts) == 0 {
		return harness.Claim{}, false
	}
	nAll, nFall, nConv := f.countTrends()
	return harness.Claim{
		Claim: "PRIVIC's EMD falls over the cycles and converges",
		Data:  f.p.Title(city),
		Rule: fmt.Sprintf("default variant, for each β, from the rounds with 95%% Student intervals: falls when the interval of (EMD at the last cycle - EMD at cycle 1), paired by round, lies below 0; "+
			"levels off when the interval of the relative change over the last 3 cycles lies within ±%s%%; reproduced when it falls and levels off at every β, partly when it falls but does not level off somewhere, "+
			"not reproduced when it rises, undecided when the intervals cannot tell", harness.FormatSig(100*levelOff, 2)),
		Simulations: f.rounds(),
		Evidence: fmt.Sprintf("default variant %s, EMD to %s: %s. Over all %d (variant, EMD reference, city, β) trajectories, by the means: %d fall, %d fall and change by at most %s%% over the last 3 cycles.",
			dv.Label(), dref, strings.Join(ev, "; "), nAll, nFall, nConv, harness.FormatSig(100*levelOff, 2)),
		Verdict: verdict.Combine(parts...),
		Reason:  undecidedReason(verdict.Combine(parts...), why),
	}, true
}

// undecidedReason joins the parts' reasons when the verdict is undecided.
func undecidedReason(v string, why []string) string {
	if v != harness.Undecided {
		return ""
	}
	if len(why) == 0 {
		return "no trajectory decided"
	}
	return strings.Join(why, "; ")
}

// valuesClaim: the default variant's EMD per cycle matches the paper's
// table of the dataset (valuesRule for each beta, combined); false when
// the paper has no table for it.
func (f *finish) valuesClaim(city string) (harness.Claim, bool) {
	if !f.p.IsPreset(city) || paperName(city) == "" {
		return harness.Claim{}, false
	}
	dv, dref := f.def()
	var ev, parts []string
	for _, beta := range f.betas() {
		c := f.curves[curveKey{city, beta, dv, dref}]
		pr := paperRounds(city, beta)
		if c == nil || len(pr) == 0 {
			continue
		}
		v, within, n, worst := valuesRule(c.byCycle, pr)
		if n == 0 {
			continue
		}
		parts = append(parts, v)
		ev = append(ev, fmt.Sprintf("β=%s: within tolerance at %d of %d cycles; largest difference %+.0f%% of the paper's mean", privic.BetaText(beta), within, n, 100*worst))
	}
	if len(parts) == 0 {
		return harness.Claim{}, false
	}
	v := verdict.Combine(parts...)
	return harness.Claim{
		Claim: fmt.Sprintf("PRIVIC's EMD per cycle has the values of %s (the paper's means and sds over its 5 rounds)", paperName(city)),
		Data:  f.p.Title(city),
		Rule: fmt.Sprintf("default variant, at every cycle from 1 that both have: our mean within %s%% of the paper's mean, or within two standard errors of the difference (sqrt(sd_paper²/5 + sd_ours²/n)); "+
			"reproduced when within at every cycle of every β, not reproduced when within at none, partly otherwise", harness.FormatSig(100*valuesTol, 2)),
		Simulations: f.rounds(),
		Evidence:    fmt.Sprintf("default variant %s, EMD to %s: %s", dv.Label(), dref, strings.Join(ev, "; ")),
		Verdict:     v,
		Reason:      undecidedReason(v, nil),
	}, true
}

// countTrends counts, over every variant and reference, the trajectories
// whose means fall and that fall and change by at most levelOff over the
// last 3 cycles, for the record.
func (f *finish) countTrends() (all, fall, conv int) {
	for _, v := range f.variants {
		for _, ref := range f.p.EMDReference {
			f.eachTrend(v, ref, func(_ string, _ float64, tr trend) {
				all++
				if tr.Last < tr.First {
					fall++
					if math.Abs(tr.change3()) <= levelOff {
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

// betaRule: the final-cycle EMD at beta hi against lo, by Welch's test:
// reproduced when significantly lower at hi, not reproduced when
// significantly higher, undecided when not separated.
func betaRule(hi, lo []float64) (v, reason string, w verdict.Welch) {
	w, ok := verdict.WelchTest(hi, lo)
	switch {
	case !ok:
		return harness.Undecided, "fewer than 2 rounds: no test", w
	case w.P >= verdict.Alpha:
		return harness.Undecided, fmt.Sprintf("too few rounds to separate the two β (p = %s)", harness.FormatSig(w.P, 2)), w
	case w.MeanA < w.MeanB:
		return harness.Reproduced, "", w
	}
	return harness.NotReproduced, "", w
}

// betaClaim: the paper's text says beta = 1 gives a more accurate
// estimate than 0.5; checked on one dataset between betas hi and lo.
func (f *finish) betaClaim(city string, hi, lo float64, claim string) harness.Claim {
	dv, dref := f.def()
	c1 := f.curves[curveKey{city, hi, dv, dref}]
	c5 := f.curves[curveKey{city, lo, dv, dref}]
	cl := harness.Claim{Claim: claim, Data: f.p.Title(city),
		Rule: fmt.Sprintf("the default variant's EMD after the last cycle at the larger β against the smaller, by Welch's two-sided t-test at level %s over the rounds: "+
			"reproduced when significantly lower, not reproduced when significantly higher, undecided otherwise", harness.FormatSig(verdict.Alpha, 2)),
		Simulations: f.rounds()}
	if c1 == nil || c5 == nil {
		cl.Verdict, cl.Reason, cl.Evidence = harness.Undecided, "a β was not run", "no trajectory"
		return cl
	}
	v, reason, w := betaRule(c1.byCycle[c1.cycles()], c5.byCycle[c5.cycles()])
	cl.Verdict, cl.Reason = v, reason
	cl.Evidence = fmt.Sprintf("final-cycle mean EMD, default variant %s, EMD to %s: β=%s %s vs β=%s %s (Welch p = %s)", dv.Label(), dref,
		privic.Sig(hi, 4), privic.Sig(w.MeanA, 4), privic.Sig(lo, 4), privic.Sig(w.MeanB, 4), harness.FormatSig(w.P, 2))
	return cl
}
