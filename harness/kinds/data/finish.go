package data

import (
	"context"
	"embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/harness/kinds/internal/paper"
	"privic/harness/kinds/internal/param"
	"privic/plots"

	"gonum.org/v1/plot/vg"
)

//go:embed section.md.tmpl
var templates embed.FS

// sectionData is what section.md.tmpl shows.
type sectionData struct {
	Fig1   *fig1Data // nil: no island figure
	Points []string  // where the scatters' points came from; none: no scatter
	Rows   string    // the row policy
	Grids  [][]string
	// GridHeader is the header of Grids: the paper's text is a column
	// only when the spec has a preset.
	GridHeader []string
	Skipped    []harness.Skip
	// Figures are the figures of the data, with their captions.
	Figures []figure
	// Presets and Others say whether the spec has paper datasets and
	// datasets of its own.
	Presets, Others bool
}

// figure is a figure file and its caption.
type figure struct{ File, Caption string }

// fig1Data is what the section says of the island figure.
type fig1Data struct {
	File, City, Island string
	A, B               []int
	AMass, BMass       float64
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	d := sectionData{Rows: p.Rows.String()}
	colour := "share of check-ins"
	if p.LogDensity {
		colour = "share of check-ins (log scale)"
	}
	for _, c := range p.Cities {
		if p.IsPreset(c) {
			d.Presets = true
		} else {
			d.Others = true
		}
	}
	var figs harness.Figures
	if p.islandCity() != "" {
		fig, f1, err := fig1(p, colour)
		if err := figs.Add(f1.File, fig, err); err != nil {
			return harness.Section{}, err
		}
		d.Fig1 = f1
	}
	scatters, sources, skipped, err := scatterFigures(p)
	if err != nil {
		return harness.Section{}, err
	}
	figs = append(figs, scatters...)
	d.Points, d.Skipped = sources, skipped
	dens, err := densityFigures(p, colour)
	if err != nil {
		return harness.Section{}, err
	}
	figs = append(figs, dens...)
	for _, f := range append(scatters, dens...) {
		d.Figures = append(d.Figures, figure{File: f.Base, Caption: caption(p, f.Base)})
	}
	if d.GridHeader, d.Grids, err = gridRows(p, out, d.Presets); err != nil {
		return harness.Section{}, err
	}
	md, err := harness.RenderFile(templates, "section.md.tmpl", d)
	return harness.Section{Markdown: md, Skipped: skipped, Figures: figs}, err
}

// figureName is the paper's name of a figure of a preset (fig1, fig6a,
// fig6b) or name-<dataset> for another dataset.
func figureName(p *params, city, paperName, name string) string {
	if p.IsPreset(city) {
		return paperName
	}
	return name + "-" + city
}

// caption names a figure of the section: "Fig. 6a", or what it shows of
// which dataset.
func caption(p *params, file string) string {
	for _, c := range p.Cities {
		switch file {
		case "points-" + c:
			return "Check-ins of " + p.Title(c)
		case "density-" + c:
			return "Density of " + p.Title(c)
		}
	}
	return figTitle(file, "")
}

// figTitle is a figure's title: "Fig. 1: ..." for the paper's figure.
func figTitle(file, what string) string {
	if n, ok := strings.CutPrefix(file, "fig"); ok {
		if what == "" {
			return "Fig. " + n
		}
		return "Fig. " + n + ": " + what
	}
	return what
}

// fig1 draws the island prior with A and B.
func fig1(p *params, colour string) (*plots.Figure, *fig1Data, error) {
	pl := p.places()
	file := figureName(p, pl.City, "fig1", "island")
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
	fig, err := plots.Heatmaps(figTitle(file, p.Title(pl.City)+" prior with an island at A"),
		[]plots.GridMap{{
			Title: fmt.Sprintf("P(A) = %s, %d cells around A zeroed", harness.FormatSig(s.Prior[s.A], 3), blocked),
			Rows:  g.Rows, Cols: g.Cols, Values: s.Prior, Markers: pl.Markers(g),
		}}, mapOptions(s.DS, plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colour, EmptyLabel: "no mass"}))
	if err != nil {
		return nil, nil, err
	}
	return fig, &fig1Data{File: file, City: p.Title(pl.City), Island: p.Island.Describe(s.DS), A: pl.A.Cell, B: pl.B.Cell,
		AMass: s.Prior[s.A], BMass: s.Prior[s.B]}, nil
}

