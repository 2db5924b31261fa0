package mechanism

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"privic/kernels"
)

func laplaceDensity(eps, z1, z2 float64) float64 {
	return eps * eps / (2 * math.Pi) * math.Exp(-eps*math.Hypot(z1, z2))
}

func TestPlanarLaplaceRowsSumToOne(t *testing.T) {
	// The nearest-cell regions partition the plane, so every row must sum
	// to 1; this checks the quadrature of every entry at once, including
	// the unbounded border regions.
	base := mustGrid(t, 4, 5)
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, out := range []kernels.Grid{base, base.Widen(2), {Rows: 1, Cols: 3, Row0: 1, Col0: 1}} {
			for _, eps := range []float64{0.05, 0.7, 3, 12} {
				ch, err := PlanarLaplace{Point: pm}.Channel(base, out, nil, eps)
				if err != nil {
					t.Fatal(err)
				}
				checkStochastic(t, pm.String()+" "+out.String(), ch, 1e-11)
			}
		}
	}
}

func TestPlanarLaplaceCentreMatchesCartesianQuadrature(t *testing.T) {
	// For a square not containing the true point the density is smooth,
	// so a tensor Gauss rule in Cartesian coordinates is an independent
	// reference.
	in := mustGrid(t, 9, 9)
	const eps = 1.3
	ch, err := PlanarLaplace{Point: CellCentre}.Channel(in, in, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	g := newGaussRule(30)
	x := in.Index(4, 4)
	for _, off := range [][2]int{{0, 1}, {1, 1}, {2, -1}, {-3, 2}} {
		y := in.Index(4+off[0], 4+off[1])
		want := 0.0
		for i, u := range g.x {
			for j, v := range g.x {
				want += g.w[i] * g.w[j] / 4 * laplaceDensity(eps, float64(off[0])+u/2, float64(off[1])+v/2)
			}
		}
		got := ch.P[x*in.Len()+y]
		if math.Abs(got-want) > 1e-11*want {
			t.Errorf("offset %v: got %.15g, want %.15g", off, got, want)
		}
	}
}

func TestPlanarLaplaceUniformMatchesFourFoldQuadrature(t *testing.T) {
	// With the true point uniform in its cell, an entry for two distinct,
	// non-adjacent interior cells is a smooth 4-fold integral; a 12^4
	// tensor Gauss rule is an independent reference.
	in := mustGrid(t, 9, 9)
	for _, eps := range []float64{0.4, 2.5} {
		ch, err := PlanarLaplace{}.Channel(in, in, nil, eps)
		if err != nil {
			t.Fatal(err)
		}
		g := newGaussRule(12)
		x := in.Index(4, 4)
		for _, off := range [][2]int{{0, 2}, {2, 2}, {-2, 1}, {3, -3}} {
			y := in.Index(4+off[0], 4+off[1])
			want := 0.0
			for i1, u1 := range g.x {
				for i2, u2 := range g.x {
					for j1, v1 := range g.x {
						for j2, v2 := range g.x {
							w := g.w[i1] * g.w[i2] * g.w[j1] * g.w[j2] / 16
							want += w * laplaceDensity(eps, float64(off[0])+(v1-u1)/2, float64(off[1])+(v2-u2)/2)
						}
					}
				}
			}
			got := ch.P[x*in.Len()+y]
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("eps=%v offset %v: got %.15g, want %.15g (rel %.2g)", eps, off, got, want, math.Abs(got-want)/want)
			}
		}
	}
}

