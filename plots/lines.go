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

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line: Y against X with optional symmetric error bars YErr
// (a standard deviation or a confidence half-width, as the caller's axis
// label or legend says). NaN in X or Y leaves a gap; NaN in YErr omits
// that bar.
type Series struct {
	Name       string
	X, Y, YErr []float64 // YErr nil = no error bars
	// Style fixes the series' colour, marker and dash (a mechanism's,
	// the same in every figure); zero: the palette's, by position.
	Style Style
}

// LineOptions tunes a line plot.
type LineOptions struct {
	XLabel, YLabel string // include units, e.g. "EMD (cells)"
	LogX, LogY     bool
	Points         bool // mark every data point with the series' glyph
	// YFromZero extends a linear Y axis down to zero (for non-negative
	// quantities such as distances, so differences are not exaggerated).
	YFromZero bool
	// NoLegend suppresses the legend even when series have names.
	NoLegend bool
	// Probability says that Y is a probability: the Y axis stays within
	// [0, 1], error bars are cut there, and a legend that would hide data
	// in every corner goes beside the plot rather than above 1.
	Probability bool
}

// Panel is one line plot of a multi-panel figure.
type Panel struct {
	Title  string
	Series []Series
	Opt    LineOptions
}

// Lines draws one line plot, with a legend placed in the emptiest corner
// of the data area.
func Lines(title string, series []Series, opt LineOptions) (*Figure, error) {
	lp, err := newLinePlot(title, series, opt)
	if err != nil {
		return nil, fmt.Errorf("plots: lines %q: %w", title, err)
	}
	return singleFigure(lp, 3.9*vg.Inch), nil
}

// singleFigure is the figure of one plot, 5.5 in wide and h high, its
// title in bold.
func singleFigure(lp *linePlot, h vg.Length) *Figure {
	lp.p.Title.TextStyle.Font = font.From(boldFont, figTitleSize-1)
	render := func(c draw.Canvas) error {
		return lp.draw(draw.Crop(c, 4, -8, 4, -6))
	}
	return newFigure(5.5*vg.Inch, h, render)
}

// LinePanels draws several line plots in a grid with columns columns
// (0 = automatic) under a common title.
func LinePanels(title string, panels []Panel, columns int) (*Figure, error) {
	return panelFigure("line panels", title, panels, columns, 4.4*vg.Inch, 3.3*vg.Inch, func(pn Panel) (*linePlot, string, error) {
		lp, err := newLinePlot(pn.Title, pn.Series, pn.Opt)
		return lp, pn.Title, err
	})
}

// panelFigure builds one plot per panel (plot also returns the panel's
// title, for errors) and lays them out in a grid of tileW x tileH tiles,
// columns per row (0: automatic), under an optional figure title; what
// names the figure kind in errors.
func panelFigure[P any](what, title string, panels []P, columns int, tileW, tileH vg.Length, plot func(P) (*linePlot, string, error)) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plots: %s: no panels", what)
	}
	if columns < 0 {
		return nil, fmt.Errorf("plots: %s: columns %d is negative", what, columns)
	}
	lps := make([]*linePlot, len(panels))
	names := make([]string, len(panels))
	for i, pn := range panels {
		lp, name, err := plot(pn)
		if err != nil {
			return nil, fmt.Errorf("plots: %s %q: panel %d (%q): %w", what, title, i, name, err)
		}
		lps[i], names[i] = lp, name
	}
	ncol := columns
	if ncol == 0 {
		ncol = autoColumns(len(lps))
	}
	ncol = min(ncol, len(lps))
	nrow := (len(lps) + ncol - 1) / ncol
	_, _, titleH := figureTitle(title, vg.Length(ncol)*tileW)
	render := func(c draw.Canvas) error {
		body := draw.Crop(c, 4, -8, 4, -drawFigureTitle(c, title))
		tiles := draw.Tiles{Rows: nrow, Cols: ncol, PadX: 0.2 * vg.Inch, PadY: 0.15 * vg.Inch}
		for i, lp := range lps {
			if err := lp.draw(tiles.At(body, i%ncol, i/ncol)); err != nil {
				return fmt.Errorf("plots: %s: panel %d (%q): %w", what, i, names[i], err)
			}
		}
		return nil
	}
	return newFigure(vg.Length(ncol)*tileW, titleH+vg.Length(nrow)*tileH, render), nil
}

