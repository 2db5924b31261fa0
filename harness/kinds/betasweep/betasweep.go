// Package betasweep is the experiment kind "beta-sweep" (paper Sec. V,
// Fig. 10): PRIVIC's final EMD against the loss parameter beta, per city
// and protocol variant (see package privic).
package betasweep

import (
	"context"
	"embed"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/plots"
)

// Kind returns the beta-sweep kind.
func Kind() harness.Kind { return harness.Typed[*params, *privic.Job](def{}) }

// params are the kind's [params]: each listed variant is run at every
// beta; the first variant is the default.
type params struct {
	privic.Protocol
	Variant []privic.Variant `toml:"variant"`
}

func (p *params) Validate() error {
	if err := p.Protocol.Validate(); err != nil {
		return err
	}
	if len(p.Variant) == 0 {
		return fmt.Errorf("params.variant: empty; give at least one [[params.variant]] table")
	}
	for i, v := range p.Variant {
		key := fmt.Sprintf("variant[%d]", i)
		if err := v.Validate(key); err != nil {
			return err
		}
		if slices.Index(p.Variant, v) < i {
			return fmt.Errorf("params.%s = %s: duplicate variant", key, v.Label())
		}
	}
	return nil
}

type def struct{}

func (def) About() harness.About {
	return harness.About{
		Name:     "beta-sweep",
		Describe: "PRIVIC's final EMD against beta, per city and protocol variant (Fig. 10)",
		Tables:   []string{"final_emd", "final_emd_summary"},
		Figures:  []string{"fig10a", "fig10b"},
		Claims:   true,
		Skips:    true,
		Version:  "1",
	}
}

// NewParams: the paper's betas, the paper's and the reference code's
// variants.
func (def) NewParams() *params {
	return &params{
		Protocol: privic.DefaultProtocol(5, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0),
		Variant:  []privic.Variant{privic.PaperVariant(), privic.ReferenceVariant()},
	}
}

func (def) Plan(p *params) ([]harness.Work[*privic.Job], error) {
	return privic.Plan(&p.Protocol, p.Variant, false)
}

func (def) Run(ctx context.Context, j *privic.Job, rng *rand.Rand) ([]harness.Table, error) {
	return privic.Run(ctx, j, rng)
}

// EstimateBytes implements harness.MemoryEstimator.
func (def) EstimateBytes(j *privic.Job) int64 { return privic.EstimateBytes(j) }

// EstimateCost implements harness.CostEstimator (scheduling only).
func (def) EstimateCost(j *privic.Job) float64 { return privic.EstimateCost(j) }

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
	if err := out.WriteTable(f.summary()); err != nil {
		return harness.Section{}, err
	}
	if err := ctx.Err(); err != nil {
		return harness.Section{}, err
	}
	figs, err := f.fig10()
	if err != nil {
		return harness.Section{}, err
	}
	claims := []harness.Claim{f.claim()}
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
func (f *finish) summary() harness.Table {
	t := harness.NewTable("final_emd_summary", "city", "beta", "first_mechanism", "ibu_start", "mixing", "batches", "variant", "emd_reference",
		"estimate", "rounds", "mean", "sd", "final_tight_eps_mean")
	for _, city := range f.p.Cities {
		for _, v := range f.p.Variant {
			for _, ref := range f.p.EMDReference {
				for _, est := range f.estimates() {
					for _, beta := range f.betas() {
						k := privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: est}
						m, sd, n := f.fs.Stat(k)
						if n == 0 {
							continue
						}
						t.Add(city, beta, v.FirstMechanism, v.IBUStart, v.Mixing, v.Batches, v.Name(), ref, est, n, m, sd, f.fs.EpsMean(k))
					}
				}
			}
		}
	}
	return *t
}

// series is one (variant, reference, estimate) curve over beta.
func (f *finish) series(city string, v privic.Variant, ref, est, name string) (plots.Series, bool) {
	sr := plots.Series{Name: name}
	for _, beta := range f.betas() {
		m, sd, n := f.fs.Stat(privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: est})
		if n == 0 {
			continue
		}
		sr.X, sr.Y, sr.YErr = append(sr.X, beta), append(sr.Y, m), append(sr.YErr, sd)
	}
	return sr, len(sr.X) > 0
}