func TestPlanarLaplaceMatchesMonteCarlo(t *testing.T) {
	// Simulate what deployed code does (perturb the point, snap to the
	// nearest output cell) and compare the frequencies with the integrated
	// channel: every cell within 5 binomial standard deviations. The
	// negative control simulates with eps 10% too large and must have a
	// cell beyond that.
	in := mustGrid(t, 4, 4)
	out := in.Widen(1)
	rng := rand.New(rand.NewPCG(5, 17))
	const n = 100000
	// worst returns the largest deviation, in standard deviations, of n
	// simulated reports of x with noise simEps from the channel's row x.
	worst := func(pm PointModel, ch *kernels.Channel, x int, simEps float64) (float64, int) {
		counts := make([]int, out.Len())
		xr, xc := in.Abs(x)
		for i := 0; i < n; i++ {
			r, c := float64(xr), float64(xc)
			if pm == UniformInCell {
				r += rng.Float64() - 0.5
				c += rng.Float64() - 0.5
			}
			d1, d2 := PlanarNoise(rng, simEps)
			counts[Snap(out, r+d1, c+d2)]++
		}
		w, wy := 0.0, -1
		for y, k := range counts {
			p := ch.P[x*out.Len()+y]
			sd := math.Sqrt(p * (1 - p) / n)
			if z := (math.Abs(float64(k)/n-p) - 1.0/n) / sd; z > w {
				w, wy = z, y
			}
		}
		return w, wy
	}
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, eps := range []float64{0.6, 2} {
			ch, err := PlanarLaplace{Point: pm}.Channel(in, out, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []int{0, in.Index(1, 2)} {
				if z, y := worst(pm, ch, x, eps); z > 5 {
					t.Errorf("%v eps=%v x=%d y=%d: Monte Carlo frequency %.1f sd from the channel", pm, eps, x, y, z)
				}
			}
			if z, _ := worst(pm, ch, in.Index(1, 2), 1.1*eps); z <= 5 {
				t.Errorf("%v eps=%v: negative control (noise for eps 10%% larger): largest deviation %.1f sd <= 5", pm, eps, z)
			}
		}
	}
}

func TestPlanarRadiusInvertsRadialCDF(t *testing.T) {
	for _, eps := range []float64{0.1, 1, 7} {
		for _, p := range []float64{1e-12, 1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-9} {
			r := PlanarRadius(p, eps)
			got := 1 - (1+eps*r)*math.Exp(-eps*r)
			if math.Abs(got-p) > 1e-12+1e-9*p {
				t.Errorf("eps=%v p=%v: CDF(r=%v) = %v", eps, p, r, got)
			}
		}
	}
}

func TestPlanarLaplaceTightEpsWithinClaim(t *testing.T) {
	in := mustGrid(t, 5, 6)
	for _, pm := range []PointModel{UniformInCell, CellCentre} {
		for _, eps := range []float64{0.3, 1, 2.5} {
			m := PlanarLaplace{Point: pm}
			ch, err := m.Channel(in, in, nil, eps)
			if err != nil {
				t.Fatal(err)
			}
			got := bruteTightEps(ch)
			c := m.Claim(in, in, eps)
			if got < c.Lo-1e-9 || got > c.Hi*(1+1e-9) {
				t.Errorf("%v eps=%v: tight eps %v outside claim [%v, %v]", pm, eps, got, c.Lo, c.Hi)
			}
			t.Logf("%v eps=%v: tight eps on %v = %.6f (ratio %.4f)", pm, eps, in, got, got/eps)
		}
	}
}

func TestSnap(t *testing.T) {
	g := kernels.Grid{Rows: 3, Cols: 4, Row0: -1, Col0: 2}
	cases := []struct {
		r, c float64
		want int
	}{
		{-1, 2, 0}, {-1.49, 2.49, 0}, {-1.51, 2.51, 1}, {-100, -100, 0}, {100, 100, g.Len() - 1},
		{0.2, 4.6, g.Index(1, 3)}, {1.7, 1e300, g.Index(2, 3)}, {math.NaN(), 3, 1},
	}
	for _, c := range cases {
		if got := Snap(g, c.r, c.c); got != c.want {
			t.Errorf("Snap(%v, %v) = %d, want %d", c.r, c.c, got, c.want)
		}
	}
}

// rectImages lists the 8 images of the rectangle [a1,b1] x [a2,b2] under
// the symmetries of the square (reflect either axis, exchange the axes),
// written out independently of canonicalRect.
func rectImages(r [4]float64) [][4]float64 {
	var out [][4]float64
	for _, f1 := range []bool{false, true} {
		for _, f2 := range []bool{false, true} {
			x := [2]float64{r[0], r[1]}
			y := [2]float64{r[2], r[3]}
			if f1 {
				x = [2]float64{-r[1], -r[0]}
			}
			if f2 {
				y = [2]float64{-r[3], -r[2]}
			}
			out = append(out, [4]float64{x[0], x[1], y[0], y[1]}, [4]float64{y[0], y[1], x[0], x[1]})
		}
	}
	return out
}