// linePlot is a built gonum plot plus what legend placement needs.
type linePlot struct {
	p      *plot.Plot
	opt    LineOptions
	legend *legend
	xy     [][2]float64 // data points, error-bar ends and segment samples
	// y0, y1 is the Y range before legend placement; draw starts from it
	// each time, so encoding a figure twice gives identical output.
	y0, y1 float64
	intX   bool // every x is a whole number: integer tick steps
	// levels are the distinct x values, ascending: a log x axis labels
	// each, or at least the first and the last.
	levels []float64
	// aspect > 0 fixes the drawn length of one x unit over one y unit.
	aspect float64
	// title is the plot's title as given; draw wraps it to the width,
	// in titleStyle (the style at the first draw).
	title      string
	titleStyle *text.Style
}

func validateSeries(s Series, opt LineOptions) error {
	if len(s.X) == 0 {
		return errors.New("no points")
	}
	if err := s.Style.check(); err != nil {
		return err
	}
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("%d x values but %d y values", len(s.X), len(s.Y))
	}
	if s.YErr != nil && len(s.YErr) != len(s.Y) {
		return fmt.Errorf("%d error values for %d points", len(s.YErr), len(s.Y))
	}
	finite := 0
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		if math.IsInf(x, 0) || math.IsInf(y, 0) {
			return fmt.Errorf("point %d (%g, %g) is infinite", i, x, y)
		}
		if s.YErr != nil {
			if e := s.YErr[i]; math.IsInf(e, 0) || e < 0 {
				return fmt.Errorf("point %d: error %g must be finite and >= 0 (or NaN for none)", i, e)
			}
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		if opt.LogX && x <= 0 {
			return fmt.Errorf("point %d: x = %g not positive on a log axis", i, x)
		}
		if opt.LogY && y <= 0 {
			return fmt.Errorf("point %d: y = %g not positive on a log axis", i, y)
		}
		finite++
	}
	if finite == 0 {
		return errors.New("no point with finite x and y")
	}
	return nil
}

