package plots

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GridMap is one heat-map panel: a distribution (or any value) over a grid.
type GridMap struct {
	Title      string
	Rows, Cols int
	// Values is row-major: Values[r*Cols+c]. Row 0 is the north edge (drawn
	// at the top), column 0 the EAST edge (drawn at the right). NaN cells
	// are drawn in neutral grey and explained under the colour bar.
	Values  []float64
	Markers []Marker
}

// Marker labels one cell (grid's own row/col indexing) with a short text
// such as "A", drawn in a white disc with a black ring so that it reads on
// any colour.
type Marker struct {
	Row, Col int
	Label    string
}

// HeatOptions tunes Heatmaps.
type HeatOptions struct {
	// Columns of the panel grid; 0 picks one row for up to three panels,
	// else a near-square grid.
	Columns int
	// SharedScale uses one colour scale (and one colour bar at the right of
	// the figure) for all panels, so colours compare across panels.
	SharedScale bool
	// Log colours by log10 of the value. Zeros and values below the floor
	// take the lowest colour (see LogFloor).
	Log bool
	// LogFloor is the lowest value of a log scale; 0 means
	// max(smallest positive value, largest value * 1e-6).
	LogFloor float64
	// ColorbarLabel names the quantity (with units), e.g. "probability".
	ColorbarLabel string
	// XLabel and YLabel override the default axis labels, which name the
	// compass directions and the grid's own index ("column", "row"), or
	// the distances of CellWidthM and CellHeightM.
	XLabel, YLabel string
	// EmptyLabel names the cells whose value is 0 ("no check-in"): they
	// are drawn white, apart from the colour map, and a white swatch
	// under the colour bar says what they are. Without it they are apart
	// only on a log scale (where 0 has no colour), labelled "0".
	EmptyLabel string
	// CellWidthM and CellHeightM, when both > 0, are a cell's sides in
	// metres: the axes then show metres (or km) east of the grid's west
	// edge and north of its south edge instead of cell indices.
	CellWidthM, CellHeightM float64
}

// Default axis labels: the arrows tell the reader which way is which,
// because the column numbers grow towards the west.
const (
	defaultHeatXLabel = "← west      column      east →"
	defaultHeatYLabel = "← south      row      north →"
)

// Heatmaps draws one or more grid distributions as heat maps in a grid of
// panels (row-major in panels), each with square cells, north up and east
// right, cell-index tick labels, markers, and a colour bar (per panel, or
// one shared bar when opt.SharedScale).
func Heatmaps(title string, panels []GridMap, opt HeatOptions) (*Figure, error) {
	if len(panels) == 0 {
		return nil, errors.New("plots: heatmaps: no panels")
	}
	if opt.Columns < 0 {
		return nil, fmt.Errorf("plots: heatmaps: Columns %d is negative", opt.Columns)
	}
	if opt.LogFloor < 0 || math.IsNaN(opt.LogFloor) || math.IsInf(opt.LogFloor, 0) {
		return nil, fmt.Errorf("plots: heatmaps: LogFloor %g must be finite and >= 0", opt.LogFloor)
	}
	for _, v := range []float64{opt.CellWidthM, opt.CellHeightM} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("plots: heatmaps: cell sides %g x %g m must be finite and >= 0", opt.CellWidthM, opt.CellHeightM)
		}
	}
	hps, err := heatPanels(panels, opt)
	if err != nil {
		return nil, err
	}
	ncol := opt.Columns
	if ncol == 0 {
		ncol = autoColumns(len(panels))
	}
	ncol = min(ncol, len(panels))
	l := newHeatLayout(title, panels, opt, hps[0].scale, ncol)
	render := func(c draw.Canvas) error {
		l.titleH = drawFigureTitle(c, title)
		return l.draw(c, hps)
	}
	return newFigure(l.w, l.h, render), nil
}

