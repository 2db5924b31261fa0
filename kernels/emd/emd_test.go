package emd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"privic/kernels/internal/lptest"
)

// lpTransport is the LP oracle (kernels/internal/lptest) on a dense cost
// matrix.
func lpTransport(t *testing.T, a, b, cost []float64) float64 {
	t.Helper()
	m := len(b)
	opt, err := lptest.Transport(a, b, func(i, j int) float64 { return cost[i*m+j] })
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

// randDist draws a distribution over n points with some exact zeros (at least
// one entry stays positive) and optionally tied masses.
func randDist(rng *rand.Rand, n int, zeros, ties bool) []float64 {
	p := make([]float64, n)
	for i := range p {
		switch {
		case zeros && rng.IntN(4) == 0:
		case ties:
			p[i] = float64(1 + rng.IntN(3))
		default:
			p[i] = rng.ExpFloat64()
		}
	}
	if slices.Max(p) == 0 {
		p[rng.IntN(n)] = 1
	}
	normalise(p)
	return p
}

func normalise(p []float64) {
	s := 0.0
	for _, v := range p {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
}

// randPoints draws n points on a small integer lattice (so that ties in the
// distances are frequent) or in the unit square.
func randPoints(rng *rand.Rand, n int, lattice bool) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		if lattice {
			x[i], y[i] = float64(rng.IntN(5)), float64(rng.IntN(5))
		} else {
			x[i], y[i] = rng.Float64(), rng.Float64()
		}
	}
	return x, y
}

func euclid(ax, ay, bx, by []float64) []float64 {
	c := make([]float64, len(ax)*len(bx))
	for i := range ax {
		for j := range bx {
			c[i*len(bx)+j] = math.Hypot(ax[i]-bx[j], ay[i]-by[j])
		}
	}
	return c
}

// checkPlan verifies that res.Flows is a feasible plan for a -> b whose cost
// is res.Cost.
func checkPlan(t *testing.T, a, b, cost []float64, res Result) {
	t.Helper()
	sa, sb := 0.0, 0.0
	for _, v := range a {
		sa += v
	}
	for _, v := range b {
		sb += v
	}
	out, in := make([]float64, len(a)), make([]float64, len(b))
	total := 0.0
	for _, f := range res.Flows {
		if !(f.Mass > 0) {
			t.Fatalf("flow %+v: mass must be > 0", f)
		}
		out[f.From] += f.Mass
		in[f.To] += f.Mass
		total += f.Mass * cost[f.From*len(b)+f.To]
	}
	for i := range a {
		if math.Abs(out[i]-a[i]) > 1e-12*sa {
			t.Fatalf("plan ships %v from supply %d, want %v", out[i], i, a[i])
		}
	}
	for j := range b {
		if want := b[j] * sa / sb; math.Abs(in[j]-want) > 1e-12*sa {
			t.Fatalf("plan delivers %v to demand %d, want %v", in[j], j, want)
		}
	}
	if math.Abs(total-res.Cost) > 1e-12*(1+math.Abs(res.Cost)) {
		t.Fatalf("plan costs %v, result says %v", total, res.Cost)
	}
}

func TestSolveMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Solver
	for trial := range 300 {
		n, m := 3+rng.IntN(6), 3+rng.IntN(6)
		zeros, ties, lattice := trial%2 == 0, trial%3 == 0, trial%4 < 2
		a, b := randDist(rng, n, zeros, ties), randDist(rng, m, zeros, ties)
		var cost []float64
		if trial%5 == 4 {
			// A general (non-metric, possibly negative) cost matrix.
			cost = make([]float64, n*m)
			for k := range cost {
				cost[k] = rng.NormFloat64()
			}
		} else {
			ax, ay := randPoints(rng, n, lattice)
			bx, by := randPoints(rng, m, lattice)
			cost = euclid(ax, ay, bx, by)
			got, err := SolvePoints(ax, ay, a, bx, by, b)
			if err != nil {
				t.Fatalf("trial %d: SolvePoints: %v", trial, err)
			}
			if want := lpTransport(t, a, b, cost); math.Abs(got-want) > 1e-9 {
				t.Fatalf("trial %d (%dx%d): SolvePoints = %.15g, LP = %.15g", trial, n, m, got, want)
			}
		}
		res, err := s.SolveMatrix(a, b, cost)
		if err != nil {
			t.Fatalf("trial %d: SolveMatrix: %v", trial, err)
		}
		if want := lpTransport(t, a, b, cost); math.Abs(res.Cost-want) > 1e-9 {
			t.Fatalf("trial %d (%dx%d): SolveMatrix = %.15g, LP = %.15g", trial, n, m, res.Cost, want)
		}
		checkPlan(t, a, b, cost, res)
	}
}

