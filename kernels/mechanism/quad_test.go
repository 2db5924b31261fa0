package mechanism

import (
	"math"
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
