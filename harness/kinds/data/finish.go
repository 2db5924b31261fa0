package data

import (
	"context"
	"embed"
	"fmt"
	"math"
	"path/filepath"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/plots"
)

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Fig1    *fig1Data // nil: no Fig. 1
	Points  []string  // where Fig. 6a's points came from; none: no Fig. 6a
	Rows    string    // the row policy
	Grids   [][]string
	Skipped []harness.Skip
}

// fig1Data is what the section says of Fig. 1.
type fig1Data struct {
	City, Island string
	A, B         []int
	AMass, BMass float64
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	d := sectionData{Rows: p.Rows.String()}
	colour := "share of check-ins"
	if p.LogDensity {
		colour = "share of check-ins (log scale)"
	}
	var figs harness.Figures
	if p.IslandCity != "" {
		fig, f1, err := fig1(p, colour)
		if err := figs.Add("fig1", fig, err); err != nil {
			return harness.Section{}, err
		}
		d.Fig1 = f1
	}
	fig, sources, skipped, err := fig6a(p)
	if err != nil {
		return harness.Section{}, err
	}
	if fig != nil { // nil: no city's raw points were found
		figs = append(figs, harness.NamedFigure{Base: "fig6a", Fig: fig})
	}
	d.Points, d.Skipped = sources, skipped
	fig, err = fig6b(p, colour)
	if err := figs.Add("fig6b", fig, err); err != nil {
		return harness.Section{}, err
	}
	if d.Grids, err = gridRows(out); err != nil {
		return harness.Section{}, err
	}
	md, err := harness.RenderFile(templates, "section.md.tmpl", d)
	return harness.Section{Markdown: md, Skipped: skipped, Figures: figs}, err
}

// fig1 draws the island prior with A and B.
func fig1(p *params, colour string) (*plots.Figure, *fig1Data, error) {
	pl := p.places()
	s, err := pl.Setup()
	if err != nil {
		return nil, nil, err
	}
	g := s.DS.Grid
	blocked := 0
	for _, b := range s.Block {
		if b {
			blocked++
		}
	}
	fig, err := plots.Heatmaps("Fig. 1: "+param.Title(p.IslandCity)+" prior with an island at A",
		[]plots.GridMap{{
			Title: fmt.Sprintf("P(A) = %s, %d cells around A zeroed", harness.FormatSig(s.Prior[s.A], 3), blocked),
			Rows:  g.Rows, Cols: g.Cols, Values: s.Prior, Markers: pl.Markers(g),
		}}, plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colour})
	if err != nil {
		return nil, nil, err
	}
	return fig, &fig1Data{City: param.Title(p.IslandCity), Island: p.Island.Describe(), A: p.A, B: p.B,
		AMass: s.Prior[s.A], BMass: s.Prior[s.B]}, nil
}

// fig6a draws the check-in points, one scatter panel per city whose raw
// points can be found; the others are skipped, with the reason.
func fig6a(p *params) (*plots.Figure, []string, []harness.Skip, error) {
	var sp []plots.ScatterPanel
	var sources []string
	var skipped []harness.Skip
	for _, c := range p.Cities {
		lat, lon, source, err := datasets.Points(c)
		if err != nil {
			skipped = append(skipped, harness.Skip{Figure: "fig6a (" + param.Title(c) + ")", Reason: fmt.Sprintf("no raw check-in points for %s: %v", c, err)})
			continue
		}
		n := len(lat)
		lat, lon, k := thin(lat, lon, p.ScatterMaxPoints)
		title := fmt.Sprintf("%s: %d check-ins in the box", param.Title(c), n)
		src := fmt.Sprintf("%s from %s", param.Title(c), relToModule(source))
		if k > 1 {
			title += fmt.Sprintf(" (1 in %d drawn)", k)
			src += fmt.Sprintf(" (1 point in %d drawn, scatter_max_points = %d)", k, p.ScatterMaxPoints)
		}
		mid := 0.0
		for _, v := range lat {
			mid += v
		}
		mid /= float64(max(1, len(lat)))
		sp = append(sp, plots.ScatterPanel{
			Title: title, XLabel: "longitude (degrees east)", YLabel: "latitude (degrees north)",
			Sets: []plots.PointSet{{Name: param.Title(c), X: lon, Y: lat}},
			// Equal ground distances get equal lengths on both axes.
			Opt: plots.ScatterOptions{Aspect: math.Cos(mid * math.Pi / 180)},
		})
		sources = append(sources, src)
	}
	if len(sp) == 0 {
		return nil, nil, skipped, nil
	}
	fig, err := plots.ScatterPanels("Fig. 6a: Gowalla check-in locations", sp, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fig6a: %w", err)
	}
	return fig, sources, skipped, nil
}

// fig6b draws the density of the check-ins, one heat map per city.
func fig6b(p *params, colour string) (*plots.Figure, error) {
	var panels []plots.GridMap
	for _, c := range p.Cities {
		ds, err := datasets.Load(c, datasets.LoadOptions{Rows: p.Rows})
		if err != nil {
			return nil, err
		}
		panels = append(panels, plots.GridMap{
			Title: fmt.Sprintf("%s: %dx%d cells, N = %d", param.Title(c), ds.Grid.Rows, ds.Grid.Cols, ds.N),
			Rows:  ds.Grid.Rows, Cols: ds.Grid.Cols, Values: ds.Prior(),
		})
	}
	return plots.Heatmaps("Fig. 6b: density of the check-ins", panels, plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colour})
}

// gridRows are the section's grid table: grids.csv beside the paper's
// text.
func gridRows(out *harness.Output) ([][]string, error) {
	t, err := out.ReadTable("grids")
	if err != nil {
		return nil, err
	}
	rd, err := t.Reader("city", "rows", "cols", "cells", "n_checkins", "occupied_cells", "max_cell_row", "max_cell_col", "max_cell_share")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for i := range t.Rows {
		city := rd.Str(i, "city")
		text := "-"
		if f, ok := paper.Of(city); ok {
			text = f.Grid
		}
		share := rd.Str(i, "max_cell_share")
		if v, err := harness.ParseFloat(share); err == nil {
			share = harness.FormatPct(v)
		}
		rows = append(rows, []string{param.Title(city), rd.Str(i, "rows") + " x " + rd.Str(i, "cols"), rd.Str(i, "cells"), rd.Str(i, "n_checkins"),
			rd.Str(i, "occupied_cells"), fmt.Sprintf("(%s, %s)", rd.Str(i, "max_cell_row"), rd.Str(i, "max_cell_col")), share, text})
	}
	return rows, rd.Err()
}

// thin keeps every k-th point so that at most max remain (max 0: all).
func thin(lat, lon []float64, max int) ([]float64, []float64, int) {
	if max <= 0 || len(lat) <= max {
		return lat, lon, 1
	}
	k := (len(lat) + max - 1) / max
	var a, b []float64
	for i := 0; i < len(lat); i += k {
		a = append(a, lat[i])
		b = append(b, lon[i])
	}
	return a, b, k
}

// relToModule writes path relative to the module root when it can, so the
// report does not depend on where the checkout lies.
func relToModule(path string) string {
	root, err := datasets.ModuleRoot(".")
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}