// TestAssignmentBruteForce: with n unit masses on each side the transport
// optimum is the best permutation (Birkhoff-von Neumann), found here by
// enumeration. Uniform masses make every basis highly degenerate.
func TestAssignmentBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := 2 + trial%6
		cost := make([]float64, n*n)
		for k := range cost {
			if trial%2 == 0 {
				cost[k] = float64(rng.IntN(4)) // many ties
			} else {
				cost[k] = rng.Float64()
			}
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		best := bestAssignment(cost, n)
		got, err := SolveMatrix(ones, ones, cost)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if math.Abs(got-best) > 1e-12*float64(n) {
			t.Fatalf("trial %d (n=%d): got %v, best assignment %v", trial, n, got, best)
		}
	}
}

func TestPointMasses(t *testing.T) {
	for _, c := range []struct{ ax, ay, bx, by float64 }{
		{0, 0, 3, 4}, {1, 1, 1, 1}, {-2, 5, 7, -1}, {0.5, 0, 0, 0.25},
	} {
		got, err := SolvePoints([]float64{c.ax}, []float64{c.ay}, []float64{2}, []float64{c.bx}, []float64{c.by}, []float64{2})
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 * math.Hypot(c.ax-c.bx, c.ay-c.by); math.Abs(got-want) > 1e-15*(1+want) {
			t.Errorf("%+v: got %v, want %v", c, got, want)
		}
	}
	// A point mass against a spread: every unit goes straight to the point.
	x := []float64{0, 3, 0, -1}
	y := []float64{0, 4, 2, 0}
	p := []float64{0.1, 0.2, 0.3, 0.4}
	got, err := SolvePoints([]float64{0}, []float64{0}, []float64{1}, x, y, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.2*5 + 0.3*2 + 0.4*1; math.Abs(got-want) > 1e-15 {
		t.Errorf("point vs spread: got %v, want %v", got, want)
	}
}

// TestLine: on a line, W1 is the integral of |CDF_a - CDF_b|.
func TestLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 100 {
		k := 2 + rng.IntN(30)
		x := make([]float64, k)
		y := make([]float64, k)
		for i := range x {
			if trial%2 == 0 {
				x[i] = float64(i) // equally spaced
			} else {
				x[i] = float64(i) + rng.Float64() // unequal gaps, still sorted
			}
		}
		a, b := randDist(rng, k, true, trial%3 == 0), randDist(rng, k, true, false)
		want, fa, fb := 0.0, 0.0, 0.0
		for i := 0; i < k-1; i++ {
			fa += a[i]
			fb += b[i]
			want += math.Abs(fa-fb) * (x[i+1] - x[i])
		}
		got, err := SolvePoints(x, y, a, x, y, b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*float64(k) {
			t.Fatalf("trial %d: got %v, CDF formula %v", trial, got, want)
		}
		// The full problem (no cancellation of shared mass) agrees.
		full, err := SolveMatrix(a, b, euclid(x, y, x, y))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(full-want) > 1e-12*float64(k) {
			t.Fatalf("trial %d: full problem %v, CDF formula %v", trial, full, want)
		}
	}
}

// gridPoints lays out an r x c grid of unit cells.
func gridPoints(r, c int) (x, y []float64) {
	for i := range r {
		for j := range c {
			x, y = append(x, float64(i)), append(y, float64(j))
		}
	}
	return x, y
}

// gridPointSet is gridPoints(r, c) with the tabulated distances of
// NewPoints on those points, for the SolveOn tests.
func gridPointSet(t *testing.T, r, c int) (x, y []float64, pts *Points) {
	t.Helper()
	x, y = gridPoints(r, c)
	pts, err := NewPoints(x, y)
	if err != nil {
		t.Fatal(err)
	}
	return x, y, pts
}

func TestMetricProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := gridPoints(6, 7)
	k := len(x)
	for trial := range 40 {
		p, q, r := randDist(rng, k, true, false), randDist(rng, k, true, trial%2 == 0), randDist(rng, k, false, false)
		d := func(u, v []float64) float64 {
			got, err := SolvePoints(x, y, u, x, y, v)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		pq, qp, qr, pr := d(p, q), d(q, p), d(q, r), d(p, r)
		if math.Abs(pq-qp) > 1e-12 {
			t.Fatalf("trial %d: asymmetric: %v vs %v", trial, pq, qp)
		}
		if pr > pq+qr+1e-12 {
			t.Fatalf("trial %d: triangle inequality fails: %v > %v + %v", trial, pr, pq, qr)
		}
		if z := d(p, p); z != 0 {
			t.Fatalf("trial %d: EMD(p, p) = %v", trial, z)
		}
		// Without the cancellation shortcut, equal inputs still give 0 (a
		// fully degenerate problem: the optimum keeps everything in place).
		z, err := SolveMatrix(p, p, euclid(x, y, x, y))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(z) > 1e-14 {
			t.Fatalf("trial %d: full EMD(p, p) = %v", trial, z)
		}
	}
}

// TestDegenerateUniform: uniform on an r x c grid against uniform on the
// grid shifted by one row. Projecting on the row axis gives the lower bound
// W1(uniform{0..r-1}, uniform{1..r}) = 1 and shifting every cell by one row
// attains it, so EMD = 1; the problem has a huge set of optimal plans and
// equal-cost arcs.
func TestDegenerateUniform(t *testing.T) {
	for _, rc := range [][2]int{{2, 2}, {4, 5}, {8, 8}, {11, 15}} {
		ax, ay := gridPoints(rc[0], rc[1])
		bx := make([]float64, len(ax))
		for i := range ax {
			bx[i] = ax[i] + 1
		}
		u := make([]float64, len(ax))
		for i := range u {
			u[i] = 1 / float64(len(u))
		}
		full, err := SolveMatrix(u, u, euclid(ax, ay, bx, ay))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(full-1) > 1e-12 {
			t.Errorf("%v full: got %v, want 1", rc, full)
		}
		red, err := SolvePoints(ax, ay, u, bx, ay, u)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(red-1) > 1e-12 {
			t.Errorf("%v reduced: got %v, want 1", rc, red)
		}
	}
}

// TestSolveForms checks the function form against the point forms (with
// cancellation of shared mass) on a larger case than the LP takes quickly,
// with the plan as a certificate of feasibility, and the reuse of a Solver.
func TestSolveForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := gridPoints(9, 12)
	k := len(x)
	p, q := randDist(rng, k, true, false), randDist(rng, k, true, true)
	cost := euclid(x, y, x, y)
	var s Solver
	res, err := s.Solve(p, q, func(i, j int) float64 { return cost[i*k+j] })
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, p, q, cost, res)
	pts, err := SolvePoints(x, y, p, x, y, q)
	if err != nil {
		t.Fatal(err)
	}
	com, err := SolveCommon(x, y, p, q)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Cost-pts) > 1e-12 || math.Abs(com-pts) > 1e-12 {
		t.Fatalf("Solve %v, SolvePoints %v, SolveCommon %v", res.Cost, pts, com)
	}
	// Reusing the Solver on other sizes gives the same answers.
	small, err := s.SolveMatrix([]float64{1}, []float64{0.5, 0.5}, []float64{1, 3})
	if err != nil || small.Cost != 2 {
		t.Fatalf("reused solver: %v, %v; want 2", small.Cost, err)
	}
	again, err := s.Solve(p, q, func(i, j int) float64 { return cost[i*k+j] })
	if err != nil || again.Cost != res.Cost {
		t.Fatalf("reused solver: %v, %v; want %v", again.Cost, err, res.Cost)
	}
}

