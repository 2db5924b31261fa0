package plots

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PointSet is one set of points, e.g. check-ins as X = longitude,
// Y = latitude. NaN coordinates are skipped.
type PointSet struct {
	Name string
	X, Y []float64
	// W are the points' weights (nil: 1 each; finite, >= 0). Points at the
	// same place add up, and a marker's area grows with the weight at its
	// place (the largest is MaxMarkerRadius, the smallest MarkerRadius);
	// places of weight 0 are not drawn.
	W []float64
}

// ScatterOptions tunes a scatter plot.
type ScatterOptions struct {
	// Aspect > 0 fixes the drawn length of one x unit relative to one y
	// unit; for longitude/latitude use cos(latitude) so that the map is not
	// stretched. 0 lets the plot fill its area.
	Aspect float64
	// MarkerRadius of the points; 0 means 1.2 pt (small, so that dense
	// areas stay readable; legend symbols are drawn larger).
	MarkerRadius vg.Length
	// MaxMarkerRadius is the radius of the place of largest weight; 0
	// means 6 pt.
	MaxMarkerRadius vg.Length
	// WeightUnit names what a weight counts, in the plural ("check-ins"):
	// when the weights of places differ, the legend shows the largest and
	// the smallest marker with the weight each stands for ("1 check-in").
	WeightUnit string
}

// ScatterPanel is one scatter plot of a multi-panel figure.
type ScatterPanel struct {
	Title, XLabel, YLabel string
	Sets                  []PointSet
	Opt                   ScatterOptions
}

// Scatter draws point sets with small translucent markers and a legend.
func Scatter(title, xlabel, ylabel string, sets []PointSet) (*Figure, error) {
	return ScatterWith(title, xlabel, ylabel, sets, ScatterOptions{})
}

// ScatterWith is Scatter with options (fixed aspect ratio, marker size).
func ScatterWith(title, xlabel, ylabel string, sets []PointSet, opt ScatterOptions) (*Figure, error) {
	lp, err := newScatterPlot(title, xlabel, ylabel, sets, opt)
	if err != nil {
		return nil, fmt.Errorf("plots: scatter %q: %w", title, err)
	}
	return singleFigure(lp, 4.2*vg.Inch), nil
}

// ScatterPanels draws several scatter plots in a grid with columns columns
// (0 = automatic) under a common title.
func ScatterPanels(title string, panels []ScatterPanel, columns int) (*Figure, error) {
	return panelFigure("scatter panels", title, panels, columns, 4.6*vg.Inch, 3.8*vg.Inch, func(pn ScatterPanel) (*linePlot, string, error) {
		lp, err := newScatterPlot(pn.Title, pn.XLabel, pn.YLabel, pn.Sets, pn.Opt)
		return lp, pn.Title, err
	})
}

// place is a distinct point of a set and the weight there.
type place struct{ x, y, w float64 }

// places adds up the weights of set s's points by place, in the order
// places first appear, leaving out NaN coordinates and zero weights.
func places(s PointSet) ([]place, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("%d x values but %d y values", len(s.X), len(s.Y))
	}
	if s.W != nil && len(s.W) != len(s.X) {
		return nil, fmt.Errorf("%d weights for %d points", len(s.W), len(s.X))
	}
	at := make(map[[2]float64]int)
	var out []place
	for i := range s.X {
		x, y, w := s.X[i], s.Y[i], 1.0
		if s.W != nil {
			w = s.W[i]
		}
		if math.IsInf(x, 0) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("point %d (%g, %g) is infinite", i, x, y)
		}
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("point %d: weight %g must be finite and >= 0", i, w)
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		k, ok := at[[2]float64{x, y}]
		if !ok {
			k = len(out)
			at[[2]float64{x, y}] = k
			out = append(out, place{x: x, y: y})
		}
		out[k].w += w
	}
	return slices.DeleteFunc(out, func(p place) bool { return p.w == 0 }), nil
}

// markerRadius is the radius of a place of weight w when the weights of
// places run from wmin to wmax: its area grows with w, up to rmax and
// never below rmin; when every place weighs the same, rmin.
func markerRadius(w, wmin, wmax float64, rmin, rmax vg.Length) vg.Length {
	if !(wmax > wmin) {
		return rmin
	}
	return max(rmin, rmax*vg.Length(math.Sqrt(w/wmax)))
}

