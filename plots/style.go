package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Text sizes in points. Chosen so that a figure printed at its nominal size
// (about 4 in per panel) reads like body text of a paper.
const (
	figTitleSize   = 14
	panelTitleSize = 11.5
	axisLabelSize  = 10.5
	tickLabelSize  = 9
	legendSize     = 9
)

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// textStyle returns a plain-text style in Liberation Sans.
func textStyle(size vg.Length, bold bool) text.Style {
	f := sansFont
	if bold {
		f = boldFont
	}
	return text.Style{
		Color:   color.Black,
		Font:    font.From(f, size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
}

// newStyledPlot returns a gonum plot with this package's fonts.
func newStyledPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont, panelTitleSize)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, axisLabelSize)
		a.Tick.Label.Font = font.From(sansFont, tickLabelSize)
		a.Tick.Length = vg.Points(4)
		a.Label.Padding = vg.Points(3)
	}
	return p
}

// The Okabe-Ito colour-blind-safe palette, reordered so that the
// low-contrast yellow comes last.
var seriesColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// seriesGlyphs gives each series a distinct marker shape as well as a
// colour, so series stay distinguishable in greyscale.
var seriesGlyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.PlusGlyph{},
}

// seriesDashes varies the line pattern once the colours repeat.
var seriesDashes = [][]vg.Length{
	nil,
	{vg.Points(5), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
}

func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

func seriesGlyph(i int) draw.GlyphDrawer { return seriesGlyphs[i%len(seriesGlyphs)] }

func seriesDash(i int) []vg.Length { return seriesDashes[(i/len(seriesColors))%len(seriesDashes)] }

// Style is how a series is drawn, for a series that must look the same
// in every figure (a mechanism's, say): its colour, marker and line
// pattern. The zero Style (Color.A == 0) takes the palette's style for
// the series' place in its plot instead.
type Style struct {
	Color color.RGBA
	// Marker is one of Markers ("" is "circle").
	Marker string
	// Dash is the line's pattern, lengths in points alternately drawn and
	// skipped; nil is a solid line.
	Dash []float64
}

// Markers are the names a Style's Marker may take.
var Markers = []string{"circle", "ring", "box", "square", "pyramid", "triangle", "diamond", "cross", "plus"}

// glyphOf is the glyph of a marker name.
func glyphOf(name string) (draw.GlyphDrawer, bool) {
	switch name {
	case "", "circle":
		return draw.CircleGlyph{}, true
	case "ring":
		return draw.RingGlyph{}, true
	case "box":
		return draw.BoxGlyph{}, true
	case "square":
		return draw.SquareGlyph{}, true
	case "pyramid":
		return draw.PyramidGlyph{}, true
	case "triangle":
		return draw.TriangleGlyph{}, true
	case "diamond":
		return diamondGlyph{}, true
	case "cross":
		return draw.CrossGlyph{}, true
	case "plus":
		return draw.PlusGlyph{}, true
	}
	return nil, false
}

// diamondGlyph is a filled square standing on a corner.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// check says what is wrong with an explicit style ("" when nothing).
func (s Style) check() error {
	if s.Color.A == 0 {
		return nil
	}
	if _, ok := glyphOf(s.Marker); !ok {
		return fmt.Errorf("marker %q: want one of %s", s.Marker, strings.Join(Markers, ", "))
	}
	for _, d := range s.Dash {
		if !(d > 0) || math.IsInf(d, 0) {
			return fmt.Errorf("dash %v: lengths must be positive and finite", s.Dash)
		}
	}
	return nil
}

// resolve is the colour, glyph and dash of series number i with style s.
func (s Style) resolve(i int) (color.RGBA, draw.GlyphDrawer, []vg.Length) {
	if s.Color.A == 0 {
		return seriesColor(i), seriesGlyph(i), seriesDash(i)
	}
	g, _ := glyphOf(s.Marker)
	var dash []vg.Length
	for _, d := range s.Dash {
		dash = append(dash, vg.Points(d))
	}
	return s.Color, g, dash
}

// wrapText breaks s at spaces into lines no wider than w in style st,
// never next to an "=" or "±" ("β = 0.5" stays on one line); a word wider
// than w alone stays on its own line (see fitText).
func wrapText(st text.Style, s string, w vg.Length) []string {
	var words []string
	glue := false
	for _, word := range strings.Fields(s) {
		sticky := word == "=" || word == "±"
		if len(words) > 0 && (glue || sticky) {
			words[len(words)-1] += " " + word
		} else {
			words = append(words, word)
		}
		glue = sticky
	}
	var lines []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case st.Width(line+" "+word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// balancedWrap is wrapText with lines of even length: the narrowest
// width that still takes as few lines as w does.
func balancedWrap(st text.Style, s string, w vg.Length) []string {
	lines := wrapText(st, s, w)
	if len(lines) < 2 {
		return lines
	}
	lo, hi := w/vg.Length(len(lines))/2, w
	for range 20 {
		mid := (lo + hi) / 2
		if len(wrapText(st, s, mid)) > len(lines) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return wrapText(st, s, hi)
}

// fitText wraps s to width w (at most maxLines lines, of even length),
// shrinking the font (down to 60%) until every line fits; it returns the
// style and lines.
func fitText(st text.Style, s string, w vg.Length, maxLines int) (text.Style, []string) {
	size := st.Font.Size
	for f := 1.0; ; f -= 0.05 {
		st.Font.Size = size * vg.Length(f)
		lines := balancedWrap(st, s, w)
		fits := len(lines) <= maxLines
		for _, l := range lines {
			fits = fits && st.Width(l) <= w
		}
		if fits || f <= 0.6 {
			return st, lines
		}
	}
}

// nanColor marks cells without a value; a neutral grey that the viridis
// colour map never produces.
var nanColor = color.RGBA{0xC8, 0xC8, 0xC8, 0xFF}

// viridisStops are colours sampled at equal steps along matplotlib's
// viridis colour map (perceptually uniform, monotone in lightness,
// colour-blind safe). Interpolating linearly between 10 stops keeps it
// visually indistinguishable from the full table.
var viridisStops = []color.RGBA{
	{0x44, 0x01, 0x54, 0xFF},
	{0x48, 0x28, 0x78, 0xFF},
	{0x3E, 0x4A, 0x89, 0xFF},
	{0x31, 0x68, 0x8E, 0xFF},
	{0x26, 0x82, 0x8E, 0xFF},
	{0x1F, 0x9E, 0x89, 0xFF},
	{0x35, 0xB7, 0x79, 0xFF},
	{0x6D, 0xCD, 0x59, 0xFF},
	{0xB4, 0xDE, 0x2C, 0xFF},
	{0xFD, 0xE7, 0x25, 0xFF},
}

// colorAt maps t in [0, 1] (clamped) to the colour map; NaN gives nanColor.
func colorAt(t float64) color.RGBA {
	if math.IsNaN(t) {
		return nanColor
	}
	t = math.Max(0, math.Min(1, t))
	x := t * float64(len(viridisStops)-1)
	i := int(x)
	if i >= len(viridisStops)-1 {
		return viridisStops[len(viridisStops)-1]
	}
	f := x - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(u, v uint8) uint8 { return uint8(math.Round(float64(u)*(1-f) + float64(v)*f)) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xFF}
}

// niceTicks returns labelled ticks at 1, 2, 2.5 or 5 times a power of ten
// inside [lo, hi], aiming at about target labels, plus unlabelled minor
// ticks halfway between them.
func niceTicks(lo, hi float64, target int) []plot.Tick { return niceTicksInt(lo, hi, target, false) }

// niceTicksInt is niceTicks; with integer set, steps are whole numbers
// without the 2.5 multiple (for counts such as cycles).
func niceTicksInt(lo, hi float64, target int, integer bool) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	// Among 1, 2, 2.5 and 5 times powers of ten, take the step whose label
	// count is closest to target (ties go to the larger step).
	raw := (hi - lo) / float64(max(target, 2)-1)
	e := math.Floor(math.Log10(raw))
	step, best := 1.0, math.Inf(1)
	for k := e - 1; k <= e+1; k++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			st := m * math.Pow(10, k)
			if integer && (st < 1 || (m == 2.5 && st < 100)) {
				continue
			}
			n := math.Floor(hi/st+1e-9) - math.Ceil(lo/st-1e-9) + 1
			if d := math.Abs(n - float64(target)); d < best || (d == best && st > step) {
				step, best = st, d
			}
		}
	}
	// Minor ticks halve the step, unless that would put them between
	// whole numbers on an integer axis.
	minor := !integer || math.Mod(step, 2) == 0
	var ticks []plot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for k := 0; ; k++ {
		v := first + float64(k)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v, step)})
		if mv := v + step/2; mv <= hi && minor {
			ticks = append(ticks, plot.Tick{Value: mv})
		}
	}
	if mv := first - step/2; mv >= lo && minor {
		ticks = append(ticks, plot.Tick{Value: mv})
	}
	return ticks
}