// canonicalRect picks, for every rectangle of an orbit (including empty,
// zero-width ones and unbounded ones), the same member of the orbit: the
// lexicographically smallest, so that the memo holds one entry per orbit.
func TestCanonicalRectIsTheOrbitMinimum(t *testing.T) {
	inf := math.Inf(1)
	rects := [][4]float64{
		{0.5, 1.5, 2.5, 3.5}, {-0.5, 0.5, -0.5, 0.5}, {1.5, 2.5, -3.5, -2.5},
		{-inf, -1.5, 0.5, 1.5}, {-inf, 2.5, -inf, -0.5}, {3.5, inf, -inf, inf},
		{0.5, 1.5, 0.5, 2.5},                       // the two intervals differ only in the upper end
		{1, 1, 2, 3}, {2, 3, -1, -1}, {0, 0, 0, 0}, // zero-width (empty)
	}
	for _, r := range rects {
		imgs := rectImages(r)
		want := slices.MinFunc(imgs, func(u, v [4]float64) int { return slices.Compare(u[:], v[:]) })
		for _, g := range imgs {
			got := canonicalRect(g[0], g[1], g[2], g[3])
			if got != want {
				t.Errorf("canonicalRect(%v) = %v, want the orbit minimum %v (orbit of %v)", g, got, want, r)
			}
		}
	}
}

// overlapSegments splits the noise line into pieces of positive length
// that tile [a-1/2, b+1/2], on each of which alpha + beta s is the length
// of [s-1/2, s+1/2] ∩ [a, b] (checked against that length directly).
func TestOverlapSegmentsTileTheOverlap(t *testing.T) {
	inf := math.Inf(1)
	overlap := func(s, a, b float64) float64 { return max(0, min(s+0.5, b)-max(s-0.5, a)) }
	for _, ab := range [][2]float64{{-0.5, 0.5}, {1.5, 2.5}, {-2.5, 1.5}, {-inf, -1.5}, {-inf, 2.5}, {0.5, inf}, {-3.5, inf}, {-inf, inf}} {
		a, b := ab[0], ab[1]
		segs := overlapSegments(a, b)
		if len(segs) == 0 || segs[0].lo != a-0.5 || segs[len(segs)-1].hi != b+0.5 {
			t.Errorf("[%v, %v]: segments %v do not span [%v, %v]", a, b, segs, a-0.5, b+0.5)
			continue
		}
		for k, s := range segs {
			if !(s.hi > s.lo) {
				t.Errorf("[%v, %v]: segment %d %+v is empty", a, b, k, s)
			}
			if k > 0 && segs[k-1].hi != s.lo {
				t.Errorf("[%v, %v]: segments %d and %d leave a gap or overlap: %v", a, b, k-1, k, segs)
			}
			lo, hi := max(s.lo, -50), min(s.hi, 50)
			for _, f := range []float64{0, 0.25, 0.5, 1} {
				z := lo + f*(hi-lo)
				if got, want := s.alpha+s.beta*z, overlap(z, a, b); math.Abs(got-want) > 1e-15 {
					t.Errorf("[%v, %v]: segment %+v at s = %v: length %v, want %v", a, b, s, z, got, want)
				}
			}
		}
	}
}