// heatPanels checks the panels and gives each its colour scale: its own,
// or one shared by all with opt.SharedScale.
func heatPanels(panels []GridMap, opt HeatOptions) ([]*heatPanel, error) {
	hps := make([]*heatPanel, len(panels))
	sets := make([][]float64, len(panels))
	for i, gm := range panels {
		if err := validateGridMap(gm); err != nil {
			return nil, fmt.Errorf("plots: heatmaps: panel %d (%q): %w", i, gm.Title, err)
		}
		hps[i] = &heatPanel{gm: gm, xlabel: opt.XLabel, ylabel: opt.YLabel}
		dx, dy := defaultHeatXLabel, defaultHeatYLabel
		if opt.CellWidthM > 0 && opt.CellHeightM > 0 {
			hps[i].metres = [2]float64{opt.CellWidthM, opt.CellHeightM}
			unit := distanceUnit(max(float64(gm.Cols)*opt.CellWidthM, float64(gm.Rows)*opt.CellHeightM))
			dx, dy = unit.name+" east of the west edge", unit.name+" north of the south edge"
		}
		hps[i].xlabel = cmp.Or(hps[i].xlabel, dx)
		hps[i].ylabel = cmp.Or(hps[i].ylabel, dy)
		sets[i] = gm.Values
	}
	empty := opt.Log || opt.EmptyLabel != ""
	emptyLabel := cmp.Or(opt.EmptyLabel, "0")
	if opt.SharedScale {
		s, err := newZScale(sets, opt.Log, opt.LogFloor, empty, emptyLabel)
		if err != nil {
			return nil, fmt.Errorf("plots: heatmaps: shared scale: %w", err)
		}
		for _, hp := range hps {
			hp.scale = s
		}
		return hps, nil
	}
	for i, hp := range hps {
		s, err := newZScale(sets[i:i+1], opt.Log, opt.LogFloor, empty, emptyLabel)
		if err != nil {
			return nil, fmt.Errorf("plots: heatmaps: panel %d (%q): %w", i, hp.gm.Title, err)
		}
		hp.scale = s
	}
	return hps, nil
}

// heatLayout is the size of a figure of heat maps and where its parts go.
type heatLayout struct {
	opt            HeatOptions
	nrow, ncol     int
	w, h           vg.Length
	titleH, shared vg.Length // the title's height, the shared colour bar's width
	cb             colorbar  // the shared colour bar
}

// newHeatLayout sizes the figure: a tile is about 4 in wide; its height
// follows the grids' aspect so that square cells fill it.
func newHeatLayout(title string, panels []GridMap, opt HeatOptions, scale zscale, ncol int) heatLayout {
	l := heatLayout{opt: opt, ncol: ncol, nrow: (len(panels) + ncol - 1) / ncol, cb: colorbar{scale: scale, label: opt.ColorbarLabel}}
	aspect := 0.0
	for _, gm := range panels {
		aspect = math.Max(aspect, float64(gm.Rows)/float64(gm.Cols))
	}
	tileW := 4.0 * vg.Inch
	if opt.SharedScale {
		tileW = 3.3 * vg.Inch
		l.shared = l.cb.width() + 6
	}
	dataW := tileW - 0.55*vg.Inch
	if !opt.SharedScale {
		dataW -= 0.8 * vg.Inch
	}
	tileH := dataW*vg.Length(aspect) + 0.85*vg.Inch
	tileH = max(2.2*vg.Inch, min(tileH, 5*vg.Inch))
	l.w = vg.Length(ncol)*tileW + l.shared + 0.1*vg.Inch
	_, _, l.titleH = figureTitle(title, l.w)
	l.h = l.titleH + vg.Length(l.nrow)*tileH + 0.05*vg.Inch
	return l
}

// draw draws the panels in their tiles and the shared colour bar.
func (l heatLayout) draw(c draw.Canvas, hps []*heatPanel) error {
	body := c
	body.Max.Y -= l.titleH
	body.Max.X -= l.shared
	body.Min.X += 0.05 * vg.Inch
	body.Min.Y += 0.05 * vg.Inch
	tiles := draw.Tiles{Rows: l.nrow, Cols: l.ncol, PadX: 0.08 * vg.Inch, PadY: 0.08 * vg.Inch}
	// Every panel reserves the widest colour bar's room, so that panels
	// of the same grid line up across the figure.
	cbw := vg.Length(0)
	if !l.opt.SharedScale {
		for _, hp := range hps {
			cbw = max(cbw, colorbar{scale: hp.scale, label: l.opt.ColorbarLabel}.width())
		}
	}
	top, bottom := vg.Length(math.Inf(-1)), vg.Length(math.Inf(1))
	for i, hp := range hps {
		tc := tiles.At(body, i%l.ncol, i/l.ncol)
		dc, err := hp.draw(tc, cbw, l.opt.ColorbarLabel)
		if err != nil {
			return fmt.Errorf("plots: heatmaps: panel %d (%q): %w", i, hp.gm.Title, err)
		}
		top, bottom = max(top, dc.Max.Y), min(bottom, dc.Min.Y)
	}
	if l.opt.SharedScale {
		l.cb.draw(c, body.Max.X+6+cbGap, bottom, top)
	}
	return nil
}

