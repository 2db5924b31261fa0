package convergence

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/harness/kinds/internal/privic"
	"privic/plots"

	"gonum.org/v1/plot/vg"
)

// panel is one final estimate of estimate.csv on its grid.
type panel struct {
	rows, cols int
	vals       map[[2]int]float64
	kind       string
}

// panelKey is a (city, beta).
type panelKey struct {
	city string
	beta float64
}

// estimates reads round 1 of estimate.csv per (city, beta).
func (f *finish) estimates() (map[panelKey]*panel, error) {
	rd, err := f.est.Reader("city", "beta", "round", "estimate", "row", "col", "probability")
	if err != nil {
		return nil, err
	}
	panels := map[panelKey]*panel{}
	for i := range f.est.Rows {
		if rd.Str(i, "round") != "1" {
			continue
		}
		beta, r, c, v := rd.Float(i, "beta"), rd.Int(i, "row"), rd.Int(i, "col"), rd.Float(i, "probability")
		if rd.Err() != nil {
			return nil, rd.Err()
		}
		if r < 0 || c < 0 || r > 4096 || c > 4096 {
			return nil, fmt.Errorf("table estimate line %d: cell (%d,%d) out of range", i+2, r, c)
		}
		k := panelKey{rd.Str(i, "city"), beta}
		pn := panels[k]
		if pn == nil {
			pn = &panel{vals: map[[2]int]float64{}, kind: rd.Str(i, "estimate")}
			panels[k] = pn
		}
		pn.rows, pn.cols = max(pn.rows, r+1), max(pn.cols, c+1)
		pn.vals[[2]int{r, c}] = v
	}
	return panels, nil
}

// figSpec is one figure of a kind of figures (Fig. 7 or Fig. 8-9): its
// dataset and beta, its file and its label ("Fig. 7a"; "" for a dataset
// the paper does not have).
type figSpec struct {
	city, file, label string
	beta              float64
}

// title is the figure's title: what it shows, prefixed by the paper's
// label.
func (fs figSpec) title(what string) string {
	if fs.label != "" {
		return fs.label + ": " + what
	}
	return what
}

// caption names the figure in the section.
func (fs figSpec) caption(p *privic.Protocol) string {
	if fs.label != "" {
		return fs.label
	}
	return p.Title(fs.city) + ", β = " + privic.BetaText(fs.beta)
}

// figureList lists the figures of one kind: the paper's sub-figures
// (which: Fig7 or Fig89) of every preset the spec runs and every beta of
// the figure, in the paper's order (those at a beta this spec does not
// run are skipped with the reason), then generic-<name>-<beta> for every
// other dataset of the spec and beta.
func (f *finish) figureList(which func(paper.Facts) map[float64]string, generic string) []figSpec {
	var out []figSpec
	for _, city := range param.Presets() {
		facts, ok := paper.Of(city)
		if !ok || !slices.Contains(f.p.Cities, city) {
			continue
		}
		figs := which(facts)
		for _, beta := range slices.Sorted(maps.Keys(figs)) {
			out = append(out, figSpec{city, "fig" + figs[beta], "Fig. " + figs[beta], beta})
		}
	}
	for _, city := range f.p.Cities {
		if f.p.IsPreset(city) {
			continue
		}
		for _, beta := range f.betas() {
			out = append(out, figSpec{city, generic + "-" + city + "-" + harness.FormatFloat(beta), "", beta})
		}
	}
	return out
}

func fig7Of(f paper.Facts) map[float64]string  { return f.Fig7 }
func fig89Of(f paper.Facts) map[float64]string { return f.Fig89 }

// fig7 draws the default variant's final estimate (round 1) per city and
// beta: Fig. 7a/b Paris, 7c/d San Francisco.
func (f *finish) fig7() (harness.Figures, error) {
	panels, err := f.estimates()
	if err != nil {
		return nil, err
	}
	dv, _ := f.def()
	var figs harness.Figures
	for _, pf := range f.figureList(fig7Of, "estimate") {
		name := pf.file
		pn := panels[panelKey{pf.city, pf.beta}]
		if pn == nil {
			f.skip(name, fmt.Sprintf("no run of %s at beta = %s in this spec", pf.city, privic.BetaText(pf.beta)))
			continue
		}
		vals := make([]float64, pn.rows*pn.cols)
		for i := range vals {
			vals[i] = math.NaN()
		}
		for rc, v := range pn.vals {
			vals[rc[0]*pn.cols+rc[1]] = v
		}
		what := "final GIBU"
		if pn.kind == "last-cycle" {
			what = "θ after the last cycle"
		}
		title := pf.title(fmt.Sprintf("PRIVIC estimate, %s, β = %s", f.p.Title(pf.city), privic.BetaText(pf.beta)))
		fig, err := plots.Heatmaps(title, []plots.GridMap{{
			Title:  fmt.Sprintf("%s, %s, round 1", what, dv.Label()),
			Rows:   pn.rows,
			Cols:   pn.cols,
			Values: vals,
		}}, f.mapOptions(pf.city, plots.HeatOptions{ColorbarLabel: "estimated probability"}))
		if err == nil {
			// A single panel is narrow; widen it so the titles fit.
			if w, h := fig.Size(); w < 6.2*vg.Inch {
				err = fig.SetSize(6.2*vg.Inch, h)
			}
		}
		if err := figs.Add(name, fig, err); err != nil {
			return nil, err
		}
	}
	return figs, nil
}

