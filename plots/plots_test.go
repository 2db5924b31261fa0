package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// renderPNG encodes f as PNG and decodes it again.
func renderPNG(t *testing.T, f *Figure) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Encode(&buf, "png"); err != nil {
		t.Fatalf("encode png: %v", err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	return img
}

func sameRGB(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	return uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
}

// pixels returns the coordinates of all pixels of exactly colour want.
func pixels(img image.Image, want color.RGBA) []image.Point {
	var pts []image.Point
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if sameRGB(img.At(x, y), want) {
				pts = append(pts, image.Point{X: x, Y: y})
			}
		}
	}
	return pts
}

func bbox(sets ...[]image.Point) image.Rectangle {
	r := image.Rectangle{Min: image.Point{X: math.MaxInt, Y: math.MaxInt}, Max: image.Point{X: -1, Y: -1}}
	for _, pts := range sets {
		for _, p := range pts {
			r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
			r.Max.X, r.Max.Y = max(r.Max.X, p.X+1), max(r.Max.Y, p.Y+1)
		}
	}
	return r
}

// badInput is a case of the bad-input tests: data and options that a
// figure constructor must refuse.
type badInput[D, O any] struct {
	name string
	data D
	opt  O
}

// wantRejected fails the test, naming the call what, unless a figure
// constructor refused its input: an error and no figure.
func wantRejected(t *testing.T, what string, f *Figure, err error) {
	t.Helper()
	if err == nil || f != nil {
		t.Errorf("%s: got figure %v, err %v; want an error", what, f, err)
	}
}

func TestHeatmapsBadInput(t *testing.T) {
	ok := GridMap{Rows: 2, Cols: 3, Values: []float64{1, 2, 3, 4, 5, 6}}
	nan := math.NaN()
	cases := []badInput[[]GridMap, HeatOptions]{
		{"no panels", nil, HeatOptions{}},
		{"length mismatch", []GridMap{{Rows: 2, Cols: 3, Values: []float64{1, 2, 3}}}, HeatOptions{}},
		{"zero rows", []GridMap{{Rows: 0, Cols: 3}}, HeatOptions{}},
		{"negative cols", []GridMap{{Rows: 2, Cols: -1}}, HeatOptions{}},
		{"all NaN", []GridMap{{Rows: 1, Cols: 2, Values: []float64{nan, nan}}}, HeatOptions{}},
		{"all NaN shared", []GridMap{ok, {Rows: 1, Cols: 2, Values: []float64{nan, nan}}}, HeatOptions{SharedScale: true}},
		{"infinite", []GridMap{{Rows: 1, Cols: 2, Values: []float64{1, math.Inf(1)}}}, HeatOptions{}},
		{"marker outside", []GridMap{{Rows: 2, Cols: 3, Values: ok.Values, Markers: []Marker{{Row: 2, Col: 0, Label: "A"}}}}, HeatOptions{}},
		{"marker negative", []GridMap{{Rows: 2, Cols: 3, Values: ok.Values, Markers: []Marker{{Row: 0, Col: -1}}}}, HeatOptions{}},
		{"negative columns", []GridMap{ok}, HeatOptions{Columns: -1}},
		{"log without positive", []GridMap{{Rows: 1, Cols: 2, Values: []float64{0, 0}}}, HeatOptions{Log: true}},
		{"negative log floor", []GridMap{ok}, HeatOptions{Log: true, LogFloor: -1}},
	}
	for _, tc := range cases {
		f, err := Heatmaps("t", tc.data, tc.opt)
		wantRejected(t, tc.name, f, err)
	}
}

func TestLinesBadInput(t *testing.T) {
	nan := math.NaN()
	cases := []badInput[[]Series, LineOptions]{
		{"no series", nil, LineOptions{}},
		{"empty series", []Series{{Name: "a"}}, LineOptions{}},
		{"x/y mismatch", []Series{{X: []float64{1, 2}, Y: []float64{1}}}, LineOptions{}},
		{"yerr mismatch", []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{1}}}, LineOptions{}},
		{"all NaN", []Series{{X: []float64{1, 2}, Y: []float64{nan, nan}}}, LineOptions{}},
		{"infinite", []Series{{X: []float64{1, math.Inf(-1)}, Y: []float64{1, 2}}}, LineOptions{}},
		{"negative error", []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{0.1, -0.1}}}, LineOptions{}},
		{"log y of zero", []Series{{X: []float64{1, 2}, Y: []float64{0, 2}}}, LineOptions{LogY: true}},
		{"log x of negative", []Series{{X: []float64{-1, 2}, Y: []float64{1, 2}}}, LineOptions{LogX: true}},
	}
	for _, tc := range cases {
		f, err := Lines("t", tc.data, tc.opt)
		wantRejected(t, "Lines "+tc.name, f, err)
		f, err = LinePanels("t", []Panel{{Title: "p", Series: tc.data, Opt: tc.opt}}, 1)
		wantRejected(t, "LinePanels "+tc.name, f, err)
	}
	good := []Series{{X: []float64{1}, Y: []float64{1}}}
	f, err := LinePanels("t", nil, 1)
	wantRejected(t, "LinePanels with no panels", f, err)
	f, err = LinePanels("t", []Panel{{Series: good}}, -1)
	wantRejected(t, "LinePanels with negative columns", f, err)
}

func TestScatterBadInput(t *testing.T) {
	nan := math.NaN()
	cases := []badInput[[]PointSet, ScatterOptions]{
		{"no sets", nil, ScatterOptions{}},
		{"mismatch", []PointSet{{X: []float64{1, 2}, Y: []float64{1}}}, ScatterOptions{}},
		{"empty", []PointSet{{Name: "e"}}, ScatterOptions{}},
		{"all NaN", []PointSet{{X: []float64{nan}, Y: []float64{1}}}, ScatterOptions{}},
		{"infinite", []PointSet{{X: []float64{math.Inf(1)}, Y: []float64{1}}}, ScatterOptions{}},
		{"negative aspect", []PointSet{{X: []float64{1}, Y: []float64{1}}}, ScatterOptions{Aspect: -1}},
	}
	for _, tc := range cases {
		f, err := ScatterWith("t", "x", "y", tc.data, tc.opt)
		wantRejected(t, tc.name, f, err)
	}
	f, err := Scatter("t", "x", "y", nil)
	wantRejected(t, "Scatter with no sets", f, err)
	f, err = ScatterPanels("t", nil, 0)
	wantRejected(t, "ScatterPanels with no panels", f, err)
}