// TestRescale: totals within MassTol are accepted and the demand side is
// rescaled onto the supply side's total.
func TestRescale(t *testing.T) {
	x, y := []float64{0, 1}, []float64{0, 0}
	got, err := SolvePoints(x, y, []float64{1, 0}, x, y, []float64{0, 1 + 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	if got != 1 {
		t.Errorf("got %v, want 1 (b rescaled to a's total)", got)
	}
	got, err = SolvePoints(x, y, []float64{3, 0}, x, y, []float64{1.5, 1.5})
	if err != nil || got != 1.5 {
		t.Errorf("unnormalised totals 3 vs 3: got %v, %v; want 1.5", got, err)
	}
	_, err = SolvePoints(x, y, []float64{3, 0}, x, y, []float64{1.5, 1})
	if err == nil || !strings.Contains(err.Error(), "totals differ") {
		t.Errorf("totals 3 vs 2.5: want a 'totals differ' error, got %v", err)
	}
	// The tolerance is relative to the larger total: 1e-4 on 1e3 passes.
	got, err = SolvePoints(x, y, []float64{1e3, 0}, x, y, []float64{0, 1e3 + 1e-4})
	if err != nil || got != 1e3 {
		t.Errorf("totals 1e3 vs 1e3+1e-4: got %v, %v; want 1e3", got, err)
	}
}

func TestDefaultMaxPivots(t *testing.T) {
	if got := DefaultMaxPivots(3, 4); got != 107000 {
		t.Errorf("DefaultMaxPivots(3, 4) = %d, want 1000*7 + 100000", got)
	}
}

func TestErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	pt := []float64{0}
	two := []float64{0, 1}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"nan mass", func() error { _, err := SolveMatrix([]float64{nan}, []float64{1}, []float64{1}); return err }, "finite"},
		{"inf mass", func() error { _, err := SolveMatrix([]float64{1}, []float64{inf}, []float64{1}); return err }, "finite"},
		{"negative mass", func() error { _, err := SolveMatrix([]float64{-1, 2}, []float64{1}, []float64{1, 1}); return err }, ">= 0"},
		{"zero total", func() error { _, err := SolveMatrix([]float64{0, 0}, []float64{1}, []float64{1, 1}); return err }, "zero total"},
		{"empty", func() error { _, err := SolveMatrix(nil, []float64{1}, nil); return err }, "zero total"},
		{"overflowing total", func() error {
			_, err := SolveMatrix([]float64{math.MaxFloat64, math.MaxFloat64}, []float64{1}, []float64{1, 1})
			return err
		}, "infinite"},
		{"huge costs", func() error {
			_, err := SolveMatrix([]float64{1, 1}, []float64{1, 1}, []float64{1e308, -1e308, 1, 1})
			return err
		}, "too large"},
		{"overflowing cost", func() error {
			_, err := SolveMatrix([]float64{1e300, 1e300}, []float64{1e300, 1e300}, []float64{1e10, 1e10, 1e10, 1e10})
			return err
		}, "overflows"},
		{"matrix size", func() error { _, err := SolveMatrix([]float64{1}, []float64{1}, []float64{1, 2}); return err }, "cost matrix"},
		{"nil cost", func() error { _, err := Solve([]float64{1}, []float64{1}, nil); return err }, "nil cost"},
		{"nan cost", func() error {
			_, err := Solve([]float64{1}, []float64{1}, func(int, int) float64 { return nan })
			return err
		}, "finite"},
		{"inf cost", func() error { _, err := SolveMatrix([]float64{1}, []float64{1}, []float64{-inf}); return err }, "finite"},
		{"point lengths", func() error { _, err := SolvePoints(two, pt, two, pt, pt, pt); return err }, "coordinates"},
		{"point lengths b", func() error { _, err := SolvePoints(pt, pt, pt, two, pt, two); return err }, "coordinates"},
		{"nan coordinate", func() error {
			_, err := SolvePoints([]float64{nan}, pt, []float64{1}, pt, pt, []float64{1})
			return err
		}, "finite"},
		{"inf coordinate", func() error {
			_, err := SolvePoints(pt, pt, []float64{1}, pt, []float64{inf}, []float64{1})
			return err
		}, "finite"},
		{"overflowing distance", func() error {
			_, err := SolvePoints([]float64{-math.MaxFloat64}, pt, []float64{1}, []float64{math.MaxFloat64}, pt, []float64{1})
			return err
		}, "overflows"},
		{"common lengths", func() error { _, err := SolveCommon(two, pt, two, two); return err }, "coordinates"},
		{"common mass lengths", func() error { _, err := SolveCommon(two, two, two, pt); return err }, "coordinates"},
		{"common nan coordinate", func() error { _, err := SolveCommon([]float64{nan}, pt, pt, pt); return err }, "finite"},
		{"common nan mass", func() error { _, err := SolveCommon(pt, pt, []float64{nan}, pt); return err }, "finite"},
		{"common totals", func() error { _, err := SolveCommon(two, two, []float64{1, 2}, two); return err }, "totals differ"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// TestHugeDistances: squares of the coordinates overflow but the distances
// do not; the dense solver recomputes those entries the careful way, and
// the sparse solver hands such problems to the dense path. Three unit
// masses per side: the optimum is the best assignment, by enumeration.
func TestHugeDistances(t *testing.T) {
	const big = 1e200
	ax, ay := []float64{-big, 2, 3 * big}, []float64{big, 1, -big}
	bx, by := []float64{2 * big, 5, big}, []float64{5 * big, 1, -2 * big}
	ones := []float64{1, 1, 1}
	cost := make([]float64, 9)
	for i := range 3 {
		for j := range 3 {
			cost[i*3+j] = math.Hypot(ax[i]-bx[j], ay[i]-by[j])
		}
	}
	want := bestAssignment(cost, 3)
	for _, path := range []int{pathAuto, pathSparse} {
		s := Solver{path: path}
		got, err := s.SolvePoints(ax, ay, ones, bx, by, ones)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Cost-want) > 1e-15*want {
			t.Errorf("path %d: got %v, want %v", path, got.Cost, want)
		}
	}
}

func TestMaxPivots(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, y := gridPoints(8, 8)
	p, q := randDist(rng, len(x), false, false), randDist(rng, len(x), false, false)
	s := Solver{MaxPivots: 1}
	_, err := s.SolveMatrix(p, q, euclid(x, y, x, y))
	if !errors.Is(err, ErrMaxPivots) {
		t.Fatalf("MaxPivots 1: got %v, want ErrMaxPivots", err)
	}
	s.MaxPivots = 0
	if _, err := s.SolveMatrix(p, q, euclid(x, y, x, y)); err != nil {
		t.Fatalf("default cap: %v", err)
	}
}

// TestZeroMassDropped: zero-mass points, wherever they are, change nothing.
func TestZeroMassDropped(t *testing.T) {
	a := []float64{0.25, 0, 0.75, 0}
	b := []float64{0, 0.5, 0, 0.5}
	cost := []float64{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
		13, 14, 15, 16,
	}
	// On the non-zero rows 0, 2 and columns 1, 3 the costs [[2 4] [10 12]]
	// are r_i + s_j with r = (0, 8), s = (2, 4), so every plan with these
	// marginals costs sum a_i r_i + sum b_j s_j.
	want := 0.75*8 + 0.5*2 + 0.5*4
	res, err := (&Solver{}).SolveMatrix(a, b, cost)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Cost-want) > 1e-14 {
		t.Fatalf("got %v, want %v", res.Cost, want)
	}
	checkPlan(t, a, b, cost, res)
}