func autoColumns(n int) int {
	if n <= 3 {
		return n
	}
	return int(math.Ceil(math.Sqrt(float64(n))))
}

func validateGridMap(gm GridMap) error {
	if gm.Rows <= 0 || gm.Cols <= 0 {
		return fmt.Errorf("grid %dx%d must have positive dimensions", gm.Rows, gm.Cols)
	}
	if len(gm.Values) != gm.Rows*gm.Cols {
		return fmt.Errorf("%d values for a %dx%d grid (want %d)", len(gm.Values), gm.Rows, gm.Cols, gm.Rows*gm.Cols)
	}
	finite := 0
	for i, v := range gm.Values {
		if math.IsInf(v, 0) {
			return fmt.Errorf("value %d (row %d, col %d) is %g", i, i/gm.Cols, i%gm.Cols, v)
		}
		if !math.IsNaN(v) {
			finite++
		}
	}
	if finite == 0 {
		return errors.New("all values are NaN")
	}
	for _, m := range gm.Markers {
		if m.Row < 0 || m.Row >= gm.Rows || m.Col < 0 || m.Col >= gm.Cols {
			return fmt.Errorf("marker %q at (%d, %d) outside the %dx%d grid", m.Label, m.Row, m.Col, gm.Rows, gm.Cols)
		}
	}
	return nil
}

// figureTitle is title wrapped (or shrunk) to fit a figure w wide, at
// most three lines, in its style, and the height it takes: 0.4 in for a
// line, a line's height more for each further line. Empty: no title.
func figureTitle(title string, w vg.Length) (text.Style, string, vg.Length) {
	st := textStyle(figTitleSize, true)
	st.YAlign = draw.YTop
	if title == "" {
		return st, "", 0
	}
	st, lines := fitText(st, title, w-2*titleMargin, 3)
	return st, strings.Join(lines, "\n"), 0.4*vg.Inch + vg.Length(len(lines)-1)*st.Height("M")
}

// titleMargin is the least room left and right of a title.
const titleMargin = vg.Length(6)

// drawFigureTitle draws the figure's title at the top of c, wrapped to
// fit its width, and returns the height it takes (figureTitle).
func drawFigureTitle(c draw.Canvas, title string) vg.Length {
	st, txt, h := figureTitle(title, c.Size().X)
	if txt != "" {
		c.FillText(st, vg.Point{X: c.Center().X, Y: c.Max.Y - 6}, txt)
	}
	return h
}

// heatPanel is one validated panel with its colour scale.
type heatPanel struct {
	gm             GridMap
	scale          zscale
	xlabel, ylabel string
	// metres are a cell's width and height in metres (zero: the axes
	// show cell indices).
	metres [2]float64
	// titleW is the width the panel's title may take.
	titleW vg.Length
}

// xPos and yPos place cell (r, c) in plot coordinates: x grows eastwards
// (column 0 = east = largest x), y grows northwards (row 0 = north = top).
func (hp *heatPanel) xPos(col int) float64 { return float64(hp.gm.Cols - 1 - col) }
func (hp *heatPanel) yPos(row int) float64 { return float64(hp.gm.Rows - 1 - row) }