func newLinePlot(title string, series []Series, opt LineOptions) (*linePlot, error) {
	if len(series) == 0 {
		return nil, errors.New("no series")
	}
	for i, s := range series {
		if err := validateSeries(s, opt); err != nil {
			return nil, fmt.Errorf("series %d (%q): %w", i, s.Name, err)
		}
	}
	p := newStyledPlot(title, opt.XLabel, opt.YLabel)
	grid := plotter.NewGrid()
	grid.Vertical = draw.LineStyle{Color: color.Gray{0xE0}, Width: 0.5}
	grid.Horizontal = grid.Vertical
	p.Add(grid)

	lp := &linePlot{p: p, opt: opt, legend: &legend{}, title: title}
	b := bounds{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	floor := logFloor(series, opt)
	for si, s := range series {
		lp.addSeries(si, s, floor, &b)
	}
	if opt.YFromZero && !opt.LogY {
		b.ymin = math.Min(b.ymin, 0)
	}
	setRange(&p.X, b.xmin, b.xmax, opt.LogX, 0.03)
	setRange(&p.Y, b.ymin, b.ymax, opt.LogY, 0.05)
	if opt.YFromZero && !opt.LogY && b.ymin == 0 {
		p.Y.Min = 0
	}
	if opt.Probability {
		p.Y.Min, p.Y.Max = max(p.Y.Min, 0), min(p.Y.Max, 1)
	}
	intX := true
	var levels []float64
	for _, s := range series {
		for _, x := range s.X {
			intX = intX && (math.IsNaN(x) || x == math.Trunc(x))
			if !math.IsNaN(x) && !slices.Contains(levels, x) {
				levels = append(levels, x)
			}
		}
	}
	slices.Sort(levels)
	lp.intX, lp.levels = intX, levels
	p.X.Tick.Marker = ticker(opt.LogX, 6, intX)
	p.Y.Tick.Marker = ticker(opt.LogY, 6, false)
	p.Add(lp.legend)
	lp.y0, lp.y1 = p.Y.Min, p.Y.Max
	return lp, nil
}

// bounds is the data range a plot shows.
type bounds struct{ xmin, xmax, ymin, ymax float64 }

func (b *bounds) see(x, y float64) {
	b.xmin, b.xmax = math.Min(b.xmin, x), math.Max(b.xmax, x)
	b.ymin, b.ymax = math.Min(b.ymin, y), math.Max(b.ymax, y)
}

// logFloor is where, on a log Y axis, an error bar reaching zero or below
// is cut: below the smallest positive value shown, instead of failing.
func logFloor(series []Series, opt LineOptions) float64 {
	floor := math.Inf(1)
	if !opt.LogY {
		return floor
	}
	for _, s := range series {
		for i, y := range s.Y {
			if math.IsNaN(y) || math.IsNaN(s.X[i]) {
				continue
			}
			floor = math.Min(floor, y)
			if s.YErr != nil && !math.IsNaN(s.YErr[i]) && y-s.YErr[i] > 0 {
				floor = math.Min(floor, y-s.YErr[i])
			}
		}
	}
	return floor / 2
}

// addSeries draws series number si: its lines (broken at NaN points), its
// points, its error bars and its legend entry.
func (lp *linePlot) addSeries(si int, s Series, logFloor float64, b *bounds) {
	p, opt := lp.p, lp.opt
	col, glyph, dash := s.Style.resolve(si)
	ls := draw.LineStyle{Color: col, Width: 1.6, Dashes: dash}
	gs := draw.GlyphStyle{Color: col, Radius: 3, Shape: glyph}
	var run, marks, bars plotter.XYs
	var errs plotter.YErrors
	flush := func() {
		if len(run) > 1 {
			l, err := plotter.NewLine(run)
			if err == nil {
				l.LineStyle = ls
				p.Add(l)
			}
			for k := 1; k < len(run); k++ {
				lp.sampleSegment(run[k-1], run[k])
			}
		}
		if len(run) == 1 && !opt.Points {
			marks = append(marks, run[0]) // an isolated point would be invisible
		}
		run = run[:0:0]
	}
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		if math.IsNaN(x) || math.IsNaN(y) {
			flush()
			continue
		}
		run = append(run, plotter.XY{X: x, Y: y})
		if opt.Points {
			marks = append(marks, plotter.XY{X: x, Y: y})
		}
		b.see(x, y)
		lp.xy = append(lp.xy, [2]float64{x, y})
		if s.YErr == nil || math.IsNaN(s.YErr[i]) || s.YErr[i] == 0 {
			continue
		}
		lo, hi := s.YErr[i], s.YErr[i]
		if opt.LogY && y-lo < logFloor {
			lo = y - logFloor
		}
		if opt.Probability {
			lo, hi = min(lo, max(y, 0)), min(hi, max(1-y, 0))
		}
		bars = append(bars, plotter.XY{X: x, Y: y})
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
		b.see(x, y-lo)
		b.see(x, y+hi)
		lp.xy = append(lp.xy, [2]float64{x, y - lo}, [2]float64{x, y + hi})
	}
	flush()
	if len(bars) > 0 {
		p.Add(&plotter.YErrorBars{XYs: bars, YErrors: errs,
			LineStyle: draw.LineStyle{Color: col, Width: 1}, CapWidth: 5})
	}
	if len(marks) > 0 {
		if sc, err := plotter.NewScatter(marks); err == nil {
			sc.GlyphStyle = gs
			p.Add(sc)
		}
	}
	if s.Name != "" && !opt.NoLegend {
		e := legendEntry{name: s.Name, line: &ls}
		if opt.Points {
			e.glyph = &gs
		}
		lp.legend.entries = append(lp.legend.entries, e)
	}
}

// sampleSegment records points along a line segment, so that legend
// placement also avoids the lines between data points.
func (lp *linePlot) sampleSegment(a, b plotter.XY) {
	const n = 12
	for k := 1; k < n; k++ {
		t := float64(k) / n
		var x, y float64
		if lp.opt.LogX {
			x = math.Exp(math.Log(a.X)*(1-t) + math.Log(b.X)*t)
		} else {
			x = a.X*(1-t) + b.X*t
		}
		if lp.opt.LogY {
			y = math.Exp(math.Log(a.Y)*(1-t) + math.Log(b.Y)*t)
		} else {
			y = a.Y*(1-t) + b.Y*t
		}
		lp.xy = append(lp.xy, [2]float64{x, y})
	}
}