// errAfter is a context whose Err is nil for its first calls calls and
// context.Canceled after.
type errAfter struct {
	context.Context
	calls int
}

func (c *errAfter) Err() error {
	if c.calls--; c.calls < 0 {
		return context.Canceled
	}
	return nil
}

// TestContextStopsTheSimplex: a Solver with a Context checks it at its
// first pivot and every 1,024 after, on the dense network and on the
// coarse-to-fine path, and stops with the context's error; a live context
// changes nothing (same cost and pivots as none).
func TestContextStopsTheSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y, p, q := farCase(rng, 3, 40, 40)
	a, b := randDist(rng, 60, true, false), randDist(rng, 70, true, false)
	cost := make([]float64, len(a)*len(b))
	for k := range cost {
		cost[k] = rng.Float64()
	}
	solves := map[string]func(s *Solver) (Result, error){
		"dense":  func(s *Solver) (Result, error) { return s.SolveMatrix(a, b, cost) },
		"sparse": func(s *Solver) (Result, error) { s.path = pathSparse; return s.SolveCommon(x, y, p, q) },
	}
	for name, solve := range solves {
		var plain Solver
		want, err := solve(&plain)
		if err != nil {
			t.Fatal(err)
		}
		if want.Pivots <= 1024 && name == "sparse" {
			t.Fatalf("%s: %d pivots, too few to see the second check", name, want.Pivots)
		}
		live := Solver{Context: context.Background()}
		if got, err := solve(&live); err != nil || got.Cost != want.Cost || got.Pivots != want.Pivots {
			t.Errorf("%s with a live context: %v, %d pivots, %v; want %v, %d pivots", name, got.Cost, got.Pivots, err, want.Cost, want.Pivots)
		}
		for calls, at := range map[int]string{0: "after 0 pivots", 1: "after 1024 pivots"} {
			if calls == 1 && want.Pivots <= 1024 {
				continue
			}
			s := Solver{Context: &errAfter{context.Background(), calls}}
			_, err := solve(&s)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), at) {
				t.Errorf("%s, context done at check %d: %v, want a stop %s", name, calls+1, err, at)
			}
		}
	}
}
