package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"privic/datasets"
	"privic/harness"
	"privic/plots"
)

// datasetsKind draws the data figures: Fig. 1 (the Paris island prior with
// A and B), Fig. 6a (check-in points) and Fig. 6b (density heat maps), and
// tabulates the grids.
type datasetsKind struct{}

type datasetsParams struct {
	Cities []string           `toml:"cities"`
	Rows   datasets.RowPolicy `toml:"rows"`
	// IslandCity is the city of Fig. 1 (the paper: Paris).
	IslandCity string       `toml:"island_city"`
	Island     islandParams `toml:"island"`
	A          cellParam    `toml:"a"`
	B          cellParam    `toml:"b"`
	// ScatterMaxPoints thins Fig. 6a to at most this many points per city
	// (every k-th point in file order; 0 draws all of them).
	ScatterMaxPoints int `toml:"scatter_max_points"`
	// LogDensity colours Fig. 1 and Fig. 6b by log10 of the share.
	LogDensity bool `toml:"log_density"`
}

func (datasetsKind) Name() string { return "datasets" }
func (datasetsKind) Describe() string {
	return "Fig. 1 (Paris island prior with A and B), Fig. 6a (check-in points), Fig. 6b (check-in density) and a table of the grids"
}
func (datasetsKind) Outputs() []string {
	return []string{"grids.csv", "fig1.png", "fig1.svg", "fig6a.png", "fig6a.svg",
		"fig6b.png", "fig6b.svg", "skipped.csv", "section.md"}
}

func (datasetsKind) NewParams() harness.Params {
	return &datasetsParams{
		Cities:           []string{"paris", "sf"},
		Rows:             datasets.HeaderQuirk,
		IslandCity:       "paris",
		Island:           defaultIsland(),
		A:                cellParam{6, 3},
		B:                cellParam{3, 7},
		ScatterMaxPoints: 6000,
		LogDensity:       true,
	}
}

func (p *datasetsParams) Validate() error {
	if err := citiesOK(p.Cities); err != nil {
		return err
	}
	if p.IslandCity != "" {
		if _, err := datasets.Lookup(p.IslandCity); err != nil {
			return fmt.Errorf("params.island_city: %w (or \"\" for no Fig. 1)", err)
		}
	}
	if err := p.Island.validate("island"); err != nil {
		return err
	}
	if err := p.A.validate("a"); err != nil {
		return err
	}
	if err := p.B.validate("b"); err != nil {
		return err
	}
	if p.IslandCity != "" {
		if err := checkCells(p.IslandCity, p.Rows, map[string]cellParam{"a": p.A, "b": p.B}); err != nil {
			return err
		}
	}
	if p.ScatterMaxPoints < 0 {
		return fmt.Errorf("params.scatter_max_points = %d: must be >= 0 (0 = all points)", p.ScatterMaxPoints)
	}
	return nil
}

type datasetsJob struct {
	p    *datasetsParams
	city string
}

func (datasetsKind) Plan(hp harness.Params) ([]harness.Job, error) {
	p, ok := hp.(*datasetsParams)
	if !ok {
		return nil, fmt.Errorf("datasets: params of type %T", hp)
	}
	var jobs []harness.Job
	for _, c := range p.Cities {
		jobs = append(jobs, harness.Job{Key: "city=" + c, Arg: datasetsJob{p: p, city: c}})
	}
	return jobs, nil
}

func (datasetsKind) Run(_ context.Context, job harness.Job, _ *rand.Rand) ([]harness.Table, error) {
	j, ok := job.Arg.(datasetsJob)
	if !ok {
		return nil, fmt.Errorf("datasets job %s: argument of type %T", job.Key, job.Arg)
	}
	ds, err := datasets.Load(j.city, datasets.LoadOptions{Rows: j.p.Rows})
	if err != nil {
		return nil, err
	}
	occupied, best := 0, 0
	for i, c := range ds.Counts {
		if c > 0 {
			occupied++
		}
		if c > ds.Counts[best] {
			best = i
		}
	}
	br, bc := ds.Grid.Abs(best)
	t := newTable("grids", "city", "rows", "cols", "cells", "n_checkins", "occupied_cells",
		"max_cell_row", "max_cell_col", "max_cell_share", "rows_policy")
	t.add(j.city, itoa(ds.Grid.Rows), itoa(ds.Grid.Cols), itoa(ds.Grid.Len()), itoa(ds.N), itoa(occupied),
		itoa(br), itoa(bc), ff(float64(ds.Counts[best])/float64(ds.N)), j.p.Rows.String())
	return []harness.Table{t.Table}, nil
}

