package island

import (
	"math"
	"testing"

	"privic/kernels"
)

// discRectGrid is DiscRect by the midpoint rule on an n x n lattice of
// the rectangle: an independent quadrature.
func discRectGrid(r, x0, x1, y0, y1 float64, n int) float64 {
	hx, hy := (x1-x0)/float64(n), (y1-y0)/float64(n)
	in := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x, y := x0+(float64(i)+0.5)*hx, y0+(float64(j)+0.5)*hy
			if x*x+y*y <= r*r {
				in++
			}
		}
	}
	return float64(in) * hx * hy
}

// The disc-rectangle area in closed form against the closed forms it
// must reduce to and against quadrature on rectangles that the circle
// crosses in every way (through one side, two, a corner; off centre; in
// every quadrant).
func TestDiscRect(t *testing.T) {
	for _, tc := range []struct {
		name              string
		r, x0, x1, y0, y1 float64
		want              float64 // NaN: quadrature
	}{
		{"whole disc", 2, -5, 5, -5, 5, 4 * math.Pi},
		{"quarter disc", 2, 0, 5, 0, 5, math.Pi},
		{"half disc", 1, -3, 3, 0, 3, math.Pi / 2},
		{"rectangle inside", 10, -1, 2, -3, 0.5, 3 * 3.5},
		{"rectangle outside", 1, 2, 3, 2, 3, 0},
		{"one side", 1, -0.5, 0.5, 0.6, 2, math.NaN()},
		{"corner", 1.2, 0.5, 1.5, 0.5, 1.5, math.NaN()},
		{"across the centre off-square", 250, -30, 70, -240, 260, math.NaN()},
		{"third quadrant", 1, -1.1, -0.2, -0.9, -0.1, math.NaN()},
		{"straddling both axes", 3, -1, 4, -2.5, 0.7, math.NaN()},
	} {
		got := DiscRect(tc.r, tc.x0, tc.x1, tc.y0, tc.y1)
		want, tol := tc.want, 1e-12*math.Max(1, math.Abs(tc.want))
		if math.IsNaN(want) {
			want = discRectGrid(tc.r, tc.x0, tc.x1, tc.y0, tc.y1, 4000)
			tol = 2e-4 * (tc.x1 - tc.x0) * (tc.y1 - tc.y0)
		}
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.10g, want %.10g", tc.name, got, want)
		}
	}
}