// fig10 draws the paper's Fig. 10a/b for the presets it has.
func (f *finish) fig10() (harness.Figures, error) {
	var figs harness.Figures
	for _, city := range paper.Presets() {
		facts, _ := paper.Of(city)
		name := facts.Fig10
		if !slices.Contains(f.p.Cities, city) {
			f.skipped = append(f.skipped, harness.Skip{Figure: name, Reason: city + " is not in this spec's cities"})
			continue
		}
		var series []plots.Series
		for i, v := range f.p.Variant {
			ref := f.ownRef(v)
			label := v.Label()
			if n := v.Name(); n != "" {
				label = n + " " + label
			}
			if sr, ok := f.series(city, v, ref, "last-cycle", label+", last cycle, EMD to "+ref); ok {
				series = append(series, sr)
			}
			if i == 0 && f.p.FinalGIBU {
				if sr, ok := f.series(city, v, ref, "gibu", label+", final GIBU, EMD to "+ref); ok {
					series = append(series, sr)
				}
			}
		}
		if len(series) == 0 {
			f.skipped = append(f.skipped, harness.Skip{Figure: name, Reason: "no results for " + city})
			continue
		}
		title := fmt.Sprintf("Fig. %s: PRIVIC's final EMD vs β, %s", strings.TrimPrefix(name, "fig"), param.Title(city))
		fig, err := plots.Lines(title, series, plots.LineOptions{
			XLabel:    "loss parameter β (1/cell); BA is 2β-geo-indistinguishable",
			YLabel:    fmt.Sprintf("final EMD (cells), mean ± sd over %d rounds", f.p.Rounds),
			Points:    true,
			YFromZero: true,
		})
		if err := figs.Add(name, fig, err); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// claim checks "the EMD falls as beta grows" on the default variant.
func (f *finish) claim() harness.Claim {
	v := f.p.Variant[0]
	ref := f.ownRef(v)
	betas := slices.Sorted(slices.Values(f.betas()))
	var ev []string
	mono, overall, n := 0, 0, 0
	for _, city := range f.p.Cities {
		var means []float64
		for _, beta := range betas {
			m, _, k := f.fs.Stat(privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: "last-cycle"})
			if k > 0 {
				means = append(means, m)
			}
		}
		if len(means) < 2 {
			continue
		}
		n++
		drops := 0
		for i := 1; i < len(means); i++ {
			if means[i] < means[i-1] {
				drops++
			}
		}
		if drops == len(means)-1 {
			mono++
		}
		if means[len(means)-1] < means[0] {
			overall++
		}
		parts := make([]string, len(means))
		for i, m := range means {
			parts[i] = privic.Sig(m, 4)
		}
		ev = append(ev, fmt.Sprintf("%s: EMD at β = %s: %s (falls in %d of %d steps; β=%s/β=%s ratio %s)", param.Title(city),
			privic.BetaList(betas), strings.Join(parts, ", "), drops, len(means)-1, privic.BetaText(betas[len(betas)-1]), privic.BetaText(betas[0]),
			privic.Sig(means[len(means)-1]/means[0], 3)))
	}
	verdict := harness.VerdictOf(n > 0 && mono == n, overall > 0)
	evidence := fmt.Sprintf("default variant %s, EMD to %s after the last cycle, mean over %d rounds: %s. "+
		"(Sec. V also says higher β means less noise and hence worse statistical utility; the measured direction is what is reported here.)",
		v.Label(), ref, f.p.Rounds, strings.Join(ev, "; "))
	return harness.Claim{Claim: "PRIVIC's EMD falls as β grows (Fig. 10)", Evidence: evidence, Verdict: verdict}
}

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Betas               string
	Rounds              int
	Schedules, Variants []string
	Figures             []string
	Cities              []cityTable
	Claims              []harness.Claim
}

// cityTable is one city's final EMDs per variant, reference, estimate and
// beta.
type cityTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

func (f *finish) section(claims []harness.Claim) (string, error) {
	d := sectionData{Betas: privic.BetaList(f.betas()), Rounds: f.p.Rounds, Claims: claims}
	for _, v := range f.p.Variant {
		d.Variants = append(d.Variants, v.Title())
	}
	for _, city := range f.p.Cities {
		d.Schedules = append(d.Schedules, fmt.Sprintf("%s %d cycles", param.Title(city), f.p.Cycles[city]))
	}
	for _, name := range []string{"10a", "10b"} {
		if !slices.ContainsFunc(f.skipped, func(s harness.Skip) bool { return s.Figure == "fig"+name }) {
			d.Figures = append(d.Figures, name)
		}
	}
	for _, city := range f.p.Cities {
		ct := cityTable{Title: param.Title(city), Header: []string{"variant", "EMD to", "estimate"}}
		for _, beta := range f.betas() {
			ct.Header = append(ct.Header, "β="+privic.BetaText(beta))
		}
		for _, v := range f.p.Variant {
			for _, ref := range f.p.EMDReference {
				for _, est := range f.estimates() {
					row := []string{v.Label(), ref, est}
					for _, beta := range f.betas() {
						m, sd, _ := f.fs.Stat(privic.FinalKey{City: city, Beta: beta, V: v, Ref: ref, Estimate: est})
						row = append(row, privic.PM(m, sd, 4))
					}
					ct.Rows = append(ct.Rows, row)
				}
			}
		}
		d.Cities = append(d.Cities, ct)
	}
	return harness.RenderFile(templates, "section.md.tmpl", d)
}
