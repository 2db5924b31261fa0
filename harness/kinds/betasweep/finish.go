package betasweep

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/harness/kinds/internal/verdict"
)

// finish is the state of one Finish.
type finish struct {
	p       *params
	fs      *privic.Finals
	skipped []harness.Skip
}

// Finish writes the summary table and Fig. 10a/b, and returns the section
// with the claim.
func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	fs, err := harness.ReadTableAs(out, "final_emd", privic.ReadFinals)
	if err != nil {
		return harness.Section{}, err
	}
	f := &finish{p: p, fs: fs}
	sum, err := f.summary()
	if err != nil {
		return harness.Section{}, err
	}
	if err := out.WriteTable(sum); err != nil {
		return harness.Section{}, err
	}
	if err := ctx.Err(); err != nil {
		return harness.Section{}, err
	}
	figs, err := f.fig10()
	if err != nil {
		return harness.Section{}, err
	}
	claims := f.claims()
	md, err := f.section(claims)
	return harness.Section{Markdown: md, Claims: claims, Skipped: f.skipped, Figures: figs}, err
}

func (f *finish) betas() []float64 { return f.p.Beta.Values() }

func (f *finish) estimates() []string {
	if f.p.FinalGIBU {
		return []string{"last-cycle", "gibu"}
	}
	return []string{"last-cycle"}
}

// ownRef is the EMD reference a variant is shown with: the reference
// code's variant with its batch reference, every other with the first
// listed reference.
func (f *finish) ownRef(v privic.Variant) string {
	if v == privic.ReferenceVariant() && slices.Contains(f.p.EMDReference, "batch") {
		return "batch"
	}
	return f.p.EMDReference[0]
}

// summary is final_emd_summary.csv: mean and sd over rounds per city,
// variant, EMD reference, estimate and beta.
func (f *finish) summary() (harness.Table, error) {
	t := harness.NewTable("final_emd_summary", "city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "variant", "emd_reference",
		"estimate", "rounds", "mean", "sd", "final_tight_eps_mean", "mean_m", "sd_m")
	for _, city := range f.p.Cities {
		ds, err := f.p.Dataset(city, f.p.Rows)
		if err != nil {
			return harness.Table{}, err
		}
		for _, v := range f.p.Variant {
			for _, ref := range f.p.EMDReference {
				for _, est := range f.estimates() {
					for _, beta := range f.betas() {
						k := privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: est}
						m, sd, n := f.fs.Stat(k)
						if n == 0 {
							continue
						}
						t.Add(harness.Row{"city": city, "beta": beta, "first_mechanism": v.FirstMechanism, "ibu_start": v.IBUStart,
							"mixing": v.Mixing, "batches": v.Batches, "variant": v.Name(), "emd_reference": ref, "estimate": est,
							"rounds": n, "mean": m, "sd": sd, "final_tight_eps_mean": f.fs.EpsMean(k),
							"mean_m": param.Metres(ds, m), "sd_m": param.Metres(ds, sd)})
					}
				}
			}
		}
	}
	return *t, nil
}

// sweepRule decides "the EMD falls as beta grows" from the rounds at
// each beta (in increasing beta): the largest beta against the smallest
// by Welch's test, and every step by Welch's test with Holm's correction
// across the steps. Reproduced when the EMD falls significantly overall
// and no step rises significantly (a step the rounds cannot separate is
// no rise: the claim is the trend); partly when it falls overall but some
// step rises significantly; not reproduced when it rises significantly
// overall; undecided when the rounds cannot separate the largest beta's
// EMD from the smallest's.
func sweepRule(sims [][]float64) (v, reason string, falls, rises int) {
	n := len(sims)
	if n < 2 {
		return harness.Undecided, "fewer than 2 betas", 0, 0
	}
	order, _, _ := verdict.Compare(sims[1:], sims[:n-1])
	for _, o := range order {
		switch o {
		case verdict.Lower:
			falls++
		case verdict.Higher:
			rises++
		}
	}
	w, ok := verdict.WelchTest(sims[n-1], sims[0])
	switch {
	case !ok || w.P >= verdict.Alpha:
		return harness.Undecided, fmt.Sprintf("too few rounds to separate the largest beta's EMD from the smallest's (p = %s)", harness.FormatSig(w.P, 2)), falls, rises
	case w.MeanA > w.MeanB:
		return harness.NotReproduced, "", falls, rises
	case rises > 0:
		return harness.Partly, "", falls, rises
	}
	return harness.Reproduced, "", falls, rises
}

// claims checks "the EMD falls as beta grows" on the default variant, one
// claim per dataset.
func (f *finish) claims() []harness.Claim {
	v := f.p.Variant[0]
	ref := f.ownRef(v)
	betas := slices.Sorted(slices.Values(f.betas()))
	var out []harness.Claim
	for _, city := range f.p.Cities {
		var means []float64
		var sims [][]float64
		var at []float64
		for _, beta := range betas {
			k := privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: "last-cycle"}
			if m, _, n := f.fs.Stat(k); n > 0 {
				means = append(means, m)
				sims = append(sims, f.fs.Values(k))
				at = append(at, beta)
			}
		}
		if len(means) < 2 {
			continue
		}
		verd, reason, falls, rises := sweepRule(sims)
		parts := make([]string, len(means))
		for i, m := range means {
			parts[i] = privic.Sig(m, 4)
		}
		out = append(out, harness.Claim{
			Claim: "PRIVIC's EMD falls as β grows (Fig. 10)",
			Data:  f.p.Title(city),
			Rule: fmt.Sprintf("default variant, EMD after the last cycle, at increasing β: the largest β against the smallest by Welch's two-sided t-test at level %s, and each step by Welch's test with Holm's correction across the steps; "+
				"reproduced when the EMD falls significantly overall and no step rises significantly, partly when it falls overall but some step rises significantly, not reproduced when it rises overall, undecided when the rounds cannot separate the largest beta from the smallest",
				harness.FormatSig(verdict.Alpha, 2)),
			Simulations: fmt.Sprintf("%d rounds per β", f.p.Rounds),
			Evidence: fmt.Sprintf("default variant %s, EMD to %s after the last cycle: EMD at β = %s: %s (significant falls in %d of %d steps, rises in %d; β=%s/β=%s ratio %s). "+
				"(Sec. V also says higher β means less noise and hence worse statistical utility; the measured direction is what is reported here.)",
				v.Label(), ref, privic.BetaList(at), strings.Join(parts, ", "), falls, len(means)-1, rises, privic.BetaText(at[len(at)-1]), privic.BetaText(at[0]),
				privic.Sig(means[len(means)-1]/means[0], 3)),
			Verdict: verd, Reason: reason,
		})
	}
	return out
}
