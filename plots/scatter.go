package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PointSet is one set of points, e.g. check-ins as X = longitude,
// Y = latitude. NaN coordinates are skipped.
type PointSet struct {
	Name string
	X, Y []float64
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

func newScatterPlot(title, xlabel, ylabel string, sets []PointSet, opt ScatterOptions) (*linePlot, error) {
	if len(sets) == 0 {
		return nil, errors.New("no point sets")
	}
	if opt.Aspect < 0 || math.IsNaN(opt.Aspect) || math.IsInf(opt.Aspect, 0) {
		return nil, fmt.Errorf("aspect %g must be finite and >= 0", opt.Aspect)
	}
	if opt.MarkerRadius < 0 {
		return nil, fmt.Errorf("marker radius %v is negative", opt.MarkerRadius)
	}
	radius := opt.MarkerRadius
	if radius == 0 {
		radius = 1.2
	}
	p := newStyledPlot(title, xlabel, ylabel)
	grid := plotter.NewGrid()
	grid.Vertical = draw.LineStyle{Color: color.Gray{0xE0}, Width: 0.5}
	grid.Horizontal = grid.Vertical
	p.Add(grid)
	lp := &linePlot{p: p, legend: &legend{}, aspect: opt.Aspect}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for si, s := range sets {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("set %d (%q): %d x values but %d y values", si, s.Name, len(s.X), len(s.Y))
		}
		// Check-in data repeat venues many times; identical opaque-shaped
		// markers add nothing, so each distinct point is drawn once (this
		// keeps the SVG of 10^5 check-ins small).
		seen := make(map[[2]float64]bool)
		var xys plotter.XYs
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if math.IsInf(x, 0) || math.IsInf(y, 0) {
				return nil, fmt.Errorf("set %d (%q): point %d (%g, %g) is infinite", si, s.Name, i, x, y)
			}
			if math.IsNaN(x) || math.IsNaN(y) || seen[[2]float64{x, y}] {
				continue
			}
			seen[[2]float64{x, y}] = true
			xys = append(xys, plotter.XY{X: x, Y: y})
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			lp.xy = append(lp.xy, [2]float64{x, y})
		}
		if len(xys) == 0 {
			return nil, fmt.Errorf("set %d (%q): no point with finite coordinates", si, s.Name)
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, fmt.Errorf("set %d (%q): %w", si, s.Name, err)
		}
		col := seriesColor(si)
		sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{col.R, col.G, col.B, 150}, Radius: radius, Shape: draw.CircleGlyph{}}
		p.Add(sc)
		if s.Name != "" {
			g := draw.GlyphStyle{Color: col, Radius: 3.5, Shape: draw.CircleGlyph{}}
			lp.legend.entries = append(lp.legend.entries, legendEntry{name: s.Name, glyph: &g})
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