// slab reports a ray's intersection with a slab as empty when it has no
// length: a ray that only touches a face (tin == tout) adds nothing.
func TestSlabIntersection(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, dir, tin, tout float64
		wantIn, wantOut        float64
		ok                     bool
	}{
		{1, 2, 1, 0, math.Inf(1), 1, 2, true},
		{1, 2, -0.5, 0, math.Inf(1), 0, 0, false}, // points away
		{-2, -1, -0.5, 0, math.Inf(1), 2, 4, true},
		{1, 2, 1, 2, 5, 2, 2, false},   // touches the face hi at t = 2
		{1, 2, 1, 0.5, 1, 1, 1, false}, // touches the face lo at t = 1
		{-1, 3, 0, 0.5, 7, 0.5, 7, true},
		{1, 3, 0, 0.5, 7, 0.5, 7, false},
	} {
		tin, tout, ok := slab(tc.lo, tc.hi, tc.dir, tc.tin, tc.tout)
		if ok != tc.ok || (ok && (tin != tc.wantIn || tout != tc.wantOut)) {
			t.Errorf("slab(%v, %v, dir %v, [%v, %v]) = [%v, %v] %v, want [%v, %v] %v",
				tc.lo, tc.hi, tc.dir, tc.tin, tc.tout, tin, tout, ok, tc.wantIn, tc.wantOut, tc.ok)
		}
	}
}

// gammaDiffs keeps its relative accuracy on short intervals far from the
// origin (where Q_n(a) - Q_n(b) cancels), checked against a Gauss rule on
// [a, b]; and it is Q_n(a) for an unbounded interval, every order.
func TestGammaDiffsShortFarIntervals(t *testing.T) {
	g := newGaussRule(30)
	short := newGaussRule(8)
	fact := []float64{1, 1, 2, 6}
	for _, ab := range [][2]float64{{1.5, 1.5 + 1e-7}, {5, 5 + 1e-6}, {30, 30.001}, {2, 2.9}, {0.99, 1.01}} {
		a, b := ab[0], ab[1]
		d2, d3, d4, _, _, _ := gammaDiffs(a, b, short)
		for n, got := range []float64{d2, d3, d4} {
			k := float64(n + 1) // the power of u
			want := g.apply(func(u float64) float64 { return math.Pow(u, k) * math.Exp(-u) / fact[n+1] }, a, b)
			if math.Abs(got-want) > 1e-13*want {
				t.Errorf("d_%d on [%v, %v] = %.17g, want %.17g (rel %.2g)", n+2, a, b, got, want, math.Abs(got-want)/want)
			}
		}
	}
	for _, a := range []float64{1.5, 7} {
		d2, d3, d4, _, _, _ := gammaDiffs(a, math.Inf(1), short)
		ea := math.Exp(-a)
		for n, p := range [][2]float64{{d2, ea * (1 + a)}, {d3, ea * (1 + a + a*a/2)}, {d4, ea * (1 + a + a*a/2 + a*a*a/6)}} {
			if math.Abs(p[0]-p[1]) > 1e-15*p[1] {
				t.Errorf("Q_%d(%v) = %.17g, want %.17g", n+2, a, p[0], p[1])
			}
		}
	}
}

// gammaDiffs' rounding scales are the sums of the magnitudes of the terms
// its formula adds up, computed here from the formulas of its doc: the
// value itself where nothing cancels (near the origin, unbounded
// intervals), e^{-a} S_n(a) for long intervals (the larger of the two
// terms, within a factor e^{-1} of their sum) and
// e^{-a} [(1 - e^{-δ}) S_n(b) + δ P_n] for short ones.
func TestGammaDiffsRoundingScales(t *testing.T) {
	short := newGaussRule(8)
	sums := func(u float64) [3]float64 { return [3]float64{1 + u, 1 + u + u*u/2, 1 + u + u*u/2 + u*u*u/6} }
	for _, ab := range [][2]float64{{0, 0.4}, {0.3, 1}, {2, math.Inf(1)}, {1.5, 4}, {3, 9}, {0.5, 1.5}, {2, 2.5}, {1.2, 1.2001}, {20, 20.9}} {
		a, b := ab[0], ab[1]
		d2, d3, d4, s2, s3, s4 := gammaDiffs(a, b, short)
		d, s := [3]float64{d2, d3, d4}, [3]float64{s2, s3, s4}
		sa, sb := sums(a), sums(b)
		delta := b - a
		p := [3]float64{1, 1 + (a+b)/2, 1 + (a+b)/2 + (a*a+a*b+b*b)/6}
		for n := range 3 {
			var lo, hi float64 // the scale must lie in [lo, hi]
			switch {
			case b <= 1 || math.IsInf(b, 1):
				lo, hi = d[n], d[n]
			case delta >= 1:
				lo, hi = math.Exp(-a)*sa[n], math.Exp(-a)*sa[n]+math.Exp(-b)*sb[n]
			default:
				v := math.Exp(-a) * (-math.Expm1(-delta)*sb[n] + delta*p[n])
				lo, hi = v, v
			}
			if !(s[n] >= lo*(1-1e-14) && s[n] <= hi*(1+1e-14)) || !(s[n] >= d[n]) {
				t.Errorf("[%v, %v]: scale of d_%d = %.17g, want in [%.17g, %.17g] and >= d = %.17g", a, b, n+2, s[n], lo, hi, d[n])
			}
		}
	}
}

