package datasets

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMetresPerDegree checks the WGS 84 scales against the published
// Fourier series of the length of a degree on that ellipsoid:
// 111132.954 - 559.822 cos 2φ + 1.175 cos 4φ metres of latitude and
// 111412.84 cos φ - 93.5 cos 3φ + 0.118 cos 5φ of longitude (good to a
// few centimetres).
func TestMetresPerDegree(t *testing.T) {
	for _, lat := range []float64{0, 37.7587, 45, 48.8542, 60, 80} {
		r := lat * math.Pi / 180
		wantLat := 111132.954 - 559.822*math.Cos(2*r) + 1.175*math.Cos(4*r)
		wantLon := 111412.84*math.Cos(r) - 93.5*math.Cos(3*r) + 0.118*math.Cos(5*r)
		a, b := MetresPerDegree(lat)
		if math.Abs(a-wantLat) > 0.05 || math.Abs(b-wantLon) > 0.05 {
			t.Errorf("lat %v: %.3f, %.3f m per degree; series %.3f, %.3f", lat, a, b, wantLat, wantLon)
		}
	}
}

// TestFrameBoundaries: cells of 0.25 x 0.5 degrees over lat [0, 1], lon
// [0, 2] (edges exact in binary): 4 x 4 cells from the north-east corner.
// A point on an interior edge belongs to the cell to its north and east,
// the region's edges are inside, and anything beyond them is not.
func TestFrameBoundaries(t *testing.T) {
	f, err := NewFrame(Box{LatMin: 0, LatMax: 1, LonMin: 0, LonMax: 2}, CellSpec{Deg: [2]float64{0.25, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows() != 4 || f.Cols() != 4 {
		t.Fatalf("%d x %d cells, want 4 x 4", f.Rows(), f.Cols())
	}
	for _, c := range []struct {
		lat, lon float64
		row, col int
		ok       bool
	}{
		{1, 2, 0, 0, true},      // the north-east corner
		{0, 0, 3, 3, true},      // the south-west corner
		{0.75, 1.5, 0, 0, true}, // on interior edges: north and east
		{0.7499999, 1.4999999, 1, 1, true},
		{0.5, 0.3, 1, 3, true},
		{0.9, 1.9, 0, 0, true},
		{1.0000001, 1, 0, 0, false},    // north of the region
		{0.5, -0.0000001, 0, 0, false}, // west of it
	} {
		r, col, ok := f.Locate(c.lat, c.lon)
		if ok != c.ok || ok && (r != c.row || col != c.col) {
			t.Errorf("Locate(%v, %v) = (%d, %d, %v), want (%d, %d, %v)", c.lat, c.lon, r, col, ok, c.row, c.col, c.ok)
		}
	}
	lat, lon := f.Centre(1, 2)
	if lat != 0.625 || lon != 0.75 {
		t.Errorf("Centre(1, 2) = %v, %v, want 0.625, 0.75", lat, lon)
	}
}

// TestFrameCells: rows = ceil(height / cell) and cols = ceil(width /
// cell), with a quotient within rounding of an integer taken as it.
func TestFrameCells(t *testing.T) {
	// Boxes centred on latitude 45, where the projection's scales are.
	mLat, mLon := MetresPerDegree(45)
	box := func(h, w float64) Box {
		return Box{LatMin: 45 - h/2/mLat, LatMax: 45 + h/2/mLat, LonMin: 7, LonMax: 7 + w/mLon}
	}
	for _, c := range []struct {
		h, w, cell float64
		rows, cols int
	}{
		{1000, 2000, 100, 10, 20}, // exact multiples: no sliver row
		{1001, 1999, 100, 11, 20},
		{50, 50, 100, 1, 1},
		{0, 0, 100, 1, 1}, // a single point
	} {
		b := box(c.h, c.w)
		f, err := NewFrame(b, CellSpec{M: c.cell})
		if err != nil {
			t.Fatal(err)
		}
		if f.Rows() != c.rows || f.Cols() != c.cols {
			t.Errorf("%v x %v m in %v m cells: %d x %d, want %d x %d", c.h, c.w, c.cell, f.Rows(), f.Cols(), c.rows, c.cols)
		}
	}
	for _, tc := range []struct {
		cell CellSpec
		want string
	}{
		{CellSpec{M: -1}, "cell size -1 m: want a finite value > 0"},
		{CellSpec{M: math.Inf(1)}, "cell size +Inf m: want a finite value > 0"},
		{CellSpec{}, "cell size 0 x 0 degrees: want finite values > 0"},
		{CellSpec{Deg: [2]float64{0.1, 0}}, "cell size 0.1 x 0 degrees: want finite values > 0"},
		{CellSpec{Deg: [2]float64{0, 0.1}}, "cell size 0 x 0.1 degrees: want finite values > 0"},
		{CellSpec{Deg: [2]float64{math.Inf(1), 0.1}}, "cell size +Inf x 0.1 degrees: want finite values > 0"},
		{CellSpec{Deg: [2]float64{0.1, math.Inf(1)}}, "cell size 0.1 x +Inf degrees: want finite values > 0"},
	} {
		if _, err := NewFrame(box(100, 100), tc.cell); err == nil || err.Error() != tc.want {
			t.Errorf("cell %v: error %v, want %q", tc.cell, err, tc.want)
		}
	}
	if _, err := NewFrame(Box{LatMin: 0, LatMax: 80, LonMin: 0, LonMax: 170}, CellSpec{M: 1}); err == nil || !strings.Contains(err.Error(), "more than the 1048576 a grid may have") {
		t.Errorf("a frame of about 10^13 cells: error %v", err)
	}
	// Exactly the largest grid, 1024 x 1024 cells, and one row more.
	f, err := NewFrame(Box{LatMin: 0, LatMax: 1.024, LonMin: 0, LonMax: 1.024}, CellSpec{Deg: [2]float64{0.001, 0.001}})
	if err != nil || f.Rows() != 1024 || f.Cols() != 1024 {
		t.Errorf("1024 x 1024 cells: %v", err)
	}
	if _, err := NewFrame(Box{LatMin: 0, LatMax: 1.025, LonMin: 0, LonMax: 1.024}, CellSpec{Deg: [2]float64{0.001, 0.001}}); err == nil || !strings.Contains(err.Error(), "gives 1025 x 1024 cells, more than the 1048576") {
		t.Errorf("1025 x 1024 cells: error %v", err)
	}
}

// TestPresetFrameMatchesDiscretizer: on the presets' frames Locate finds
// the first cell the reference discretisation gives, for random points
// over the boxes and for points on the edges themselves.
func TestPresetFrameMatchesDiscretizer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range Cities() {
		f, err := presetFrame(c)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := c.Discretizer()
		var pts [][2]float64
		for range 2000 {
			pts = append(pts, [2]float64{c.Box.LatMin + rng.Float64()*(c.Box.LatMax-c.Box.LatMin), c.Box.LonMin + rng.Float64()*(c.Box.LonMax-c.Box.LonMin)})
		}
		for i, e := range f.Lat {
			// Edges inside the box: the subsets were cut by the box first.
			if p := [2]float64{e, f.Lon[i%len(f.Lon)]}; c.Box.Contains(p[0], p[1]) {
				pts = append(pts, p)
			}
		}
		for _, p := range pts {
			cells := d.Cells(p[0], p[1], nil)
			r, col, ok := f.Locate(p[0], p[1])
			if ok != (len(cells) > 0) || ok && (cells[0] != Cell{r, col}) {
				t.Fatalf("%s: Locate(%v, %v) = (%d, %d, %v), discretiser %v", c.Name, p[0], p[1], r, col, ok, cells)
			}
		}
	}
}

// TestUniformBandIsBand: the spacing's shortcut gives the binary search's
// band for values on the edges, one ulp either side of them, and random
// ones, over frames of awkward spacings.
func TestUniformBandIsBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		box := Box{LatMin: -80 + 160*rng.Float64(), LonMin: -170 + 340*rng.Float64()}
		box.LatMax = box.LatMin + 0.5*rng.Float64()
		box.LonMax = box.LonMin + 0.5*rng.Float64()
		f, err := NewFrame(box, CellSpec{M: 20 + 2000*rng.Float64()})
		if err != nil {
			t.Fatal(err)
		}
		for _, ax := range []struct {
			e      []float64
			step   float64
			lo, hi float64
		}{{f.Lat, f.dlat, box.LatMin, box.LatMax}, {f.Lon, f.dlon, box.LonMin, box.LonMax}} {
			var vs []float64
			for _, e := range ax.e {
				vs = append(vs, e, math.Nextafter(e, math.Inf(1)), math.Nextafter(e, math.Inf(-1)))
			}
			for range 100 {
				vs = append(vs, ax.lo+rng.Float64()*(ax.hi-ax.lo))
			}
			for _, v := range vs {
				if v < ax.lo || v > ax.hi {
					continue
				}
				want, _ := band(ax.e, v, LowerClosed)
				if got := uniformBand(ax.e, v, ax.step); got != want {
					t.Fatalf("value %v on edges %v..%v (step %v): band %d, shortcut %d", v, ax.e[0], ax.e[len(ax.e)-1], ax.step, want, got)
				}
			}
		}
	}
}