// setRange sets an axis range around [lo, hi] with a relative margin
// (multiplicative on log axes), and the matching scale.
func setRange(a *plot.Axis, lo, hi float64, log bool, margin float64) {
	if log {
		a.Scale = plot.LogScale{}
		if hi <= lo {
			lo, hi = lo/2, hi*2
		}
		f := math.Pow(hi/lo, margin)
		a.Min, a.Max = lo/f, hi*f
		return
	}
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.1, 1e-9)
		lo, hi = lo-d, hi+d
	}
	d := (hi - lo) * margin
	a.Min, a.Max = lo-d, hi+d
}

// ticker returns the axis ticker; integer restricts linear steps to whole
// numbers (used when every x value is an integer, e.g. cycles).
func ticker(log bool, target int, integer bool) plot.Ticker {
	if log {
		return plot.TickerFunc(logTicks)
	}
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick { return niceTicksInt(lo, hi, target, integer) })
}

// draw wraps the title to the width, places the legend (growing the Y
// range when every corner would hide data, or, on a probability axis
// that cannot grow past 1, beside the plot), fits the aspect ratio if
// one is set, and draws the plot on c.
func (lp *linePlot) draw(c draw.Canvas) error {
	lp.p.Y.Min, lp.p.Y.Max = lp.y0, lp.y1
	lp.wrapTitle(c.Size().X)
	lp.legend.outside = false
	area := lp.fitAspect(c)
	lp.fitXTicks(area)
	if len(lp.legend.entries) > 0 {
		k, n := lp.place(area)
		if n > 0 {
			_, lh := lp.legend.size()
			dc := lp.p.DataCanvas(area)
			frac := float64((lh + 2*legendInset + 6) / dc.Size().Y)
			if frac > 0 && frac < 0.6 {
				a := &lp.p.Y
				g := frac / (1 - frac)
				switch {
				case lp.opt.LogY:
					a.Max *= math.Pow(a.Max/a.Min, g)
				case lp.opt.Probability:
					a.Max = min(1, a.Max+(a.Max-a.Min)*g)
				default:
					a.Max += (a.Max - a.Min) * g
				}
				area = lp.fitAspect(c)
				k, n = lp.place(area)
			}
		}
		lp.legend.where = k
		if n > 0 && lp.opt.Probability {
			// No corner is free and the axis ends at 1: the legend goes
			// right of the plot, which narrows to make room.
			lw, _ := lp.legend.size()
			area.Max.X -= lw + legendInset
			area = lp.fitAspect(area)
			lp.legend.outside = true
		}
	}
	lp.p.Draw(area)
	if lp.legend.outside {
		dc := lp.p.DataCanvas(area)
		lw, lh := lp.legend.size()
		x := dc.Max.X + legendInset
		lp.legend.drawIn(c, vg.Rectangle{Min: vg.Point{X: x, Y: dc.Max.Y - lh}, Max: vg.Point{X: x + lw, Y: dc.Max.Y}})
	}
	return nil
}

// wrapTitle sets the plot's title to lp.title wrapped to width w (three
// lines at most, the font shrunk when even that is too wide), starting
// each time from the style of the first draw, so that drawing again
// gives the same figure.
func (lp *linePlot) wrapTitle(w vg.Length) {
	if lp.titleStyle == nil {
		st := lp.p.Title.TextStyle
		lp.titleStyle = &st
	}
	st, lines := fitText(*lp.titleStyle, lp.title, w-2*titleMargin, 3)
	lp.p.Title.TextStyle, lp.p.Title.Text = st, strings.Join(lines, "\n")
	if lp.title == "" {
		lp.p.Title.Text = ""
	}
}

// fitXTicks lowers the number of x labels until they fit the axis with
// room to spare (long labels such as -122.450 crowd a narrow panel).
func (lp *linePlot) fitXTicks(c draw.Canvas) {
	if lp.opt.LogX {
		lp.p.X.Tick.Marker = plot.ConstantTicks(lp.logLevelTicks(c))
		return
	}
	a := &lp.p.X
	st := a.Tick.Label
	for target := 6; target >= 2; target-- {
		intX := lp.intX
		a.Tick.Marker = ticker(false, target, intX)
		w := lp.p.DataCanvas(c).Size().X
		var need vg.Length
		for _, t := range niceTicksInt(a.Min, a.Max, target, intX) {
			if t.Label != "" {
				need += st.Width(t.Label) + 10
			}
		}
		if need <= w*0.85 {
			return
		}
	}
}