// Deserted on hand-made grids: a radius inside the cell reduces to "the
// cell's own mass below 1/m"; a cell at exactly the average is not
// deserted; the border counts only the region's part of the disc; cells
// of a widened output grid outside the region are deserted; and the same
// ground gives the same answer at 500 m and at 50 m cells.
func TestDeserted(t *testing.T) {
	g := kernels.Grid{Rows: 1, Cols: 4}
	prior := []float64{0.5, 0.25, 0.2, 0.05} // 1/m = 0.25
	d, err := Deserted(g, g, prior, 500, 500, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, true, true}; !equalBools(d, want) {
		t.Errorf("radius inside the cell: %v, want %v (0.25 is the average, not below it)", d, want)
	}
	// A radius of one cell side reaches half-way into the neighbours: at
	// cell 2, 0.2 + f (0.25 + 0.05) against (1 + 2f)/4 for the fraction f
	// of a neighbour inside the disc; deserted since 0.2 < 0.25 and the
	// neighbours average 0.15 < 0.25.
	d, err = Deserted(g, g, prior, 500, 500, 500)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, false, true, true}; !equalBools(d, want) {
		t.Errorf("radius of a cell: %v, want %v", d, want)
	}
	// Border: cell 3 sees only cell 2 beside it. Raise cell 3 to 0.24
	// and cell 2 to 0.3: cell 3's disc holds 0.24 + f 0.3 against
	// (1 + f)/4 -- not deserted once f 0.3 > 0.01 + f/4.
	d, err = Deserted(g, g, []float64{0.3, 0.16, 0.3, 0.24}, 500, 500, 500)
	if err != nil {
		t.Fatal(err)
	}
	if !d[1] || d[3] {
		t.Errorf("border: %v, want cell 1 deserted and cell 3 not", d)
	}
	wide := g.Widen(1)
	d, err = Deserted(g, wide, prior, 500, 500, 100)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range d {
		r, c := wide.Abs(j)
		if in := g.IndexOf(r, c); in < 0 && !v {
			t.Errorf("widened cell (%d, %d) outside the region not deserted", r, c)
		}
	}

	// Resolution: a 2 km x 2 km region whose west half holds the
	// check-ins evenly. At 500 m and at 50 m cells the points 750 m
	// into each half get the same answer, and the cells 250 m and more
	// inside the empty half are deserted at both.
	coarse, fine := kernels.Grid{Rows: 4, Cols: 4}, kernels.Grid{Rows: 40, Cols: 40}
	half := func(g kernels.Grid) []float64 {
		p := make([]float64, g.Len())
		for i := range p {
			if _, c := g.Cell(i); c < g.Cols/2 {
				p[i] = 2 / float64(g.Len())
			}
		}
		return p
	}
	dc, err := Deserted(coarse, coarse, half(coarse), 500, 500, 250)
	if err != nil {
		t.Fatal(err)
	}
	df, err := Deserted(fine, fine, half(fine), 50, 50, 250)
	if err != nil {
		t.Fatal(err)
	}
	// Centres 750 m from the west edge: coarse column 1, fine column 14
	// (centre at 725 m; the disc stays 225 m from the middle line).
	if dc[coarse.Index(1, 1)] || df[fine.Index(15, 14)] {
		t.Error("the crowded half is deserted")
	}
	if !dc[coarse.Index(1, 2)] || !df[fine.Index(15, 25)] {
		t.Error("the empty half is not deserted")
	}
	if _, err := Deserted(g, g, prior, 500, 500, 0); err == nil {
		t.Error("radius 0 accepted")
	}
	if _, err := Deserted(g, g, prior[:3], 500, 500, 100); err == nil {
		t.Error("short prior accepted")
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The uniform-report baseline in closed form equals View.Stats of the
// dense uniform channel, with and without measures, for a location that
// is and one that is not the prior's most likely cell.
func TestUniformStats(t *testing.T) {
	g := kernels.Grid{Rows: 3, Cols: 4}
	prior := []float64{0.05, 0.2, 0, 0.1, 0.05, 0.2, 0.1, 0, 0.1, 0.05, 0.1, 0.05}
	ch, err := kernels.NewChannel(g, g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ch.P {
		ch.P[i] = 1.0 / 12
	}
	block := make([]bool, g.Len())
	block[2], block[6] = true, true
	des, err := Deserted(g, g, prior, 100, 100, 120)
	if err != nil {
		t.Fatal(err)
	}
	for _, ms := range []Measures{{}, {Deserted: des, NearCells: 1.5}} {
		v, err := NewView(prior, ch, ms)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []int{1, 5, 7} { // 1: first most likely cell; 5: tied with it; 7: empty
			want, err := v.Stats(x, block)
			if err != nil {
				t.Fatal(err)
			}
			got, err := UniformStats(g, prior, x, block, ms)
			if err != nil {
				t.Fatal(err)
			}
			w, h := statsVector(want), statsVector(got)
			for k := range w {
				if math.Abs(w[k]-h[k]) > 1e-12 || math.IsNaN(w[k]) != math.IsNaN(h[k]) {
					t.Errorf("x = %d, near %v: field %d: %v, dense %v", x, ms.NearCells, k, h[k], w[k])
				}
			}
		}
	}
}

// statsVector lists every field of s.
func statsVector(s LocStats) []float64 {
	return []float64{s.PDeserted, s.POutside, s.PBlock, s.PAt, s.PWithin1, s.PWithin2, s.ExpPriorMass, s.ExpDistance,
		float64(s.ModeRow), float64(s.ModeCol), s.ModeDistance, s.MAPIdent, s.ExpPosterior, s.PNear}
}
