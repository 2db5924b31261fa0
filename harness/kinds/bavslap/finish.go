package bavslap

import (
	"context"
	"fmt"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/kernels/mechanism"
	"privic/plots"
)

// cell is one (city, mechanism, beta) aggregate.
type cell struct {
	city, mech   string
	beta, eps    float64
	emd, defect  []float64
	mean, sd     float64
	dMean, dSD   float64
	offGridMean  float64
	offGridCount int
}

// levelRow is one row of levels.csv.
type levelRow struct {
	city              string
	beta, tight, eps2 float64
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	cells, err := harness.ReadTableAs(out, "utility", aggregate)
	if err != nil {
		return harness.Section{}, err
	}
	levels, err := harness.ReadTableAs(out, "levels", readLevels)
	if err != nil {
		return harness.Section{}, err
	}
	sum, err := summary(p, cells)
	if err != nil {
		return harness.Section{}, err
	}
	if err := out.WriteTable(sum); err != nil {
		return harness.Section{}, err
	}
	var figs harness.Figures
	for _, city := range p.Cities {
		fig, err := figure(p, city, figureName(p, city), cells)
		if err := figs.Add(figureName(p, city), fig, err); err != nil {
			return harness.Section{}, err
		}
	}
	claims := checkClaims(p, cells, levels)
	md, err := section(p, cells, levels, claims)
	return harness.Section{Markdown: md, Claims: claims, Figures: figs}, err
}

// figureName is the paper's name of a dataset's figure (fig3a, fig3b),
// or utility-<name> for datasets the paper does not have.
func figureName(p *params, city string) string {
	if f, ok := paper.Of(city); ok && p.IsPreset(city) {
		return f.Fig3
	}
	return "utility-" + city
}

func summary(p *params, cells []*cell) (harness.Table, error) {
	sum := harness.NewTable("utility_summary", "city", "mechanism", "beta", "epsilon", "sims", "emd_mean", "emd_sd",
		"emd_reference_defect_mean", "emd_reference_defect_sd", "emd_mean_m", "emd_sd_m", "emd_reference_defect_mean_m", "emd_reference_defect_sd_m")
	for _, c := range cells {
		ds, err := p.Dataset(c.city, p.Rows)
		if err != nil {
			return harness.Table{}, err
		}
		d, dsd, dm, dsdm := "", "", "", ""
		if len(c.defect) > 0 {
			d, dm = harness.FormatFloat(c.dMean), param.Metres(ds, c.dMean)
		}
		if len(c.defect) > 1 {
			dsd, dsdm = harness.FormatFloat(c.dSD), param.Metres(ds, c.dSD)
		}
		sum.Add(harness.Row{"city": c.city, "mechanism": c.mech, "beta": c.beta, "epsilon": c.eps, "sims": len(c.emd), "emd_mean": c.mean,
			"emd_sd": c.sd, "emd_reference_defect_mean": d, "emd_reference_defect_sd": dsd, "emd_mean_m": param.Metres(ds, c.mean),
			"emd_sd_m": param.Metres(ds, c.sd), "emd_reference_defect_mean_m": dm, "emd_reference_defect_sd_m": dsdm})
	}
	return *sum, nil
}

func readLevels(t *harness.Table) ([]levelRow, error) {
	rd, err := t.Reader("city", "beta", "ba_tight_epsilon", "lap_epsilon")
	if err != nil {
		return nil, err
	}
	var out []levelRow
	for i := range t.Rows {
		out = append(out, levelRow{city: rd.Str(i, "city"), beta: rd.Float(i, "beta"), tight: rd.Float(i, "ba_tight_epsilon"),
			eps2: rd.Float(i, "lap_epsilon")})
	}
	return out, rd.Err()
}

