package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendEntry is one line of a legend: a line sample and/or a glyph.
type legendEntry struct {
	name  string
	line  *draw.LineStyle  // nil: no line sample
	glyph *draw.GlyphStyle // nil: no glyph
}

// corner of the data area that holds the legend.
type corner int

const (
	topRight corner = iota
	topLeft
	bottomRight
	bottomLeft
)

// legend is drawn inside the data area on a white, thinly framed box, in
// the corner that covers the fewest data points (chosen before drawing).
type legend struct {
	entries []legendEntry
	where   corner
	// outside: the legend is drawn beside the data area (drawIn), not
	// in a corner of it.
	outside bool
}

const (
	legendInset  = vg.Length(5) // from the data-area edge
	legendPad    = vg.Length(4) // inside the box
	legendSample = vg.Length(22)
	legendRowGap = vg.Length(2)
)

func (l *legend) style() text.Style {
	st := textStyle(legendSize, false)
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	return st
}

// sample is the width of the symbol column: room for a line sample when
// any entry has one, else just for a glyph.
func (l *legend) sample() vg.Length {
	for _, e := range l.entries {
		if e.line != nil {
			return legendSample
		}
	}
	return 10
}

func (l *legend) rowHeight() vg.Length {
	return max(l.style().Height("Mg"), 8) + legendRowGap
}

// size of the legend box.
func (l *legend) size() (w, h vg.Length) {
	st := l.style()
	var tw vg.Length
	for _, e := range l.entries {
		tw = max(tw, st.Width(e.name))
	}
	w = 2*legendPad + l.sample() + 5 + tw
	h = 2*legendPad + vg.Length(len(l.entries))*l.rowHeight() - legendRowGap
	return w, h
}

// box returns the legend rectangle in data area dc for corner k.
func (l *legend) box(dc draw.Canvas, k corner) vg.Rectangle {
	w, h := l.size()
	var r vg.Rectangle
	r.Min.X, r.Max.X = inset(dc.Min.X, dc.Max.X, w, k == topRight || k == bottomRight)
	r.Min.Y, r.Max.Y = inset(dc.Min.Y, dc.Max.Y, h, k == topRight || k == topLeft)
	return r
}

// inset places a span of the given size legendInset inside [lo, hi],
// against hi when high, else against lo.
func inset(lo, hi, size vg.Length, high bool) (vg.Length, vg.Length) {
	if high {
		return hi - legendInset - size, hi - legendInset
	}
	return lo + legendInset, lo + legendInset + size
}

// Plot draws the legend in its corner of the data area; it is added
// last so it sits on top of the data.
func (l *legend) Plot(c draw.Canvas, _ *plot.Plot) {
	if len(l.entries) == 0 || l.outside {
		return
	}
	l.drawIn(c, l.box(c, l.where))
}

// drawIn draws the legend's box as rectangle r of c.
func (l *legend) drawIn(c draw.Canvas, r vg.Rectangle) {
	c.SetColor(color.NRGBA{255, 255, 255, 235})
	c.Fill(rectPath(r.Min.X, r.Min.Y, r.Max.X, r.Max.Y))
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{0x99}, Width: 0.5})
	c.Stroke(rectPath(r.Min.X, r.Min.Y, r.Max.X, r.Max.Y))
	st := l.style()
	rh := l.rowHeight()
	y := r.Max.Y - legendPad - (rh-legendRowGap)/2
	for _, e := range l.entries {
		x0 := r.Min.X + legendPad
		sw := l.sample()
		if e.line != nil {
			c.StrokeLine2(*e.line, x0, y, x0+sw, y)
		}
		if e.glyph != nil {
			c.DrawGlyphNoClip(*e.glyph, vg.Point{X: x0 + sw/2, Y: y})
		}
		c.FillText(st, vg.Point{X: x0 + sw + 5, Y: y}, e.name)
		y -= rh
	}
}

// placeLegend picks the corner of data area dc whose legend box covers
// the fewest of the given points (data-area coordinates), preferring the
// top right on ties, and returns that corner and the number covered.
func placeLegend(l *legend, dc draw.Canvas, pts []vg.Point) (corner, int) {
	best, bestN := topRight, math.MaxInt
	for _, k := range []corner{topRight, topLeft, bottomRight, bottomLeft} {
		r := l.box(dc, k)
		// A margin keeps lines from grazing the box edge.
		r.Min.X -= 3
		r.Min.Y -= 3
		r.Max.X += 3
		r.Max.Y += 3
		n := 0
		for _, p := range pts {
			if p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y {
				n++
			}
		}
		if n < bestN {
			best, bestN = k, n
		}
	}
	return best, bestN
}