// scatterFigures draws the check-in points: Fig. 6a with a panel per
// preset whose raw points can be found, and points-<name> for every other
// dataset of points. The others are skipped, with the reason.
func scatterFigures(p *params) (harness.Figures, []string, []harness.Skip, error) {
	var paperPanels []plots.ScatterPanel
	var figs harness.Figures
	var sources []string
	var skipped []harness.Skip
	for _, c := range p.Cities {
		pts, source, err := points(p, c)
		file := figureName(p, c, "fig6a", "points")
		if err != nil {
			skipped = append(skipped, harness.Skip{Figure: file + " (" + p.Title(c) + ")", Reason: err.Error()})
			continue
		}
		panel, src := scatterPanel(p, c, pts, source)
		sources = append(sources, src)
		if p.IsPreset(c) {
			paperPanels = append(paperPanels, panel)
			continue
		}
		fig, err := plots.ScatterPanels("Check-in locations", []plots.ScatterPanel{panel}, 0)
		if err == nil {
			err = atLeast(fig, 6.2*vg.Inch)
		}
		if err := figs.Add(file, fig, err); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(paperPanels) > 0 {
		fig, err := plots.ScatterPanels("Fig. 6a: Gowalla check-in locations", paperPanels, 0)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("fig6a: %w", err)
		}
		figs = append(harness.Figures{{Base: "fig6a", Fig: fig}}, figs...)
	}
	return figs, sources, skipped, nil
}

// place is a distinct point of a dataset's check-ins and the weight of
// the check-ins there.
type place struct{ lat, lon, w float64 }

// places adds up the weights of the points by place, in the order the
// places first appear.
type places struct {
	list []place
	at   map[[2]float64]int
}

func (ps *places) add(lat, lon, w float64) {
	if ps.at == nil {
		ps.at = map[[2]float64]int{}
	}
	k, ok := ps.at[[2]float64{lat, lon}]
	if !ok {
		k = len(ps.list)
		ps.at[[2]float64{lat, lon}] = k
		ps.list = append(ps.list, place{lat: lat, lon: lon})
	}
	ps.list[k].w += w
}

// points reads the raw check-in points of a dataset, by place: a
// preset's subset (searched in $PRIVIC_DATA, datasets/cache/ and
// ../shared; a check-in each) or a declared dataset's points file, with
// its weights, keeping those in its region.
func points(p *params, c string) ([]place, string, error) {
	var ps places
	if p.IsPreset(c) {
		lat, lon, source, err := datasets.Points(c)
		if err != nil {
			return nil, "", fmt.Errorf("no raw check-in points for %s: %v", c, err)
		}
		for i := range lat {
			ps.add(lat[i], lon[i], 1)
		}
		return ps.list, source, nil
	}
	src, ok, err := p.Datasets().PointsFile(c, nil)
	if err != nil || !ok {
		return nil, "", fmt.Errorf("%s has no check-in points (its data are per-cell counts or synthetic)", c)
	}
	fh, err := os.Open(src.Path)
	if err != nil {
		return nil, "", err
	}
	defer fh.Close()
	_, err = datasets.ScanPoints(fh, src.Path, src.Format, func(a, b, w float64) error {
		if w > 0 && src.Region.Contains(a, b) {
			ps.add(a, b, w)
		}
		return nil
	})
	return ps.list, src.Declared, err
}

// scatterPanel is the scatter of one dataset's check-ins, a marker per
// place whose area grows with the weight of its check-ins, thinned to
// scatter_max_points places, and where they came from. Its title gives
// N, the weight of all the check-ins in the box (their number when each
// weighs 1), and the number of places.
func scatterPanel(p *params, c string, pts []place, source string) (plots.ScatterPanel, string) {
	n := 0.0
	for _, q := range pts {
		n += q.w
	}
	drawn, k := thin(pts, p.ScatterMaxPoints)
	title := fmt.Sprintf("%s: N = %s check-ins in the box, at %d places", p.Title(c), harness.FormatSig(n, 6), len(pts))
	src := fmt.Sprintf("%s from %s", p.Title(c), relToModule(source))
	if k > 1 {
		title += fmt.Sprintf(" (1 in %d drawn)", k)
		src += fmt.Sprintf(" (1 place in %d drawn, scatter_max_points = %d)", k, p.ScatterMaxPoints)
	}
	set := plots.PointSet{Name: p.Title(c)}
	mid := 0.0
	for _, q := range drawn {
		set.X, set.Y, set.W = append(set.X, q.lon), append(set.Y, q.lat), append(set.W, q.w)
		mid += q.lat
	}
	mid /= float64(max(1, len(drawn)))
	return plots.ScatterPanel{
		Title: title, XLabel: "longitude (degrees east)", YLabel: "latitude (degrees north)",
		Sets: []plots.PointSet{set},
		// Equal ground distances get equal lengths on both axes.
		Opt: plots.ScatterOptions{Aspect: math.Cos(mid * math.Pi / 180), WeightUnit: "check-ins"},
	}, src
}

