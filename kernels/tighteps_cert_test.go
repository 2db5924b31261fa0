package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteMaxLogRatio is max over pairs of cells x != y of
// |l[x] - l[y]| / d(x, y), by the definition.
func bruteMaxLogRatio(g Grid, l []float64) float64 {
	best := 0.0
	for x := range l {
		for y := range l {
			if x != y {
				d := math.Hypot(float64(x/g.Cols-y/g.Cols), float64(x%g.Cols-y%g.Cols))
				best = max(best, math.Abs(l[x]-l[y])/d)
			}
		}
	}
	return best
}

// TestCertifiedMaxLogRatioPairs: with exact values the certified maximum
// is the definition's, where the best pair has its larger value first (so
// its search radius comes from the distance to the smallest value), where
// it lies in the last row or column, between values of opposite signs,
// on a diagonal (the only pair beating its neighbours' ratios), straight
// down on a grid of two columns, and on random values far below 0 (as ln Z is).
func TestCertifiedMaxLogRatioPairs(t *testing.T) {
	type tc struct {
		name string
		g    Grid
		l    []float64
	}
	cases := []tc{
		{"larger first", Grid{Rows: 1, Cols: 3}, []float64{-1, -5, -3}},
		{"last column", Grid{Rows: 1, Cols: 3}, []float64{-3, -1, -5}},
		{"larger first, column", Grid{Rows: 3, Cols: 1}, []float64{-1, -5, -3}},
		{"last row", Grid{Rows: 3, Cols: 1}, []float64{-3, -1, -5}},
		{"corner", Grid{Rows: 3, Cols: 3}, []float64{-2, -2, -2, -2, -2, -2.5, -2, -2.5, -9}},
		{"mixed signs", Grid{Rows: 1, Cols: 3}, []float64{1, -1, 0.5}},
		{"diagonal", Grid{Rows: 2, Cols: 2}, []float64{0, -1, -1, -2}},
		{"vertical, two columns", Grid{Rows: 3, Cols: 2}, []float64{-1, -1.1, -5, -1.2, -3, -1.3}},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, side := range []int{5, 12, 30} {
		g := Grid{Rows: side, Cols: side + 1}
		l := make([]float64, g.Len())
		for x := range l {
			l[x] = -50 + rng.NormFloat64()
		}
		cases = append(cases, tc{"random", g, l})
	}
	for _, c := range cases {
		want := bruteMaxLogRatio(c.g, c.l)
		got := certifiedMaxLogRatio(c.g, c.l, func(x int) float64 { return c.l[x] }, func() []float64 { return c.l })
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s %v: certified maximum %v, definition %v", c.name, c.g, got, want)
		}
	}
}

// TestMaxLogRatioFastKnightPair: the pruned search finds a best pair a
// knight's move apart (distance sqrt 5, ratio 1/sqrt 5 = 0.447) that
// beats every pair of neighbours (at most 0.42), so that it must widen
// its window past the first pass.
func TestMaxLogRatioFastKnightPair(t *testing.T) {
	g := Grid{Rows: 2, Cols: 3}
	l := []float64{0, -0.42, -0.71, -0.29, -0.58, -1}
	want := 1 / math.Sqrt(5)
	if got := bruteMaxLogRatio(g, l); math.Abs(got-want) > 1e-15 {
		t.Fatalf("the definition gives %v, want %v", got, want)
	}
	if got := maxLogRatioFast(g, l); math.Abs(got-want) > 1e-15 {
		t.Errorf("pruned search %v, want %v", got, want)
	}
}

// TestMaxLogRatioFastFarPair: on the linear field l = -(r + 3c) of a 2 x 4
// grid a pair's ratio is the field's slope times the cosine between the
// pair and the gradient (1, 3), so the best pair is (0,0)-(1,3), three
// columns apart (ratio sqrt 10), ahead of the knight's moves (7/sqrt 5)
// and the neighbours (at most 3): the search must widen its window twice.
func TestMaxLogRatioFastFarPair(t *testing.T) {
	g := Grid{Rows: 2, Cols: 4}
	l := make([]float64, g.Len())
	for x := range l {
		l[x] = -float64(x/g.Cols + 3*(x%g.Cols))
	}
	want := math.Sqrt(10)
	if got := bruteMaxLogRatio(g, l); math.Abs(got-want) > 1e-14 {
		t.Fatalf("the definition gives %v, want %v", got, want)
	}
	if got := maxLogRatioFast(g, l); math.Abs(got-want) > 1e-14 {
		t.Errorf("pruned search %v, want %v", got, want)
	}
}
