package mechanism

import (
	"math"
	"sort"
	"strings"
	"testing"

	"privic/kernels"
)

// islandPrior is a prior like the elastic experiment's: a dense centre, a
// heavy isolated cell A with an empty ring around it, empty cells elsewhere.
func islandPrior(g kernels.Grid, ar, ac int) []float64 {
	p := make([]float64, g.Len())
	for i := range p {
		r, c := g.Cell(i)
		p[i] = math.Exp(-0.5 * math.Hypot(float64(r)-float64(g.Rows)*0.6, float64(c)-float64(g.Cols)*0.6))
		if (r*5+c)%7 == 0 {
			p[i] = 0
		}
	}
	ring := 0.0
	for i := range p {
		r, c := g.Cell(i)
		if max(abs(r-ar), abs(c-ac)) <= 1 {
			ring += p[i]
			p[i] = 0
		}
	}
	p[g.Index(ar, ac)] = ring
	normalise(p)
	return p
}

func TestElasticMetricIsAMetricMeetingItsRequirement(t *testing.T) {
	// d is a metric (symmetric, zero only on the diagonal, triangle
	// inequality, checked over all triples), and every elastic ball holds
	// the mass the requirement asks for: m(B_l(x)) >= min(req(l), M) for
	// every x and every radius l (the balls change only at the distances
	// taken, so checking l at each of them and just below suffices).
	g := mustGrid(t, 7, 9)
	prior := islandPrior(g, 1, 1)
	for _, m := range []Elastic{{}, {Floor: 0.2, Coverage: 0.5}, {Floor: 1e-4, Coverage: 3}} {
		d, err := m.Metric(g, prior)
		if err != nil {
			t.Fatal(err)
		}
		n := g.Len()
		for x := 0; x < n; x++ {
			if d[x*n+x] != 0 {
				t.Fatalf("%+v: d(%d,%d) = %v", m, x, x, d[x*n+x])
			}
			for y := 0; y < n; y++ {
				if d[x*n+y] != d[y*n+x] {
					t.Fatalf("%+v: d(%d,%d) = %v != d(%d,%d) = %v", m, x, y, d[x*n+y], y, x, d[y*n+x])
				}
				if x != y && !(d[x*n+y] > 0) {
					t.Fatalf("%+v: d(%d,%d) = %v, want > 0", m, x, y, d[x*n+y])
				}
				for z := 0; z < n; z++ {
					if d[x*n+z] > d[x*n+y]+d[y*n+z]+1e-12 {
						t.Fatalf("%+v: triangle inequality fails: d(%d,%d) = %v > %v + %v", m, x, z, d[x*n+z], d[x*n+y], d[y*n+z])
					}
				}
			}
		}
		mass, total, c := flooredMass(m, prior)
		// req is the inverse of the piecewise-linear lattice radius,
		// found by bisection.
		disc := newDiscRadius(float64(n) / c)
		req := func(l float64) float64 {
			lo, hi := 0.0, float64(n)/c
			if disc.radius(hi) <= l {
				return math.Inf(1)
			}
			for i := 0; i < 200; i++ {
				mid := (lo + hi) / 2
				if disc.radius(mid) <= l {
					lo = mid
				} else {
					hi = mid
				}
			}
			return lo * c * total / float64(n)
		}
		for x := 0; x < n; x++ {
			radii := append([]float64(nil), d[x*n:(x+1)*n]...)
			sort.Float64s(radii)
			for _, r := range radii {
				for _, l := range []float64{r, r * (1 - 1e-9)} {
					in := 0.0
					for y := 0; y < n; y++ {
						if d[x*n+y] <= l {
							in += mass[y]
						}
					}
					if want := math.Min(req(l), total); in < want*(1-1e-12) {
						t.Fatalf("%+v: ball of radius %v around %d holds %v < requirement %v", m, l, x, in, want)
					}
				}
			}
		}
	}
}