// mapOptions are opt with the metres of ds's cells on the map's axes
// (param.MapMetres).
func mapOptions(ds *datasets.Dataset, opt plots.HeatOptions) plots.HeatOptions {
	opt.CellWidthM, opt.CellHeightM = param.MapMetres(ds)
	return opt
}

// densityFigures draws the density of the check-ins: Fig. 6b with a heat
// map per preset, and density-<name> for every other dataset.
func densityFigures(p *params, colour string) (harness.Figures, error) {
	var paperPanels []plots.GridMap
	var figs harness.Figures
	opt := plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colour, EmptyLabel: "no check-in"}
	for _, c := range p.Cities {
		ds, err := p.Dataset(c, p.Rows)
		if err != nil {
			return nil, err
		}
		panel := plots.GridMap{
			Title: fmt.Sprintf("%s: %dx%d cells, N = %d", p.Title(c), ds.Grid.Rows, ds.Grid.Cols, ds.N),
			Rows:  ds.Grid.Rows, Cols: ds.Grid.Cols, Values: ds.Prior(),
		}
		if p.IsPreset(c) {
			paperPanels = append(paperPanels, panel)
			continue
		}
		fig, err := plots.Heatmaps("Density of the check-ins, "+param.CellWords(ds), []plots.GridMap{panel}, mapOptions(ds, opt))
		if err == nil {
			err = atLeast(fig, 6.2*vg.Inch)
		}
		if err := figs.Add(figureName(p, c, "fig6b", "density"), fig, err); err != nil {
			return nil, err
		}
	}
	if len(paperPanels) > 0 {
		fig, err := plots.Heatmaps("Fig. 6b: density of the check-ins", paperPanels, opt)
		if err != nil {
			return nil, fmt.Errorf("fig6b: %w", err)
		}
		figs = append(harness.Figures{{Base: "fig6b", Fig: fig}}, figs...)
	}
	return figs, nil
}

// gridRows are the section's grid table: grids.csv, beside the paper's
// text when the spec has a preset (withPaper).
func gridRows(p *params, out *harness.Output, withPaper bool) (header []string, rows [][]string, err error) {
	header = []string{"dataset", "grid (rows x cols)", "cells", "cell size", "check-ins N", "occupied cells", "densest cell", "its share"}
	if withPaper {
		header = append(header, "paper's text")
	}
	t, err := out.ReadTable("grids")
	if err != nil {
		return nil, nil, err
	}
	rd, err := t.Reader("city", "rows", "cols", "cells", "n_checkins", "occupied_cells", "max_cell_row", "max_cell_col", "max_cell_share")
	if err != nil {
		return nil, nil, err
	}
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
		cell := "-"
		if ds, err := p.Dataset(city, p.Rows); err == nil {
			cell = param.CellWords(ds)
		}
		row := []string{p.Title(city), rd.Str(i, "rows") + " x " + rd.Str(i, "cols"), rd.Str(i, "cells"), cell, rd.Str(i, "n_checkins"),
			rd.Str(i, "occupied_cells"), fmt.Sprintf("(%s, %s)", rd.Str(i, "max_cell_row"), rd.Str(i, "max_cell_col")), share}
		if withPaper {
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	return header, rows, rd.Err()
}

// atLeast widens a figure of one narrow panel so that its titles fit.
func atLeast(fig *plots.Figure, w vg.Length) error {
	if fw, h := fig.Size(); fw < w {
		return fig.SetSize(w, h)
	}
	return nil
}

// thin keeps every k-th place so that at most max remain (max 0: all).
func thin(pts []place, max int) ([]place, int) {
	if max <= 0 || len(pts) <= max {
		return pts, 1
	}
	k := (len(pts) + max - 1) / max
	var out []place
	for i := 0; i < len(pts); i += k {
		out = append(out, pts[i])
	}
	return out, k
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
