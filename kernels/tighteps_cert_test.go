package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
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

// scanCase is a grid and values whose best ratio some pair of neighbours
// (Chebyshev distance 1) attains.
type scanCase struct {
	name string
	g    Grid
	l    []float64
}

// TestMaxLogRatioFastScansItsRadius: the pruned search finds the
// definition's maximum and computes exactly the ratios its bound allows.
// Where neighbours attain the best ratio B, the first pass finds it, and
// then cell x scans the pairs within Chebyshev radius rho(x), the first of
// 1, 2, 4, ... with (rho+1) B >= spread(x) = max(lmax - l[x], l[x] - lmin)
// (no pair farther out can beat B) or covering the grid. The test counts
// those pairs one by one over all pairs. The cases put the best pair
// inside the last row or column, and the ramps make (rho+1) B equal a
// spread exactly (the search stops there) and give values of both signs
// (each side of the spread matters).
func TestMaxLogRatioFastScansItsRadius(t *testing.T) {
	ramp := func(n int, lo float64) []float64 {
		l := make([]float64, n)
		for i := range l {
			l[i] = lo + float64(i)
		}
		return l
	}
	cases := []scanCase{
		{"one row", Grid{Rows: 1, Cols: 5}, []float64{0, 0.5, 3, 2.5, 2}},
		{"inside the last row", Grid{Rows: 2, Cols: 3}, []float64{1, 2, 1, 0, 3, 0}},
		{"inside the last column", Grid{Rows: 3, Cols: 2}, []float64{1, 0, 2, 3, 1, 0}},
		{"ramp about 0", Grid{Rows: 1, Cols: 7}, ramp(7, -3)},
		{"ramp below 0", Grid{Rows: 1, Cols: 9}, ramp(9, -12)},
		{"ramp above 0", Grid{Rows: 1, Cols: 9}, ramp(9, 4)},
		{"ramp, column", Grid{Rows: 9, Cols: 1}, ramp(9, -2)},
		{"bump", Grid{Rows: 5, Cols: 6}, func() []float64 {
			l := make([]float64, 30)
			for x := range l {
				l[x] = -math.Hypot(float64(x/6-2), float64(x%6-3))
			}
			return l
		}()},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, side := range []int{4, 9, 17} {
		g := Grid{Rows: side, Cols: side + 2}
		l := make([]float64, g.Len())
		for x := range l {
			l[x] = -20 + 0.2*rng.NormFloat64()
		}
		// A steep step between two neighbours is the best pair.
		l[g.Len()/2] += 5
		cases = append(cases, scanCase{"random with a step", g, l})
	}
	for _, c := range cases {
		g, l := c.g, c.l
		R, C := g.Rows, g.Cols
		inv := invDistTable(g)
		best := maxLogRatio(g, inv, l)
		if want := bruteMaxLogRatio(g, l); math.Abs(best-want) > 1e-14*want {
			t.Fatalf("%s: full scan %v, definition %v", c.name, best, want)
		}
		cheb := func(x, y int) int { return max(abs(x/C-y/C), abs(x%C-y%C)) }
		nb := 0.0
		for x := range l {
			for y := range l {
				if x != y && cheb(x, y) == 1 {
					nb = max(nb, math.Abs(l[x]-l[y])*inv[abs(x/C-y/C)*C+abs(x%C-y%C)])
				}
			}
		}
		if nb != best {
			t.Fatalf("%s: the best pair is not between neighbours (%v < %v)", c.name, nb, best)
		}
		lmin, lmax := slices.Min(l), slices.Max(l)
		want := 0
		for x := range l {
			spread := max(lmax-l[x], l[x]-lmin)
			rho := 1
			for rho < max(R, C) && float64(rho+1)*best < spread {
				rho *= 2
			}
			for y := range l {
				if y != x && cheb(x, y) <= rho {
					want++
				}
			}
		}
		got, scanned := maxLogRatioFastCount(g, l)
		if got != best || scanned != want {
			t.Errorf("%s %v: maximum %v after %d ratios, want %v after %d", c.name, g, got, scanned, best, want)
		}
	}
}

// TestCertifiedMaxLogRatioRecomputes: the certified maximum recomputes
// exactly the cells of the pairs whose estimated ratio is at least
// B - 4 delta (B the estimates' maximum), each once, and recomputes every
// value (exactAll) only when more than candidateCap pairs qualify; the
// candidates are counted over all pairs. Its result is the exact values'
// maximum. The cases: a pair exactly at the threshold (it is refined), a
// diagonal pair that a ratio times the distance would wrongly admit,
// constant estimates whose exact values differ (every pair qualifies), a
// best ratio of exactly 4 delta (threshold 0), and all pairs of 181 cells
// (16,290), 16,384 (the cap) and 16,385 pairs.
func TestCertifiedMaxLogRatioRecomputes(t *testing.T) {
	const delta = 1.01 * certTol
	one, fourDelta := 1.0, 4*delta
	type tc struct {
		name     string
		g        Grid
		l, exact []float64
	}
	tilt := func(n int) []float64 { // exact values within certTol of 0
		e := make([]float64, n)
		for i := range e {
			e[i] = certTol * float64(i%7) / 8
		}
		return e
	}
	alternate := func(n int) []float64 {
		l := make([]float64, n)
		for i := range l {
			l[i] = float64(i % 2)
		}
		return l
	}
	cases := []tc{
		{"at the threshold", Grid{Rows: 1, Cols: 3}, []float64{one - fourDelta, 0, 1}, nil},
		{"diagonal", Grid{Rows: 2, Cols: 2}, []float64{0, 1, 0.5, 1.2}, nil},
		{"constant estimates", Grid{Rows: 3, Cols: 4}, make([]float64, 12), tilt(12)},
		{"best = 4 delta", Grid{Rows: 1, Cols: 2}, []float64{0, fourDelta}, nil},
		{"16,290 pairs", Grid{Rows: 1, Cols: 181}, make([]float64, 181), tilt(181)},
		{"16,384 pairs", Grid{Rows: 1, Cols: 16385}, alternate(16385), nil},
		{"16,385 pairs", Grid{Rows: 1, Cols: 16386}, alternate(16386), nil},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	g := Grid{Rows: 12, Cols: 13}
	l, e := make([]float64, g.Len()), make([]float64, g.Len())
	for x := range l {
		e[x] = -30 + rng.NormFloat64()
		l[x] = e[x] + (2*rng.Float64()-1)*certTol
	}
	cases = append(cases, tc{"random", g, l, e})
	for _, c := range cases {
		g, l, e := c.g, c.l, c.exact
		if e == nil {
			e = l
		}
		C := g.Cols
		inv := invDistTable(g)
		thr := maxLogRatio(g, inv, l) - 4*delta
		need := make([]bool, g.Len())
		pairs := 0
		for x := range l {
			for y := x + 1; y < len(l); y++ {
				if math.Abs(l[x]-l[y])*inv[abs(x/C-y/C)*C+abs(x%C-y%C)] >= thr {
					pairs++
					need[x], need[y] = true, true
				}
			}
		}
		calls, all := make([]int, g.Len()), 0
		got := certifiedMaxLogRatio(g, l,
			func(x int) float64 { calls[x]++; return e[x] },
			func() []float64 { all++; return e })
		if want := maxLogRatio(g, inv, e); got != want {
			t.Errorf("%s: certified maximum %v, exact %v", c.name, got, want)
		}
		if wantAll := pairs > candidateCap; wantAll != (all == 1) || all > 1 {
			t.Errorf("%s: %d pairs qualify: every value recomputed %d times", c.name, pairs, all)
			continue
		}
		for x, n := range calls {
			if want := need[x] && pairs <= candidateCap; n != b2i(want) {
				t.Errorf("%s: cell %d recomputed %d times, want %d (%d pairs qualify)", c.name, x, n, b2i(want), pairs)
				break
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
