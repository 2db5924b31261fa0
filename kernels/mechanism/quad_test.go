package mechanism

import (
	"math"
	"strings"
	"testing"
)

func TestGaussRuleExactForPolynomials(t *testing.T) {
	// An n-point Gauss rule integrates x^k exactly for k <= 2n-1; the
	// integral of x^k over [-1, 1] is 2/(k+1) for even k and 0 for odd k.
	for _, n := range []int{1, 2, 5, 10, 20} {
		r := newGaussRule(n)
		for k := 0; k <= 2*n-1; k++ {
			got := r.apply(func(x float64) float64 { return math.Pow(x, float64(k)) }, -1, 1)
			want := 0.0
			if k%2 == 0 {
				want = 2 / float64(k+1)
			}
			if math.Abs(got-want) > 1e-14 {
				t.Errorf("n=%d: integral of x^%d = %v, want %v", n, k, got, want)
			}
		}
	}
}

func TestAdaptiveReachesTolerance(t *testing.T) {
	q := newAdaptive(1e-12)
	// A sharp peak: the integral of exp(-a x^2) over [-3, 3] is
	// sqrt(pi/a) erf(3 sqrt(a)).
	a := 400.0
	got, err := q.integrate(func(x float64) (float64, float64) { v := math.Exp(-a * x * x); return v, v }, -3, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt(math.Pi/a) * math.Erf(3*math.Sqrt(a))
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("got %v, want %v (rel %g)", got, want, math.Abs(got-want)/want)
	}
}

func TestGammaDiffsMatchQuadrature(t *testing.T) {
	// d_n is the integral of u^(n-1) e^{-u} / (n-1)! over [a, b]: compare
	// with a 40-point Gauss rule on [a, b] (split in pieces of length <= 1)
	// over short, long, near-origin and far intervals.
	g := newGaussRule(40)
	short := newGaussRule(8)
	fact := []float64{1, 1, 2, 6}
	for _, ab := range [][2]float64{{0, 1e-3}, {0, 0.3}, {0.2, 0.2001}, {0, 5}, {3, 3.5}, {3, 9}, {40, 40.7}, {250, 251.5}, {600, 600.2}} {
		a, b := ab[0], ab[1]
		d2, d3, d4, _, _, _ := gammaDiffs(a, b, short)
		for n, got := range map[int]float64{2: d2, 3: d3, 4: d4} {
			want := 0.0
			for lo := a; lo < b; lo += 1 {
				hi := math.Min(lo+1, b)
				want += g.apply(func(u float64) float64 { return math.Pow(u, float64(n-1)) * math.Exp(-u) / fact[n-1] }, lo, hi)
			}
			if math.Abs(got-want) > 1e-13*want {
				t.Errorf("n=%d [%v, %v]: %v, quadrature %v (rel %.2g)", n, a, b, got, want, math.Abs(got-want)/want)
			}
		}
	}
	// Unbounded: Q_n(a).
	d2, _, d4, _, _, _ := gammaDiffs(2, math.Inf(1), short)
	if want := math.Exp(-2) * 3; math.Abs(d2-want) > 1e-15 {
		t.Errorf("Q_2(2) = %v, want %v", d2, want)
	}
	if want := math.Exp(-2) * (1 + 2 + 2 + 8.0/6); math.Abs(d4-want) > 1e-15 {
		t.Errorf("Q_4(2) = %v, want %v", d4, want)
	}
}

// apply2 integrates both outputs, each exactly for polynomials of degree
// up to 2n-1, on an interval away from the origin.
func TestGaussRuleApply2BothOutputs(t *testing.T) {
	r := newGaussRule(6)
	a, b := 0.5, 2.3
	for k := 0; k <= 11; k++ {
		f := func(x float64) (float64, float64) { return math.Pow(x, float64(k)), 3 * math.Pow(x, float64(11-k)) }
		u, v := r.apply2(f, a, b)
		wantU := (math.Pow(b, float64(k+1)) - math.Pow(a, float64(k+1))) / float64(k+1)
		wantV := 3 * (math.Pow(b, float64(12-k)) - math.Pow(a, float64(12-k))) / float64(12-k)
		if math.Abs(u-wantU) > 1e-13*wantU || math.Abs(v-wantV) > 1e-13*wantV {
			t.Errorf("k=%d: apply2 = %v, %v; want %v, %v", k, u, v, wantU, wantV)
		}
	}
}

// The adaptive rule meets its relative tolerance on the whole integral for
// a piecewise smooth integrand: a kink |x - c| at an irrational point,
// which the bisection never hits, on [s, s+L] near and far from the
// origin, short and long. The exact integral is (δ² + (L-δ)²)/2, δ = c - s.
func TestAdaptiveKinkMeetsTolerance(t *testing.T) {
	const relTol = 1e-10
	q := newAdaptive(relTol)
	for _, sl := range [][2]float64{{0, 1}, {10, 1}, {-40, 1}, {0, 8}, {-3, 16}, {3, 0.125}} {
		s, l := sl[0], sl[1]
		delta := l / math.Pi
		c := s + delta
		got, err := q.integrate(func(x float64) (float64, float64) { v := math.Abs(x - c); return v, v }, s, s+l)
		if err != nil {
			t.Fatalf("[%v, %v]: %v", s, s+l, err)
		}
		want := (delta*delta + (l-delta)*(l-delta)) / 2
		if math.Abs(got-want) > relTol*want {
			t.Errorf("[%v, %v]: %.17g, want %.17g (rel %.2g)", s, s+l, got, want, math.Abs(got-want)/want)
		}
	}
}