// TestUniformBandUnevenSteps: on edges laid like NewFrame's with uneven
// steps, the shortcut agrees with the search at every edge and at the
// floats next to it, including values where the spacing's estimate is a
// band too low (counted, so that the test shows it reaches them) or too
// high.
func TestUniformBandUnevenSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	low, high := 0, 0
	for range 5000 {
		lo, step, n := -80+160*rng.Float64(), 1e-4+rng.Float64()*0.01, 1+rng.IntN(300)
		hi := lo + float64(n)*step*(0.5+0.5*rng.Float64())
		e := make([]float64, n+1)
		for k := range e {
			e[k] = hi - float64(k)*step
		}
		for i := range e {
			for _, v := range []float64{e[i], math.Nextafter(e[i], math.Inf(-1)), math.Nextafter(e[i], math.Inf(1))} {
				if v < lo || v > hi {
					continue
				}
				want, _ := band(e, v, LowerClosed)
				switch guess := min(max(int((e[0]-v)/step), 0), n-1); {
				case guess < want:
					low++
				case guess > want:
					high++
				}
				if got := uniformBand(e, v, step); got != want {
					t.Fatalf("value %v on edges %v - k %v (%d bands): band %d, shortcut %d", v, hi, step, n, want, got)
				}
			}
		}
	}
	if low == 0 || high == 0 {
		t.Errorf("the estimate was %d times too low and %d times too high: the test no longer reaches both corrections", low, high)
	}
}