// The cost of rect: an empty (zero-width) rectangle costs no evaluation of
// the angular integrand; otherwise the angle is cut at the distinct angles
// of the axes and of the corners, every piece costs one evaluation (its
// middle ray), and a piece the rectangle subtends one adaptive step more
// (the 20-point estimate of the whole, then 10 and 20 points: accepted at
// once with a tolerance of 1/2). The rectangles have corners on the axes,
// so some corner angles repeat axis angles and must not add pieces.
func TestPlanarRectCost(t *testing.T) {
	pi, err := PlanarLaplace{Point: CellCentre, RelTol: 0.5}.integrator(mustGrid(t, 3, 3), mustGrid(t, 3, 3), 1.1)
	if err != nil {
		t.Fatal(err)
	}
	one := [4]float64{1, 0, 0, 0}
	for _, r := range [][4]float64{{1, 1, 0.5, 2}, {-3, 2, 0.5, 0.5}, {0, 0, -1, 1}} {
		pi.evals = 0
		if v, err := pi.rect(r[0], r[1], r[2], r[3], one); v != 0 || err != nil || pi.evals != 0 {
			t.Errorf("empty rectangle %v: %v, %v after %d evaluations, want 0 after none", r, v, err, pi.evals)
		}
	}
	step := len(pi.q.low.x) + 2*len(pi.q.high.x)
	for _, tc := range []struct {
		r                [4]float64
		pieces, subtends int
	}{
		// [0,1] x [1,2]: corners at π/2 (twice, an axis), atan2(1, 1) and
		// atan2(2, 1); pieces 0, π/4, atan2(2,1), π/2, π, 3π/2, 2π.
		{[4]float64{0, 1, 1, 2}, 6, 2},
		// [-2,0] x [-1,0]: corners at π, 3π/2 and the origin (axes) and
		// atan2(-1, -2).
		{[4]float64{-2, 0, -1, 0}, 5, 2},
		// [1,2] x [-1,1]: corners atan2(±1, 1), atan2(±1, 2).
		{[4]float64{1, 2, -1, 1}, 8, 4},
	} {
		pi.evals = 0
		v, err := pi.rect(tc.r[0], tc.r[1], tc.r[2], tc.r[3], one)
		if err != nil || !(v > 0) {
			t.Fatalf("rect %v: %v, %v", tc.r, v, err)
		}
		if want := tc.pieces + step*tc.subtends; pi.evals != want {
			t.Errorf("rect %v: %d evaluations, want %d (%d pieces, %d subtended)", tc.r, pi.evals, want, tc.pieces, tc.subtends)
		}
	}
}

