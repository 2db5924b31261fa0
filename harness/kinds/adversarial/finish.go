package adversarial

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"privic/harness"
	"privic/harness/kinds/internal/island"
	"privic/harness/kinds/internal/param"
	"privic/plots"
)

// point is one (beta, fraction) of the identification table.
type point struct {
	beta, eps, f, tight float64
	sv                  island.Singular // BA's smallest singular value
	st                  island.LocStats
	dist                []island.CellProb
}

func (def) Finish(ctx context.Context, p *params, out *harness.Output) (harness.Section, error) {
	s, err := p.Setup()
	if err != nil {
		return harness.Section{}, err
	}
	pts, err := readPoints(out)
	if err != nil {
		return harness.Section{}, err
	}
	lap := map[float64]island.LocStats{}
	if p.LapWiden >= 0 {
		if lap, err = readLAP(out); err != nil {
			return harness.Section{}, err
		}
	}
	var figs harness.Figures
	for i, b := range p.Beta.Values()[:min(p.Beta.Len(), len(p.FigureFractions))] {
		name := figureName(p, i, b)
		fig, err := figure(p, s, name, b, p.FigureFractions[i], pts)
		if err := figs.Add(name, fig, err); err != nil {
			return harness.Section{}, err
		}
	}
	claims := checkClaims(p, pts, lap)
	md, err := section(p, s, figs, pts, lap, claims)
	var skipped []harness.Skip
	for _, b := range p.Beta.Values() {
		for _, pt := range pts[b] {
			if pt.sv.Method != "svd" {
				skipped = append(skipped, harness.Skip{
					Figure: "invertibility.csv, beta " + harness.FormatSig(b, 3) + ", fraction " + harness.FormatSig(pt.f, 3),
					Reason: island.SkipReason(s.DS.Grid.Len())})
			}
		}
	}
	return harness.Section{Markdown: md, Claims: claims, Figures: figs, Skipped: skipped}, err
}

// figureName is the file of the figure of the i-th beta: the paper's
// Fig. 11a, 11b, ... on a preset, honest-a-<name>-<beta> on another
// dataset.
func figureName(p *params, i int, beta float64) string {
	if p.IsPreset(p.City) {
		return "fig11" + string(rune('a'+i))
	}
	return "honest-a-" + p.City + "-" + harness.FormatFloat(beta)
}

// readPoints reads the identification and distribution tables, keyed by
// beta then sorted by fraction.
func readPoints(out *harness.Output) (map[float64][]*point, error) {
	t, err := out.ReadTable("identification")
	if err != nil {
		return nil, err
	}
	rd, err := t.Reader(append([]string{"beta", "epsilon", "fraction", "tight_epsilon"}, island.StatsHeader()...)...)
	if err != nil {
		return nil, err
	}
	pts := map[float64][]*point{}
	idx := map[[2]float64]*point{}
	for i := range t.Rows {
		pt := &point{beta: rd.Float(i, "beta"), eps: rd.Float(i, "epsilon"), f: rd.Float(i, "fraction"),
			tight: rd.Float(i, "tight_epsilon"), st: island.ReadStats(rd, i)}
		pts[pt.beta] = append(pts[pt.beta], pt)
		idx[[2]float64{pt.beta, pt.f}] = pt
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	inv, err := out.ReadTable("invertibility")
	if err != nil {
		return nil, err
	}
	if rd, err = inv.Reader(append([]string{"beta", "fraction"}, island.SingularHeader()...)...); err != nil {
		return nil, err
	}
	for i := range inv.Rows {
		pt, ok := idx[[2]float64{rd.Float(i, "beta"), rd.Float(i, "fraction")}]
		if !ok {
			return nil, fmt.Errorf("invertibility row %d: (beta %s, fraction %s) not in identification.csv", i+1, rd.Str(i, "beta"), rd.Str(i, "fraction"))
		}
		pt.sv = island.ReadSingular(rd, i)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	d, err := out.ReadTable("report_distribution")
	if err != nil {
		return nil, err
	}
	if rd, err = d.Reader("beta", "fraction", "row", "col", "probability"); err != nil {
		return nil, err
	}
	for i := range d.Rows {
		beta, f := rd.Float(i, "beta"), rd.Float(i, "fraction")
		c := island.CellProb{Row: int(rd.Float(i, "row")), Col: int(rd.Float(i, "col")), P: rd.Float(i, "probability")}
		if rd.Err() != nil {
			return nil, rd.Err()
		}
		pt, ok := idx[[2]float64{beta, f}]
		if !ok {
			return nil, fmt.Errorf("report_distribution row %d: (beta %v, fraction %v) not in identification.csv", i+1, beta, f)
		}
		pt.dist = append(pt.dist, c)
	}
	for _, l := range pts {
		sort.Slice(l, func(i, j int) bool { return l[i].f < l[j].f })
	}
	return pts, nil
}

// readLAP reads the LAP reference per beta.
func readLAP(out *harness.Output) (map[float64]island.LocStats, error) {
	t, err := out.ReadTable("lap_reference")
	if err != nil {
		return nil, err
	}
	rd, err := t.Reader(append([]string{"beta"}, island.StatsHeader()...)...)
	if err != nil {
		return nil, err
	}
	lap := map[float64]island.LocStats{}
	for i := range t.Rows {
		lap[rd.Float(i, "beta")] = island.ReadStats(rd, i)
	}
	return lap, rd.Err()
}

// clockwise reorders up to four panels listed clockwise from the top left
// (the paper's captions) into the row-major order of a 2-column grid.
func clockwise[T any](v []T) []T {
	if len(v) != 4 {
		return v
	}
	return []T{v[0], v[1], v[3], v[2]}
}

func figure(p *params, s *island.Setup, name string, beta float64, fractions []float64, pts map[float64][]*point) (*plots.Figure, error) {
	g := s.DS.Grid
	var panels []plots.GridMap
	for _, f := range fractions {
		var pt *point
		for _, q := range pts[beta] {
			if q.f == f {
				pt = q
			}
		}
		if pt == nil {
			return nil, fmt.Errorf("%s: no results for beta %v, fraction %v", name, beta, f)
		}
		vals, _ := island.GridValues(g, pt.dist)
		panels = append(panels, plots.GridMap{
			Title: fmt.Sprintf("f = %s%% adversarial: P(report A) = %s", harness.FormatSig(100*f, 3), harness.FormatPct(pt.st.PAt)),
			Rows:  g.Rows, Cols: g.Cols, Values: vals, Markers: p.Markers(g),
		})
	}
	title := fmt.Sprintf("BA reports of an honest user at A, %s, ε = %s (β = %s)", p.Title(p.City), harness.FormatSig(2*beta, 3), harness.FormatSig(beta, 3))
	if n, ok := strings.CutPrefix(name, "fig"); ok {
		title = fmt.Sprintf("Fig. %s: BA reports of an honest user at A, ε = %s (β = %s)", n, harness.FormatSig(2*beta, 3), harness.FormatSig(beta, 3))
	}
	opt := plots.HeatOptions{Columns: 2, ColorbarLabel: "P(report cell | true A)"}
	// Metres on the axes of a dataset of known cell size; the paper's
	// row and column numbers on its own grids.
	if opt.CellWidthM, opt.CellHeightM = param.MapMetres(s.DS); opt.CellWidthM == 0 {
		opt.XLabel, opt.YLabel = "column (0 = east edge)", "row (0 = north edge)"
	}
	return plots.Heatmaps(title, clockwise(panels), opt)
}