// The adaptive rule refuses what it cannot integrate, saying why: a
// divergent integral (a pole at either end of the interval: the two rules still
// disagree wildly on the sliver left at the maximum depth) and an
// integrand that is infinite on part of the interval.
func TestAdaptiveRefusals(t *testing.T) {
	q := newAdaptive(1e-12)
	pole := func(x float64) (float64, float64) { v := 1 / (x - 0.5); return v, v }
	if v, err := q.integrate(pole, 0.5, 1); err == nil || !strings.Contains(err.Error(), "no convergence to relative 1e-12 on [0.5, 0.50000000") {
		t.Errorf("1/(x - 1/2) on [1/2, 1]: %v, %v; want a refusal (no convergence next to 1/2)", v, err)
	}
	rpole := func(x float64) (float64, float64) { v := 1 / (1 - x); return v, v }
	if v, err := q.integrate(rpole, 0, 1); err == nil || !strings.Contains(err.Error(), "no convergence to relative 1e-12 on [0.99999999") {
		t.Errorf("1/(1 - x) on [0, 1]: %v, %v; want a refusal (no convergence next to 1)", v, err)
	}
	inf := func(x float64) (float64, float64) {
		if x > 0.7 {
			return math.Inf(1), math.Inf(1)
		}
		return 1, 1
	}
	if v, err := q.integrate(inf, 0, 1); err == nil || !strings.Contains(err.Error(), "non-finite integral on [0, 1]") {
		t.Errorf("infinite beyond 0.7: %v, %v; want a refusal (non-finite)", v, err)
	}
}

// apply and apply2 map the rule's nodes affinely onto [a, b] (x -> m + h x,
// m the midpoint, h the half-width), which a rule that is not symmetric
// shows: the 1-point left-endpoint rule (node -1, weight 2) is the left
// rectangle rule.
func TestRuleNodesMapAffinely(t *testing.T) {
	left := gaussRule{x: []float64{-1}, w: []float64{2}}
	f := func(x float64) float64 { return x * x }
	if got, want := left.apply(f, 1, 3), 2*f(1); got != want {
		t.Errorf("left rectangle of x^2 on [1, 3]: %v, want %v", got, want)
	}
	u, v := left.apply2(func(x float64) (float64, float64) { return f(x), 2 * x }, 1, 3)
	if u != 2*f(1) || v != 2*2 {
		t.Errorf("left rectangle of (x^2, 2x) on [1, 3]: %v, %v; want %v, %v", u, v, 2*f(1), 4)
	}
	// gammaDiffs near the origin applies the rule it is given the same way.
	d2, d3, d4, _, _, _ := gammaDiffs(0.25, 0.75, left)
	e := math.Exp(-0.25)
	for n, p := range [][2]float64{{d2, 0.5 * e * 0.25}, {d3, 0.5 * e * 0.25 * 0.25 / 2}, {d4, 0.5 * e * 0.25 * 0.25 * 0.25 / 6}} {
		if math.Abs(p[0]-p[1]) > 1e-15*p[1] {
			t.Errorf("left rectangle of d_%d on [0.25, 0.75]: %v, want %v", n+2, p[0], p[1])
		}
	}
}

// Newton's method converges quadratically from newGaussRule's guesses:
// every root of P_n, n = 1 to 80, in 1 to 6 iterations (the last one
// confirming), far below the cap of 100.
func TestLegendreRootNewtonIterations(t *testing.T) {
	for n := 1; n <= 80; n++ {
		for i := 0; i < (n+1)/2; i++ {
			x, _, it := legendreRoot(n, math.Cos(math.Pi*(float64(i)+0.75)/(float64(n)+0.5)))
			if it < 1 || it > 6 || !(x > 0 && x < 1) && !(n%2 == 1 && i == (n-1)/2) {
				t.Errorf("n=%d root %d: %v after %d iterations", n, i, x, it)
			}
		}
	}
}

// At the maximum depth the rule accepts a sliver whose two estimates
// disagree by at most 1e-6 of the 20-point value, and refuses one that
// disagrees by more, at any magnitude. The integrand is A on the 10-point
// rule's nodes and B everywhere else, so the 10-point estimate is A (b-a)
// and the 20-point one B (b-a) (the two rules share no node) up to the
// rounding of their weight sums: a disagreement of |1 - A/B| relative,
// chosen on either side of 1e-6, with B from 1e-4 to 1e4.
func TestAdaptiveSliverAcceptedOnlyWithinOneMillionth(t *testing.T) {
	const a, b = 0.0, 1.0
	for _, big := range []float64{1e-4, 1, 1e4} {
		for _, tc := range []struct {
			rel    float64
			accept bool
		}{{1e-8, true}, {5e-7, true}, {2e-6, false}, {1e-3, false}} {
			q := newAdaptive(1e-14)
			q.maxDepth = 0
			lowNodes := map[float64]bool{}
			h, m := (b-a)/2, (a+b)/2
			for _, x := range q.low.x {
				lowNodes[m+h*x] = true
			}
			f := func(x float64) (float64, float64) {
				if lowNodes[x] {
					return big * (1 - tc.rel), big
				}
				return big, big
			}
			got, err := q.integrate(f, a, b)
			switch {
			case tc.accept && (err != nil || math.Abs(got-big) > 1e-14*big):
				t.Errorf("B=%g, disagreement %g: %v, %v; want %v accepted", big, tc.rel, got, err, big)
			case !tc.accept && (err == nil || !strings.Contains(err.Error(), "no convergence")):
				t.Errorf("B=%g, disagreement %g: %v, %v; want a refusal (no convergence)", big, tc.rel, got, err)
			}
		}
	}
}
