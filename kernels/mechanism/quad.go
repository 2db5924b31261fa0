package mechanism

import (
	"fmt"
	"math"
)

// gaussRule is an n-point Gauss-Legendre rule on [-1, 1].
type gaussRule struct{ x, w []float64 }

// newGaussRule computes the nodes (roots of the Legendre polynomial P_n)
// by Newton's method from the Chebyshev-like initial guesses
// cos(pi (i - 1/4) / (n + 1/2)), with weights 2 / ((1 - x^2) P_n'(x)^2).
func newGaussRule(n int) gaussRule {
	r := gaussRule{x: make([]float64, n), w: make([]float64, n)}
	for i := 0; i < (n+1)/2; i++ {
		x, dp, _ := legendreRoot(n, math.Cos(math.Pi*(float64(i)+0.75)/(float64(n)+0.5)))
		w := 2 / ((1 - x*x) * dp * dp)
		r.x[i], r.w[i] = -x, w
		r.x[n-1-i], r.w[n-1-i] = x, w
	}
	return r
}

// legendreRoot polishes x into a root of P_n by Newton's method and
// returns it, P_n' there and the number of iterations (the tests bound
// it: quadratic convergence from the guesses of newGaussRule).
func legendreRoot(n int, x float64) (root, dp float64, iters int) {
	for iters < 100 {
		iters++
		// Three-term recurrence for P_n(x) and its derivative.
		p0, p1 := 1.0, x
		for k := 2; k <= n; k++ {
			p0, p1 = p1, (float64(2*k-1)*x*p1-float64(k-1)*p0)/float64(k)
		}
		if n == 1 {
			p0, p1 = 1, x
		}
		dp = float64(n) * (x*p1 - p0) / (x*x - 1)
		dx := p1 / dp
		x -= dx
		if math.Abs(dx) < 1e-16 {
			break
		}
	}
	return x, dp, iters
}

// apply integrates f over [a, b] with the rule.
func (r gaussRule) apply(f func(float64) float64, a, b float64) float64 {
	h, m := (b-a)/2, (a+b)/2
	s := 0.0
	for i, x := range r.x {
		s += r.w[i] * f(m+h*x)
	}
	return s * h
}

// apply2 integrates both outputs of f over [a, b] with the rule.
func (r gaussRule) apply2(f func(float64) (float64, float64), a, b float64) (float64, float64) {
	h, m := (b-a)/2, (a+b)/2
	s, t := 0.0, 0.0
	for i, x := range r.x {
		u, v := f(m + h*x)
		s += r.w[i] * u
		t += r.w[i] * v
	}
	return s * h, t * h
}

// adaptive integrates a non-negative, piecewise smooth integrand to a
// relative tolerance by recursive bisection, comparing a 10-point and a
// 20-point Gauss-Legendre rule on every subinterval. Because the integrand
// is non-negative, a relative tolerance on every piece is a relative
// tolerance on the sum.
type adaptive struct {
	low, high gaussRule
	relTol    float64
	maxDepth  int
}

func newAdaptive(relTol float64) *adaptive {
	return &adaptive{low: newGaussRule(10), high: newGaussRule(20), relTol: relTol, maxDepth: 30}
}

// noiseFactor times the integral of the integrand's rounding scale is the
// disagreement between the two rules that rounding alone can explain.
const noiseFactor = 1e-13

// integrate returns the integral of f over [a, b]. f returns the integrand
// and its rounding scale: the sum of the magnitudes of the terms that were
// added up to make the value (equal to the value when nothing cancels). A
// subinterval is accepted when its two estimates agree to relTol relative
// to the subinterval's value; or to relTol times a first estimate of the
// whole integral scaled by the subinterval's share of [a, b] (so that a
// region where the integrand is tiny cannot stall the recursion: the errors
// accepted this way add up to at most relTol times the whole); or to
// noiseFactor times the integral of the rounding scale (cancellation noise,
// which no subdivision removes).
func (q *adaptive) integrate(f func(float64) (float64, float64), a, b float64) (float64, error) {
	whole, _ := q.high.apply2(f, a, b)
	return q.step(f, a, b, q.relTol*math.Abs(whole)/(b-a), q.maxDepth)
}

func (q *adaptive) step(f func(float64) (float64, float64), a, b, absDensity float64, depth int) (float64, error) {
	lo, _ := q.low.apply2(f, a, b)
	hi, scale := q.high.apply2(f, a, b)
	if math.IsNaN(hi) || math.IsInf(hi, 0) {
		return 0, fmt.Errorf("quadrature: non-finite integral on [%v, %v]", a, b)
	}
	d := math.Abs(hi - lo)
	if d <= q.relTol*math.Abs(hi) || d <= absDensity*(b-a) || d <= noiseFactor*scale || math.Abs(hi) < 1e-300 {
		return hi, nil
	}
	if depth == 0 {
		// A sliver 2^-maxDepth of the interval, typically around a kink
		// that rounding put a few ulps away from a breakpoint: its
		// contribution is negligible unless the rules disagree wildly.
		if d <= 1e-6*math.Abs(hi) {
			return hi, nil
		}
		return 0, fmt.Errorf("quadrature: no convergence to relative %g on [%v, %v] (%v vs %v)", q.relTol, a, b, lo, hi)
	}
	m := (a + b) / 2
	l, err := q.step(f, a, m, absDensity, depth-1)
	if err != nil {
		return 0, err
	}
	r, err := q.step(f, m, b, absDensity, depth-1)
	return l + r, err
}