// aggregate groups utility rows by (city, mechanism, beta) in table order
// and computes mean and sample sd.
func aggregate(t *harness.Table) ([]*cell, error) {
	rd, err := t.Reader("city", "mechanism", "beta", "epsilon", "emd", "emd_reference_defect", "p_reports_off_grid")
	if err != nil {
		return nil, err
	}
	idx := map[string]*cell{}
	var cells []*cell
	for i := range t.Rows {
		key := rd.Str(i, "city") + "/" + rd.Str(i, "mechanism") + "/" + rd.Str(i, "beta")
		c, ok := idx[key]
		if !ok {
			c = &cell{city: rd.Str(i, "city"), mech: rd.Str(i, "mechanism"), beta: rd.Float(i, "beta"), eps: rd.Float(i, "epsilon")}
			idx[key] = c
			cells = append(cells, c)
		}
		c.emd = append(c.emd, rd.Float(i, "emd"))
		if rd.Str(i, "emd_reference_defect") != "" {
			c.defect = append(c.defect, rd.Float(i, "emd_reference_defect"))
		}
		c.offGridMean += rd.Float(i, "p_reports_off_grid")
		c.offGridCount++
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	for _, c := range cells {
		c.mean, c.sd, _ = harness.MeanSD(c.emd)
		c.dMean, c.dSD, _ = harness.MeanSD(c.defect)
		if c.offGridCount > 0 {
			c.offGridMean /= float64(c.offGridCount)
		}
	}
	return cells, nil
}

// series returns (beta, mean, sd) of one city and mechanism sorted by beta.
func series(cells []*cell, city, mech string, defect bool) (x, y, e []float64) {
	x, sims := samples(cells, city, mech, defect)
	for _, v := range sims {
		m, sd, _ := harness.MeanSD(v)
		y, e = append(y, m), append(e, sd)
	}
	return x, y, e
}

func figure(p *params, city string, file string, cells []*cell) (*plots.Figure, error) {
	title := fmt.Sprintf("Statistical utility, %s (mean ± sd, %d sims)", p.Title(city), p.sims(city))
	if letter, ok := strings.CutPrefix(file, "fig3"); ok {
		title = fmt.Sprintf("Fig. 3%s: statistical utility, %s (mean ± sd, %d sims)", letter, p.Title(city), p.sims(city))
	}
	lapLabel := "LAP (ε = tight ε of BA)"
	if p.LapEpsilon == "two-beta" {
		lapLabel = "LAP (ε = 2β)"
	}
	// BA and LAP in their registry styles (the same in every figure);
	// the reference code's EMD of LAP in LAP's colour, dotted, hollow.
	baStyle, _ := mechanism.StyleOf("ba")
	lapStyle, _ := mechanism.StyleOf("lap")
	defectStyle := plots.Style{Color: lapStyle.Color, Marker: "square", Dash: []float64{1.5, 2}}
	var ss []plots.Series
	x, y, e := series(cells, city, "ba", false)
	ss = append(ss, plots.Series{Name: "BA", X: x, Y: y, YErr: e, Style: plots.Style(baStyle)})
	x, y, e = series(cells, city, "lap", false)
	ss = append(ss, plots.Series{Name: lapLabel, X: x, Y: y, YErr: e, Style: plots.Style(lapStyle)})
	if p.defectSims(p.IsPreset(city)) > 0 {
		x, y, e = series(cells, city, "lap", true)
		if min(p.defectSims(p.IsPreset(city)), p.sims(city)) < 2 {
			e = nil // one simulation: no spread to show
		}
		if len(x) > 0 {
			name := "LAP, reference code's defective EMD"
			if e == nil {
				name += " (1 sim)"
			}
			ss = append(ss, plots.Series{Name: name, X: x, Y: y, YErr: e, Style: defectStyle})
		}
	}
	return plots.Lines(title, ss, plots.LineOptions{
		XLabel: "β, BA loss parameter (1/cell); geo-ind ε ≈ 2β",
		YLabel: "EMD(IBU estimate, true prior) (cells)",
		Points: true,
	})
}