// With strong noise (eps = 40) and the true point uniform in its cell, a
// far entry's angular integrand is a bilinear weight far from the origin,
// with large cancelling terms. An entry is, independently, the integral of
// the density times, along each axis, the overlap length of the unit cell
// shifted by the noise with the report region's interval [A, B] (B = +Inf
// for the last report row or column): piecewise linear with kinks at the
// integers, so a 60 x 60 Gauss rule on every unit square of the support
// (cut 3 cells beyond A + 1/2 when B is infinite: e^{-120} of the rest).
// The interior entries must meet the default relative tolerance (1e-12,
// here with a factor 2 of slack). (Border entries are unbounded regions
// whose bilinear terms are larger still; there the documented rounding
// floor, not RelTol, bounds the error: 4e-12 at the far corner.)
func TestPlanarLaplaceUniformStrongNoiseFarEntries(t *testing.T) {
	in := mustGrid(t, 6, 6)
	out := in.Widen(2)
	const eps = 40
	ch, err := PlanarLaplace{}.Channel(in, out, nil, eps)
	if err != nil {
		t.Fatal(err)
	}
	g := newGaussRule(60)
	// pieces returns the unit intervals of the support of the overlap
	// length with [a, b] and the overlap length itself.
	pieces := func(a, b float64) ([]float64, func(s float64) float64) {
		var lo []float64
		for s := a - 0.5; s < min(b+0.5, a+3.5); s++ {
			lo = append(lo, s)
		}
		return lo, func(s float64) float64 { return max(0, min(s+0.5, b)-max(s-0.5, a)) }
	}
	last := float64(out.Row0 + out.Rows - 1) // the same for columns
	for _, o := range [][2]int{{2, 3}, {4, 4}, {3, 5}, {5, 5}, {6, 4}} {
		var p1, p2 []float64
		var w1, w2 func(float64) float64
		bound := func(v int) float64 {
			if float64(v) == last {
				return math.Inf(1)
			}
			return float64(v) + 0.5
		}
		p1, w1 = pieces(float64(o[0])-0.5, bound(o[0]))
		p2, w2 = pieces(float64(o[1])-0.5, bound(o[1]))
		want := 0.0
		for _, q1 := range p1 {
			for _, q2 := range p2 {
				for i, u := range g.x {
					for j, v := range g.x {
						s1, s2 := q1+(u+1)/2, q2+(v+1)/2
						want += g.w[i] * g.w[j] / 4 * w1(s1) * w2(s2) * laplaceDensity(eps, s1, s2)
					}
				}
			}
		}
		x, y := in.Index(0, 0), out.IndexOf(o[0], o[1])
		got := ch.P[x*out.Len()+y]
		if math.Abs(got-want) > 2e-12*want {
			t.Errorf("offset %v: got %.17g, want %.17g (rel %.2g)", o, got, want, math.Abs(got-want)/want)
		}
		t.Logf("offset %v: rel %.2g", o, math.Abs(got-want)/want)
	}
}

// lambertWm1 solves w e^w = x on the lower branch (w <= -1) to rounding
// (relative 1e-15 (1 + |w|): e^w magnifies the rounding of w),
// and Halley's iteration converges cubically from its starting forms: over
// a sweep of the radial CDF's argument (x = (p-1)/e, p from 1e-16 to
// 1 - 1e-15, log-spaced at both ends) at most 6 iterations (2.5 on
// average) from the branch-point series (x < -1/4), where near the branch
// point the last steps are rounding noise, and at most 4 from the
// asymptotic form. At and below the branch point it is -1, at 0 -Inf.
func TestLambertWm1ConvergesFast(t *testing.T) {
	var xs []float64
	for e := -16.0; e < -0.3; e += 0.005 {
		p := math.Pow(10, e)
		xs = append(xs, (p-1)/math.E, -p/math.E)
	}
	xs = append(xs, -0.3, -0.26, -0.25, -0.2, -0.1, -1e-3, -1e-20, -1e-100, -1e-300)
	nSeries, sumSeries := 0, 0
	for _, x := range xs {
		w, it := lambertWm1Iter(x)
		limit := 4
		if x < -0.25 {
			limit = 6
			nSeries++
			sumSeries += it
		}
		if res := w*math.Exp(w) - x; !(w <= -1) || math.Abs(res) > 1e-15*(1-w)*math.Abs(x) || it < 1 || it > limit {
			t.Errorf("W_{-1}(%v) = %.17g: residual %.2g, %d iterations (1 to %d)", x, w, res/x, it, limit)
		}
	}
	if mean := float64(sumSeries) / float64(nSeries); mean > 2.5 {
		t.Errorf("%.2f iterations on average from the branch-point series, want at most 2.5", mean)
	}
	for _, x := range []float64{-1 / math.E, -0.5, -1} {
		if w := lambertWm1(x); w != -1 {
			t.Errorf("W_{-1}(%v) = %v, want -1", x, w)
		}
	}
	if w := lambertWm1(0); !math.IsInf(w, -1) {
		t.Errorf("W_{-1}(0) = %v, want -Inf", w)
	}
}