// mapOptions are opt with the metres of city's cells on the map's axes
// when its dataset has them (param.MapMetres).
func (f *finish) mapOptions(city string, opt plots.HeatOptions) plots.HeatOptions {
	if ds, err := f.p.Dataset(city, f.p.Rows); err == nil {
		opt.CellWidthM, opt.CellHeightM = param.MapMetres(ds)
	}
	return opt
}

// curveSeries turns a family into a line series over cycles 1..last.
func curveSeries(name string, c *curve) plots.Series {
	s := plots.Series{Name: name}
	for t := 1; t <= c.cycles(); t++ {
		m, sd, n := c.stat(t)
		if n == 0 {
			continue
		}
		s.X = append(s.X, float64(t))
		s.Y = append(s.Y, m)
		s.YErr = append(s.YErr, sd)
	}
	return s
}

// emdTitle is the title of a figure of the EMD per cycle: the dataset,
// beta and the EMD at cycle 0 (the uniform estimate before any report),
// which the plot, from cycle 1 on, leaves out.
func emdTitle(city string, beta float64, c *curve) string {
	t := fmt.Sprintf("PRIVIC EMD per cycle, %s, β = %s", city, privic.BetaText(beta))
	if m, _, n := c.stat(0); n > 0 {
		t += fmt.Sprintf(" (cycle 0: EMD %s)", harness.FormatSig(m, 3))
	}
	return t
}

// fig89 draws the EMD per cycle: Fig. 8 Paris, Fig. 9 San Francisco;
// a: beta = 0.5, b: beta = 1.
func (f *finish) fig89(figs *harness.Figures) error {
	dv, dref := f.def()
	rv, rref, hasRef := f.ref()
	for _, pf := range f.figureList(fig89Of, "emd-by-cycle") {
		city, beta, name := pf.city, pf.beta, pf.file
		dc := f.curves[curveKey{city, beta, dv, dref}]
		if dc == nil {
			f.skip(name, fmt.Sprintf("no run of %s at beta = %s in this spec", city, privic.BetaText(beta)))
			continue
		}
		var series []plots.Series
		if pm := paperMeans(city, beta); len(pm) > 0 {
			s := plots.Series{Name: "paper, " + paperName(city) + " mean ± sd"}
			for t := 1; t < len(pm); t++ {
				m, sd, _ := paperStat(city, beta, t)
				s.X, s.Y, s.YErr = append(s.X, float64(t)), append(s.Y, m), append(s.YErr, sd)
			}
			series = append(series, s)
		}
		series = append(series, curveSeries("default "+dv.Label()+", EMD to "+dref, dc))
		if hasRef {
			if rc := f.curves[curveKey{city, beta, rv, rref}]; rc != nil {
				series = append(series, curveSeries("reference code "+rv.Label()+", EMD to batch", rc))
			}
		}
		if cv, cref, ok := f.closestIn(city, beta); ok && !(cv == dv && cref == dref) && !(hasRef && cv == rv && cref == rref) {
			if cc := f.curves[curveKey{city, beta, cv, cref}]; cc != nil {
				series = append(series, curveSeries("closest to the paper here: "+cv.Label()+", EMD to "+cref, cc))
			}
		}
		title := pf.title(emdTitle(f.p.Title(city), beta, dc))
		fig, err := plots.Lines(title, series, plots.LineOptions{
			XLabel:    "PRIVIC cycle t (batches of check-ins collected)",
			YLabel:    "EMD(θ_t, reference) (cells), mean ± sd",
			Points:    true,
			YFromZero: true,
		})
		if err := figs.Add(name, fig, err); err != nil {
			return err
		}
	}
	return nil
}