func newScatterPlot(title, xlabel, ylabel string, sets []PointSet, opt ScatterOptions) (*linePlot, error) {
	if len(sets) == 0 {
		return nil, errors.New("no point sets")
	}
	if opt.Aspect < 0 || math.IsNaN(opt.Aspect) || math.IsInf(opt.Aspect, 0) {
		return nil, fmt.Errorf("aspect %g must be finite and >= 0", opt.Aspect)
	}
	if opt.MarkerRadius < 0 || opt.MaxMarkerRadius < 0 {
		return nil, fmt.Errorf("marker radii %v, %v: negative", opt.MarkerRadius, opt.MaxMarkerRadius)
	}
	rmin := cmp.Or(opt.MarkerRadius, 1.2)
	rmax := max(rmin, cmp.Or(opt.MaxMarkerRadius, 6))
	p := newStyledPlot(title, xlabel, ylabel)
	grid := plotter.NewGrid()
	grid.Vertical = draw.LineStyle{Color: color.Gray{0xE0}, Width: 0.5}
	grid.Horizontal = grid.Vertical
	p.Add(grid)
	lp := &linePlot{p: p, legend: &legend{}, aspect: opt.Aspect, title: title}
	all := make([][]place, len(sets))
	wmin, wmax := math.Inf(1), 0.0
	for si, s := range sets {
		ps, err := places(s)
		if err != nil {
			return nil, fmt.Errorf("set %d (%q): %w", si, s.Name, err)
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("set %d (%q): no point with finite coordinates and a positive weight", si, s.Name)
		}
		for _, q := range ps {
			wmin, wmax = math.Min(wmin, q.w), math.Max(wmax, q.w)
		}
		all[si] = ps
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for si, ps := range all {
		// The heaviest places first, so that light ones stay visible on
		// top of them.
		slices.SortStableFunc(ps, func(a, b place) int { return cmp.Compare(b.w, a.w) })
		xys := make(plotter.XYs, len(ps))
		for i, q := range ps {
			xys[i] = plotter.XY{X: q.x, Y: q.y}
			xmin, xmax = math.Min(xmin, q.x), math.Max(xmax, q.x)
			ymin, ymax = math.Min(ymin, q.y), math.Max(ymax, q.y)
			lp.xy = append(lp.xy, [2]float64{q.x, q.y})
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("set %d (%q): %w", si, sets[si].Name, err)
		}
		col := seriesColor(si)
		sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: color.NRGBA{col.R, col.G, col.B, 150}, Radius: markerRadius(ps[i].w, wmin, wmax, rmin, rmax), Shape: draw.CircleGlyph{}}
		}
		p.Add(sc)
		if sets[si].Name != "" {
			g := draw.GlyphStyle{Color: col, Radius: 3.5, Shape: draw.CircleGlyph{}}
			lp.legend.entries = append(lp.legend.entries, legendEntry{name: sets[si].Name, glyph: &g})
		}
	}
	if opt.WeightUnit != "" && wmax > wmin {
		grey := color.NRGBA{0x55, 0x55, 0x55, 150}
		for _, w := range []float64{wmax, wmin} {
			g := draw.GlyphStyle{Color: grey, Radius: markerRadius(w, wmin, wmax, rmin, rmax), Shape: draw.CircleGlyph{}}
			unit := opt.WeightUnit
			if w == 1 {
				unit = strings.TrimSuffix(unit, "s") // 1 check-in
			}
			lp.legend.entries = append(lp.legend.entries, legendEntry{name: formatWeight(w) + " " + unit, glyph: &g})
		}
	}
	setRange(&p.X, xmin, xmax, false, 0.03)
	setRange(&p.Y, ymin, ymax, false, 0.03)
	p.X.Tick.Marker = ticker(false, 6, false)
	p.Y.Tick.Marker = ticker(false, 6, false)
	p.Add(lp.legend)
	lp.y0, lp.y1 = p.Y.Min, p.Y.Max
	return lp, nil
}

// formatWeight writes a weight for a legend: whole numbers in full,
// others with three significant digits.
func formatWeight(w float64) string {
	if w == math.Trunc(w) && w < 1e15 {
		return strconv.FormatFloat(w, 'f', 0, 64)
	}
	return strconv.FormatFloat(w, 'g', 3, 64)
}