// logLevelTicks are the ticks of a log x axis drawn on c: a label at
// every level of the data (the distinct x values) when those labels fit
// side by side, else logTicks' labels with the first and last levels
// labelled too (and logTicks' labels that would touch them dropped), so
// that no end of the data goes unlabelled (eps = 4 on an axis labelled
// 1, 2, 5).
func (lp *linePlot) logLevelTicks(c draw.Canvas) []plot.Tick {
	a := &lp.p.X
	var levels []float64
	for _, v := range lp.levels {
		if v >= a.Min && v <= a.Max {
			levels = append(levels, v)
		}
	}
	base := logTicks(a.Min, a.Max)
	if len(levels) == 0 {
		return base
	}
	dc := lp.p.DataCanvas(c)
	st := a.Tick.Label
	pos := func(v float64) vg.Length { return dc.X(a.Norm(v)) }
	// fits: the labelled ticks, in order, leave room between labels.
	fits := func(ts []plot.Tick) bool {
		var prev *plot.Tick
		for i := range ts {
			if ts[i].Label == "" {
				continue
			}
			if prev != nil && pos(ts[i].Value)-pos(prev.Value) < (st.Width(prev.Label)+st.Width(ts[i].Label))/2+6 {
				return false
			}
			prev = &ts[i]
		}
		return true
	}
	label := func(v float64) string {
		if s := strconv.FormatFloat(v, 'g', 6, 64); !strings.Contains(s, "e") {
			return s
		}
		// Three significant digits: 1048576 is 1.05e6, 1e6 is 1e6.
		mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', 2, 64), "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
		if sign == "+" {
			sign = ""
		}
		return mant + "e" + sign + digits
	}
	near := func(u, v float64) bool { return math.Abs(u-v) <= 1e-9*math.Abs(v) }
	// Every level labelled, logTicks' ticks kept unlabelled between them.
	var all []plot.Tick
	for _, v := range levels {
		all = append(all, plot.Tick{Value: v, Label: label(v)})
	}
	for _, t := range base {
		if !slices.ContainsFunc(levels, func(v float64) bool { return near(t.Value, v) }) {
			all = append(all, plot.Tick{Value: t.Value})
		}
	}
	all = sortedTicks(all)
	if len(levels) <= 12 && fits(all) {
		return all
	}
	// The ends of the data labelled, logTicks' labels between them where
	// they leave room.
	ends := []float64{levels[0], levels[len(levels)-1]}
	out := []plot.Tick{{Value: ends[0], Label: label(ends[0])}, {Value: ends[1], Label: label(ends[1])}}
	for _, t := range base {
		if slices.ContainsFunc(ends, func(v float64) bool { return near(t.Value, v) }) {
			continue
		}
		if t.Label != "" && !fits(sortedTicks(append(slices.Clone(out), t))) {
			t.Label = ""
		}
		out = append(out, t)
	}
	return sortedTicks(out)
}

// sortedTicks sorts ticks by value.
func sortedTicks(ts []plot.Tick) []plot.Tick {
	slices.SortFunc(ts, func(x, y plot.Tick) int { return cmp.Compare(x.Value, y.Value) })
	return ts
}

// fitAspect shrinks c (keeping it centred) so that the data area has the
// requested aspect. Two passes: shrinking barely changes axis sizes.
func (lp *linePlot) fitAspect(c draw.Canvas) draw.Canvas {
	if lp.aspect <= 0 {
		return c
	}
	for range 2 {
		dc := lp.p.DataCanvas(c)
		w, h := dc.Size().X, dc.Size().Y
		want := lp.aspect * (lp.p.X.Max - lp.p.X.Min) / (lp.p.Y.Max - lp.p.Y.Min)
		if float64(w/h) > want {
			d := (w - h*vg.Length(want)) / 2
			c.Min.X += d
			c.Max.X -= d
		} else {
			d := (h - w/vg.Length(want)) / 2
			c.Min.Y += d
			c.Max.Y -= d
		}
	}
	return c
}

// place evaluates the legend corners against the data for canvas c.
func (lp *linePlot) place(c draw.Canvas) (corner, int) {
	dc := lp.p.DataCanvas(c)
	pts := make([]vg.Point, 0, len(lp.xy))
	for _, q := range lp.xy {
		pts = append(pts, vg.Point{X: dc.X(lp.p.X.Norm(q[0])), Y: dc.Y(lp.p.Y.Norm(q[1]))})
	}
	return placeLegend(lp.legend, dc, pts)
}