// TestBands: a quotient within 1e-9 (relative) of an integer is that
// integer, beyond it the next one up; and what a cell spec says it is.
func TestBands(t *testing.T) {
	for _, tc := range []struct {
		span, step, want float64
	}{
		{1.1, 0.1, 11},              // 11.000000000000002: rounding, not a 12th band
		{0.3, 0.1, 3},               // 2.9999999999999996
		{1.0000000001, 0.001, 1000}, // 1000.0000001: within 1e-9 of 1000, relative
		{1.00001, 0.001, 1001},      // 1000.01: a sliver of band 1001
		{0.0001, 1, 1},              // at least one band
	} {
		if got := bands(tc.span, tc.step); got != tc.want {
			t.Errorf("bands(%v, %v) = %v, want %v", tc.span, tc.step, got, tc.want)
		}
	}
	if s := (CellSpec{M: 100}).String(); s != "100 m" {
		t.Errorf("100 m cells: %q", s)
	}
	if s := (CellSpec{Deg: [2]float64{0.001, 0.002}}).String(); s != "0.001 x 0.002 degrees" {
		t.Errorf("degree cells: %q", s)
	}
}

// TestCentreUnevenEdges: a cell's centre is the midpoint of its edges,
// and outside the frame the edges continue at the mean spacing.
func TestCentreUnevenEdges(t *testing.T) {
	f := &Frame{Lat: []float64{3, 2, 0.5, 0}, Lon: []float64{10, 9.5, 8}}
	for _, tc := range []struct {
		row, col int
		lat, lon float64
	}{
		{0, 0, 2.5, 9.75},
		{1, 1, 1.25, 8.75},
		{2, 0, 0.25, 9.75},
		{-1, -1, 3.5, 10.5}, // mean spacings 1 and 1
		{3, 2, -0.5, 7.5},   // the first cells past the south and west edges
		{-2, 4, 4.5, 5.5},   // further out
	} {
		if lat, lon := f.Centre(tc.row, tc.col); lat != tc.lat || lon != tc.lon {
			t.Errorf("Centre(%d, %d) = (%v, %v), want (%v, %v)", tc.row, tc.col, lat, lon, tc.lat, tc.lon)
		}
	}
	// Mean spacings other than 1 (0.25 and 2): the half cell past an
	// edge is half of that spacing.
	g := &Frame{Lat: []float64{1, 0.875, 0.5, 0.25, 0}, Lon: []float64{10, 9, 6}}
	for _, tc := range []struct {
		row, col int
		lat, lon float64
	}{
		{-1, -1, 1.125, 11},
		{4, 2, -0.125, 5},
		{-3, 3, 1.625, 3},
	} {
		if lat, lon := g.Centre(tc.row, tc.col); lat != tc.lat || lon != tc.lon {
			t.Errorf("spacings 0.25, 2: Centre(%d, %d) = (%v, %v), want (%v, %v)", tc.row, tc.col, lat, lon, tc.lat, tc.lon)
		}
	}
}