func TestElasticMetricStretchesCrowdsAndShrinksDeserts(t *testing.T) {
	// Uniform mass gives the Euclidean distance away from the edges (the
	// requirement is calibrated on lattice discs); moving mass into one
	// corner makes distances there longer and distances in the emptied
	// area shorter.
	g := mustGrid(t, 9, 9)
	n := g.Len()
	u, err := Elastic{}.Metric(g, uniformPrior(n))
	if err != nil {
		t.Fatal(err)
	}
	centre := g.Index(4, 4)
	// Targets whose own lattice disc through the centre fits in the grid
	// (at an edge a cell sees less mass and is brought closer).
	for _, z := range []int{g.Index(3, 4), g.Index(4, 6), g.Index(5, 5), g.Index(6, 5)} {
		if got, want := u[centre*n+z], kernels.Dist(g, centre, g, z); math.Abs(got-want) > 1e-12 {
			t.Errorf("uniform mass: elastic distance from the centre to %d is %v, Euclidean %v", z, got, want)
		}
	}
	p := make([]float64, n)
	for i := range p {
		r, c := g.Cell(i)
		p[i] = 1
		if r < 3 && c < 3 {
			p[i] = 40
		}
	}
	normalise(p)
	e, err := Elastic{}.Metric(g, p)
	if err != nil {
		t.Fatal(err)
	}
	dense := [2]int{g.Index(1, 1), g.Index(1, 2)}
	sparse := [2]int{g.Index(7, 7), g.Index(7, 8)}
	if e[dense[0]*n+dense[1]] <= u[dense[0]*n+dense[1]] || e[sparse[0]*n+sparse[1]] >= u[sparse[0]*n+sparse[1]] {
		t.Errorf("neighbours in the crowd at %v (uniform %v), in the desert at %v (uniform %v): want longer, shorter",
			e[dense[0]*n+dense[1]], u[dense[0]*n+dense[1]], e[sparse[0]*n+sparse[1]], u[sparse[0]*n+sparse[1]])
	}
}