func TestEncodeFormats(t *testing.T) {
	heat, err := Heatmaps("heat", []GridMap{{Title: "p", Rows: 2, Cols: 3, Values: []float64{1, 2, 3, 4, 5, 6},
		Markers: []Marker{{Row: 1, Col: 2, Label: "A"}}}}, HeatOptions{ColorbarLabel: "probability"})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Lines("lines", []Series{{Name: "s", X: []float64{1, 2, 3}, Y: []float64{3, 1, 2}, YErr: []float64{0.1, 0.2, 0.1}}},
		LineOptions{XLabel: "x (units)", YLabel: "y (units)", Points: true})
	if err != nil {
		t.Fatal(err)
	}
	panels, err := LinePanels("panels", []Panel{
		{Title: "a", Series: []Series{{Name: "s", X: []float64{1, 10, 100}, Y: []float64{1, 0.1, 0.01}}}, Opt: LineOptions{LogX: true, LogY: true}},
		{Title: "b", Series: []Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	scatter, err := ScatterWith("scatter", "lon", "lat", []PointSet{{Name: "p", X: []float64{2.3, 2.4, 2.3}, Y: []float64{48.8, 48.9, 48.8}}},
		ScatterOptions{Aspect: 0.66})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Figure{"heat": heat, "lines": lines, "panels": panels, "scatter": scatter} {
		w, h := f.Size()
		// vgimg makes an image of round(length in inches * dpi) pixels.
		wantW := int(math.Round(float64(w/vg.Inch) * DefaultDPI))
		wantH := int(math.Round(float64(h/vg.Inch) * DefaultDPI))
		img := renderPNG(t, f)
		if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("%s: png is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), wantW, wantH)
		}
		if pw, ph := f.PixelSize(); pw != wantW || ph != wantH {
			t.Errorf("%s: PixelSize %dx%d, want %dx%d", name, pw, ph, wantW, wantH)
		}
		var svg bytes.Buffer
		if err := f.Encode(&svg, "svg"); err != nil {
			t.Errorf("%s: svg: %v", name, err)
		}
		if s := svg.String(); !strings.Contains(s, "<svg") || !strings.Contains(s, "</svg>") {
			t.Errorf("%s: svg output (%d bytes) is not an svg document", name, svg.Len())
		}
		if err := f.Encode(&bytes.Buffer{}, "gif"); err == nil {
			t.Errorf("%s: encoding gif: want an error", name)
		}
	}
	if err := lines.SetDPI(72); err != nil {
		t.Fatal(err)
	}
	w, _ := lines.Size()
	if got := renderPNG(t, lines).Bounds().Dx(); got != int(math.Round(float64(w/vg.Inch)*72)) {
		t.Errorf("at 72 dpi the png is %d px wide, want %v", got, float64(w/vg.Inch)*72)
	}
	if err := lines.SetDPI(0); err == nil {
		t.Error("SetDPI(0): want an error")
	}
	if err := (*Figure)(nil).Encode(&bytes.Buffer{}, "png"); err == nil {
		t.Error("nil figure: want an error")
	}
}

// TestEncodeDeterministic guards against layout state leaking between
// encodings: legend placement grows the Y range while drawing, by an
// amount that depends on the figure size. A figure drawn at one size and
// then resized must come out exactly like a fresh figure of the new size.
func TestEncodeDeterministic(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4}
	build := func() *Figure {
		// Data fill every corner, so the legend forces a larger Y range.
		f, err := Lines("t", []Series{
			{Name: "top", X: x, Y: []float64{10, 10, 10, 10, 10}},
			{Name: "bottom", X: x, Y: []float64{0, 0, 0, 0, 0}},
		}, LineOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	used, fresh := build(), build()
	if err := used.Encode(&bytes.Buffer{}, "svg"); err != nil {
		t.Fatal(err)
	}
	w, h := used.Size()
	for _, f := range []*Figure{used, fresh} {
		if err := f.SetSize(w, 2*h); err != nil {
			t.Fatal(err)
		}
	}
	var a, b bytes.Buffer
	if err := used.Encode(&a, "svg"); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Encode(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("a figure encoded before resizing differs from a fresh one of the new size")
	}
	if err := used.SetSize(0, h); err == nil {
		t.Error("SetSize(0, h): want an error")
	}
}

// TestHeatmapOrientation renders a 3x4 map whose only non-zero cell is
// (row 0, col 0) = north-east corner, and checks from the decoded PNG that
// the hot colour sits in the top-right of the map and nowhere on the left.
func TestHeatmapOrientation(t *testing.T) {
	v := make([]float64, 12)
	v[0] = 1
	f, err := Heatmaps("", []GridMap{{Rows: 3, Cols: 4, Values: v}}, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, f)
	// Cells are flat colours: the lowest and highest colour of the map.
	// The colour bar is a gradient whose strips are never exactly these.
	hot, cold := pixels(img, colorAt(1)), pixels(img, colorAt(0))
	if len(hot) == 0 || len(cold) == 0 {
		t.Fatalf("found %d hot and %d cold pixels; want both", len(hot), len(cold))
	}
	m := bbox(hot, cold) // the map's data area
	if m.Dx() < 4*5 || m.Dy() < 3*5 {
		t.Fatalf("map area %v too small", m)
	}
	cellW, cellH := float64(m.Dx())/4, float64(m.Dy())/3
	if r := float64(m.Dx()) / float64(m.Dy()); math.Abs(r-4.0/3) > 0.05 {
		t.Errorf("map area %v has aspect %.3f, want 4/3 (square cells)", m, r)
	}
	midX, midY := m.Min.X+m.Dx()/2, m.Min.Y+m.Dy()/2
	var topRight, topLeft int
	for _, p := range hot {
		// Image y grows downwards: the top of the map is small y.
		if float64(p.X) < float64(m.Max.X)-cellW-1 || float64(p.Y) > float64(m.Min.Y)+cellH+1 {
			t.Fatalf("hot pixel %v outside the top-right cell of map %v", p, m)
		}
		if p.Y < midY {
			if p.X >= midX {
				topRight++
			} else {
				topLeft++
			}
		}
	}
	if topRight == 0 || topLeft != 0 {
		t.Errorf("hot pixels: %d in the top-right quadrant, %d in the top-left; want >0 and 0", topRight, topLeft)
	}
	// Most of the top-right cell is hot.
	if float64(len(hot)) < 0.8*cellW*cellH {
		t.Errorf("%d hot pixels, want about one cell (%.0f)", len(hot), cellW*cellH)
	}
}

// TestHeatmapMarkerPosition checks that a marker on (row 2, col 3) of a
// 3x4 map frames the bottom-left (south-west) cell without covering it:
// the cell, the map's largest value, keeps its colour all over its
// inside (a marker drawn as a white disc hid it), a dark frame runs just
// outside its north and east edges, and the label's white box lies
// outside the cell.
func TestHeatmapMarkerPosition(t *testing.T) {
	v := make([]float64, 12)
	v[2*4+3] = 1 // the marked cell, in the top colour
	f, err := Heatmaps("", []GridMap{{Rows: 3, Cols: 4, Values: v, Markers: []Marker{{Row: 2, Col: 3, Label: "A"}}}}, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, f)
	m := bbox(pixels(img, colorAt(1)), pixels(img, colorAt(0)))
	cellW, cellH := m.Dx()/4, m.Dy()/3
	cell := image.Rect(m.Min.X, m.Max.Y-cellH, m.Min.X+cellW, m.Max.Y)
	inside := cell.Inset(3)
	for y := inside.Min.Y; y < inside.Max.Y; y++ {
		for x := inside.Min.X; x < inside.Max.X; x++ {
			if !sameRGB(img.At(x, y), colorAt(1)) {
				t.Fatalf("pixel (%d, %d) inside the marked cell %v is %v, not the cell's colour: the marker hides it", x, y, cell, img.At(x, y))
			}
		}
	}
	dark := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r>>8 < 80 && g>>8 < 80 && b>>8 < 80
	}
	band := func(pts func(k int) (int, int)) bool {
		for k := 0; k < 6; k++ {
			if x, y := pts(k); dark(x, y) {
				return true
			}
		}
		return false
	}
	midX, midY := (cell.Min.X+cell.Max.X)/2, (cell.Min.Y+cell.Max.Y)/2
	if !band(func(k int) (int, int) { return cell.Max.X + k, midY }) || !band(func(k int) (int, int) { return midX, cell.Min.Y - 1 - k }) {
		t.Errorf("no dark frame just outside the east and north edges of the marked cell %v", cell)
	}
	var box []image.Point
	for _, p := range pixels(img, color.RGBA{255, 255, 255, 255}) {
		if p.In(m) {
			box = append(box, p)
			if p.In(cell.Inset(2)) {
				t.Fatalf("white pixel %v inside the marked cell %v", p, cell)
			}
		}
	}
	if len(box) == 0 {
		t.Error("no white label box inside the map")
	}
}

// TestHeatmapsSharedScale draws panel A with values up to 1 and panel B
// with values up to 0.5. With a shared scale B's largest cells take the
// middle colour and no hot colour; with separate scales they are hot.
func TestHeatmapsSharedScale(t *testing.T) {
	a := GridMap{Title: "A", Rows: 2, Cols: 2, Values: []float64{0, 0.25, 0.5, 1}}
	b := GridMap{Title: "B", Rows: 2, Cols: 2, Values: []float64{0, 0.25, 0.5, 0.5}}
	count := func(shared bool) (hotLeft, hotRight, midRight int) {
		f, err := Heatmaps("", []GridMap{a, b}, HeatOptions{Columns: 2, SharedScale: shared})
		if err != nil {
			t.Fatal(err)
		}
		img := renderPNG(t, f)
		half := img.Bounds().Dx() / 2
		for _, p := range pixels(img, colorAt(1)) {
			if p.X < half {
				hotLeft++
			} else {
				hotRight++
			}
		}
		for _, p := range pixels(img, colorAt(0.5)) {
			if p.X >= half {
				midRight++
			}
		}
		return
	}
	hl, hr, mr := count(true)
	// Two cells of B take the middle colour: far more than any sliver of
	// the colour bar could contribute.
	if hl == 0 || hr != 0 || mr < 1000 {
		t.Errorf("shared scale: hot pixels left %d right %d, mid-colour right %d; want >0, 0, >=1000", hl, hr, mr)
	}
	hl, hr, _ = count(false)
	if hl == 0 || hr == 0 {
		t.Errorf("separate scales: hot pixels left %d right %d; want both > 0", hl, hr)
	}
}

func TestHeatmapNaNAndLog(t *testing.T) {
	v := []float64{1e-4, 1e-3, 1e-2, math.NaN(), 1e-1, 1}
	f, err := Heatmaps("", []GridMap{{Rows: 2, Cols: 3, Values: v}}, HeatOptions{Log: true, ColorbarLabel: "p"})
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, f)
	m := bbox(pixels(img, colorAt(0)), pixels(img, colorAt(1)))
	// The NaN cell (row 1, col 0) is the bottom-right cell, in neutral grey.
	cellW, cellH := m.Dx()/3, m.Dy()/2
	grey := 0
	for _, p := range pixels(img, nanColor) {
		if p.In(m) {
			grey++
			if p.X < m.Max.X-cellW-1 || p.Y < m.Max.Y-cellH-1 {
				t.Fatalf("grey pixel %v outside the bottom-right cell of map %v", p, m)
			}
		}
	}
	if float64(grey) < 0.8*float64(cellW*cellH) {
		t.Errorf("%d grey pixels in the map, want about one cell (%d)", grey, cellW*cellH)
	}
	// Without NaN the map has no grey (anti-aliased text elsewhere may).
	f, err = Heatmaps("", []GridMap{{Rows: 1, Cols: 2, Values: []float64{1, 2}}}, HeatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img = renderPNG(t, f)
	m = bbox(pixels(img, colorAt(0)), pixels(img, colorAt(1)))
	for _, p := range pixels(img, nanColor) {
		if p.In(m) {
			t.Fatalf("grey pixel %v inside map %v without NaN", p, m)
		}
	}
}

func TestZScale(t *testing.T) {
	s, err := newZScale([][]float64{{0, 1e-9, 1e-4, 1e-2}}, true, 0, true, "0")
	if err != nil {
		t.Fatal(err)
	}
	// The floor is max(smallest positive, largest * 1e-6) = 1e-8.
	if math.Abs(s.lo-1e-8)/1e-8 > 1e-12 || s.hi != 1e-2 {
		t.Errorf("log scale range [%g, %g], want [1e-8, 1e-2]", s.lo, s.hi)
	}
	if s.norm(0) != 0 || s.norm(1e-9) != 0 || s.norm(1e-2) != 1 {
		t.Errorf("norm(0)=%g norm(1e-9)=%g norm(1e-2)=%g; want 0 0 1", s.norm(0), s.norm(1e-9), s.norm(1e-2))
	}
	// 1e-5 is halfway between 1e-8 and 1e-2 in log terms.
	if got := s.norm(1e-5); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("norm(1e-5) = %g, want 0.5", got)
	}
	lin, err := newZScale([][]float64{{2, math.NaN(), 4}}, false, 0, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if lin.norm(3) != 0.5 || !lin.hasNaN || !math.IsNaN(lin.norm(math.NaN())) {
		t.Errorf("linear scale: norm(3)=%g hasNaN=%v", lin.norm(3), lin.hasNaN)
	}
	flat, err := newZScale([][]float64{{0.2, 0.2}}, false, 0, false, "")
	if err != nil || !near(flat.norm(0.2), 0.5) {
		t.Errorf("constant map: norm = %g (err %v), want the middle colour 0.5", flat.norm(0.2), err)
	}
}

// relLuminance is the WCAG relative luminance of an sRGB colour.
func relLuminance(c color.RGBA) float64 {
	lin := func(u uint8) float64 {
		v := float64(u) / 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

func TestColorMapMonotoneLuminance(t *testing.T) {
	prev := -1.0
	for i := 0; i <= 200; i++ {
		l := relLuminance(colorAt(float64(i) / 200))
		if l < prev-1e-3 {
			t.Fatalf("luminance falls at t=%g: %g after %g", float64(i)/200, l, prev)
		}
		prev = l
	}
	if c := colorAt(math.NaN()); c != nanColor {
		t.Errorf("colorAt(NaN) = %v, want the neutral colour", c)
	}
	// Markers are black on white: contrast ratio 21 against any cell colour
	// is not needed, but the white disc must differ from every map colour.
	for i := 0; i <= 100; i++ {
		if c := colorAt(float64(i) / 100); c == (color.RGBA{255, 255, 255, 255}) || c == nanColor {
			t.Fatalf("colour map produces white or the NaN grey at t=%g", float64(i)/100)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {0.0004, 0.041}, {-3, 17}, {0.2, 5}, {1e-7, 3e-6}, {-122.52, -122.37}, {48.82, 48.91}, {0, 15}} {
		var vals []float64
		for _, tk := range niceTicks(r[0], r[1], 5) {
			if tk.Value < r[0]-1e-12 || tk.Value > r[1]+1e-12 {
				t.Errorf("range %v: tick %g outside", r, tk.Value)
			}
			if tk.Label != "" {
				vals = append(vals, tk.Value)
			}
		}
		if len(vals) < 3 || len(vals) > 8 {
			t.Errorf("range %v: %d labels %v, want 3..8", r, len(vals), vals)
			continue
		}
		step := vals[1] - vals[0]
		for i := 2; i < len(vals); i++ {
			if math.Abs(vals[i]-vals[i-1]-step) > 1e-9*math.Abs(step) {
				t.Errorf("range %v: uneven labels %v", r, vals)
			}
		}
		// The step is 1, 2, 2.5 or 5 times a power of ten.
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-12))
		if !(near(m, 1) || near(m, 2) || near(m, 2.5) || near(m, 5)) {
			t.Errorf("range %v: step %g is not 1, 2, 2.5 or 5 x 10^k", r, step)
		}
	}
	for _, tk := range niceTicksInt(0, 15, 6, true) {
		if tk.Value != math.Trunc(tk.Value) {
			t.Errorf("integer axis has tick at %g", tk.Value)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestLogTicks(t *testing.T) {
	for _, r := range [][2]float64{{1e-6, 1}, {0.02, 2}, {0.3, 0.9}, {1, 1e12}} {
		n := 0
		for _, tk := range logTicks(r[0], r[1]) {
			if tk.Value < r[0]*(1-1e-9) || tk.Value > r[1]*(1+1e-9) {
				t.Errorf("range %v: tick %g outside", r, tk.Value)
			}
			if tk.Label != "" {
				n++
			}
		}
		if n < 2 || n > 10 {
			t.Errorf("range %v: %d labels, want 2..10", r, n)
		}
	}
}

func TestFormatTick(t *testing.T) {
	cases := []struct {
		v, step float64
		want    string
	}{
		{0, 1, "0"},
		{0.25, 0.25, "0.25"},
		{5, 2.5, "5.0"},
		{0.02, 0.01, "0.02"},
		{1e-5, 1e-5, "1e-5"},
		{2.5e-4, 5e-5, "2.5e-4"},
		{2e6, 1e6, "2e6"},
		{-122.45, 0.05, "-122.45"},
	}
	for _, c := range cases {
		if got := formatTick(c.v, c.step); got != c.want {
			t.Errorf("formatTick(%g, %g) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

func TestPlaceLegendAvoidsData(t *testing.T) {
	l := &legend{entries: []legendEntry{{name: "series one"}, {name: "series two"}}}
	var dc draw.Canvas
	dc.Rectangle = vg.Rectangle{Max: vg.Point{X: 300, Y: 200}}
	// Points crowd the top half (as a decreasing curve would not, but a
	// rising plateau does): the legend must go to a bottom corner.
	var pts []vg.Point
	for x := vg.Length(0); x <= 300; x += 5 {
		for y := vg.Length(110); y <= 200; y += 5 {
			pts = append(pts, vg.Point{X: x, Y: y})
		}
	}
	pts = append(pts, vg.Point{X: 290, Y: 10}) // one point in the bottom right
	k, n := placeLegend(l, dc, pts)
	if k != bottomLeft || n != 0 {
		t.Errorf("legend placed at corner %d covering %d points, want bottom-left (%d) covering 0", k, n, bottomLeft)
	}
}

// TestLinesHandleGapsAndLogErrorBars: on a log Y axis an error bar
// reaching zero or below is cut at a floor, half the smallest positive
// value shown (bar ends included), and a NaN leaves a gap. The plotted
// data and the axis range say so, and so do the pixels: the cut bar
// reaches further down than the lowest uncut bar end, and stays inside
// the image.
func TestLinesHandleGapsAndLogErrorBars(t *testing.T) {
	s := Series{Name: "s", X: []float64{1, 2, 3, 4}, Y: []float64{1, math.NaN(), 0.1, 0.01},
		YErr: []float64{2, 0, math.NaN(), 0.005}}
	opt := LineOptions{LogY: true, Points: true}
	lp, err := newLinePlot("t", []Series{s}, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Smallest positive value shown: 0.01 - 0.005; the floor is half of it.
	const floor = 0.0025
	has := func(x, y float64) bool {
		for _, p := range lp.xy {
			if p[0] == x && math.Abs(p[1]-y) <= 1e-12*y {
				return true
			}
		}
		return false
	}
	for _, p := range [][2]float64{{1, floor}, {1, 3}, {4, 0.005}, {4, 0.015}, {3, 0.1}} {
		if !has(p[0], p[1]) {
			t.Errorf("plotted data %v lack (%v, %v)", lp.xy, p[0], p[1])
		}
	}
	for _, p := range lp.xy {
		if !(p[1] > 0) || p[0] == 2 {
			t.Errorf("plotted point %v: NaN gaps are skipped and every point is positive on a log axis", p)
		}
	}
	if y0, y1 := lp.p.Y.Min, lp.p.Y.Max; !(y0 > 0 && y0 <= floor && y1 >= 3) {
		t.Errorf("Y axis [%g, %g], want (0, %g] to at least 3", y0, y1, floor)
	}
	// Pixels: the lowest pixel of the series colour left of the middle
	// (the bar at x = 1) is below the lowest one right of it (the bar at
	// x = 4, down to 0.005 = twice the floor).
	f, err := Lines("t", []Series{s}, opt)
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, f)
	mid := img.Bounds().Dx() / 2
	left, right := -1, -1
	for _, p := range pixels(img, seriesColor(0)) {
		if p.X < mid {
			left = max(left, p.Y)
		} else {
			right = max(right, p.Y)
		}
	}
	if left < 0 || right < 0 || left <= right+5 || left >= img.Bounds().Max.Y {
		t.Errorf("lowest series pixels: %d left, %d right (image height %d); want the cut bar lower, inside the image",
			left, right, img.Bounds().Dy())
	}
}

// TestColorbarRange: the colour bar spans the colour map from its lowest
// colour at the bottom of the map to its highest at the top, and its
// ticks lie within the data range, linear or log.
func TestColorbarRange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		opt    HeatOptions
		lo, hi float64
	}{
		{"linear", []float64{2, 3, 4, 6, 5, 2.5}, HeatOptions{}, 2, 6},
		{"log", []float64{1e-3, 1e-2, 0.1, 1, 0.5, 0.05}, HeatOptions{Log: true}, 1e-3, 1},
	} {
		f, err := Heatmaps("", []GridMap{{Rows: 2, Cols: 3, Values: tc.values}}, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		img := renderPNG(t, f)
		m := bbox(pixels(img, colorAt(0)), pixels(img, colorAt(1))) // the map: flat cells at both ends
		// The bar's 64 strips have the colours of their midpoints.
		bottom, top := pixels(img, colorAt(0.5/64)), pixels(img, colorAt(63.5/64))
		if len(bottom) == 0 || len(top) == 0 {
			t.Fatalf("%s: colour bar end strips not found (%d, %d pixels)", tc.name, len(bottom), len(top))
		}
		bb, tb := bbox(bottom), bbox(top)
		if bb.Min.X <= m.Max.X || tb.Min.X <= m.Max.X {
			t.Errorf("%s: colour bar strips at %v and %v, not right of the map %v", tc.name, bb, tb, m)
		}
		// Bottom strip at the map's bottom edge, top strip at its top edge
		// (within two pixels of anti-aliasing), each 1/64 of the height.
		if abs(bb.Max.Y-m.Max.Y) > 2 || abs(tb.Min.Y-m.Min.Y) > 2 {
			t.Errorf("%s: colour bar from y=%d to y=%d, map from %d to %d", tc.name, tb.Min.Y, bb.Max.Y, m.Min.Y, m.Max.Y)
		}
		s, err := newZScale([][]float64{tc.values}, tc.opt.Log, 0, tc.opt.Log, "0")
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.lo-tc.lo) > 1e-12*tc.lo || math.Abs(s.hi-tc.hi) > 1e-12*tc.hi {
			t.Errorf("%s: colour bar range [%g, %g], want the data range [%g, %g]", tc.name, s.lo, s.hi, tc.lo, tc.hi)
		}
		labels := 0
		for _, tk := range s.ticks() {
			if tk.Label != "" && tk.Value >= s.lo*(1-1e-12) && tk.Value <= s.hi*(1+1e-12) {
				labels++
			}
		}
		if labels < 2 {
			t.Errorf("%s: %d labelled ticks within [%g, %g], want at least 2", tc.name, labels, s.lo, s.hi)
		}
	}
}

func abs(x int) int { return max(x, -x) }

// TestDegenerateShapes draws edge cases that stress the layout: a single
// cell, a tall and a large grid, many panels, constant and single-point
// series. They must encode without error.
func TestDegenerateShapes(t *testing.T) {
	big := make([]float64, 60*80)
	for i := range big {
		big[i] = float64(i % 7)
	}
	tall := make([]float64, 30*3)
	for i := range tall {
		tall[i] = float64(i)
	}
	var nine []GridMap
	for i := range 9 {
		nine = append(nine, GridMap{Title: "p", Rows: 2, Cols: 2, Values: []float64{1, 2, 3, float64(i)}})
	}
	figs := map[string]func() (*Figure, error){
		"one cell": func() (*Figure, error) {
			return Heatmaps("", []GridMap{{Rows: 1, Cols: 1, Values: []float64{0.5}, Markers: []Marker{{Label: "AB"}}}}, HeatOptions{})
		},
		"big grid": func() (*Figure, error) {
			return Heatmaps("big", []GridMap{{Rows: 60, Cols: 80, Values: big}}, HeatOptions{Log: true, LogFloor: 0.5})
		},
		"tall grid": func() (*Figure, error) {
			return Heatmaps("tall", []GridMap{{Rows: 30, Cols: 3, Values: tall}}, HeatOptions{})
		},
		"nine panels": func() (*Figure, error) { return Heatmaps("nine", nine, HeatOptions{SharedScale: true}) },
		"constant series": func() (*Figure, error) {
			return Lines("c", []Series{{Name: "c", X: []float64{1, 1}, Y: []float64{2, 2}}}, LineOptions{LogX: true, LogY: true})
		},
		"single point": func() (*Figure, error) {
			return Lines("p", []Series{{Name: "p", X: []float64{1}, Y: []float64{2}, YErr: []float64{0.5}}}, LineOptions{})
		},
		"single scatter point": func() (*Figure, error) {
			return ScatterWith("s", "x", "y", []PointSet{{X: []float64{1}, Y: []float64{1}}}, ScatterOptions{Aspect: 2})
		},
	}
	for name, build := range figs {
		f, err := build()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, format := range []string{"png", "svg"} {
			if err := f.Encode(&bytes.Buffer{}, format); err != nil {
				t.Errorf("%s (%s): %v", name, format, err)
			}
		}
	}
}

// drawn lays lp out on a canvas of w x h inches, as a figure draws it,
// so that its axes and legend are where the figure has them.
func drawn(t *testing.T, lp *linePlot, w, h vg.Length) {
	t.Helper()
	c := vgimg.New(w, h)
	if err := lp.draw(draw.New(c)); err != nil {
		t.Fatal(err)
	}
}

// labels are the labelled ticks of axis a, as "value=label".
func labels(a *plot.Axis) map[string]float64 {
	out := map[string]float64{}
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			out[tk.Label] = tk.Value
		}
	}
	return out
}

// TestSeriesStyleIsTheSameInEveryFigure: a series with a Style is drawn
// in its colour wherever it sits among the series (the palette colour of
// its place is not used), and a Style with an unknown marker is refused.
func TestSeriesStyleIsTheSameInEveryFigure(t *testing.T) {
	purple := color.RGBA{0xCC, 0x79, 0xA7, 0xFF}
	mech := Series{Name: "planar-laplace", X: []float64{1, 2, 3}, Y: []float64{1, 2, 1},
		Style: Style{Color: purple, Marker: "cross", Dash: []float64{4, 2}}}
	other := Series{Name: "other", X: []float64{1, 2, 3}, Y: []float64{3, 3, 2}}
	for _, ss := range [][]Series{{mech}, {other, mech}, {other, other, other, mech}} {
		f, err := Lines("t", ss, LineOptions{Points: true})
		if err != nil {
			t.Fatal(err)
		}
		img := renderPNG(t, f)
		if n := len(pixels(img, purple)); n < 50 {
			t.Errorf("%d series: %d pixels in the style's colour, want the series drawn in it", len(ss), n)
		}
		if len(ss) == 1 {
			if n := len(pixels(img, seriesColor(0))); n > 0 {
				t.Errorf("the styled series alone: %d pixels of the palette's first colour", n)
			}
		}
	}
	bad := mech
	bad.Style.Marker = "star"
	f, err := Lines("t", []Series{bad}, LineOptions{})
	wantRejected(t, "unknown marker", f, err)
	if err != nil && !strings.Contains(err.Error(), "circle") {
		t.Errorf("unknown marker: %v, want the markers listed", err)
	}
}

// inkAt says whether the pixel at (x, y) is dark (text or lines).
func inkAt(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 < 160 && g>>8 < 160 && b>>8 < 160
}

// TestTitlesFit: titles far wider than their figure or panel are wrapped
// (or shrunk), never clipped: nothing is drawn in the outermost pixels
// of the figure, and a panel's title stays within its panel's tile.
func TestTitlesFit(t *testing.T) {
	long := "Mechanisms on My check-ins of the whole metropolitan region (San Francisco and the Bay Area, 500 m cells): privacy-utility frontier (mean ± sd over simulations)"
	series := []Series{{Name: "s", X: []float64{1, 2, 3}, Y: []float64{1, 3, 2}}}
	lines, err := Lines(long, series, LineOptions{XLabel: "x", YLabel: "y"})
	if err != nil {
		t.Fatal(err)
	}
	panels, err := LinePanels(long, []Panel{{Title: long, Series: series}, {Title: long, Series: series}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	heat, err := Heatmaps(long, []GridMap{{Title: long, Rows: 3, Cols: 4, Values: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}, HeatOptions{ColorbarLabel: "p"})
	if err != nil {
		t.Fatal(err)
	}
	scatter, err := ScatterPanels(long, []ScatterPanel{{Title: long, Sets: []PointSet{{Name: "p", X: []float64{1, 2}, Y: []float64{1, 2}}}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Figure{"lines": lines, "panels": panels, "heat": heat, "scatter": scatter} {
		img := renderPNG(t, f)
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for _, x := range []int{b.Min.X, b.Min.X + 1, b.Max.X - 2, b.Max.X - 1} {
				if inkAt(img, x, y) {
					t.Fatalf("%s: ink at the figure's edge (%d, %d): a title runs off the figure", name, x, y)
				}
			}
		}
	}
	// Two panels side by side, under a short figure title: below it,
	// nothing crosses the gap between the panels' tiles.
	panels, err = LinePanels("short", []Panel{{Title: long, Series: series}, {Title: long, Series: series}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, panels)
	mid := img.Bounds().Dx() / 2
	for y := 45 * DefaultDPI / 100; y < img.Bounds().Dy(); y++ {
		for x := mid - 3; x <= mid+3; x++ {
			if inkAt(img, x, y) {
				t.Fatalf("ink at (%d, %d), in the gap between the two panels: a panel title runs into its neighbour", x, y)
			}
		}
	}
	// Never broken next to "=": a value stays with its name.
	for w := vg.Length(40); w < 300; w += 10 {
		got := strings.Join(wrapText(textStyle(panelTitleSize, true), "LAP, ε = 0.0799 (β = 0.0401), 7.55% off-grid", w), "\n")
		if !strings.Contains(got, "ε = 0.0799") || !strings.Contains(got, "(β = 0.0401),") {
			t.Errorf("at width %v the title broke next to an '=':\n%s", w, got)
		}
	}
	// The wrapped lines each fit the width asked for.
	st := textStyle(figTitleSize, true)
	st2, ls := fitText(st, long, 200, 3)
	if len(ls) < 2 {
		t.Errorf("fitText kept %q on one line", long)
	}
	for _, l := range ls {
		if w := st2.Width(l); w > 200 {
			t.Errorf("line %q is %v wide, more than 200", l, w)
		}
	}
}

// TestLogAxisLabelsEveryLevel: a log x axis with the levels 0.25 to 4
// labels each of them (an axis labelled 0.5, 1, 2 left eps = 4 without a
// label), and one with many levels labels at least the first and last.
func TestLogAxisLabelsEveryLevel(t *testing.T) {
	few := []float64{0.25, 0.5, 1, 2, 4}
	lp, err := newLinePlot("t", []Series{{X: few, Y: []float64{5, 4, 3, 2, 1}}}, LineOptions{LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	drawn(t, lp, 4*vg.Inch, 3*vg.Inch)
	got := labels(&lp.p.X)
	for _, v := range few {
		l := strconv.FormatFloat(v, 'g', -1, 64)
		if pos, ok := got[l]; !ok || pos != v {
			t.Errorf("no label %q at %g on the log axis (labels %v)", l, v, got)
		}
	}
	var many, y []float64
	for k := range 16 {
		many, y = append(many, math.Pow(2, float64(k))), append(y, float64(k))
	}
	lp, err = newLinePlot("t", []Series{{X: many, Y: y}}, LineOptions{LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	drawn(t, lp, 3*vg.Inch, 3*vg.Inch)
	got = labels(&lp.p.X)
	if got["1"] != 1 || got["32768"] != 32768 {
		t.Errorf("many levels: labels %v, want the first (1) and the last (32768) among them", got)
	}
}

// TestProbabilityAxis: a probability axis stays within [0, 1], whatever
// its error bars and legend; a legend that would hide data in every
// corner goes beside the plot (it used to stretch the axis to 1.5-2).
func TestProbabilityAxis(t *testing.T) {
	x := []float64{0.5, 1, 2, 4}
	var ss []Series
	for i, y := range [][]float64{{0, 0.02, 0.4, 0.99}, {1, 0.97, 0.5, 0.01}, {0.01, 0.5, 0.95, 1}, {0.98, 0.3, 0.05, 0}} {
		ss = append(ss, Series{Name: "mechanism " + strconv.Itoa(i), X: x, Y: y, YErr: []float64{0.1, 0.2, 0.3, 0.1}})
	}
	lp, err := newLinePlot("t", ss, LineOptions{LogX: true, Probability: true, YLabel: "identification of A (posterior)"})
	if err != nil {
		t.Fatal(err)
	}
	drawn(t, lp, 4.4*vg.Inch, 3.3*vg.Inch)
	if lp.p.Y.Min < 0 || lp.p.Y.Max > 1 {
		t.Errorf("probability axis [%g, %g], want within [0, 1]", lp.p.Y.Min, lp.p.Y.Max)
	}
	for _, tk := range lp.p.Y.Tick.Marker.Ticks(lp.p.Y.Min, lp.p.Y.Max) {
		if tk.Label != "" && (tk.Value < 0 || tk.Value > 1) {
			t.Errorf("probability axis labelled %q at %g", tk.Label, tk.Value)
		}
	}
	if !lp.legend.outside {
		t.Error("the legend covers data in every corner but was not put beside the plot")
	}
	// The same data on an unbounded axis grow it instead.
	lp, err = newLinePlot("t", ss, LineOptions{LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	drawn(t, lp, 4.4*vg.Inch, 3.3*vg.Inch)
	if lp.legend.outside || lp.p.Y.Max <= 1.1 {
		t.Errorf("unbounded axis: legend outside %v, Y up to %g; want the axis grown for the legend", lp.legend.outside, lp.p.Y.Max)
	}
}

// TestScatterWeights: points are drawn by place with a marker whose area
// grows with the weight there (repeated points add up), and the legend
// says what the largest and smallest markers stand for.
func TestScatterWeights(t *testing.T) {
	set := PointSet{Name: "check-ins", X: []float64{1, 3, 3, 4, 5}, Y: []float64{1, 1, 1, 1, 1}, W: []float64{1, 60, 40, 0, 1}}
	lp, err := newScatterPlot("t", "x", "y", []PointSet{set}, ScatterOptions{WeightUnit: "check-ins"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range lp.legend.entries {
		names = append(names, e.name)
	}
	if !slices.Equal(names, []string{"check-ins", "100 check-ins", "1 check-in"}) {
		t.Errorf("legend %q, want the set and the weights of the largest and smallest markers", names)
	}
	f, err := ScatterWith("t", "x", "y", []PointSet{set}, ScatterOptions{WeightUnit: "check-ins"})
	if err != nil {
		t.Fatal(err)
	}
	img := renderPNG(t, f)
	// The marker colour blended on white: pixels that are clearly blue.
	var light, heavy int
	b := img.Bounds()
	mid := b.Min.X + b.Dx()/2
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if bl>>8 > 150 && r>>8 < 120 && g>>8 < 190 {
				switch {
				case x < b.Min.X+b.Dx()/3:
					light++
				case abs(x-mid) < b.Dx()/8:
					heavy++
				}
			}
		}
	}
	// Areas 1 : 100 with the smallest marker at its least radius.
	if light == 0 || heavy < 20*light {
		t.Errorf("marker pixels: %d at weight 1, %d at weight 100; want the heavy place's marker far larger", light, heavy)
	}
	// Places of equal weight keep the small marker of unweighted points.
	if r := markerRadius(7, 7, 7, 1.2, 6); r != 1.2 {
		t.Errorf("equal weights: radius %v, want the least, 1.2", r)
	}
	_, err = ScatterWith("t", "x", "y", []PointSet{{X: []float64{1}, Y: []float64{1}, W: []float64{-1}}}, ScatterOptions{})
	if err == nil {
		t.Error("a negative weight was accepted")
	}
}

// TestHeatmapEmptyCells: cells of value 0 are drawn apart from the
// colour map (white), while the smallest positive value takes its lowest
// colour: on a log scale (where 0 has no colour of its own) and on a
// linear one with EmptyLabel.
func TestHeatmapEmptyCells(t *testing.T) {
	for _, opt := range []HeatOptions{{Log: true}, {EmptyLabel: "no check-in"}} {
		// Row 0 (top): 0 in the east, 1e-3, 1 in the west; row 1: 1 in
		// the east: the two cells of 1 span the map.
		v := []float64{0, 1e-3, 1, 1, 0.5, 0.2}
		f, err := Heatmaps("", []GridMap{{Rows: 2, Cols: 3, Values: v}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		img := renderPNG(t, f)
		m := bbox(pixels(img, colorAt(1)))
		cw, ch := m.Dx()/3, m.Dy()/2
		zero := img.At(m.Max.X-cw/2, m.Min.Y+ch/2)
		low := img.At(m.Max.X-cw-cw/2, m.Min.Y+ch/2)
		if !sameRGB(zero, emptyColor) {
			t.Errorf("%+v: the empty cell is %v, want %v", opt, zero, emptyColor)
		}
		if opt.Log && !sameRGB(low, colorAt(0)) {
			t.Errorf("%+v: the smallest positive cell is %v, want the lowest colour %v", opt, low, colorAt(0))
		}
		if sameRGB(low, emptyColor) {
			t.Errorf("%+v: a positive cell is drawn as empty", opt)
		}
		s, err := newZScale([][]float64{v}, opt.Log, 0, true, "no check-in")
		if err != nil {
			t.Fatal(err)
		}
		if sw := s.swatches(); len(sw) != 1 || sw[0].label != "no check-in" {
			t.Errorf("%+v: colour bar swatches %v, want the empty cells explained", opt, sw)
		}
	}
}

// TestHeatmapMetreAxes: with a cell size, a map's axes are distances from
// its west and south edges (km on a 12 km wide grid): the ticks "0" sit
// on the edges and every label's position is its distance in cells.
func TestHeatmapMetreAxes(t *testing.T) {
	hps, err := heatPanels([]GridMap{{Rows: 16, Cols: 24, Values: make([]float64, 16*24)}}, HeatOptions{CellWidthM: 500, CellHeightM: 400})
	if err != nil {
		t.Fatal(err)
	}
	hp := hps[0]
	if hp.xlabel != "km east of the west edge" || hp.ylabel != "km north of the south edge" {
		t.Errorf("axis labels %q, %q", hp.xlabel, hp.ylabel)
	}
	p := hp.newPlot(4, 4)
	for _, ax := range []struct {
		a    *plot.Axis
		side float64
		n    int
	}{{&p.X, 500, 24}, {&p.Y, 400, 16}} {
		got := labels(ax.a)
		if len(got) < 3 {
			t.Errorf("%d labels, want at least 3: %v", len(got), got)
		}
		if got["0"] != -0.5 {
			t.Errorf("label 0 at %v, want the edge -0.5 (labels %v)", got["0"], got)
		}
		for l, pos := range got {
			km, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatalf("label %q is not a number of km", l)
			}
			if want := -0.5 + km*1000/ax.side; math.Abs(pos-want) > 1e-9 || pos > float64(ax.n)-0.5+1e-9 {
				t.Errorf("label %q at %g, want %g within the grid", l, pos, want)
			}
		}
	}
}