func (datasetsKind) Finish(ctx context.Context, hp harness.Params, out *harness.Output) error {
	p, ok := hp.(*datasetsParams)
	if !ok {
		return fmt.Errorf("datasets: params of type %T", hp)
	}
	var skipped [][2]string
	var figs []namedFigure
	var md strings.Builder
	md.WriteString("## Data: the Gowalla grids, the island, check-ins and density (Fig. 1, Fig. 6)\n\n")
	colorLabel := "share of check-ins"
	if p.LogDensity {
		colorLabel = "share of check-ins (log scale)"
	}

	// Fig. 1: the island prior.
	if p.IslandCity != "" {
		e := &elasticParams{City: p.IslandCity, Rows: p.Rows, Island: p.Island, A: p.A, B: p.B}
		s, err := e.setup()
		if err != nil {
			return fmt.Errorf("fig1: %w", err)
		}
		g := s.ds.Grid
		fig, err := plots.Heatmaps("Fig. 1: "+cityTitle(p.IslandCity)+" prior with an island at A",
			[]plots.GridMap{{
				Title: fmt.Sprintf("P(A) = %s, %d cells around A zeroed", fmtG(s.prior[s.a], 3), countTrue(s.block)),
				Rows:  g.Rows, Cols: g.Cols, Values: s.prior,
				Markers: markersOn(g, map[string][2]int{"A": {p.A[0], p.A[1]}, "B": {p.B[0], p.B[1]}}),
			}}, plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colorLabel})
		if err != nil {
			return fmt.Errorf("fig1: %w", err)
		}
		figs = append(figs, namedFigure{"fig1", fig})
		fmt.Fprintf(&md, "Fig. 1 shows the %s prior with the island: %s. A = (%d, %d) has mass %s; B = (%d, %d) has mass %s (row 0 is the northern edge, column 0 the eastern edge, as in the reference data). "+
			"The paper's figure shows the same construction (its text says the block's mass is moved onto A; the reference code sets A to 0.01).\n\n",
			cityTitle(p.IslandCity), p.Island.describe(), p.A[0], p.A[1], fmtG(s.prior[s.a], 3), p.B[0], p.B[1], fmtG(s.prior[s.b], 3))
		md.WriteString("![Fig. 1](fig1.png)\n\n")
	}

	// Fig. 6a: check-in points, one scatter panel per city.
	var sp []plots.ScatterPanel
	var sources []string
	for _, c := range p.Cities {
		lat, lon, source, err := datasets.Points(c)
		if err != nil {
			skipped = append(skipped, [2]string{"fig6a (" + cityTitle(c) + ")", fmt.Sprintf("no raw check-in points for %s: %v", c, err)})
			continue
		}
		n := len(lat)
		lat, lon, k := thin(lat, lon, p.ScatterMaxPoints)
		title := fmt.Sprintf("%s: %d check-ins in the box", cityTitle(c), n)
		if k > 1 {
			title += fmt.Sprintf(" (1 in %d drawn)", k)
		}
		mid := 0.0
		for _, v := range lat {
			mid += v
		}
		mid /= float64(max(1, len(lat)))
		sp = append(sp, plots.ScatterPanel{
			Title: title, XLabel: "longitude (degrees east)", YLabel: "latitude (degrees north)",
			Sets: []plots.PointSet{{Name: cityTitle(c), X: lon, Y: lat}},
			// Equal ground distances get equal lengths on both axes.
			Opt: plots.ScatterOptions{Aspect: math.Cos(mid * math.Pi / 180)},
		})
		src := fmt.Sprintf("%s from %s", cityTitle(c), relToModule(source))
		if k > 1 {
			src += fmt.Sprintf(" (1 point in %d drawn, scatter_max_points = %d)", k, p.ScatterMaxPoints)
		}
		sources = append(sources, src)
	}
	if len(sp) > 0 {
		fig, err := plots.ScatterPanels("Fig. 6a: Gowalla check-in locations", sp, 0)
		if err != nil {
			return fmt.Errorf("fig6a: %w", err)
		}
		figs = append(figs, namedFigure{"fig6a", fig})
		md.WriteString("![Fig. 6a](fig6a.png)\n\nPoints: " + strings.Join(sources, "; ") + ".\n\n")
	}

	// Fig. 6b: density heat maps.
	var panels []plots.GridMap
	t, err := out.ReadTable("grids")
	if err != nil {
		return err
	}
	for _, c := range p.Cities {
		ds, err := datasets.Load(c, datasets.LoadOptions{Rows: p.Rows})
		if err != nil {
			return err
		}
		panels = append(panels, plots.GridMap{
			Title: fmt.Sprintf("%s: %dx%d cells, N = %d", cityTitle(c), ds.Grid.Rows, ds.Grid.Cols, ds.N),
			Rows:  ds.Grid.Rows, Cols: ds.Grid.Cols, Values: ds.Prior(),
		})
	}
	fig, err := plots.Heatmaps("Fig. 6b: density of the check-ins", panels, plots.HeatOptions{Log: p.LogDensity, ColorbarLabel: colorLabel})
	if err != nil {
		return fmt.Errorf("fig6b: %w", err)
	}
	figs = append(figs, namedFigure{"fig6b", fig})
	if err := saveFigures(out, figs); err != nil {
		return err
	}
	md.WriteString("![Fig. 6b](fig6b.png)\n\n")

	col, err := columns(t, "city", "rows", "cols", "cells", "n_checkins", "occupied_cells", "max_cell_row", "max_cell_col", "max_cell_share")
	if err != nil {
		return err
	}
	var rows [][]string
	for _, r := range t.Rows {
		city := r[col["city"]]
		rows = append(rows, []string{cityTitle(city), r[col["rows"]] + " x " + r[col["cols"]], r[col["cells"]], r[col["n_checkins"]],
			r[col["occupied_cells"]], fmt.Sprintf("(%s, %s)", r[col["max_cell_row"]], r[col["max_cell_col"]]), shareWords(r[col["max_cell_share"]]), paperGrid(city)})
	}
	md.WriteString("The grids as the reference code builds them (rows x columns of the occurring cell indices; the first line of each grid-cell file dropped as a header, rows = \"" + p.Rows.String() + "\"), beside what the paper's text says:\n\n")
	md.WriteString(mdTable([]string{"city", "grid (rows x cols)", "cells", "check-ins N", "occupied cells", "densest cell", "its share", "paper's text"}, rows))
	md.WriteString("\nThe paper's stated grids (16x12 Paris, 24x17 SF) and its Sec. V counts do not match the data it used; the experiments follow the reference code (PROTOCOL.md, gowalla README).\n")
	if len(skipped) > 0 {
		md.WriteString("\nSkipped figures (see `skipped.csv`): ")
		for i, s := range skipped {
			if i > 0 {
				md.WriteString("; ")
			}
			md.WriteString(s[0] + ": " + s[1])
		}
		md.WriteString(".\n")
	}
	if err := writeSkipped(out, skipped); err != nil {
		return err
	}
	return writeSection(out, md.String())
}

func paperGrid(city string) string {
	switch city {
	case "paris":
		return "16x12 grid; 10,078 check-ins (Sec. III-A), 10,260 (Sec. V)"
	case "sf":
		return "24x17 grid; 123,025 check-ins (Sec. III-B), 123,108 (Sec. V)"
	}
	return "-"
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

func countTrue(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

// shareWords formats a stored share as a percentage for prose.
func shareWords(s string) string {
	v, err := harness.ParseFloat(s)
	if err != nil {
		return s
	}
	return pct(v)
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