// logTicks returns ticks for a log axis on [lo, hi] (both > 0): labelled
// decades with minor ticks at 2..9 when the range spans a few decades,
// labels at 1, 2, 5 times powers of ten when it spans about one, and
// niceTicks when even those would give fewer than two labels.
func logTicks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return niceTicks(lo, hi, 5)
	}
	e0 := int(math.Floor(math.Log10(lo)))
	e1 := int(math.Ceil(math.Log10(hi)))
	decades := e1 - e0
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	var ticks []plot.Tick
	labelled := 0
	every := 1 + decades/7 // at most about seven decade labels
	for e := e0; e <= e1; e++ {
		d := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := float64(m) * d
			if !in(v) {
				continue
			}
			label := ""
			switch {
			case m == 1 && (e-e0)%every == 0:
				label = formatTick(v, v)
			case decades <= 3 && (m == 2 || m == 5):
				label = formatTick(v, v)
			}
			if label != "" {
				labelled++
			}
			if decades <= 6 || m == 1 {
				ticks = append(ticks, plot.Tick{Value: v, Label: label})
			}
		}
	}
	if labelled < 2 {
		return niceTicks(lo, hi, 4)
	}
	return ticks
}

// formatTick prints v with as many decimals as the tick step needs, and
// switches to compact scientific notation for very small or large numbers.
func formatTick(v, step float64) string {
	if v == 0 {
		return "0"
	}
	av := math.Abs(v)
	if av >= 1e5 || av < 1e-3 {
		s := strconv.FormatFloat(v, 'e', sigDigits(v, step)-1, 64)
		// 1.0e-05 -> 1e-5: drop trailing mantissa zeros and exponent padding.
		mant, exp, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		if sign == "+" {
			sign = ""
		}
		return mant + "e" + sign + digits
	}
	dec := 0
	if step > 0 {
		dec = max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
		// Steps like 2.5 * 10^k need one more decimal than their magnitude.
		if r := step / math.Pow(10, -float64(dec)); math.Abs(r-math.Round(r)) > 1e-6 {
			dec++
		}
	}
	s := strconv.FormatFloat(v, 'f', min(dec, 10), 64)
	return s
}

// sigDigits is the number of significant digits of v needed to resolve step.
func sigDigits(v, step float64) int {
	if step <= 0 || step >= math.Abs(v) {
		return 1
	}
	n := int(math.Floor(math.Log10(math.Abs(v)))-math.Floor(math.Log10(step))) + 1
	return max(1, min(n+1, 6))
}