// newPlot builds the gonum plot for the panel with a label every xstep
// columns and every ystep rows (the others get minor ticks), or, with
// metres, labels at round distances about as far apart; its title is
// wrapped to hp.titleW.
func (hp *heatPanel) newPlot(xstep, ystep int) *plot.Plot {
	p := newStyledPlot(hp.gm.Title, hp.xlabel, hp.ylabel)
	if hp.titleW > 0 {
		st, lines := fitText(p.Title.TextStyle, hp.gm.Title, hp.titleW, 3)
		p.Title.TextStyle, p.Title.Text = st, strings.Join(lines, "\n")
	}
	p.X.Min, p.X.Max = -0.5, float64(hp.gm.Cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(hp.gm.Rows)-0.5
	p.X.Padding, p.Y.Padding = 0, 0
	var xt, yt plot.ConstantTicks
	if hp.metres[0] > 0 {
		unit := distanceUnit(max(float64(hp.gm.Cols)*hp.metres[0], float64(hp.gm.Rows)*hp.metres[1]))
		xt = metreTicks(hp.gm.Cols, hp.metres[0], unit, xstep)
		yt = metreTicks(hp.gm.Rows, hp.metres[1], unit, ystep)
	} else {
		for col := range hp.gm.Cols {
			if t, ok := cellTick(col, xstep, hp.xPos(col)); ok {
				xt = append(xt, t)
			}
		}
		for row := range hp.gm.Rows {
			if t, ok := cellTick(row, ystep, hp.yPos(row)); ok {
				yt = append(yt, t)
			}
		}
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	p.Add(&cellPlotter{hp: hp}, &markerPlotter{hp: hp})
	return p
}

// unit is a unit of distance on a map's axes.
type unit struct {
	name   string
	metres float64
}

// distanceUnit is km for extents of 2 km and more, else m.
func distanceUnit(extentM float64) unit {
	if extentM >= 2000 {
		return unit{"km", 1000}
	}
	return unit{"m", 1}
}

// metreTicks are the ticks of an axis of n cells of side metres each,
// measured from the edge at plot position -0.5: labels in u at round
// steps, about one per step cells (a label's room), minor ticks between.
func metreTicks(n int, side float64, u unit, step int) plot.ConstantTicks {
	extent := float64(n) * side / u.metres
	target := max(2, min(7, n/max(step, 1)+1))
	var out plot.ConstantTicks
	for _, t := range niceTicks(0, extent, target) {
		if t.Value < 0 || t.Value > extent*(1+1e-9) {
			continue
		}
		out = append(out, plot.Tick{Value: -0.5 + t.Value*u.metres/side, Label: t.Label})
	}
	return out
}

// cellTick returns the tick of cell index i at plot position pos: labelled
// every step cells; unlabelled minor ticks mark every cell while labels are
// at most 5 apart, else every step/5 cells so they do not form a comb.
func cellTick(i, step int, pos float64) (plot.Tick, bool) {
	if i%step == 0 {
		return plot.Tick{Value: pos, Label: strconv.Itoa(i)}, true
	}
	minor := 1
	if step > 5 {
		minor = step / 5
	}
	return plot.Tick{Value: pos}, i%minor == 0
}

// layout fits the panel into tile tc: it picks tick-label steps that do not
// overlap, then shrinks the plot area so that cells are square. It returns
// the plot, the canvas to draw it on and its data area.
func (hp *heatPanel) layout(tc draw.Canvas, cbw vg.Length) (*plot.Plot, draw.Canvas, draw.Canvas, error) {
	area := tc
	area.Max.X -= cbw
	// The title is centred over the map, which is centred in the tile
	// less its colour bar: that width it may take.
	hp.titleW = area.Size().X - 2*titleMargin
	p := hp.newPlot(1, 1)
	dc := p.DataCanvas(area)
	cell := cellSize(dc, hp.gm)
	if cell <= 0 {
		return nil, area, dc, fmt.Errorf("tile %v x %v too small", tc.Size().X, tc.Size().Y)
	}
	tick := textStyle(tickLabelSize, false)
	xstep := labelStep(cell, tick.Width(strconv.Itoa(hp.gm.Cols-1))+4)
	ystep := labelStep(cell, tick.Height("0")+1)
	p = hp.newPlot(xstep, ystep)
	// Two passes: shrinking changes the padding gonum adds for tick labels
	// at the ends only slightly, so the second pass converges.
	for range 2 {
		dc = p.DataCanvas(area)
		cell = cellSize(dc, hp.gm)
		if cell <= 0 {
			return nil, area, dc, fmt.Errorf("tile %v x %v too small", tc.Size().X, tc.Size().Y)
		}
		dw := dc.Size().X - cell*vg.Length(hp.gm.Cols)
		dh := dc.Size().Y - cell*vg.Length(hp.gm.Rows)
		// gonum squeezes the data area to fit an axis label that is longer
		// than the axis, so for very tall or wide grids stop shrinking at
		// the label length and accept oblong cells rather than fail.
		minW := p.X.Label.TextStyle.Width(p.X.Label.Text) + 4
		minH := p.Y.Label.TextStyle.Width(p.Y.Label.Text) + 4
		dw = max(0, min(dw, dc.Size().X-minW))
		dh = max(0, min(dh, dc.Size().Y-minH))
		// Keep the panel centred in its tile (colour bar included).
		area.Min.X += dw / 2
		area.Max.X -= dw / 2
		area.Min.Y += dh / 2
		area.Max.Y -= dh / 2
	}
	dc = p.DataCanvas(area)
	return p, area, dc, nil
}

func cellSize(dc draw.Canvas, gm GridMap) vg.Length {
	s := dc.Size()
	return min(s.X/vg.Length(gm.Cols), s.Y/vg.Length(gm.Rows))
}

// labelStep is the smallest of 1, 2, 5, 10, 20, ... cells whose span
// holds a label of the given extent.
func labelStep(cell, need vg.Length) int {
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if vg.Length(s)*cell >= need {
			return s
		}
	}
	return 1000
}

// draw lays out and draws the panel in tile tc and returns its data area.
// A cbw of zero means the panel has no colour bar of its own.
func (hp *heatPanel) draw(tc draw.Canvas, cbw vg.Length, cbLabel string) (draw.Canvas, error) {
	cb := colorbar{scale: hp.scale, label: cbLabel}
	ownBar := cbw > 0
	p, area, dc, err := hp.layout(tc, cbw)
	if err != nil {
		return dc, err
	}
	p.Draw(area)
	// A thin frame around the data area separates the map from the page.
	c := area
	c.SetLineStyle(draw.LineStyle{Color: color.Black, Width: 0.6})
	c.Stroke(rectPath(dc.Min.X, dc.Min.Y, dc.Max.X, dc.Max.Y))
	if ownBar {
		cb.draw(area, dc.Max.X+cbGap, dc.Min.Y, dc.Max.Y)
	}
	return dc, nil
}

// cellPlotter fills one square per grid cell.
type cellPlotter struct{ hp *heatPanel }

func (cp *cellPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	gm := cp.hp.gm
	for r := range gm.Rows {
		for col := range gm.Cols {
			x, y := cp.hp.xPos(col), cp.hp.yPos(r)
			x0, x1 := trX(x-0.5), trX(x+0.5)
			y0, y1 := trY(y-0.5), trY(y+0.5)
			// Each cell overlaps its already drawn east and north
			// neighbours by 0.75 pt (over one pixel at 100 dpi), so that
			// anti-aliased edges never let the white page show through as
			// light seams between cells.
			if col > 0 {
				x1 += 0.75
			}
			if r > 0 {
				y1 += 0.75
			}
			c.SetColor(cp.hp.scale.color(gm.Values[r*gm.Cols+col]))
			c.Fill(rectPath(x0, y0, x1, y1))
		}
	}
}

// markerPlotter draws the labelled markers on top of the cells: a square
// frame around the cell (black on a white halo, so that it reads on any
// colour) that leaves the cell itself uncovered, however small, and the
// label in a white box just outside the frame's corner.
type markerPlotter struct{ hp *heatPanel }

// Marker frames: the least half side of a frame, and its strokes.
const (
	markerMinHalf = vg.Length(5)
	markerHalo    = vg.Length(2.6) // white, under the black line
	markerLine    = vg.Length(1.1)
	markerPad     = vg.Length(1.5) // inside the label's box
)

func (mp *markerPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	cw, ch := trX(1)-trX(0), trY(1)-trY(0)
	for _, m := range mp.hp.gm.Markers {
		ctr := vg.Point{X: trX(mp.hp.xPos(m.Col)), Y: trY(mp.hp.yPos(m.Row))}
		hx, hy := markerHalf(cw), markerHalf(ch)
		frame := rectPath(ctr.X-hx, ctr.Y-hy, ctr.X+hx, ctr.Y+hy)
		c.SetLineStyle(draw.LineStyle{Color: color.White, Width: markerHalo})
		c.Stroke(frame)
		c.SetLineStyle(draw.LineStyle{Color: color.Black, Width: markerLine})
		c.Stroke(frame)
		if m.Label == "" {
			continue
		}
		st := textStyle(tickLabelSize, true)
		st.XAlign, st.YAlign = draw.XLeft, draw.YBottom
		w := st.Width(m.Label) + 2*markerPad
		h := st.Height(m.Label) + markerPad
		// Above the frame's top-left corner, or the corner of the frame
		// that keeps the label inside the map.
		x0, y0 := ctr.X-hx-w, ctr.Y+hy
		if x0 < c.Min.X {
			x0 = ctr.X + hx
		}
		if y0+h > c.Max.Y {
			y0 = ctr.Y - hy - h
		}
		box := rectPath(x0, y0, x0+w, y0+h)
		c.SetColor(color.White)
		c.Fill(box)
		c.SetLineStyle(draw.LineStyle{Color: color.Black, Width: 0.6})
		c.Stroke(box)
		e := st.Handler.Extents(st.Font)
		c.FillText(st, vg.Point{X: x0 + markerPad, Y: y0 + markerPad/2 + e.Descent - (st.Font.Size - e.Ascent)}, m.Label)
	}
}

// markerHalf is the half side of a marker's frame on a cell of side
// cell: the white halo's inner edge lies just outside the cell.
func markerHalf(cell vg.Length) vg.Length {
	return max(cell/2+markerHalo/2+0.5, markerMinHalf)
}