func TestElasticChannelIsElasticallyPrivate(t *testing.T) {
	// The property the mechanism claims: C[x,z] <= e^{eps d_l(x,x')} C[x',z]
	// for all x, x', z, and it is nearly tight (the exponential mechanism
	// spends at least half of it); its Euclidean tight epsilon is within
	// the prior-free claim.
	g := mustGrid(t, 6, 8)
	prior := islandPrior(g, 4, 1)
	m := Elastic{}
	d, err := m.Metric(g, prior)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Len()
	for _, eps := range []float64{0.1, 1, 4} {
		ch, err := m.Channel(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		checkStochastic(t, "elastic-metric", ch, 1e-12)
		worst := 0.0
		for x := 0; x < n; x++ {
			for x2 := 0; x2 < n; x2++ {
				if x == x2 {
					continue
				}
				for z := 0; z < n; z++ {
					l := math.Log(ch.P[x*n+z]) - math.Log(ch.P[x2*n+z])
					ratio := l / (eps * d[x*n+x2])
					if ratio > 1+1e-12 {
						t.Fatalf("eps %v: ln C[%d,%d] - ln C[%d,%d] = %v above eps d_l = %v", eps, x, z, x2, z, l, eps*d[x*n+x2])
					}
					worst = math.Max(worst, ratio)
				}
			}
		}
		if worst < 0.5 {
			t.Errorf("eps %v: largest log-ratio only %v of eps d_l", eps, worst)
		}
		te, err := ch.TightEpsilon()
		if err != nil {
			t.Fatal(err)
		}
		if cl := m.Claim(g, g, eps); te > cl.Hi {
			t.Errorf("eps %v: Euclidean tight eps %v above the claim %v", eps, te, cl.Hi)
		}
	}
}

func TestElasticRefusesBadInput(t *testing.T) {
	g := mustGrid(t, 2, 3)
	p := uniformPrior(6)
	for _, c := range []struct {
		m     Elastic
		out   kernels.Grid
		prior []float64
		eps   float64
	}{
		{Elastic{}, g, p, 0},
		{Elastic{}, g, nil, 1},
		{Elastic{}, g.Widen(1), p, 1},
		{Elastic{Floor: -1}, g, p, 1},
		{Elastic{Coverage: math.Inf(1)}, g, p, 1},
	} {
		if _, err := c.m.Channel(g, c.out, c.prior, c.eps); err == nil {
			t.Errorf("%+v eps %v: no error", c.m, c.eps)
		}
	}
}

// flooredMass is the elastic metric's mass by definition: the prior plus
// the floor spread evenly, its total, and the coverage c.
func flooredMass(m Elastic, prior []float64) (mass []float64, total, c float64) {
	floor, c := m.params()
	n := len(prior)
	mass = make([]float64, n)
	for i, p := range prior {
		mass[i] = p + floor/float64(n)
		total += mass[i]
	}
	return mass, total, c
}

// latticeKnots lists, independently of newDiscRadius, the distinct
// distances r_1 < r_2 < ... from the origin to the points of Z^2 within
// squared distance maxSq (r_0 = 0 first) and, for each r_k, the number
// C_k of points at distance <= r_k. It works on integer squared distances,
// so the grouping of equal distances is exact.
func latticeKnots(maxSq int) (counts []int, radii []float64) {
	perSq := map[int]int{}
	L := int(math.Sqrt(float64(maxSq))) + 1
	for i := -L; i <= L; i++ {
		for j := -L; j <= L; j++ {
			if s := i*i + j*j; s <= maxSq {
				perSq[s]++
			}
		}
	}
	sqs := make([]int, 0, len(perSq))
	for s := range perSq {
		sqs = append(sqs, s)
	}
	sort.Ints(sqs)
	total := 0
	for _, s := range sqs {
		total += perSq[s]
		counts = append(counts, total)
		radii = append(radii, math.Sqrt(float64(s)))
	}
	return counts, radii
}

func TestDiscRadiusInterpolatesLatticeDiscs(t *testing.T) {
	// radius(t) passes through (C_k, r_{k+1}): C_k lattice points lie at
	// distance <= r_k, that is strictly inside the disc of radius r_{k+1};
	// it is linear in between (and from (0, 0) to (1, 1), the origin
	// alone). The table is exact on [0, 2 maxCount], the room its doc
	// promises, and holds O(maxCount) knots: at most 3 maxCount + 100
	// lattice points, not a multiple of the work.
	//
	// The check stops below squared distance 85 = 2²+9² = 6²+7², the
	// first where math.Hypot rounds two lattice points of one distance
	// apart (by an ulp), so that newDiscRadius counts them as two
	// distances and adds a knot that flattens the curve there.
	const exactBelowSq = 85
	counts, radii := latticeKnots(exactBelowSq - 1)
	for _, M := range []float64{1, 7, 30, 100, 450, 2000} {
		dr := newDiscRadius(M)
		check := func(t0, want float64) {
			t.Helper()
			if got := dr.radius(t0); math.Abs(got-want) > 1e-12*math.Max(1, want) {
				t.Fatalf("maxCount %v: radius(%v) = %v, want %v", M, t0, got, want)
			}
		}
		check(0, 0)
		check(0.25, 0.25)
		check(1, 1)
		for k := 0; k+2 < len(counts) && float64(counts[k+1]) <= 2*M; k++ {
			c0, c1 := float64(counts[k]), float64(counts[k+1])
			r0, r1 := radii[k+1], radii[k+2]
			check(c0, r0)
			check(c1, r1)
			// A quarter and three quarters of the way: the linear
			// interpolation, not just its midpoint symmetry.
			check(c0+(c1-c0)/4, r0+(r1-r0)/4)
			check(c0+3*(c1-c0)/4, r0+3*(r1-r0)/4)
		}
		last := dr.counts[len(dr.counts)-1]
		if last < 2*M || last > 3*M+100 {
			t.Errorf("maxCount %v: the table reaches %v lattice points, want within [2 maxCount, 3 maxCount + 100]", M, last)
		}
	}
}

func TestElasticClaimIsTheLatticeDiscRadius(t *testing.T) {
	// Claim.Hi = eps times the radius of a lattice disc of n/c cells. At a
	// knot it is a lattice distance: 9 points lie strictly inside radius 2
	// (the origin, 4 at 1, 4 at sqrt 2), 5 strictly inside sqrt 2; between
	// knots it interpolates (8 cells: three quarters of the way from
	// (5, sqrt 2) to (9, 2)). A small coverage asks for a disc of many
	// cells (200 on 50 cells at c = 1/4), whose radius comes from the
	// lattice itself.
	counts, radii := latticeKnots(84)
	lattice := func(cells float64) float64 {
		for k := 0; k+2 < len(counts); k++ {
			if c0, c1 := float64(counts[k]), float64(counts[k+1]); cells <= c1 {
				return radii[k+1] + (cells-c0)/(c1-c0)*(radii[k+2]-radii[k+1])
			}
		}
		t.Fatalf("no lattice knot reaches %v cells", cells)
		return 0
	}
	for _, c := range []struct {
		rows, cols int
		coverage   float64
		radius     float64
	}{
		{3, 3, 0, 2},
		{3, 6, 2, 2},
		{1, 10, 2, math.Sqrt2},
		{2, 2, 0.5, math.Sqrt2 + 0.75*(2-math.Sqrt2)},
		{5, 10, 0.25, lattice(200)},
	} {
		g := mustGrid(t, c.rows, c.cols)
		for _, eps := range []float64{0.5, 3} {
			cl := Elastic{Coverage: c.coverage}.Claim(g, g, eps)
			if want := eps * c.radius; cl.Lo != 0 || math.Abs(cl.Hi-want) > 1e-14*want {
				t.Errorf("%v, coverage %v, eps %v: claim [%v, %v], want [0, %v]", g, c.coverage, eps, cl.Lo, cl.Hi, want)
			}
		}
	}
}

// bruteElasticMetric recomputes ElasticMetric from its definition: the
// bound w(x,z) = reqInv(mass of the cells strictly closer to x than z),
// found by scanning every cell, then the shortest paths over edges
// min(w(x,z), w(z,x)) by relaxing until nothing changes.
func bruteElasticMetric(g kernels.Grid, mass []float64, reqInv func(float64) float64) []float64 {
	n := g.Len()
	w := make([]float64, n*n)
	for x := 0; x < n; x++ {
		for z := 0; z < n; z++ {
			if z == x {
				continue
			}
			inner := 0.0
			for y := 0; y < n; y++ {
				if kernels.Dist(g, x, g, y) < kernels.Dist(g, x, g, z) {
					inner += mass[y]
				}
			}
			w[x*n+z] = reqInv(inner)
		}
	}
	d := make([]float64, n*n)
	for x := 0; x < n; x++ {
		for z := 0; z < n; z++ {
			d[x*n+z] = math.Min(w[x*n+z], w[z*n+x])
		}
	}
	for changed := true; changed; {
		changed = false
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				for z := 0; z < n; z++ {
					if s := d[x*n+y] + d[y*n+z]; s < d[x*n+z]*(1-1e-14) {
						d[x*n+z] = s
						changed = true
					}
				}
			}
		}
	}
	return d
}

