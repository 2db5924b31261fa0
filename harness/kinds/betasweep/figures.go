package betasweep

import (
	"fmt"
	"slices"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/plots"
)

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

// figure is one figure of the kind: the dataset it shows and its file.
type figure struct{ city, file string }

// figureList lists the figures: the paper's Fig. 10a/b of every preset
// the spec runs, then final-emd-<name> for every other dataset of the
// spec.
func (f *finish) figureList() []figure {
	var out []figure
	for _, city := range param.Presets() {
		if facts, ok := paper.Of(city); ok && slices.Contains(f.p.Cities, city) {
			out = append(out, figure{city, facts.Fig10})
		}
	}
	for _, city := range f.p.Cities {
		if !f.p.IsPreset(city) {
			out = append(out, figure{city, "final-emd-" + city})
		}
	}
	return out
}

// fig10 draws the paper's Fig. 10a/b for the presets it has, and the same
// figure for every other dataset.
func (f *finish) fig10() (harness.Figures, error) {
	var figs harness.Figures
	for _, fg := range f.figureList() {
		city, name := fg.city, fg.file
		var series []plots.Series
		for i, v := range f.p.Variant {
			ref := f.ownRef(v)
			label := v.Label()
			if n := v.NameOn(f.p.Cities); n != "" {
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
		title := fmt.Sprintf("PRIVIC's final EMD vs β, %s", f.p.Title(city))
		if n, ok := strings.CutPrefix(name, "fig"); ok {
			title = fmt.Sprintf("Fig. %s: %s", n, title)
		}
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
