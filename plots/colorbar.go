package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// zscale maps values to colour-map positions, linearly or logarithmically.
// In log mode values at or below lo (zeros included) take the lowest colour.
type zscale struct {
	lo, hi float64
	log    bool
	hasNaN bool // some covered value is NaN: the colour bar shows the NaN swatch
	// empty: values of 0 (and below, on a log scale) are empty cells,
	// drawn in emptyColor; hasEmpty: some are, and the colour bar shows
	// their swatch, labelled emptyLabel.
	empty, hasEmpty bool
	emptyLabel      string
}

// emptyColor marks empty cells: white, which neither the colour map nor
// the grey of missing values is.
var emptyColor = color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}

// isEmpty says whether v is an empty cell's value.
func (s zscale) isEmpty(v float64) bool { return s.empty && (v == 0 || s.log && v < 0) }

// color is the colour of value v: the colour map's, nanColor for NaN,
// emptyColor for an empty cell.
func (s zscale) color(v float64) color.RGBA {
	if s.isEmpty(v) {
		return emptyColor
	}
	return colorAt(s.norm(v))
}

// newZScale builds the scale over the given value sets. Values must be
// finite or NaN (validated by the caller). logFloor > 0 fixes the floor of a
// log scale; 0 picks max(smallest positive value, largest value * 1e-6), so
// that one tiny entry cannot squash the whole map into one colour. With
// empty, zeros are empty cells, labelled emptyLabel.
func newZScale(sets [][]float64, log bool, logFloor float64, empty bool, emptyLabel string) (zscale, error) {
	s := zscale{log: log, empty: empty, emptyLabel: emptyLabel}
	lo, hi := math.Inf(1), math.Inf(-1)
	minPos := math.Inf(1)
	for _, vs := range sets {
		for _, v := range vs {
			if math.IsNaN(v) {
				s.hasNaN = true
				continue
			}
			s.hasEmpty = s.hasEmpty || s.isEmpty(v)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if v > 0 {
				minPos = math.Min(minPos, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return s, fmt.Errorf("no finite values")
	}
	if log {
		if math.IsInf(minPos, 1) {
			return s, fmt.Errorf("log scale needs a positive value, largest is %g", hi)
		}
		lo = minPos
		if logFloor > 0 {
			lo = logFloor
		} else {
			lo = math.Max(lo, hi*1e-6)
		}
		if hi <= lo {
			// Constant map, or a floor above every value: a factor-of-two
			// band around the value keeps the bar readable.
			v := math.Max(hi, lo)
			lo, hi = v/2, v*2
		}
	} else if hi == lo {
		d := math.Abs(hi) / 2
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	s.lo, s.hi = lo, hi
	return s, nil
}

// norm returns the colour-map position of v in [0, 1] (NaN stays NaN).
func (s zscale) norm(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	var t float64
	if s.log {
		if v <= s.lo {
			return 0
		}
		t = math.Log(v/s.lo) / math.Log(s.hi/s.lo)
	} else {
		t = (v - s.lo) / (s.hi - s.lo)
	}
	return math.Max(0, math.Min(1, t))
}

func (s zscale) ticks() []plot.Tick {
	if s.log {
		return logTicks(s.lo, s.hi)
	}
	return niceTicks(s.lo, s.hi, 5)
}

// colorbar draws a vertical colour bar with ticks and labels on its right
// and an optional rotated label beyond them.
type colorbar struct {
	scale zscale
	label string
}

const (
	cbGap      = vg.Length(9)  // between the data area and the bar
	cbBarWidth = vg.Length(11) // the bar itself
	cbTickLen  = vg.Length(3.5)
	cbLabelGap = vg.Length(2.5)
)

func (cb colorbar) tickStyle() text.Style {
	st := textStyle(tickLabelSize, false)
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	return st
}

func (cb colorbar) labelStyle() text.Style {
	st := textStyle(axisLabelSize, false)
	// Rotated a quarter turn counter-clockwise: reads bottom to top with
	// the glyph tops facing the bar.
	st.Rotation = math.Pi / 2
	st.XAlign, st.YAlign = draw.XCenter, draw.YTop
	return st
}

// width is the horizontal room the bar needs right of the data area.
func (cb colorbar) width() vg.Length {
	w := cbGap + cbBarWidth + cbTickLen + cbLabelGap
	st := cb.tickStyle()
	var tw vg.Length
	for _, t := range cb.scale.ticks() {
		if t.Label != "" {
			tw = max(tw, st.Width(t.Label))
		}
	}
	for _, sw := range cb.scale.swatches() {
		tw = max(tw, st.Width(sw.label))
	}
	w += tw
	if cb.label != "" {
		w += 5 + cb.labelStyle().Height(cb.label)
	}
	return w + 4
}

// draw paints the bar at x0 (left edge of the bar) from y0 to y1.
func (cb colorbar) draw(c draw.Canvas, x0, y0, y1 vg.Length) {
	s := cb.scale
	h := y1 - y0
	if h <= 0 {
		return
	}
	// Strips overlap by a fraction of a point so that anti-aliasing leaves
	// no seams between them.
	const strips = 64
	for i := range strips {
		ya := y0 + h*vg.Length(i)/strips
		yb := y0 + h*vg.Length(i+1)/strips
		if i < strips-1 {
			yb += 0.75
		}
		c.SetColor(colorAt((float64(i) + 0.5) / strips))
		c.Fill(rectPath(x0, ya, x0+cbBarWidth, yb))
	}
	frame := draw.LineStyle{Color: textStyle(1, false).Color, Width: 0.6}
	c.SetLineStyle(frame)
	c.Stroke(rectPath(x0, y0, x0+cbBarWidth, y1))

	st := cb.tickStyle()
	xr := x0 + cbBarWidth
	var maxW vg.Length
	for _, t := range s.ticks() {
		y := y0 + h*vg.Length(s.norm(t.Value))
		if t.Value < s.lo-1e-12*math.Abs(s.lo) || t.Value > s.hi+1e-12*math.Abs(s.hi) {
			continue
		}
		l := cbTickLen
		if t.Label == "" {
			l /= 2
		}
		c.StrokeLine2(frame, xr, y, xr+l, y)
		if t.Label != "" {
			c.FillText(st, vg.Point{X: xr + cbTickLen + cbLabelGap, Y: y}, t.Label)
			maxW = max(maxW, st.Width(t.Label))
		}
	}
	// Swatches below the bar explain the grey (missing) and white
	// (empty) cells.
	ys := y0
	for _, sw := range s.swatches() {
		side := cbBarWidth
		ys -= side + 6
		c.SetColor(sw.color)
		c.Fill(rectPath(x0, ys, x0+side, ys+side))
		c.SetLineStyle(frame)
		c.Stroke(rectPath(x0, ys, x0+side, ys+side))
		c.FillText(st, vg.Point{X: xr + cbTickLen + cbLabelGap, Y: ys + side/2}, sw.label)
		maxW = max(maxW, st.Width(sw.label))
	}
	if cb.label != "" {
		ls := cb.labelStyle()
		c.FillText(ls, vg.Point{X: xr + cbTickLen + cbLabelGap + maxW + 5, Y: y0 + h/2}, cb.label)
	}
}

// swatch is a colour explained under the colour bar.
type swatch struct {
	color color.RGBA
	label string
}

// swatches are the colours outside the map that s's cells use.
func (s zscale) swatches() []swatch {
	var out []swatch
	if s.hasEmpty {
		out = append(out, swatch{emptyColor, s.emptyLabel})
	}
	if s.hasNaN {
		out = append(out, swatch{nanColor, "no data"})
	}
	return out
}

func rectPath(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}