func TestElasticMetricMatchesBruteForce(t *testing.T) {
	// Elastic.Metric against the definition with the mechanism's mass
	// (prior + Floor/n) and requirement (c M/n lattice cells per unit),
	// for priors with ties in distance and empty cells.
	g := mustGrid(t, 5, 6)
	n := g.Len()
	for _, m := range []Elastic{{}, {Floor: 0.3, Coverage: 0.7}, {Floor: 2, Coverage: 2.5}} {
		for _, prior := range [][]float64{uniformPrior(n), islandPrior(g, 3, 1)} {
			got, err := m.Metric(g, prior)
			if err != nil {
				t.Fatal(err)
			}
			mass, total, c := flooredMass(m, prior)
			disc := newDiscRadius(float64(n) / c)
			want := bruteElasticMetric(g, mass, func(mu float64) float64 {
				return disc.radius(mu / (c * total / float64(n)))
			})
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, want[i]) {
					t.Fatalf("%+v: d(%d,%d) = %v, definition %v", m, i/n, i%n, got[i], want[i])
				}
			}
		}
	}
}

func TestElasticChannelIsTheExponentialMechanism(t *testing.T) {
	// C[x,z] = e^{-(eps/2) d_l(x,z)} / sum_z' e^{-(eps/2) d_l(x,z')},
	// entry by entry: the nearest report (z = x) is the most likely.
	g := mustGrid(t, 4, 5)
	n := g.Len()
	prior := islandPrior(g, 0, 3)
	m := Elastic{Floor: 0.05}
	d, err := m.Metric(g, prior)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.3, 2} {
		ch, err := m.Channel(g, g, prior, eps)
		if err != nil {
			t.Fatal(err)
		}
		for x := 0; x < n; x++ {
			z0 := 0.0
			for z := 0; z < n; z++ {
				z0 += math.Exp(-eps * d[x*n+z] / 2)
			}
			for z := 0; z < n; z++ {
				want := math.Exp(-eps*d[x*n+z]/2) / z0
				if got := ch.P[x*n+z]; math.Abs(got-want) > 1e-14 {
					t.Fatalf("eps %v: C[%d,%d] = %v, want %v", eps, x, z, got, want)
				}
			}
		}
	}
}

func TestElasticFloorAndCoverageZeroMeanDefault(t *testing.T) {
	// 0 selects the defaults (Floor 0.01, Coverage 1); negative, NaN and
	// infinite values are refused with the reason.
	g := mustGrid(t, 3, 4)
	prior := islandPrior(g, 1, 1)
	def, err := Elastic{}.Metric(g, prior)
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := Elastic{Floor: DefaultElasticFloor, Coverage: 1}.Metric(g, prior)
	if err != nil {
		t.Fatal(err)
	}
	for i := range def {
		if def[i] != explicit[i] {
			t.Fatalf("entry %d: %v with the zero value, %v with the defaults spelt out", i, def[i], explicit[i])
		}
	}
	for _, m := range []Elastic{{Floor: 0, Coverage: 2}, {Floor: 0.5, Coverage: 0}} {
		if _, err := m.Metric(g, prior); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
	for _, m := range []Elastic{
		{Floor: -0.01}, {Coverage: -1}, {Floor: math.NaN()}, {Coverage: math.NaN()},
		{Floor: math.Inf(1)}, {Coverage: math.Inf(1)}, {Floor: math.Inf(-1)},
	} {
		_, err := m.Metric(g, prior)
		if err == nil || !strings.Contains(err.Error(), "elastic-metric: Floor = ") || !strings.Contains(err.Error(), "must be finite and >= 0") {
			t.Errorf("%+v: error %v", m, err)
		}
	}
}
